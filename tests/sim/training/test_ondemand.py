"""Training on demand (sim.training.ondemand): a call that lacks weights is run again once they are
trained, each missing file trained once; without `train` the missing weights' error stands. Where
the training starts from is tests/strategies/test_store.py's."""
import pytest

from sim.rules import parse_rules
from sim.runs.defaults import TRAIN_TABLE_GAMES
from sim.sheets import load_sheet
from sim.training import ondemand
from sim.training.ondemand import Need, with_training
from strategies.learned import MissingWeights, weights_rules


@pytest.fixture
def trainings(monkeypatch):
    done = []
    monkeypatch.setattr(ondemand, "train_need", lambda need, **kw: done.append((need, kw)))
    return done


def lacking(*needs):
    """A call that raises MissingWeights for each of `needs` in turn until they are trained."""
    calls = []

    def call():
        calls.append(1)
        if len(calls) <= len(needs):
            sheet, players, rules = needs[len(calls) - 1]
            raise MissingWeights(load_sheet(sheet), players, parse_rules(rules))
        return "played"
    return call, calls


def test_each_missing_weights_file_is_trained_then_the_call_made_again(trainings):
    call, calls = lacking(("blue", 1, "jokers=6"), ("standard", 3, "joker-six"))
    assert with_training(call, threads=2, say=print) == "played" and len(calls) == 3
    assert [(n.sheet.name, n.players, n.rules) for n, _ in trainings] == [
        ("blue", 1, weights_rules("jokers=6", 1)), ("standard", 3, weights_rules("joker-six", 3))]
    assert trainings[0][1] == {"threads": 2, "progress": False, "say": print}


def test_a_file_still_missing_after_its_training_is_not_trained_again(trainings):
    call, _ = lacking(("blue", 1, "jokers=6"), ("blue", 1, "jokers=6"))
    with pytest.raises(MissingWeights):
        with_training(call)
    assert len(trainings) == 1


def test_without_train_the_missing_weights_error_stands(trainings):
    call, calls = lacking(("blue", 1, "jokers=6"))
    with pytest.raises(MissingWeights):
        with_training(call, train=False)
    assert trainings == [] and len(calls) == 1


def test_what_a_need_names():
    assert Need(load_sheet("blue"), 1, parse_rules("")).what == "the solo game on sheet 'blue'"
    assert Need(load_sheet("standard"), 4, parse_rules("jokers=6")).what == (
        "4 players on sheet 'standard' under the rules jokers=6")
    e = MissingWeights(load_sheet("green"), 2, parse_rules("joker-six"))
    assert Need.of(e) == Need(load_sheet("green"), 2, weights_rules("joker-six", 2))


def star_moved(name: str):
    """Built-in sheet `name` with one star moved to the box above or below it, of its colour: a
    valid sheet (every colour and column keeps its stars) that differs from `name` in 2 boxes."""
    from sim.sheets import parse_sheet
    sheet = load_sheet(name)
    rows = [list(r) for r in sheet.text.split("\n")]
    for col in range(15):
        row = int(sheet.star[:, col].argmax())
        for other in (row - 1, row + 1):
            if 0 <= other < 7 and sheet.colour[other, col] == sheet.colour[row, col]:
                rows[row][col], rows[other][col] = rows[row][col].lower(), rows[other][col].upper()
                return parse_sheet("\n".join("".join(r) for r in rows), "mine")
    raise AssertionError(f"no star of sheet {name!r} can move within its colour")


@pytest.mark.parametrize("name", ["standard", "blue"])
def test_a_near_copy_of_a_built_in_sheet_starts_from_its_weights(name):
    mine = star_moved(name)
    assert ondemand.near_copy(mine) == (load_sheet(name), 2)
    p = ondemand.plan(Need(mine, 2, weights_rules("", 2)))
    assert p.init.name == f"learned-{name}-2p.npz" and p.init_sheet == load_sheet(name)
    assert p.games == min(ondemand.WARM_GAMES[2], TRAIN_TABLE_GAMES[2]) and "near copy (2 boxes differ)" in p.how


def test_a_sheet_unlike_every_built_in_one_trains_as_before():
    from sheetgen import random_sheet
    sheet = random_sheet(3)
    from sim.sheets import BUILTIN_SHEETS
    assert min(ondemand.differing_boxes(sheet, load_sheet(n)) for n in BUILTIN_SHEETS) > ondemand.NEAR_BOXES
    assert ondemand.near_copy(sheet) is None and ondemand.near_copy(load_sheet("red")) is None
    assert ondemand.plan(Need(sheet, 2, weights_rules("", 2)))[:3] == (None, None, None)


def test_a_near_copy_trains_from_its_originals_weights(tmp_path, monkeypatch):
    """A tiny warm start really runs: the file records the original's weights as its start."""
    import numpy as np
    from strategies import store
    monkeypatch.setenv(store.ENV, str(tmp_path))
    monkeypatch.setattr(ondemand, "WARM_GAMES", {p: 256 for p in range(1, 7)})
    said = []
    out = ondemand.train_need(Need(star_moved("standard"), 1, weights_rules("", 1)), threads=1, say=said.append)
    assert "256 games from the shipped rulebook weights learned-standard.npz of sheet 'standard'" in said[0]
    with np.load(out) as f:
        assert str(f["init_name"]) == "learned-standard.npz" and int(f["games"]) == 256
