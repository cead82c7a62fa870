""""Did you mean ...?" (sim.suggest) for a mistyped name."""
from sim.suggest import did_you_mean


def test_the_closest_known_names_are_offered():
    assert did_you_mean("gredy", ["greedy", "random", "learned"]) == ": did you mean greedy?"
    assert did_you_mean("leaned", ["learned", "leaner", "random"]) == ": did you mean learned or leaner?"


def test_nothing_is_offered_when_no_name_is_close():
    assert did_you_mean("xyz", ["greedy", "random"]) == ""
    assert did_you_mean("greedy", []) == ""


def test_names_that_are_not_text_are_compared_as_text():
    assert did_you_mean(12345, [12346, 99, "x"]) == ": did you mean 12346?"
