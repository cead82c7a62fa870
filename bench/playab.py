"""Play speed beside a reference revision: does a change leave the run time as it was?

    python -m bench.playab [--rounds 3] [--reference 35df1d3]

For each round, one fresh process per tree (this checkout, and a `git worktree` of the reference
run by the same Python with the worktree first on the path) measures every row with
`bench.bench.games_per_second` (`play_chunk`, one thread, the median of 3 timed runs); the
two trees take turns going first. Each tree has a Numba cache of its own, filled in the first
round (compiling is never timed). The table gives each tree's best round and their ratio: the
best of several rounds, because the noise of a shared machine only ever slows a run down. About
1.5 minutes per process once compiled; the first round also compiles both trees.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from sim import numba_cache
from bench.bench import machine
from bench.coldstart import REFERENCE, reference_tree

#: (strategy, players); "make run" is make run's four-player line-up, seats rotated
ROWS = (("greedy", 1), ("heuristic", 1), ("learned", 1), ("random", 1), ("lookahead", 1),
        ("greedy", 4), ("heuristic", 4), ("learned", 4), ("lookahead", 4), ("make run", 4))

# Run inside the tree measured: only the names both revisions have (games_per_second, the line-up);
# the benchmark module is bench.bench, or in older trees sim.runs.bench.
_CHILD = """
import json, sys
try:
    from bench import bench
except ImportError:
    from sim.runs import bench
rates = []
for name, players in json.loads(sys.argv[1]):
    lineup = name == "make run"
    spec = list(bench.MAKE_RUN_LINEUP) if lineup else name
    rates.append(bench.games_per_second(spec, players, 3, seconds=float(sys.argv[2]), rotate=lineup))
print(json.dumps(rates))
"""


def _label(name: str, players: int) -> str:
    if name == "make run":
        return f"`make run`'s line-up, {players} players"
    return f"{name} {'solo' if players == 1 else f'{players} players'}"


def rates(tree: Path, cache: Path | None, rows=ROWS, seconds: float = 1.0) -> list[float]:
    """Games/s of each row, played by the code of `tree` in a fresh process with Numba cache
    `cache` (None: this process's), each timed run about `seconds` long."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    done = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(rows), str(seconds)], cwd=tree, env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(rounds: int = 3, reference: str = REFERENCE, rows=ROWS, report=print) -> list[dict]:
    """Each row's best games/s over `rounds` for this checkout and `reference`, and their ratio.
    `report` gets a line per process as it ends. RuntimeError if no worktree of `reference` can be made."""
    with tempfile.TemporaryDirectory() as tmp, reference_tree(Path(tmp), reference) as tree:
        if tree is None:
            raise RuntimeError(f"cannot make a git worktree of {reference} (is this a git clone that has it?)")
        trees = {"now": numba_cache.ROOT, reference: tree}
        best = {tag: [0.0] * len(rows) for tag in trees}
        for r in range(rounds):
            for tag in (list(trees) if r % 2 == 0 else list(trees)[::-1]):
                got = rates(trees[tag], Path(tmp) / f"cache-{tag}", rows)
                report(f"round {r + 1}, {tag}: " + ", ".join(f"{x:,.0f}" for x in got))
                best[tag] = [max(a, b) for a, b in zip(best[tag], got)]
    return [{"workload": _label(name, players),
             reference: round(before), "now": round(now), "ratio": round(now / before, 3)}
            for (name, players), before, now in zip(rows, best[reference], best["now"])]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.playab", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="processes per tree, alternated (default 3)")
    parser.add_argument("--reference", default=REFERENCE, help=f"the revision to compare with (default {REFERENCE})")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    try:
        table = compare(args.rounds, args.reference, report=lambda line: print(line, file=sys.stderr, flush=True))
    except (RuntimeError, subprocess.CalledProcessError) as e:
        sys.exit(f"error: {getattr(e, 'stderr', None) or e}")
    info = machine()
    print(f"{info['cpu']}, {info['cores']} cores; Python {info['python']}, numba {info['numba']}\n")
    print(f"| workload | {args.reference} | now | now / {args.reference} |\n|---|---|---|---|")
    for row in table:
        print(f"| {row['workload']} | {row[args.reference]:,} | {row['now']:,} | {row['ratio']:.3f} |")


if __name__ == "__main__":
    main()
