"""Independent items over threads, for kernels compiled without parallel=True.

A parallel=True kernel compiles its loop body into a function of its own, with a copy of
everything the body calls, which LLVM optimises again in the body and in the kernel's wrapper
(docs/performance.md, "Compile time"): about 10 s of a cold start for each research kernel.
Those kernels are instead compiled with nogil=True for a slice of the items, lo..hi-1, and
called here on contiguous slices by as many threads as Numba's thread count (the caller's and
pooled ones; numba.get_num_threads(), which every command's --threads sets). Each item is independent and
written to its own rows, so the results do not depend on the slicing or the thread count.
"""
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numba

from .nbinternals import JIT_DISABLED

#: Slices per thread: items differ in cost, and a thread that finishes early takes another.
SLICES_PER_THREAD = 4


def threads_now() -> int:
    """Numba's thread count for this thread; 1 in plain Python, whose stand-ins of the atomic
    counters (sim.batch) are not atomic."""
    return 1 if JIT_DISABLED else numba.get_num_threads()


def on_each_thread(kernel, *args) -> None:
    """kernel(*args) once on each of Numba's thread count of threads, at once: for a kernel that
    claims its own share of the work (sim.batch: blocks of games from an atomic counter)."""
    threads = threads_now()
    if threads == 1:
        kernel(*args)
        return
    with ThreadPoolExecutor(threads) as pool:
        for done in [pool.submit(kernel, *args) for _ in range(threads)]:
            done.result()


def over_threads(kernel, count: int, *args) -> None:
    """kernel(lo, hi, *args) for slices lo..hi-1 covering 0..count-1, on Numba's thread count:
    the calling thread and threads-1 pooled ones each take the next slice until none is left."""
    threads = max(1, min(threads_now(), count))
    if threads == 1:
        kernel(0, count, *args)
        return
    slices = min(count, threads * SLICES_PER_THREAD)
    bounds = iter([(count * k // slices, count * (k + 1) // slices) for k in range(slices)])
    claim = threading.Lock()

    def work():
        while True:
            with claim:
                lo, hi = next(bounds, (0, 0))
            if lo == hi:
                return
            kernel(lo, hi, *args)
    helpers = [_pool(threads - 1).submit(work) for _ in range(threads - 1)]
    try:
        work()
    finally:
        for done in helpers:
            done.result()


_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()
# A forked child has none of its parent's threads: it starts its own pools.
os.register_at_fork(after_in_child=_pools.clear)


def _pool(threads: int) -> ThreadPoolExecutor:
    """A pool of `threads` threads kept for the process: training calls over_threads for every
    batch of 512 games, where starting the threads anew each time cost 10-15 % of its time."""
    with _pools_lock:
        if threads not in _pools:
            _pools[threads] = ThreadPoolExecutor(threads, thread_name_prefix=f"encore-sim-{threads}")
        return _pools[threads]
