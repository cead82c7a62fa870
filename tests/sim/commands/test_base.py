"""What the commands share (sim.commands.base): a default told apart from the same value given,
files checked before long work, training on demand, and a dataset's rules."""
import inspect

import pytest

from sim.commands.base import Default, check_file, default, given, rules_of, trained, value
from sim.errors import SettingError
from sim.rules import parse_rules
from sim.runs.runner import run
from sim.sheets import load_sheet
from strategies.learned import MissingWeights


def test_a_default_is_told_apart_from_the_same_value_given():
    d = Default(200)
    assert value(d) == 200 == value(200) and repr(d) == "200"
    assert given(games=Default(10), seed=10, rules=None, strategy=Default("greedy")) == ["seed", "rules"]

    def command(*, games=Default(5), seed=0):
        pass

    assert default(command, "games") == 5 and default(command, "seed") == 0
    assert "games=5" in str(inspect.signature(command))        # a signature shows the value


def test_a_file_to_write_is_checked_before_any_work(tmp_path):
    check_file(tmp_path / "out.html")
    with pytest.raises(ValueError, match="is a folder: give a file name"):
        check_file(tmp_path)
    with pytest.raises(ValueError, match=r"cannot write .*out.html: folder .*nowhere does not exist"):
        check_file(tmp_path / "nowhere" / "out.html")


def missing():
    raise MissingWeights(load_sheet("blue"), 3, parse_rules("jokers=6"))


def test_missing_weights_say_how_to_train_them_in_the_caller_s_words():
    with pytest.raises(SettingError) as e:
        trained(missing, False, None, False, None)
    assert "add {train=True} to train them now" in e.value.text
    assert "add --train to train them now" in e.value.words(lambda name, on: "--" + name)

    def other():
        raise ValueError("something else")
    with pytest.raises(ValueError, match="^something else$"):
        trained(other, False, None, False, None)
    assert trained(lambda: 42, False, None, False, None) == 42


def test_with_train_the_call_goes_through_training_on_demand(monkeypatch):
    import sim.training.ondemand as ondemand
    calls = []
    monkeypatch.setattr(ondemand, "with_training",
                        lambda call, threads, progress, say: calls.append((threads, progress, say)) or call())
    assert trained(lambda: "played", True, 3, True, print) == "played"
    assert calls == [(3, True, print)]


def test_a_dataset_s_rules_are_its_own(tmp_path):
    run(tmp_path / "ds", games=4, players=1, strategies=["greedy"], rules="jokers=6")
    assert rules_of(tmp_path / "ds", None) == rules_of(tmp_path / "ds", "jokers=6") == parse_rules("jokers=6")
    with pytest.raises(SettingError, match="contradicts the dataset"):
        rules_of(tmp_path / "ds", "joker-six")
