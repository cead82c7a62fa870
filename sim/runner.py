"""Batch runs: play many games chunk by chunk and stream them into a Parquet dataset.

    run(out, games=..., players=..., strategies=[...], ...) -> manifest dict

Everything is validated (counts, sheet, strategies compiled, output folder)
before anything is created on disk. Chunk c holds games c*chunk_size ..;
its files are written atomically (sim.dataset), and manifest.json is
rewritten atomically at the start (status "running"), after every chunk
(games_done), and at the end ("complete", or "failed" / "interrupted").
An interrupted run keeps every finished chunk; run(..., resume=True) with the
same settings plays only the missing chunks, so the final dataset has exactly
the rows of an uninterrupted run.

If a strategy returns an illegal move or writes to the game (sim.guard), the
run stops with StrategyError: the chunks finished before are kept and the
manifest says "failed" with the message; if none was finished, the output
folder this run created is removed. Any other failure while playing (a
cluster's task that failed every retry, a lost scheduler) is RunFailed, the
manifest "failed" too.

Ctrl-C (sim.interrupts): the folders and the manifest are created together,
and the games are played with KeyboardInterrupt raised, so that the manifest
says "interrupted".
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import secrets
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numba

from . import api, interrupts, numba_cache
from .api import (
    DEFAULT_MAX_ROLLS,
    MAX_SEED,
    StrategyError,
    check_chunk,
    check_int,
    play_chunk,
)
from .dataset import (
    MANIFEST,
    DatasetError,
    _is_tmp,
    check_parts,
    done_chunks,
    games_table,
    open_store,
    players_table,
    read_manifest,
    remove_temporaries,
    turns_table,
    write_chunk,
    write_json,
)
from .replay import manifest_files
from .schema import TABLES
from .sheets import load_sheet, parse_sheet
from .state import MAX_SEATS
from .tables import build_tables

DEFAULT_GAMES = 100_000
#: Settings that determine the rows of a dataset; --resume requires them all equal.
SETTINGS = ("games", "players", "strategies", "rotate", "seed", "sheet", "max_rolls", "log_turns", "chunk_size")


class RunFailed(RuntimeError):
    """A run stopped by something other than its input: a Dask task that failed every retry, a
    lost scheduler, a full disk. The manifest says "failed"; the finished chunks are kept."""


def default_chunk_size(players: int, log_turns: bool) -> int:
    if log_turns:
        return 5_000 if players == 1 else 1_000
    return 50_000 if players == 1 else 10_000


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).astimezone().isoformat(timespec="seconds")


def versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version
    out = {"python": sys.version.split()[0]}
    for pkg in ("encore-sim", "numba", "numpy", "pyarrow", "pandas", "click"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


def git_revision() -> str | None:
    here = Path(__file__).resolve().parent
    try:
        rev = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], check=False, capture_output=True,
                             text=True, timeout=5)
        if rev.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                               check=False, capture_output=True, text=True, timeout=5)
        return rev.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def _strategy_info(resolved) -> dict:
    s = resolved.strategy
    info = {"spec": resolved.spec, "name": s.name, "description": s.description,
            "params": dict(zip(s.params, map(float, resolved.params)))}
    if resolved.file:
        info["file"] = resolved.file
        info["sha256"] = hashlib.sha256(Path(resolved.file).read_bytes()).hexdigest()
    return info


class Progress:
    """A one-line progress display on a stream (normally a terminal's stderr)."""

    def __init__(self, total: int, done: int = 0, stream=None, enabled: bool = True, unit: str = "games"):
        self.total, self.start_done, self.stream, self.enabled = total, done, stream or sys.stderr, enabled
        self.unit = unit
        self.t0 = time.monotonic()
        self.update(done)

    def update(self, done: int, note: str = "") -> None:
        if not self.enabled:
            return
        dt = time.monotonic() - self.t0
        rate = (done - self.start_done) / dt if dt > 0 else 0.0
        eta = f"{(self.total - done) / rate:,.0f} s" if rate > 0 else "?"
        pct = 100.0 * done / self.total if self.total else 100.0
        note = f"  {note}" if note else ""
        self.stream.write(f"\r{done:,}/{self.total:,} {self.unit} ({pct:.0f}%)  {rate:,.0f} games/s  ETA {eta}{note}   ")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def prepare(games, players, strategies, sheet, seed, chunk_size, max_rolls, rotate, log_turns, threads,
            files=None, checked=True):
    """Validate every argument (compiling the strategies, loading the sheet); touches no files.
    `files` maps a user file spec to the file a resumed run was started with."""
    games = check_int("games", games, 1, 2**40)
    if isinstance(strategies, str):
        strategies = [strategies]
    strategies = list(strategies)
    if not 1 <= len(strategies) <= MAX_SEATS:
        raise ValueError(f"give 1..{MAX_SEATS} strategies (one per seat, or one for all seats), "
                         f"got {len(strategies)}")
    if players is None:
        players = len(strategies)
    players = check_int("players", players, 1, MAX_SEATS)
    if len(strategies) not in (1, players):
        raise ValueError(f"{len(strategies)} strategies for {players} players: give one per seat, "
                         "or one for all seats")
    seed = secrets.randbits(32) if seed is None else check_int("seed", seed, 0, MAX_SEED)
    max_rolls = check_int("max-rolls", max_rolls, 1, 100_000)
    chunk_size = default_chunk_size(players, log_turns) if chunk_size is None else \
        check_int("chunk-size", chunk_size, 1, 10_000_000)
    max_threads = numba.config.NUMBA_NUM_THREADS
    threads = max_threads if threads is None else check_int("threads", threads, 1, max_threads)
    sheet_obj = load_sheet(sheet)
    from strategies import REGISTRY, resolve
    for s in strategies:
        # A dataset names its strategies by spec, to be replayed and resumed: an object made in a
        # script has no spec (its bare name could even be a built-in's).
        if not isinstance(s, str) and REGISTRY.get(getattr(s, "name", None)) is not s:
            raise ValueError("run() takes strategies as specs (a built-in name, path/to/file.py:function or "
                             "package.module:function), so that the dataset can be replayed and resumed; "
                             f"got {s!r:.80}")
    files = files or {}
    resolved = [resolve(s, files.get(s) if isinstance(s, str) else None, checked=checked) for s in strategies]
    line = api.lineup(resolved, sheet=sheet_obj, players=players, checked=checked)
    infos = [_strategy_info(r) for r in resolved]
    # Rotation only matters with several strategies at a table; store it as it acts.
    rotate = bool(rotate) and players > 1 and len(strategies) > 1
    settings = {
        "games": games, "players": players, "strategies": list(line.specs), "rotate": rotate,
        "seed": seed, "sheet": sheet_obj.name, "max_rolls": max_rolls, "log_turns": bool(log_turns),
        "chunk_size": chunk_size,
    }
    return settings, line, sheet_obj, infos, threads


@dataclass(frozen=True)
class ChunkJob:
    """Everything a process needs to play and write any chunk of a run (small and picklable).

    The strategies travel as specs and the sheet as its text, so a Dask worker
    resolves them itself (user strategy files must exist at the same path there).
    """
    store: object            # sim.dataset.LocalStore or ArrowStore
    settings: dict
    sheet_name: str
    sheet_text: str
    threads: int             # Numba threads per chunk
    files: tuple = ()        # per strategy of settings: the absolute path of its user file, or None
    checked: bool = True     # users' strategies compiled with bounds checking (sim.guard)

    def chunk_games(self, c: int) -> tuple[int, int]:
        size, n = self.settings["chunk_size"], self.settings["games"]
        return c * size, min(size, n - c * size)


#: (strategy specs, sheet name, sheet text) -> (Lineup, Sheet), per process.
_RESOLVED: dict = {}
_CELLS: dict = {}
#: Numba's default (workqueue) threading layer must not be entered by two
#: threads at once, e.g. a Dask worker with --nthreads > 1.
_KERNEL_LOCK = threading.Lock()


def _job_key(job: ChunkJob) -> tuple:
    return (tuple(job.settings["strategies"]), job.files, job.sheet_name, job.sheet_text, job.settings["players"],
            job.checked)


def _resolve(job: ChunkJob):
    key = _job_key(job)
    if key not in _RESOLVED:
        sheet = parse_sheet(job.sheet_text, job.sheet_name)
        _RESOLVED[key] = (api.lineup(list(key[0]), job.files or None, sheet, job.settings["players"], job.checked),
                          sheet)
    return _RESOLVED[key]


def play_one(job: ChunkJob, c: int) -> api.Chunk:
    """Play chunk c of a run (nothing is written); StrategyError if a strategy made an illegal move."""
    st = job.settings
    line, sheet_obj = _resolve(job)
    first, count = job.chunk_games(c)
    with _KERNEL_LOCK:
        # Numba's thread count is per calling thread: set it in the thread that plays.
        numba.set_num_threads(min(job.threads, numba.config.NUMBA_NUM_THREADS))
        chunk = play_chunk(st["seed"], first, count, line, players=st["players"], sheet=sheet_obj,
                           max_rolls=st["max_rolls"], rotate=st["rotate"], log_turns=st["log_turns"])
    check_chunk(chunk)
    return chunk


def write_one(job: ChunkJob, c: int, chunk: api.Chunk) -> int:
    """Write chunk c's files (atomically, games file last); return its games."""
    _, sheet_obj = _resolve(job)
    tables = {"games": games_table(chunk, sheet_obj.name), "players": players_table(chunk)}
    if job.settings["log_turns"]:
        tables["turns"] = turns_table(chunk, build_tables(sheet_obj), _CELLS)
    write_chunk(job.store, c, tables)
    return len(chunk.games)


def play_and_write(job: ChunkJob, c: int) -> int:
    """Play chunk c of a run and write its files (atomically, games file last); return its games.

    The one code path of the Dask tasks (sim.distributed) and of the local
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


def run(out, games=DEFAULT_GAMES, players=None, strategies=("greedy",), sheet="standard", seed=None,
        threads=None, chunk_size=None, max_rolls=DEFAULT_MAX_ROLLS, rotate=False, log_turns=False,
        resume=False, force=False, progress=False, command=None, on_chunk=None, scheduler=None,
        retries=3, checked=True) -> dict:
    """Play `games` games into the dataset at `out`; return the final manifest.

    `out` is a local folder or a filesystem URL (sim.dataset.open_store). With
    `scheduler` (a Dask scheduler address, or "local" / "local:N" for a
    LocalCluster of N worker processes on 127.0.0.1), every chunk is a Dask task
    that plays and writes it, retried up to `retries` times; `threads` is then
    the Numba threads per task (default 1). `checked`: users' strategies are compiled with
    bounds checking (an index out of range stops the run, naming the file and line).
    """
    store = open_store(out)
    if scheduler is not None and threads is None:
        threads = 1
    old = _resumable(store) if resume else None
    settings, line, sheet_obj, infos, threads = prepare(
        games, players, strategies, sheet, seed, chunk_size, max_rolls, rotate, log_turns, threads,
        files=manifest_files(old) if old else None, checked=checked)
    if scheduler is not None:
        retries = check_int("retries", retries, 0, 1000)
        from .distributed import check_reachable, import_distributed, local_workers
        import_distributed()
        if str(scheduler).startswith("local"):
            local_workers(str(scheduler))
        else:
            check_reachable(str(scheduler))
    store.check_writable()

    existing = store.is_dir() and bool(store.listdir())
    if old:
        _check_same(store, old, settings, sheet_obj, infos)
    elif existing and not force:
        raise ValueError(f"output folder {store} is not empty: use --resume to finish the run in it, "
                         "or --force to replace it")

    created = not store.exists()
    # From here on Ctrl-C is held back (interrupts.SHIELD) except while games are played: the
    # folders appear with their manifest, and the manifest always says how the run ended.
    with interrupts.shielded():
        return _play_into(store, old, created, existing and force and not resume, settings, line, sheet_obj, infos,
                          threads, scheduler, retries, progress, command, on_chunk, checked)


def _play_into(store, old, created, clear, settings, line, sheet_obj, infos, threads, scheduler, retries,
               progress, command, on_chunk, checked) -> dict:
    """run() once the arguments are checked: create or continue the dataset, play, write the manifest."""
    if clear:
        _clear(store)
    for name in ("games", "players") + (("turns",) if settings["log_turns"] else ()):
        store.makedirs(name)
    remove_temporaries(store)

    n = settings["games"]
    size = settings["chunk_size"]
    n_chunks = (n + size - 1) // size
    done = {c for c in done_chunks(store) if c < n_chunks}
    games_done = sum(min(size, n - c * size) for c in done)
    manifest = {
        "format": "encore-sim-dataset",
        "format_version": 1,
        "status": "running",
        # The command that started the run (a resume only finishes it: see "resumed").
        "command": old["command"] if old and old.get("command") else
        (command if command is not None else " ".join(sys.argv)),
        "settings": settings,
        "sheet": {"name": sheet_obj.name, "text": sheet_obj.text},
        "strategies": infos,
        "chunks": n_chunks,
        "games_done": games_done,
        "threads": threads,
        "bounds_checked": bool(checked),
        "versions": versions(),
        "git_revision": git_revision(),
        "kernel_sources": numba_cache.DIGEST,
        "started": old["started"] if old else _now(),
        "finished": None,
        "error": None,
    }
    if scheduler is not None:
        manifest["scheduler"] = str(scheduler)
    if old:
        manifest["resumed"] = old.get("resumed", []) + [_now()]
    write_json(store, manifest)

    files = tuple(info.get("file") for info in infos)
    job = ChunkJob(store, settings, sheet_obj.name, sheet_obj.text, threads, files, bool(checked))
    _RESOLVED[_job_key(job)] = (line, sheet_obj)
    todo = [c for c in range(n_chunks) if c not in done]
    if scheduler is None and threads > 1:
        finished = play_ahead(job, todo)
    elif scheduler is None:
        # One thread means one core: writing is not overlapped with playing.
        finished = ((c, play_and_write(job, c)) for c in todo)
    else:
        from .distributed import run_chunks
        finished = run_chunks(scheduler, job, todo, retries=retries)
    bar = Progress(n, games_done, enabled=progress)
    try:
        with interrupts.raising():
            for c, count in finished:
                done.add(c)
                games_done += count
                manifest["games_done"] = games_done
                write_json(store, manifest)
                bar.update(games_done)
                if on_chunk is not None:
                    on_chunk(c, games_done)
                interrupts.check()   # a Ctrl-C that a finaliser swallowed
    except StrategyError as e:
        bar.close()
        if not done and created:
            store.rmtree()
        else:
            manifest.update(status="failed", error=str(e), finished=_now())
            write_json(store, manifest)
        raise
    except KeyboardInterrupt:
        interrupts.clear()
        bar.close()
        manifest.update(status="interrupted", finished=_now())
        write_json(store, manifest)
        raise
    except Exception as e:
        bar.close()
        from .distributed import ClusterError
        error = (str(e) if isinstance(e, ClusterError) else f"{type(e).__name__}: {e}").strip().splitlines()[0]
        manifest.update(status="failed", error=error, finished=_now())
        write_json(store, manifest)
        raise RunFailed(f"the run stopped: {error}; its finished chunks are kept in {store}: finish it with "
                        f"`encore-sim run --out {store} --resume`") from e
    finally:
        close = getattr(finished, "close", None)
        if close is not None:
            close()  # a Dask run: cancel what is left, close the client (and a local cluster)
    bar.close()
    if scheduler is not None:
        remove_temporaries(store)  # leftovers of attempts on workers that died
    manifest.update(status="complete", finished=_now())
    write_json(store, manifest)
    return manifest


def _resumable(store) -> dict:
    """The manifest of the run in `store`, to be resumed; ValueError if there is none, or if a
    finished chunk is damaged (it would be skipped, and the dataset called complete)."""
    if not (store.is_dir() and store.listdir()):
        raise ValueError(f"cannot resume {store}: there is no run in it (the folder is missing or empty)")
    try:
        manifest = read_manifest(store)
        check_parts(store)
    except DatasetError as e:
        raise ValueError(f"cannot resume: {e}") from None
    return manifest


def _check_same(store, old: dict, settings: dict, sheet_obj, infos: list[dict]) -> None:
    """ValueError unless resuming would play the games the finished chunks were played with:
    the same settings, sheet, strategy files and parameters, and kernels."""
    stored = old.get("settings", {})
    for key in SETTINGS:
        if stored.get(key) != settings[key]:
            raise ValueError(f"cannot resume {store}: {key} is {settings[key]!r} here but "
                             f"{stored.get(key)!r} in its manifest")
    if old.get("sheet", {}).get("text") != sheet_obj.text:
        raise ValueError(f"cannot resume {store}: sheet {sheet_obj.name!r} differs from the one in its manifest")
    for now, then in zip(infos, old.get("strategies") or []):
        if not isinstance(then, dict):
            continue
        if then.get("sha256") not in (None, now.get("sha256")):
            raise ValueError(f"cannot resume {store}: the file of strategy {now['spec']!r} ({now['file']}) "
                             "has changed since the run started")
        if then.get("params") not in (None, now["params"]):
            raise ValueError(f"cannot resume {store}: strategy {now['spec']!r} has parameters {now['params']} "
                             f"here but {then['params']} in its manifest")
    if old.get("kernel_sources") not in (None, numba_cache.DIGEST):
        raise ValueError(f"cannot resume {store}: it was started with other versions of the engine or built-in "
                         f"strategies (kernel sources {old['kernel_sources']}, here {numba_cache.DIGEST})")


def _clear(store) -> None:
    """--force: remove a previous dataset's files (only those a run writes)."""
    ours = set(TABLES) | {MANIFEST}
    others = [name for name in store.listdir() if name not in ours and not name.endswith(".tmp")]
    if others:
        raise ValueError(f"--force: {store} holds files that are not part of a dataset "
                         f"({others[0]}); refusing to delete them")
    for name in TABLES:
        store.rmtree(name)
    for name in [MANIFEST] + [f for f in store.listdir() if _is_tmp(f)]:
        store.delete(name)


def stored_run_args(out) -> dict:
    """The settings of the dataset in `out` (for resuming with the stored arguments)."""
    return dict(read_manifest(out)["settings"])
