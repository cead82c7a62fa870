"""`tempered` (strategies.tempered): at temperature 0 it is learned's one-ply choice without dice
denial; warmer, its choices are drawn, the same for a seed, and far from the best when hot."""
import numpy as np
import pytest

from sim.runs.api import play_chunk
from sim.state import PS_SCORE


def scores(spec, players, games=100, seed=4):
    return play_chunk(seed, 0, games, [spec], players=players).seats[:, :, PS_SCORE]


@pytest.mark.parametrize("players", [1, 3])
def test_cold_it_plays_learned_s_one_ply_choice(players):
    assert np.array_equal(scores("tempered:temp=0,table_temp=0", players), scores("learned:deny=0", players))


def test_warm_its_draws_are_the_seed_s_and_hot_it_plays_far_worse():
    warm = scores("tempered:temp=1", 1)
    assert np.array_equal(warm, scores("tempered:temp=1", 1))
    assert not np.array_equal(warm, scores("tempered:temp=0", 1))
    assert not np.array_equal(warm, scores("tempered:temp=1", 1, seed=5))
    hot = scores("tempered:temp=1000", 1)
    assert hot.mean() < scores("tempered:temp=0", 1).mean() - 20
    # the table's temperature is its own: table_temp alone changes a table's games, not a solo one's
    assert np.array_equal(scores("tempered:temp=1,table_temp=5", 1), warm)
    assert not np.array_equal(scores("tempered:table_temp=5", 3), scores("tempered", 3))
