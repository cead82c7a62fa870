"""Many games in one call (sim.batch, through sim.runs.api.play_chunk): game g of a seed is the
same game whatever the threads, however the games are split into calls and blocks."""
import numba
import numpy as np
import pytest

from sim.batch import BLOCK
from sim.runs.api import play_chunk


def played(first, count, threads, log_turns=False):
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        return play_chunk(17, first, count, ["greedy", "random", "heuristic"], players=3, rotate=True,
                          log_turns=log_turns)
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("log_turns", [False, True])
def test_the_games_are_the_same_for_any_threads_and_split(log_turns):
    n = 2 * BLOCK + 5                       # blocks of BLOCK games, the last one short
    whole = played(0, n, 1, log_turns)
    assert np.array_equal(whole.seats, played(0, n, 2, log_turns).seats)
    parts = [played(0, BLOCK - 3, 2, log_turns), played(BLOCK - 3, n - BLOCK + 3, 2, log_turns)]
    assert np.array_equal(whole.seats, np.concatenate([p.seats for p in parts]))
    assert np.array_equal(whole.games, np.concatenate([p.games for p in parts]))
    if log_turns:
        assert np.array_equal(whole.log, np.concatenate([p.log for p in parts]))
        assert np.array_equal(whole.dice, np.concatenate([p.dice for p in parts]))
    # every seat's rotation: game g's seat s is strategy (s + g) % 3
    assert np.array_equal(whole.slots, (np.arange(3)[None, :] + np.arange(n)[:, None]) % 3)
