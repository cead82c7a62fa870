"""strategies.registry: the built-ins it holds, a spec's parameters, and the documented example
of a user's strategy file (users' strategies at length: tests/test_user_strategies.py)."""
import re
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
