"""Bad input to the Python API raises a clear ValueError, never a crash in a kernel."""
import pytest

from sim import SheetError
from sim.runs import api as sim


@pytest.mark.parametrize(
    "args, message",
    [
        (([], "purple", 2), "unknown colour"),
        (([], "red", 0), "number must be"),
        (([], "red", 6), "number must be"),
        (([], "red", 2.5), "number must be"),
        ((["Z9"], "red", 2), "malformed cell name"),
        ((["H8"], "red", 2), "malformed cell name"),
        (([42], "red", 2), "malformed cell name"),
        (("H1", "red", 2), "iterable of cell names"),
    ],
)
def test_legal_placements_rejects_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        sim.legal_placements(*args)


def test_legal_placements_rejects_bad_sheets(tmp_path):
    with pytest.raises(ValueError, match="no sheet 'plaid'"):
        sim.legal_placements([], "red", 1, sheet="plaid")
    bad = tmp_path / "bad.txt"
    bad.write_text("gggyyyyGbbbOyyy\n" * 7)
    with pytest.raises(SheetError, match="colour"):
        sim.legal_placements([], "red", 1, sheet=str(bad))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(strategies=[]), "1..6 strategy specs"),
        (dict(strategies=["greedy"] * 7), "1..6 strategy specs"),
        (dict(strategies="greedy"), "1..6 strategy specs"),
        (dict(strategies=["nope"]), "unknown strategy 'nope'"),
        (dict(strategies=["greedy:speed=3"]), "has no parameter speed"),
        (dict(strategies=["greedy"], max_rolls=0), "max_rolls must be"),
        (dict(strategies=["greedy"], sheet="plaid"), "no sheet 'plaid'"),
        (dict(strategies=["greedy"], seed=-1), "seed must be"),
        (dict(strategies=["greedy"], game="3"), "game must be an integer"),
    ],
)
def test_play_game_rejects_bad_input(kwargs, message):
    args = dict(seed=1, game=0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        sim.play_game(**args)


def test_a_strategy_returning_an_illegal_index_is_named(tmp_path):
    bad = tmp_path / "bad_strategy.py"
    bad.write_text("def choose(st, ps, bb, cands, n, tab, params, rng):\n    return n\n")
    with pytest.raises(sim.StrategyError, match=r"bad_strategy.py:choose.*returned .* seed 4, game 2, roll 1"):
        sim.play_game(4, 2, [f"{bad}:choose", "greedy"])
