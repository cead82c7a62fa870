"""`encore-sim train`'s host side (sim.training.run): the step sizes, the line-up a table is
trained against, and the settings refused before any training, nothing written. Training itself:
tests/strategies/test_learned.py (solo) and test_table_features.py (tables)."""
import math

import numpy as np
import pytest

from sim.state import MAX_SEATS
from sim.training.run import check_step, table_lineup, train_file
from sim.training.table import OPPONENTS
from strategies.learned import DATA_W, N_PARAMS
from strategies.registry import resolve


def test_step_sizes_are_two_numbers_in_0_to_1():
    assert check_step((0.5, 0.03)) == (0.5, 0.03) and check_step(["1", 0.1]) == (1.0, 0.1)
    for bad, message in (((0.5,), "step must be two numbers"), ("ab", "step must be two numbers"),
                         (None, "step must be two numbers"), ((0, 0.1), "in \\(0, 1\\], got 0"),
                         ((0.1, 1.5), "got 1.5"), ((math.nan, 0.1), "got nan"), ((0.1, math.inf), "got inf")):
        with pytest.raises(ValueError, match=message):
            check_step(bad)


def test_a_table_is_trained_as_learned_without_denial_against_the_opponents():
    fns, kinds, params = table_lineup()
    learner = resolve("learned:deny=0")
    assert len(fns) == len(kinds) == len(params) == MAX_SEATS
    assert fns[0] is learner.fn and fns[len(OPPONENTS) + 1:] == (learner.fn,) * (MAX_SEATS - len(OPPONENTS) - 1)
    assert np.array_equal(params[0, :N_PARAMS], learner.params) and not params[0, N_PARAMS:].any()
    assert params.shape[1] > DATA_W          # room for the sheet's layout and the table weights
    for i, spec in enumerate(OPPONENTS, 1):
        r = resolve(spec)
        assert fns[i] is r.fn and np.array_equal(params[i, :len(r.params)], r.params)


@pytest.mark.parametrize("kw, message", [
    ({"players": 7}, "players"), ({"games": 0}, "games"), ({"seed": -1}, "seed"),
    ({"out": "w.txt"}, "must end in .npz"), ({"out": "nowhere/w.npz"}, "folder nowhere does not exist"),
    ({"out": "folder.npz"}, "it is a folder"), ({"step": (2, 0.1)}, "step sizes"),
    ({"init": "none.npz"}, "none.npz"), ({"sheet": "no-such-sheet"}, "no-such-sheet"),
])
def test_bad_settings_are_refused_and_nothing_is_written(tmp_path, monkeypatch, kw, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder.npz").mkdir()
    with pytest.raises(ValueError, match=message):
        train_file(**{"out": "w.npz", "games": 10, **kw})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.npz"]
