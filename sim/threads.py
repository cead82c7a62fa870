"""Independent items over threads, for kernels compiled without parallel=True.

A parallel=True kernel compiles its loop body into a function of its own, with a copy of
everything the body calls, which LLVM optimises again in the body and in the kernel's wrapper
(docs/performance.md, "Compile time"): about 10 s of a cold start for each research kernel.
Those kernels are instead compiled with nogil=True for a slice of the items, lo..hi-1, and
called here on contiguous slices from Python threads, as many as Numba's thread count
(numba.get_num_threads(), which every command's --threads sets). Each item is independent and
written to its own rows, so the results do not depend on the slicing or the thread count.
"""
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
    """kernel(lo, hi, *args) for slices lo..hi-1 covering 0..count-1, on Numba's thread count."""
    threads = max(1, min(threads_now(), count))
    if threads == 1:
        kernel(0, count, *args)
        return
    slices = min(count, threads * SLICES_PER_THREAD)
    bounds = [count * k // slices for k in range(slices + 1)]
    with ThreadPoolExecutor(threads) as pool:
        for done in [pool.submit(kernel, lo, hi, *args) for lo, hi in zip(bounds, bounds[1:])]:
            done.result()
