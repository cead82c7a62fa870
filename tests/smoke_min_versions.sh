#!/usr/bin/env bash
# The smoke test of the lowest dependency versions pyproject.toml allows (.ci/min-versions.txt):
# run in the virtual environment that has them (.ci/run builds it), it drives the installed
# `encore-sim` as a user would: a small run, its summary (also as a report), a comparison, one
# bad input, and a run on a local Dask cluster; then the play page's server tests (starlette and
# uvicorn), the test files that use hypothesis, sim.nbinline's (it patches Numba's inliner, whose
# layout must be that of every release allowed), the progress display's (tqdm's oldest release
# allowed) and the learning environments' checks (Gymnasium's check_env, PettingZoo's api_test,
# greedy through the vector env: the rl extra's floors).
# Usage: tests/smoke_min_versions.sh VENV
set -euo pipefail
venv=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
sim="$venv/bin/encore-sim"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

say() { printf '== %s\n' "$*"; }

say "versions"
"$venv/bin/python" - <<'PY'
from importlib.metadata import version
print(" ".join(f"{p} {version(p)}" for p in ("numba", "llvmlite", "numpy", "click", "pandas", "pyarrow", "scipy",
                                             "cma", "matplotlib", "tqdm", "starlette", "uvicorn", "dask",
                                             "distributed", "pytest", "hypothesis", "selenium", "gymnasium",
                                             "pettingzoo")))
PY

say "run"
"$sim" run -n 2000 -p 2 -s greedy -s heuristic --chunk-size 700 --log-turns -o "$work/ds"
say "summary"
# A chunk of more player rows than one row batch (65,536): summary re-cuts batches at game boundaries.
"$sim" run -n 40000 -p 2 -s greedy --chunk-size 40000 -q -o "$work/big"
"$sim" summary "$work/big" -f csv | head -3
"$sim" summary "$work/ds"
"$sim" summary "$work/ds" -f csv -o "$work/summary.csv"
test -s "$work/summary.csv"
"$sim" summary "$work/ds" --measures | tail -4     # the designer's measures: scipy's bootstrap at its floor
say "report"
"$sim" report "$work/ds" -o "$work/report.html"
test -s "$work/report.html"
say "compare"
"$sim" compare greedy random learned -n 1000   # learned: packed float32 weights, stack scratch
say "bad input: exit 2 and one line"
set +e
"$sim" run -n 10 -s no-such-strategy -o "$work/bad" 2>"$work/err"
code=$?
set -e
cat "$work/err"
if [ "$code" != 2 ] || [ "$(wc -l <"$work/err")" != 1 ]; then
    echo "expected exit 2 with a one-line error, got exit $code" >&2
    exit 1
fi
say "run on a local Dask cluster"
"$sim" run -n 400 -s greedy --chunk-size 200 --scheduler local:1 -q -o "$work/dask"
"$sim" summary "$work/dask" -f csv | head -3
say "the play page's server (starlette, uvicorn): who may play, and bad requests refused"
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/sim/play/test_server.py
say "tests with hypothesis, of the workaround of Numba's inliner, and of the progress display"
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/sim/test_engine.py -k "legal or crossing"
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/sim/test_nbinline.py
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/sim/runs/test_progress.py
say "the learning environments (the rl extra)"
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/sim/agents/test_envs.py -k "check_env or api_test or vector_env or illegal or in_progress"
