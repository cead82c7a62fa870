"""Batch runs: play many games chunk by chunk and stream them into a Parquet dataset.

    run(out, games=..., players=..., strategies=[...], ...) -> manifest dict

Everything is validated (counts, sheet, strategies compiled, output folder)
before anything is created on disk. Chunk c holds games c*chunk_size ..;
its files are written atomically (sim.runs.dataset), and manifest.json is
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

Ctrl-C (sim.runs.interrupts): the folders and the manifest are created together,
and the games are played with KeyboardInterrupt raised, so that the manifest
says "interrupted".
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import subprocess
import sys
from pathlib import Path

from . import api, interrupts
from .. import numba_cache
from .api import StrategyError
from .chunks import ChunkJob, play_ahead, play_and_write, remember
from .dataset import (
    MANIFEST,
    DatasetError,
    is_tmp,
    check_parts,
    open_store,
    read_manifest,
    remove_temporaries,
    write_json,
)
from .progress import Progress
from .manifest import manifest_files, manifest_rules
from .schema import TABLES
from ..rules import rules_dict
from .settings import DEFAULT_MAX_ROLLS, STORED, Settings, check_int, default_chunk_size
from .defaults import RETRIES, ROTATE, RUN_GAMES, RUN_STRATEGY, SEED, SHEET
from ..errors import SettingError, Worded, setting
from strategies import REGISTRY, resolve

DEFAULT_GAMES = RUN_GAMES


class RunFailed(Worded, RuntimeError):
    """A run stopped by something other than its input: a Dask task that failed every retry, a
    lost scheduler, a full disk. The manifest says "failed"; the finished chunks are kept."""


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


def _strategy_info(resolved, label) -> dict:
    s = resolved.strategy
    info = {"spec": resolved.spec, "label": label, "name": s.name, "description": s.description,
            "params": dict(zip(s.params, map(float, resolved.params)))}
    if resolved.file:
        info["file"] = resolved.file
        info["sha256"] = hashlib.sha256(Path(resolved.file).read_bytes()).hexdigest()
    return info


def prepare(settings: Settings, files=None):
    """Resolve and compile the strategies of `settings`; touches no files. Returns the manifest's
    settings (sim.runs.settings.STORED, with the strategies' canonical specs), the Lineup and each
    strategy's manifest entry. `files` maps a user file spec to the file a resumed run was
    started with."""
    for s in settings.strategies:
        # A dataset names its strategies by spec, to be replayed and resumed: an object made in a
        # script has no spec (its bare name could even be a built-in's).
        if not isinstance(s, str) and REGISTRY.get(getattr(s, "name", None)) is not s:
            raise ValueError("run() takes strategies as specs (a built-in name, path/to/file.py:function or "
                             "package.module:function), so that the dataset can be replayed and resumed; "
                             f"got {s!r:.80}")
    files = files or {}
    resolved = [resolve(s, files.get(s) if isinstance(s, str) else None, checked=settings.checked)
                for s in settings.strategies]
    line = api.lineup(resolved, sheet=settings.sheet, players=settings.players, checked=settings.checked,
                      rules=settings.rules)
    return settings.stored(line.specs), line, [_strategy_info(r, label) for r, label in zip(resolved, line.labels)]


def run(out, games=DEFAULT_GAMES, players=None, strategies=(RUN_STRATEGY,), sheet=SHEET, seed=SEED,
        threads=None, chunk_size=None, max_rolls=DEFAULT_MAX_ROLLS, rotate=ROTATE, log_turns=False,
        resume=False, force=False, progress=False, command=None, on_chunk=None, scheduler=None,
        retries=RETRIES, checked=True, rules=None, settings: Settings | None = None) -> dict:
    """Play `games` games into the dataset at `out`; return the final manifest.

    `out` is a local folder or a filesystem URL (sim.runs.dataset.open_store). With
    `scheduler` (a Dask scheduler address, or "local" / "local:N" for a
    LocalCluster of N worker processes on 127.0.0.1), every chunk is a Dask task
    that plays and writes it, retried up to `retries` times; `threads` is then
    the Numba threads per task (default 1). `checked`: users' strategies are compiled with
    bounds checking (an index out of range stops the run, naming the file and line). `rules`: the
    rule variants played (a sim.rules.Rules or a --rules text; None: the rulebook); a resumed run
    must give its own or None.
    `settings` (sim.runs.settings.Settings) stands for the arguments from `games` to `rules`.
    """
    if settings is None:
        settings = Settings.of(strategies=strategies, players=players, games=games, seed=seed, sheet=sheet,
                               rotate=rotate, max_rolls=max_rolls, threads=task_threads(threads, scheduler),
                               chunk_size=chunk_size, log_turns=log_turns, checked=checked, rules=rules)
    if settings.games is None:
        settings = settings.with_(games=DEFAULT_GAMES)
    if settings.chunk_size is None:
        settings = settings.with_(chunk_size=default_chunk_size(settings.players, settings.log_turns))
    store = open_store(out)
    old = _resumable(store) if resume else None
    stored, line, infos = prepare(settings, manifest_files(old) if old else None)
    if scheduler is not None:
        retries = _check_cluster(scheduler, retries)
    store.check_writable()

    existing = store.is_dir() and bool(store.listdir())
    if old:
        _check_same(store, old, stored, settings.sheet, infos)
    elif existing and not force:
        raise SettingError(f"output folder {store} is not empty: use {{resume=True}} to finish the run in it, "
                         "or {force=True} to replace it")

    created = not store.exists()
    # From here on Ctrl-C is held back (interrupts.SHIELD) except while games are played: the
    # folders appear with their manifest, and the manifest always says how the run ended.
    with interrupts.shielded():
        if existing and force and not resume:
            _clear(store)
        files = tuple(info.get("file") for info in infos)
        job = ChunkJob(store, stored, settings.sheet.name, settings.sheet.text, settings.threads, files,
                       settings.checked)
        manifest = _start(store, old, job, settings, infos, scheduler, command)
        remember(job, line, settings.sheet)
        return _play(store, manifest, job, created, scheduler, retries, progress, on_chunk)


def task_threads(threads, scheduler):
    """Numba threads to play a chunk with: on a cluster one per task unless said otherwise."""
    return 1 if scheduler is not None and threads is None else threads


def _check_cluster(scheduler, retries) -> int:
    """ValueError, before anything is created, if the cluster cannot be used; the retries checked."""
    retries = check_int("retries", retries, 0, 1000)
    from .distributed import check_reachable, import_distributed, local_workers
    import_distributed()
    if str(scheduler).startswith("local"):
        local_workers(str(scheduler))
    else:
        check_reachable(str(scheduler))
    return retries


def _start(store, old, job, settings, infos, scheduler, command) -> dict:
    """Create or continue the dataset's folders and write its manifest ("running"); return it."""
    stored = job.settings
    for name in ("games", "players") + (("turns",) if stored["log_turns"] else ()):
        store.makedirs(name)
    remove_temporaries(store)
    done = job.chunks_found()
    manifest = {
        "format": "encore-sim-dataset",
        "format_version": 1,
        "status": "running",
        # The command that started the run (a resume only finishes it: see "resumed").
        "command": old["command"] if old and old.get("command") else
        (command if command is not None else " ".join(sys.argv)),
        "settings": stored,
        # Every number of the rules played, for a reader who does not parse "settings"' --rules text.
        "rules": rules_dict(settings.rules),
        "sheet": {"name": settings.sheet.name, "text": settings.sheet.text},
        "strategies": infos,
        "chunks": job.n_chunks,
        "games_done": job.games_in(done),
        "threads": settings.threads,
        "bounds_checked": settings.checked,
        "versions": versions(),
        "git_revision": git_revision(),
        "kernel_sources": numba_cache.GAMES_DIGEST,
        "started": old["started"] if old else _now(),
        "finished": None,
        "error": None,
    }
    if scheduler is not None:
        manifest["scheduler"] = str(scheduler)
    if old:
        manifest["resumed"] = old.get("resumed", []) + [_now()]
    write_json(store, manifest)
    return manifest


def _chunks_played(job, todo, scheduler, retries):
    """(chunk, games) for each chunk of `todo` as it is played and written: here, or on a cluster."""
    if scheduler is not None:
        from .distributed import run_chunks
        return run_chunks(scheduler, job, todo, retries=retries)
    if job.threads > 1:
        return play_ahead(job, todo)
    # One thread means one core: writing is not overlapped with playing.
    return ((c, play_and_write(job, c)) for c in todo)


def _play(store, manifest, job, created, scheduler, retries, progress, on_chunk) -> dict:
    """Play the chunks the dataset lacks, recording each in the manifest, and how the run ended."""
    n = manifest["settings"]["games"]
    done = job.chunks_found()
    # Counted again from the chunks found now, not those _start found: a worker of an interrupted
    # cluster run may finish writing a cancelled chunk in between, and the count must match the
    # chunks this run will not play.
    manifest["games_done"] = job.games_in(done)
    finished = _chunks_played(job, [c for c in range(manifest["chunks"]) if c not in done], scheduler, retries)
    bar = Progress(n, manifest["games_done"], enabled=progress)
    try:
        with interrupts.raising():
            for c, count in finished:
                done.add(c)
                manifest["games_done"] += count
                write_json(store, manifest)
                bar.update(manifest["games_done"])
                if on_chunk is not None:
                    on_chunk(c, manifest["games_done"])
                interrupts.check()   # a Ctrl-C that a finaliser swallowed
    except BaseException as e:
        bar.close()
        _stopped(store, manifest, e, removable=created and not done)   # raises
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


def _stopped(store, manifest, e: BaseException, removable: bool):
    """Record in the manifest how the run stopped, and raise: an illegal move (StrategyError: the
    folder is removed if the run created it and finished nothing), Ctrl-C or SIGTERM
    (KeyboardInterrupt), anything else (RunFailed)."""
    if isinstance(e, StrategyError):
        if removable:
            store.rmtree()
        else:
            manifest.update(status="failed", error=str(e), finished=_now())
            write_json(store, manifest)
        raise e
    if isinstance(e, KeyboardInterrupt):
        interrupts.clear()
        manifest.update(status="interrupted", finished=_now())
        write_json(store, manifest)
        raise e
    if not isinstance(e, Exception):
        raise e
    from .distributed import ClusterError
    error = (str(e) if isinstance(e, ClusterError) else f"{type(e).__name__}: {e}").strip().splitlines()[0]
    manifest.update(status="failed", error=error, finished=_now())
    write_json(store, manifest)
    raise RunFailed(f"the run stopped: {error}; its finished chunks are kept in {store}: finish it with "
                    f"{{out}} {store} and {{resume=True}}") from e


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
    stored = {**old.get("settings", {})}
    stored["rules"] = manifest_rules(old).text   # canonical; "" (the rulebook) in a run from before variants
    if stored["rules"] != settings["rules"]:
        raise SettingError(f"cannot resume {store}: it was played under {_label(stored['rules'])}, not "
                         f"{_label(settings['rules'])}: leave {{rules}} out to finish it under its own")
    for key in STORED:
        if stored.get(key) != settings[key]:
            raise SettingError(f"cannot resume {store}: {setting(key)} is {settings[key]!r} here but "
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
    if old.get("kernel_sources") not in (None, numba_cache.GAMES_DIGEST):
        raise ValueError(f"cannot resume {store}: it was started with other versions of the engine or built-in "
                         f"strategies (kernel sources {old['kernel_sources']}, here {numba_cache.GAMES_DIGEST})")


def _label(text) -> str:
    """How a resume message names the rules of a --rules text."""
    return f"the rules {text!r}" if text else "the rulebook"


def _clear(store) -> None:
    """--force: remove a previous dataset's files (only those a run writes)."""
    ours = set(TABLES) | {MANIFEST}
    others = [name for name in store.listdir() if name not in ours and not name.endswith(".tmp")]
    if others:
        raise SettingError(f"{{force}}: {store} holds files that are not part of a dataset "
                         f"({others[0]}); refusing to delete them")
    for name in TABLES:
        store.rmtree(name)
    for name in [MANIFEST] + [f for f in store.listdir() if is_tmp(f)]:
        store.delete(name)
