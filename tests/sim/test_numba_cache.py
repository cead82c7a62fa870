"""The two versions of the sources (sim/numba_cache.py): what each must and must not depend on."""
import subprocess
import sys
from pathlib import Path

import numpy as np

from sim.numba_cache import code_key, games_digest

ROOT = Path(__file__).resolve().parents[2]


def _tree(tmp_path, files):
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def test_games_digest_follows_rules_players_and_data_only(tmp_path):
    root = _tree(tmp_path, {"sim/engine.py": "x = 1\n", "sim/runs/runner.py": "x = 1\n",
                            "strategies/heuristic.py": "x = 1\n", "sim/research/rollouts.py": "x = 1\n",
                            "sim/training/solo.py": "x = 1\n"})
    data = root / "strategies" / "data"
    data.mkdir()
    np.savez_compressed(data / "w.npz", W=np.zeros(3))
    before = games_digest(root)
    for rel in ("sim/runs/runner.py", "sim/research/rollouts.py", "sim/training/solo.py"):
        (root / rel).write_text("x = 2\n")
        assert games_digest(root) == before, rel
    # New weights need no recompilation, but they play other games.
    np.savez_compressed(data / "w.npz", W=np.ones(3))
    assert games_digest(root) != before
    before = games_digest(root)
    (root / "strategies/heuristic.py").write_text("x = 2\n")
    assert games_digest(root) != before


def test_code_key_follows_the_file_and_what_it_imports(tmp_path):
    root = _tree(tmp_path, {
        "sim/__init__.py": "",
        "sim/state.py": "A = 1\n",
        "sim/engine.py": "from .state import A\n\ndef f():\n    from . import rng\n",
        "sim/rng.py": "B = 2\n",
        "strategies/__init__.py": "",
        "sim/research/clairvoyant.py": "from sim.engine import f\n",
    })
    engine, research = root / "sim/engine.py", root / "sim/research/clairvoyant.py"
    keys = code_key(engine, root), code_key(research, root)
    (root / "sim/research/clairvoyant.py").write_text("from sim.engine import f\n# a comment\n")
    assert code_key(engine, root) == keys[0]          # research edited: the engine keeps its code
    assert code_key(research, root) != keys[1]
    keys = code_key(engine, root), code_key(research, root)
    (root / "sim/rng.py").write_text("B = 3\n")       # imported inside a function, two levels down
    assert code_key(engine, root) != keys[0]
    assert code_key(research, root) != keys[1]


def test_a_users_file_is_keyed_by_the_helpers_it_imports(tmp_path):
    (tmp_path / "helper_for_key.py").write_text("W = 1\n")
    (tmp_path / "mine.py").write_text("from helper_for_key import W\n")
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import helper_for_key; "
            "from sim.numba_cache import code_key; print(code_key(sys.argv[1] + '/mine.py'))")
    key = lambda: subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                                 check=True, cwd=ROOT).stdout
    before = key()
    (tmp_path / "helper_for_key.py").write_text("W = 2\n")
    assert key() != before
