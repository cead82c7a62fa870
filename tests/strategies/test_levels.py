"""strategies/levels.py and strategies/tempered.py: play's levels are strictly ordered, solo and at a
table, the last one is learned itself, and a temperature of 0 plays learned's one-ply choice.

The levels are spaced widely (docs/levels.md: some 6 points of solo mean apart, and several points
of mean score at a table), so a few hundred games on common dice order them with a wide margin."""
import numpy as np
import pytest

from sim.runs.api import lineup, play_chunk
from sim.experiments.compare import candidate_results
from sim.state import PS_SCORE
from strategies.levels import LEVELS, level_of

SOLO_GAMES = 300
TABLE_GAMES = 800


def test_levels_are_strictly_ordered_solo():
    means = [play_chunk(71, 0, SOLO_GAMES, [lv.spec], players=1).seats[:, 0, PS_SCORE].mean() for lv in LEVELS]
    assert np.all(np.diff(means) > 2.0), means


def test_levels_are_strictly_ordered_at_a_table_against_learned():
    scores, wins = [], []
    for lv in LEVELS:
        line = lineup([lv.spec] + ["learned"] * 3, players=4)
        s, w = candidate_results(line, 72, 0, TABLE_GAMES, 4, line.sheet)
        scores.append(s.mean())
        wins.append(w.mean())
    assert np.all(np.diff(scores) > 0.3), scores
    assert wins[-1] > max(wins[:-1]) and wins[0] < min(wins[1:]), wins


def test_the_last_level_is_learned_and_levels_are_named_or_numbered():
    assert LEVELS[-1].spec == "learned" and len(LEVELS) >= 4
    assert level_of(1) is LEVELS[0] and level_of("Learned") is LEVELS[-1] and level_of("2") is LEVELS[1]
    for bad in (0, len(LEVELS) + 1, "expert level", True, 1.5):
        with pytest.raises(ValueError, match="level"):
            level_of(bad)


def test_a_temperature_of_zero_is_learned_s_one_ply_choice_solo():
    a = play_chunk(73, 0, 50, ["tempered:temp=0"], players=1, log_turns=True)
    b = play_chunk(73, 0, 50, ["learned"], players=1, log_turns=True)
    assert np.array_equal(a.log, b.log) and np.array_equal(a.seats, b.seats)
