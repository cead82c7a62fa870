"""Reading and writing the Parquet dataset of a run (layout and types in sim.runs.schema).

Writing is crash-safe: each file of a chunk is written under a hidden
temporary name in its final folder and renamed into place with os.replace,
the games file last. A chunk is finished exactly when its games file exists;
a players or turns file without one is a leftover of a crash and is
rewritten on --resume (and ignored by summaries).
"""
from __future__ import annotations

import json
import math
import os
import re
import secrets
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from .chunk import NUMPY
from .schema import SCHEMAS, TABLES

MANIFEST = "manifest.json"
PART_RE = re.compile(r"part-(\d{6})\.parquet")
COMPRESSION = "zstd"


class DatasetError(ValueError):
    """A folder that is not a (readable) encore-sim dataset."""


def part_name(chunk: int) -> str:
    return f"part-{chunk:06d}.parquet"


# --- chunk arrays -> Arrow tables ---------------------------------------------
#
# Every array is assembled from numpy buffers (pa.Array.from_buffers): pa.array,
# pa.scalar and pa.repeat import pandas on first use, ~65 MB of resident memory
# and ~0.3 s of start-up that a run has no other use for. The builders also skip
# pyarrow's per-call type inference.

def as_numpy(arr: pa.Array) -> np.ndarray:
    """The values of a null-free integer or boolean array, as numpy.

    Array.to_numpy goes through pyarrow's pandas conversion, which imports pandas.
    """
    if arr.null_count:
        raise DatasetError(f"unexpected nulls in a {arr.type} column")
    data = arr.buffers()[1]
    if arr.type == pa.bool_():
        bits = np.unpackbits(np.frombuffer(data, np.uint8), count=arr.offset + len(arr), bitorder="little")
        return bits[arr.offset:].astype(bool)
    dtype = np.dtype(NUMPY[arr.type])
    return np.frombuffer(data, dtype, count=len(arr), offset=arr.offset * dtype.itemsize)


def write_options(schema: pa.Schema) -> dict:
    """pq.write_table's options for a table of `schema` (any table; ours get the tuned ones).

    `game` counts up row by row (or repeats, in turns): delta encoding keeps it in
    a few bytes per page, where a dictionary took ~3 bytes a row and several times
    the CPU. Min/max statistics of strings cannot prune a file (each one holds every
    strategy and colour) and cost a sixth of the turns table's write time.
    """
    # Options name Parquet leaf columns: a list's values are `name.list.element`.
    leaf = {f.name: f"{f.name}.list.element" if pa.types.is_list(f.type) else f.name for f in schema}
    is_text = {f.name: pa.types.is_string(getattr(f.type, "value_type", f.type)) for f in schema}
    options = {"compression": COMPRESSION,
               "write_statistics": [leaf[name] for name in schema.names if not is_text[name]]}
    if "game" in leaf and pa.types.is_integer(schema.field("game").type):
        options["use_dictionary"] = [leaf[name] for name in schema.names if name != "game"]
        options["column_encoding"] = {"game": "DELTA_BINARY_PACKED"}
    return options


# --- files --------------------------------------------------------------------
#
# A dataset lives in a Store: a folder on the local disk (LocalStore, os calls
# with fsync) or a folder on any filesystem pyarrow or fsspec understands,
# given as a URL such as file:///data/run or s3://bucket/run (ArrowStore,
# through pyarrow.fs). Both write every file under a hidden temporary name that
# is unique to the writer and move it into place, so a retried or duplicated
# writer of the same chunk replaces the file rather than corrupting it. Stores
# are small and picklable: Dask tasks get one and write their chunk themselves.

def is_url(location) -> bool:
    return isinstance(location, str) and "://" in location


def _tmp_name(name: str) -> str:
    return f".{name}.{os.getpid()}-{secrets.token_hex(4)}.tmp"


def is_tmp(name: str) -> bool:
    """Whether `name` is the temporary file of an atomic write (_tmp_name): a resumed or forced run
    removes those an interrupted write left."""
    return name.startswith(".") and name.endswith(".tmp")


class LocalStore:
    """A dataset folder on the local filesystem."""

    def __init__(self, root):
        self.root = Path(root)

    def __repr__(self):
        return f"LocalStore({str(self.root)!r})"

    def __str__(self):
        return str(self.root)

    def path(self, rel: str = "") -> Path:
        return self.root / rel if rel else self.root

    def exists(self, rel: str = "") -> bool:
        return self.path(rel).exists()

    def is_dir(self, rel: str = "") -> bool:
        return self.path(rel).is_dir()

    def is_file(self, rel: str = "") -> bool:
        return self.path(rel).is_file()

    def listdir(self, rel: str = "") -> list[str]:
        folder = self.path(rel)
        return [p.name for p in folder.iterdir()] if folder.is_dir() else []

    def makedirs(self, rel: str = "") -> None:
        self.path(rel).mkdir(parents=True, exist_ok=True)

    def write_bytes(self, rel: str, data: bytes) -> None:
        path = self.path(rel)
        tmp = path.with_name(_tmp_name(path.name))
        try:
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:  # Ctrl-C mid-write included: leave no temporary behind
            tmp.unlink(missing_ok=True)
            raise

    def write_table(self, rel: str, table: pa.Table) -> None:
        path = self.path(rel)
        tmp = path.with_name(_tmp_name(path.name))
        try:
            pq.write_table(table, tmp, **write_options(table.schema))
            os.replace(tmp, path)
        except BaseException:  # Ctrl-C mid-write included: leave no temporary behind
            tmp.unlink(missing_ok=True)
            raise

    def read_bytes(self, rel: str) -> bytes:
        return self.path(rel).read_bytes()

    def open_parquet(self, rel: str) -> pq.ParquetFile:
        return pq.ParquetFile(self.path(rel))

    def delete(self, rel: str) -> None:
        self.path(rel).unlink(missing_ok=True)

    def rmtree(self, rel: str = "") -> None:
        shutil.rmtree(self.path(rel), ignore_errors=True)

    def check_writable(self) -> None:
        """Refuse an output path that cannot be created or written, without creating anything."""
        out = self.root
        if out.exists() and not out.is_dir():
            raise ValueError(f"output {out} exists and is not a folder")
        probe = out
        while not probe.exists():
            if probe.parent == probe:
                break
            probe = probe.parent
        if not probe.is_dir():
            raise ValueError(f"cannot create output folder {out}: {probe} is not a folder")
        if not os.access(probe, os.W_OK | os.X_OK):
            raise ValueError(f"output folder {out} is not writable ({probe}: permission denied)")


class ArrowStore:
    """A dataset folder on a pyarrow filesystem (local, S3, GCS, HDFS, or fsspec-backed)."""

    def __init__(self, fs, root: str, url: str):
        self.fs, self.root, self.url = fs, root.rstrip("/") or "/", url

    def __repr__(self):
        return f"ArrowStore({self.url!r})"

    def __str__(self):
        return self.url

    def path(self, rel: str = "") -> str:
        return f"{self.root}/{rel}" if rel else self.root

    def _type(self, rel: str):
        return self.fs.get_file_info(self.path(rel)).type

    def exists(self, rel: str = "") -> bool:
        return self._type(rel) != pafs.FileType.NotFound

    def is_dir(self, rel: str = "") -> bool:
        return self._type(rel) == pafs.FileType.Directory

    def is_file(self, rel: str = "") -> bool:
        return self._type(rel) == pafs.FileType.File

    def listdir(self, rel: str = "") -> list[str]:
        if not self.is_dir(rel):
            return []
        infos = self.fs.get_file_info(pafs.FileSelector(self.path(rel), allow_not_found=True))
        return [i.base_name for i in infos]

    def makedirs(self, rel: str = "") -> None:
        self.fs.create_dir(self.path(rel), recursive=True)

    def _move_into_place(self, tmp: str, final: str) -> None:
        # A rename on file systems; on object stores a copy and delete (the object
        # appears whole, and a retried writer replaces it with identical bytes).
        self.fs.move(tmp, final)

    def write_bytes(self, rel: str, data: bytes) -> None:
        final = self.path(rel)
        tmp = f"{final.rsplit('/', 1)[0]}/{_tmp_name(final.rsplit('/', 1)[-1])}"
        with self.fs.open_output_stream(tmp) as f:
            f.write(data)
        self._move_into_place(tmp, final)

    def write_table(self, rel: str, table: pa.Table) -> None:
        final = self.path(rel)
        tmp = f"{final.rsplit('/', 1)[0]}/{_tmp_name(final.rsplit('/', 1)[-1])}"
        pq.write_table(table, tmp, filesystem=self.fs, **write_options(table.schema))
        self._move_into_place(tmp, final)

    def read_bytes(self, rel: str) -> bytes:
        with self.fs.open_input_stream(self.path(rel)) as f:
            return f.read()

    def open_parquet(self, rel: str) -> pq.ParquetFile:
        return pq.ParquetFile(self.fs.open_input_file(self.path(rel)))

    def delete(self, rel: str) -> None:
        if self.is_file(rel):
            self.fs.delete_file(self.path(rel))

    def rmtree(self, rel: str = "") -> None:
        if self.is_dir(rel):
            self.fs.delete_dir(self.path(rel))

    def check_writable(self) -> None:
        if self.is_file():
            raise ValueError(f"output {self.url} exists and is not a folder")


def open_store(location) -> LocalStore | ArrowStore:
    """The Store of a dataset location: a Store, a local path, or a filesystem URL.

    Plain paths keep using the local filesystem directly. URLs go through
    pyarrow.fs.FileSystem.from_uri (file://, s3://, gs://, hdfs://, ...), and
    other schemes through fsspec when it is installed (e.g. with gcsfs, adlfs).
    """
    if isinstance(location, (LocalStore, ArrowStore)):
        return location
    if not is_url(location):
        return LocalStore(location)
    try:
        fs, root = pafs.FileSystem.from_uri(location)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as arrow_error:
        try:
            import fsspec
            from pyarrow.fs import FSSpecHandler, PyFileSystem
            ffs, root = fsspec.core.url_to_fs(location)
        except (ImportError, ValueError) as e:
            raise ValueError(f"cannot open {location}: {arrow_error}; fsspec: {e}") from None
        fs = PyFileSystem(FSSpecHandler(ffs))
    return ArrowStore(fs, root, location)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    LocalStore(path.parent).write_bytes(path.name, data)


def json_safe(x):
    """NaN and infinities as null (JSON has none); numpy scalars as Python numbers."""
    if isinstance(x, dict):
        return {str(k): json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_safe(v) for v in x]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def write_json(path, obj) -> None:
    """Write JSON atomically: to a local file path, or as manifest.json of a Store."""
    data = (json.dumps(obj, indent=2) + "\n").encode()
    if isinstance(path, (LocalStore, ArrowStore)):
        path.write_bytes(MANIFEST, data)
    else:
        atomic_write_bytes(Path(path), data)


def write_table(path: Path, table: pa.Table) -> None:
    path = Path(path)
    LocalStore(path.parent).write_table(path.name, table)


def write_chunk(out, c: int, tables: dict[str, pa.Table]) -> None:
    """Write one chunk's tables; the games file goes last and marks the chunk finished."""
    store = open_store(out)
    for name in ("players", "turns", "games"):
        if name in tables:
            store.write_table(f"{name}/{part_name(c)}", tables[name])


def done_chunks(out) -> set[int]:
    store = open_store(out)
    return {int(m[1]) for name in store.listdir("games") if (m := PART_RE.fullmatch(name))}


def remove_temporaries(out) -> None:
    store = open_store(out)
    for name in TABLES:
        for f in store.listdir(name):
            if is_tmp(f):
                store.delete(f"{name}/{f}")
    for f in store.listdir():
        if is_tmp(f):
            store.delete(f)


def read_manifest(path) -> dict:
    store = open_store(path)
    if not store.is_dir():
        raise DatasetError(f"{store}: no such dataset folder")
    try:
        manifest = json.loads(store.read_bytes(MANIFEST))
    except FileNotFoundError:
        raise DatasetError(f"{store}: not an encore-sim dataset (no {MANIFEST})") from None
    except (OSError, ValueError) as e:
        if not store.is_file(MANIFEST):
            raise DatasetError(f"{store}: not an encore-sim dataset (no {MANIFEST})") from None
        raise DatasetError(f"{store.path(MANIFEST)}: cannot read the manifest: {e}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != "encore-sim-dataset":
        raise DatasetError(f"{store.path(MANIFEST)}: not an encore-sim manifest")
    _files_in_dataset(store, manifest)
    return manifest


def _files_in_dataset(store, manifest: dict) -> None:
    """A strategy's file kept in the dataset's folder (`in_dataset`: its name there, as a person's
    saved game keeps its moves, sim.play.game) is read from where the folder is now, so that the
    dataset still replays once moved: its recorded "file" is the path it had when written."""
    if not isinstance(store, LocalStore):
        return
    for info in manifest.get("strategies") or []:
        rel = info.get("in_dataset") if isinstance(info, dict) else None
        if isinstance(rel, str) and rel and Path(rel).name == rel:     # a name in the folder, nothing else
            info["file"] = str((store.root / rel).resolve())


def _part_error(file, e):
    if isinstance(e, FileNotFoundError):
        return DatasetError(f"{file}: missing (the dataset is incomplete or damaged)")
    return DatasetError(f"{file}: not a readable Parquet file: {str(e).splitlines()[0]}")


def check_schema(file, name: str, schema: pa.Schema) -> None:
    """Raise DatasetError unless `schema` (a file's, of table `name`) has exactly the columns
    of sim.runs.schema, with their types: the one check every reader of a part goes through, on the
    file's whole schema (before any column is selected), so a damaged file is named with
    the column at fault whichever columns the reader wants."""
    expected = SCHEMAS[name]
    missing = [col for col in expected.names if col not in schema.names]
    if missing:
        cols = ", ".join(repr(c) for c in missing)
        raise DatasetError(f"{file}: column{'s' if len(missing) > 1 else ''} {cols} "
                           f"{'are' if len(missing) > 1 else 'is'} missing")
    for col in schema.names:
        if col not in expected.names:
            raise DatasetError(f"{file}: unexpected column {col!r} (not in the {name} table)")
        if schema.names.count(col) > 1:
            raise DatasetError(f"{file}: column {col!r} appears {schema.names.count(col)} times")
    for col in expected.names:
        if expected.field(col).type != schema.field(col).type:
            raise DatasetError(f"{file}: column {col!r} has type {schema.field(col).type}, "
                               f"expected {expected.field(col).type}")


def _open_part(store, name: str, c: int):
    """(file name for messages, pq.ParquetFile) of one chunk's table, its schema checked."""
    rel = f"{name}/{part_name(c)}"
    file = store.path(rel)
    try:
        pf = store.open_parquet(rel)
        schema = pf.schema_arrow
    except (OSError, pa.ArrowException) as e:
        raise _part_error(file, e) from None
    check_schema(file, name, schema)
    return file, pf


def check_parts(path) -> None:
    """Check the schema of the files of every finished chunk of a dataset (its turns files too
    if the manifest says it logs turns), reading only their Parquet footers; raises
    DatasetError naming the first damaged file."""
    store = open_store(path)
    log_turns = (read_manifest(store).get("settings") or {}).get("log_turns")
    tables = ("games", "players", "turns") if log_turns else ("games", "players")
    for c in sorted(done_chunks(store)):
        for name in tables:
            _open_part(store, name, c)


def _check_nulls(file, name: str, data) -> None:
    """DatasetError if a column the schema declares not nullable holds nulls in `data`."""
    for col, values in zip(data.schema.names, data.columns):
        if values.null_count and not SCHEMAS[name].field(col).nullable:
            raise DatasetError(f"{file}: column {col!r} holds nulls (it may not)")


def read_part(path, name: str, c: int, columns=None) -> pa.Table:
    """One chunk's table, checked against the schema."""
    file, pf = _open_part(open_store(path), name, c)
    try:
        table = pf.read(columns=columns)
    except (OSError, pa.ArrowException) as e:
        raise _part_error(file, e) from None
    _check_nulls(file, name, table)
    return table


def iter_part(path, name: str, c: int, columns, batch_size: int):
    """One chunk's table as record batches of at most `batch_size` rows, checked against the schema."""
    file, pf = _open_part(open_store(path), name, c)
    try:
        for batch in pf.iter_batches(batch_size=batch_size, columns=columns):
            _check_nulls(file, name, batch)
            yield batch
    except (OSError, pa.ArrowException) as e:
        raise _part_error(file, e) from None
