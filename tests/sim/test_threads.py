"""sim.threads.over_threads: every item is done exactly once, whatever the count and threads,
and a failing slice fails the call."""
import numba
import numpy as np
import pytest
from numba import njit

from sim.threads import over_threads


@njit(nogil=True)
def _mark(lo, hi, out):
    for i in range(lo, hi):
        out[i] += i + 1


@pytest.mark.parametrize("threads", [1, 2])
def test_every_item_is_done_once(threads):
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        for count in [0, 1, 2, 3, 7, 8, 9, 61, 1000]:
            out = np.zeros(count, np.int64)
            over_threads(_mark, count, out)
            assert out.tolist() == list(range(1, count + 1))
    finally:
        numba.set_num_threads(before)


def test_a_failing_slice_fails_the_call():
    def kernel(lo, hi, out):
        if lo <= 5 < hi:
            raise ValueError("slice with item 5")
        out[lo:hi] = 1
    out = np.zeros(40, np.int64)
    with pytest.raises(ValueError, match="item 5"):
        over_threads(kernel, 40, out)
