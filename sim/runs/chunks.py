"""One chunk of a run: played, then written (the task a Dask worker runs, and the local runner's step).

    job = ChunkJob(store, settings, ...)     # small and picklable
    play_and_write(job, c) -> games           # chunk c's files, written atomically

sim.runs.runner (locally) and sim.runs.distributed (on a cluster) both use these, and import this module
rather than each other.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba

from . import api
from .api import check_chunk, play_chunk
from .chunk import Chunk, games_table, players_table, turns_table
from .dataset import done_chunks, write_chunk
from ..rules import Rules, parse_rules
from ..sheets import parse_sheet
from ..tables import build_tables


@dataclass(frozen=True)
class ChunkJob:
    """Everything a process needs to play and write any chunk of a run (small and picklable).

    The strategies travel as specs and the sheet as its text, so a Dask worker
    resolves them itself (user strategy files must exist at the same path there).
    """
    store: object            # sim.runs.dataset.LocalStore or ArrowStore
    settings: dict
    sheet_name: str
    sheet_text: str
    threads: int             # Numba threads per chunk
    files: tuple = ()        # per strategy of settings: the absolute path of its user file, or None
    checked: bool = True     # users' strategies compiled with bounds checking (sim.guard)

    def chunk_games(self, c: int) -> tuple[int, int]:
        size, n = self.settings["chunk_size"], self.settings["games"]
        return c * size, min(size, n - c * size)

    @property
    def n_chunks(self) -> int:
        size, n = self.settings["chunk_size"], self.settings["games"]
        return (n + size - 1) // size

    def chunks_found(self) -> set[int]:
        """The run's chunks whose files the store holds (numbers past its last chunk are not its own)."""
        return {c for c in done_chunks(self.store) if c < self.n_chunks}

    def games_in(self, chunks) -> int:
        """Games in these chunks of the run (the last chunk may be short)."""
        return sum(self.chunk_games(c)[1] for c in chunks)


#: (strategy specs, sheet name, sheet text) -> (Lineup, Sheet), per process.
_RESOLVED: dict = {}
_CELLS: dict = {}
#: Numba's default (workqueue) threading layer must not be entered by two
#: threads at once, e.g. a Dask worker with --nthreads > 1.
_KERNEL_LOCK = threading.Lock()


def remember(job: ChunkJob, line, sheet) -> None:
    """The Lineup and Sheet of a job, already resolved (by the process that starts the run)."""
    _RESOLVED[job_key(job)] = (line, sheet)


def job_key(job: ChunkJob) -> tuple:
    return (tuple(job.settings["strategies"]), job.files, job.sheet_name, job.sheet_text, job.settings["players"],
            job.checked, job_rules(job))


def job_rules(job: ChunkJob) -> Rules:
    """The rules a run's chunks are played under (its settings hold their canonical text; a
    manifest written before rule variants existed holds none: the rulebook)."""
    return parse_rules(job.settings.get("rules") or "")


def resolve_job(job: ChunkJob):
    key = job_key(job)
    if key not in _RESOLVED:
        sheet = parse_sheet(job.sheet_text, job.sheet_name)
        _RESOLVED[key] = (api.lineup(list(key[0]), job.files or None, sheet, job.settings["players"], job.checked,
                                     rules=job_rules(job)), sheet)
    return _RESOLVED[key]


def play_one(job: ChunkJob, c: int) -> Chunk:
    """Play chunk c of a run (nothing is written); StrategyError if a strategy made an illegal move."""
    st = job.settings
    line, sheet_obj = resolve_job(job)
    first, count = job.chunk_games(c)
    with _KERNEL_LOCK:
        # Numba's thread count is per calling thread: set it in the thread that plays.
        numba.set_num_threads(min(job.threads, numba.config.NUMBA_NUM_THREADS))
        chunk = play_chunk(st["seed"], first, count, line, players=st["players"], sheet=sheet_obj,
                           max_rolls=st["max_rolls"], rotate=st["rotate"], log_turns=st["log_turns"],
                           rules=line.rules)
    check_chunk(chunk)
    return chunk


def write_one(job: ChunkJob, c: int, chunk: Chunk) -> int:
    """Write chunk c's files (atomically, games file last); return its games."""
    _, sheet_obj = resolve_job(job)
    tables = {"games": games_table(chunk, sheet_obj.name), "players": players_table(chunk)}
    if job.settings["log_turns"]:
        tables["turns"] = turns_table(chunk, build_tables(sheet_obj, chunk.rules), _CELLS)
    write_chunk(job.store, c, tables)
    return len(chunk.games)


def play_and_write(job: ChunkJob, c: int) -> int:
    """Play chunk c of a run and write its files (atomically, games file last); return its games.

    The one code path of the Dask tasks (sim.runs.distributed) and of the local
    runner on one thread; on more threads the local runner pipelines the two
    halves (play_ahead).
    Raises StrategyError if a strategy made an illegal move (nothing is written then).
    """
    return write_one(job, c, play_one(job, c))


def play_ahead(job: ChunkJob, todo: list[int]):
    """(c, games) for each chunk of todo, played and written in order, the next chunk
    playing on a worker thread while this thread writes the last one.

    Writing Parquet runs on one thread; overlapped with the batch kernel (which
    releases the GIL) it no longer leaves the other cores idle between chunks.
    Only this thread writes, in order, so the files on disk at any moment are
    what play_and_write in a loop would have left. A chunk still playing when
    the caller stops (an error, Ctrl-C, close()) is waited for and dropped.
    """
    if not todo:
        return
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="encore-sim-play")
    try:
        ahead = pool.submit(play_one, job, todo[0])
        for i, c in enumerate(todo):
            chunk = ahead.result()
            if i + 1 < len(todo):
                ahead = pool.submit(play_one, job, todo[i + 1])
            count = write_one(job, c, chunk)
            del chunk
            yield c, count
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
