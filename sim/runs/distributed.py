"""Runs on a Dask cluster: one task per chunk, each playing and writing its chunk itself.

    run_chunks(scheduler, job, chunks, retries=3) -> iterator of (chunk, games), as they finish

sim.runs.runner.run(..., scheduler=ADDRESS) uses this; the client keeps the
manifest. Every task calls sim.runs.chunks.play_and_write, the same function the
local runner calls, so the rows are those of a local run. A task's files have
names determined by its chunk and are moved into place whole, so a task that
is retried (an exception: up to `retries` times; a worker that died: Dask
reschedules it, up to distributed.scheduler.allowed-failures times) replaces
what an earlier attempt may have written instead of duplicating games.

`scheduler` is a scheduler address (tcp://host:8786), or "local" / "local:N"
to start a LocalCluster of N single-threaded worker processes (default: one
per core) listening on 127.0.0.1 only, closed again at the end.

Dask (`pip install encore-sim[dask]`) is imported only here.
"""
from __future__ import annotations

import logging
import os
import uuid

from .api import StrategyError, play_chunk
from .chunks import play_and_write, resolve_job
from ..errors import SettingError
from .defaults import RETRIES

class ClusterError(RuntimeError):
    """The cluster could not play a chunk: its task failed every retry, or the scheduler is gone."""


def import_distributed():
    try:
        import distributed
    except ImportError:
        raise SettingError("{scheduler} needs Dask: pip install 'encore-sim[dask]'") from None
    return distributed


def local_workers(scheduler: str) -> int | None:
    """N of "local:N" (None for "local"); ValueError for a malformed one."""
    rest = scheduler[len("local"):]
    if not rest:
        return None
    if not rest.startswith(":") or not rest[1:].isdigit() or int(rest[1:]) < 1:
        raise SettingError(f"{{scheduler}} {scheduler}: expected local or local:N with N >= 1 workers")
    return int(rest[1:])


def check_reachable(scheduler: str, timeout: float = 5.0) -> None:
    """ValueError unless a TCP connection to the scheduler's address opens.

    Checked before the run creates any file, so a mistyped address is a
    one-line error rather than a waited-out connect and a failed dataset.
    """
    import socket
    from urllib.parse import urlsplit

    url = urlsplit(scheduler if "://" in scheduler else f"tcp://{scheduler}")
    try:
        host, port = url.hostname, url.port
    except ValueError:
        host = port = None
    if not host or not port:
        raise SettingError(f"{{scheduler}} {scheduler}: expected local, local:N or an address such as tcp://HOST:8786")
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as e:
        raise SettingError(f"{{scheduler}} {scheduler}: cannot reach the scheduler ({e.strerror or e})") from None


def connect(scheduler: str):
    """(client, cluster or None) for a scheduler address or "local[:N]"."""
    distributed = import_distributed()
    scheduler = str(scheduler)
    if scheduler == "local" or scheduler.startswith("local:"):
        n = local_workers(scheduler) or os.cpu_count() or 1
        # A terminal's Ctrl-C reaches every process of its group, and each worker would print a
        # KeyboardInterrupt traceback (this process closes them anyway). Their stderr is
        # /dev/null: fd 2 while they are started, which they inherit; everything they could
        # say that matters comes back to this process as a task's error.
        saved = os.dup(2)
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 2)
        os.close(quiet)
        try:
            cluster = distributed.LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                # The workers write to this terminal: only the run's own one-line messages, not
                # their logs of a task that failed (the error comes back here and is told once).
                silence_logs=logging.CRITICAL,
                # No NUMBA_NUM_THREADS in env: the nanny sets it after a spawned worker has imported the
                # caller's __main__ (and Numba, with the default), and the next compilation (a user's
                # strategy) then fails on the change. Each task runs on job.threads (1) anyway.
                dashboard_address=None)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        try:
            return distributed.Client(cluster), cluster
        except BaseException:
            cluster.close()
            raise
    try:
        return distributed.Client(scheduler, timeout="30s"), None
    except OSError as e:
        raise ValueError(f"cannot connect to the Dask scheduler at {scheduler}: {e}") from None


def chunk_task(c: int, job):
    """The Dask task of chunk c: ("ok", games) or ("strategy-error", message).

    An illegal move is returned, not raised, because retrying cannot help: the
    game would be played the same way again.
    """
    try:
        return "ok", play_and_write(job, c)
    except StrategyError as e:
        return "strategy-error", str(e)


def warm_up(job) -> None:
    """Compile (or load from the Numba cache) the kernels in this process by playing one game.

    Workers on this machine then load them from the cache instead of each compiling them.
    """
    line, sheet = resolve_job(job)
    st = job.settings
    play_chunk(st["seed"], 0, 1, line, players=st["players"], sheet=sheet, max_rolls=st["max_rolls"],
               rotate=st["rotate"], log_turns=st["log_turns"], rules=line.rules)


def run_chunks(scheduler, job, chunks, retries: int = RETRIES, task=chunk_task):
    """Play and write `chunks` on the cluster; yield (chunk, games) as each one finishes.

    Raises StrategyError for an illegal move, ClusterError when a chunk's task
    failed `retries` + 1 times or the scheduler is lost. Closing the iterator (or an error) cancels the tasks not finished and
    closes the client and a cluster started here.
    """
    chunks = list(chunks)
    if not chunks:
        return
    distributed = import_distributed()
    warm_up(job)
    client, cluster = connect(scheduler)
    futures = []
    try:
        token = uuid.uuid4().hex[:12]
        keys = [f"encore-sim-chunk-{c:06d}-{token}" for c in chunks]
        futures = client.map(task, chunks, job=job, key=keys, retries=retries)
        chunk_of = {f.key: c for f, c in zip(futures, chunks)}
        for future in distributed.as_completed(futures, loop=client.loop):
            try:
                status, value = future.result()
            except Exception as e:
                # The connection can be seen to close, or the client cancels what it waits for.
                if isinstance(e, distributed.comm.CommClosedError) or \
                        getattr(e, "reason", None) == "scheduler-connection-lost":
                    raise ClusterError(f"lost the connection to the Dask scheduler at {scheduler}") from None
                # Raised by the task itself, on every attempt.
                raise ClusterError(f"chunk {chunk_of[future.key]} failed {retries + 1} times on the cluster: "
                                   f"{type(e).__name__}: {e}") from e
            if status == "strategy-error":
                raise StrategyError(value)
            yield chunk_of[future.key], value
    finally:
        if futures:
            client.cancel(futures)
        client.close()
        if cluster is not None:
            cluster.close()
