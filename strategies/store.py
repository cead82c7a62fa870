"""The weights store: the user's own folder of `learned`'s weights, beside the shipped ones.

`encore-sim train` writes there by default, and `learned` looks there for the weights of a run's
sheet, table size and rules after the shipped files (strategies/data, read-only inside the
installed package): a user never copies a file into site-packages, and a read-only install works
the same.

    folder()              # ENCORE_SIM_WEIGHTS, else the platform's user data folder / "weights"
    path_for(name)        # where the weights file `name` (learned.store_name) is kept
    entries()             # every shipped and stored weights file, with what it was trained for

The folder is one setting for the whole process: the environment variable ENCORE_SIM_WEIGHTS
(so that a team, a cluster's workers or a test suite share one), or `encore-sim --weights-store
DIR`, which sets it. Nothing here imports the players: a file's record is read as data, and
learned.read_weights checks it before any game plays it.
"""
from __future__ import annotations

import importlib.resources
import os
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: The environment variable naming the store's folder.
ENV = "ENCORE_SIM_WEIGHTS"


class StoreError(OSError):
    """The store's folder cannot be made or written: one line naming it."""


def folder() -> Path:
    """The store's folder: $ENCORE_SIM_WEIGHTS, else `weights` in the platform's user data
    folder (on Linux $XDG_DATA_HOME/encore-sim/weights, by default ~/.local/share/...). It may
    not exist yet."""
    given = os.environ.get(ENV, "").strip()
    if given:
        return Path(given).expanduser()
    # platformdirs rather than our own XDG reading: it knows macOS's and Windows's folders too.
    import platformdirs
    return Path(platformdirs.user_data_dir("encore-sim", appauthor=False)) / "weights"


def path_for(name: str) -> Path:
    return folder() / name


def find(name: str) -> Path | None:
    """The stored file `name`, or None."""
    p = path_for(name)
    return p if p.is_file() else None


def writable() -> Path:
    """The store's folder, made if needed and checked writable: StoreError (one line) if not.
    Called before training starts, so that a long run does not end in a file it cannot write."""
    d = folder()
    try:
        d.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=d, prefix=".write-check-"):
            pass
    except OSError as e:
        raise StoreError(f"cannot write the weights store {d}: {e.strerror or e} (set {ENV} or "
                         "--weights-store to a folder you can write)") from None
    return d


@dataclass(frozen=True)
class Entry:
    """One weights file as `encore-sim weights` lists it."""
    source: str          # "shipped" or "yours"
    sheet: str           # the sheet's name as trained
    players: int
    rules: str           # the rules' label ("rulebook" or the --rules text)
    games: int | None
    trained: str         # UTC date and time of training ("" if the file does not record it)
    start: str           # the weights training started from ("" if afresh or unrecorded)
    file: Path
    problem: str = ""    # why the file cannot be read ("" when it can)

    @property
    def rules_text(self) -> str:
        return "" if self.rules == "rulebook" else self.rules


def read_entry(path: Path, source: str = "yours") -> Entry:
    """The record of the weights file at `path` (its problem, if it cannot be read)."""
    try:
        with np.load(path, allow_pickle=False) as f:
            keys = set(f.files)

            def text(k):
                return str(f[k]) if k in keys else ""
            return Entry(source, text("sheet_name"), int(f["players"]), text("rules") or "rulebook",
                         int(f["games"]) if "games" in keys else None, text("trained"), text("init_name"), path)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as e:
        what = f"key {e}" if isinstance(e, KeyError) else "not an .npz archive, or a damaged one"
        return Entry(source, "?", 0, "?", None, "", "", path, f"damaged: {what}")


def shipped_files() -> list[Path]:
    data = importlib.resources.files("strategies").joinpath("data")
    return sorted(Path(str(f)) for f in data.iterdir() if f.name.endswith(".npz"))


def stored_files() -> list[Path]:
    d = folder()
    return sorted(p for p in d.glob("*.npz") if not p.name.startswith(".")) if d.is_dir() else []


def entries() -> list[Entry]:
    """The shipped weights files, then the store's, each with its record."""
    return [read_entry(p, "shipped") for p in shipped_files()] + [read_entry(p) for p in stored_files()]
