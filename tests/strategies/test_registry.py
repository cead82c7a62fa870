"""strategies.registry: the built-ins it holds, a spec's parameters, and the documented example
of a user's strategy file (users' strategies at length: tests/test_user_strategies.py)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from checker import check_game_log
from sim import engine
from sim.runs import api as sim
from sim.runs.api import play_chunk
from sim.state import PS_SCORE
from strategies import REGISTRY, resolve
from strategies import heuristic as H

SEED = 20261201
BUILTINS = ["random", "greedy", "heuristic", "lookahead"]
DOC = Path(__file__).resolve().parents[2] / "docs" / "strategies.md"


def test_registry_has_the_builtins():
    for name in BUILTINS:
        assert name in REGISTRY
        assert REGISTRY[name].description


def test_param_override_changes_play_and_unknown_params_raise():
    base = play_chunk(SEED, 0, 200, ["heuristic"], players=1).seats[:, 0, PS_SCORE]
    same = play_chunk(SEED, 0, 200, ["heuristic:solo_joker=1.65"], players=1).seats[:, 0, PS_SCORE]
    other = play_chunk(SEED, 0, 200, ["heuristic:solo_joker=0,solo_col=0.2"], players=1).seats[:, 0, PS_SCORE]
    assert np.array_equal(base, same)          # 1.65 is the default
    assert not np.array_equal(base, other)
    assert resolve("heuristic:solo_joker=0").params[list(H.PARAMS).index("solo_joker")] == 0.0
    for spec in ("heuristic:nope=1", "lookahead:joker=1", "greedy:x=2"):
        with pytest.raises(ValueError, match="no parameter"):
            resolve(spec)
    assert resolve("heuristic:").spec == "heuristic"


def test_documented_example_runs(tmp_path):
    """The guide's first example file in docs/strategies.md has no bit operation, loads as a user
    strategy and plays legal games."""
    text = DOC.read_text()
    code = re.search(r"<!-- docs-check: file rule_of_thumb.py -->\n```python\n(.*?)```", text, re.S).group(1)
    assert not re.search(r"<<|>>|[&|^~]|popcount|0x|\bBB_|\bCAND_|\bST_|\bPS_", code), code
    path = tmp_path / "rule_of_thumb.py"
    path.write_text(code)
    r = resolve(f"{path}:choose:near_h=3")
    assert list(r.params) == [3.0, 4.0, 5.0]
    log = sim.play_game(SEED, 0, [f"{path}:choose"])
    check_game_log(log, "standard")
    chunk = play_chunk(SEED, 0, 50, [f"{path}:choose", "greedy"], rotate=True)
    assert not chunk.games[:, engine.GR_ERROR].any()


SIBLING = '''
"""Beside the strategy files: what they import, as a script imports the modules in its folder."""
MIN_BOXES = 2
'''
COMPILED = '''
from sim.state import CAND_SUB
from strategies import strategy
from sibling_rules import MIN_BOXES


@strategy
def choose(st, ps, bb, cands, n, tab, params, rng):
    """The first placement of at least MIN_BOXES boxes, else pass."""
    for i in range(n):
        if tab.size[cands[i, CAND_SUB]] >= MIN_BOXES:
            return i
    return -1
'''
BATCHED = '''
import numpy as np

from strategies import batched, placement_table
from sibling_rules import MIN_BOXES


def setup(sheet, players, rules):
    return np.append(placement_table(sheet, rules)["boxes"] >= MIN_BOXES, True)


@batched(setup=setup)
def choose(obs, big):
    """The first legal placement of at least MIN_BOXES boxes, else pass."""
    return (obs["action_mask"] * big).argmax(axis=1)
'''


@pytest.mark.parametrize("kind, mode", [("compiled", []), ("compiled", ["--python"]), ("batched", [])])
def test_a_strategy_file_imports_the_modules_beside_it_from_any_working_directory(tmp_path, kind, mode):
    """A spec path.py:fn loads its file as Python runs a script: the file's folder first on the import
    path while it loads, so its sibling module is found from elsewhere, compiled, in plain Python
    (--python) and batched; the folder is not left on the path."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "sibling_rules.py").write_text(SIBLING)
    (folder / "mine.py").write_text(COMPILED if kind == "compiled" else BATCHED)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = ("import sys, cli\n"
            "try:\n"
            f"    cli.main(['compare', {str(folder / 'mine.py') + ':choose'!r}, 'greedy', '-n', '20', *{mode!r}])\n"
            "except SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            f"print({str(folder)!r} in sys.path)\n")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=elsewhere,
                         env={**os.environ, "PYTHONPATH": str(root)})
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[-1] == "False"
    assert any(line.split()[0] == "mine.py:choose" for line in lines if line.strip()), out.stdout
