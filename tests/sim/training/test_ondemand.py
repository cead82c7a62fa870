"""Training on demand (sim.training.ondemand): a call that lacks weights is run again once they are
trained, each missing file trained once; without `train` the missing weights' error stands. Where
the training starts from is tests/strategies/test_store.py's."""
import pytest

from sim.rules import parse_rules
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
