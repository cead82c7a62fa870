"""Fixtures shared by the whole test run."""
import math
import time

import numba
import pytest


@pytest.fixture(scope="session")
def games_lasting():
    """games_lasting(seconds, strategies, players, chunk=500, **play_options): a game count, in
    whole chunks of `chunk` and at least 12 of them, that a one-thread run of that line-up plays
    for at least `seconds` on this machine, measured now (its games alone: writing them adds). A test that signals a run once it sees a
    chunk written needs the run still going when the signal lands, however fast the machine."""
    from sim.runs.api import play_chunk

    def count(seconds, strategies, players, chunk=500, **options):
        before = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            play_chunk(1, 0, 10, strategies, players=players, rotate=True, **options)   # compiled
            start = time.perf_counter()
            play_chunk(1, 0, chunk, strategies, players=players, rotate=True, **options)
            per_chunk = time.perf_counter() - start
        finally:
            numba.set_num_threads(before)
        return chunk * max(12, math.ceil(seconds / per_chunk))
    return count
