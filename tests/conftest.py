"""Fixtures shared by the whole test run: a weights store of its own, one headless Chromium, one
Dask local cluster, and a game count that keeps a run going long enough to be signalled on any
machine."""
import os
import math
import time

import numba
import pytest


@pytest.fixture(scope="session", autouse=True)
def weights_store(tmp_path_factory):
    """The weights store of the whole run (and of the commands it starts): a folder of its own,
    never the user's (strategies.store). A test that needs an empty one sets ENCORE_SIM_WEIGHTS."""
    folder = tmp_path_factory.mktemp("weights-store")
    before = os.environ.get("ENCORE_SIM_WEIGHTS")
    os.environ["ENCORE_SIM_WEIGHTS"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("ENCORE_SIM_WEIGHTS", None)
    else:
        os.environ["ENCORE_SIM_WEIGHTS"] = before


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


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for every browser test (tests/helpers/browser.py): each open() is a new page."""
    from browser import Browser, find_browser
    binary = find_browser()
    if binary is None:
        pytest.fail("headless Chromium is needed for this test and was not found (chromium, chromium-browser or "
                    "google-chrome on PATH, or $CHROMIUM): install it with `apt-get install chromium`, as .ci/run "
                    "does")
    with Browser(binary) as b:
        yield b


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="session")
def cluster():
    """One Dask local cluster for the whole run: 2 single-threaded worker processes and a
    scheduler, all on loopback; always closed, and no worker left behind."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    pids = set()
    try:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        with distributed.Client(cluster) as client:
            pids |= set(client.run(os.getpid).values())
        yield cluster
    finally:
        try:
            with distributed.Client(cluster) as client:  # workers restarted after a kill have new pids
                pids |= set(client.run(os.getpid).values())
        finally:
            cluster.close()
    assert not [p for p in pids if _alive(p)], "worker processes left behind"
