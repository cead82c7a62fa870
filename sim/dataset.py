"""Reading and writing the Parquet dataset of a run (layout and types in sim.schema).

Writing is crash-safe: each file of a chunk is written under a hidden
temporary name in its final folder and renamed into place with os.replace,
the games file last. A chunk is finished exactly when its games file exists;
a players or turns file without one is a leftover of a crash and is
rewritten on --resume (and ignored by summaries).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from . import engine
from .api import Chunk
from .schema import GAMES, PLAYERS, SCHEMAS, TABLES, TURNS
from .sheets import COLOURS, cell_name
from .state import (
    PS_BOXES,
    PS_COL_POINTS,
    PS_COLOUR_POINTS,
    PS_COLOURS,
    PS_COLOURS_FIRST,
    PS_COLS,
    PS_COLS_FIRST,
    PS_FIRST_JOKER_ROLL,
    PS_JOKERS,
    PS_PASSES,
    PS_RANK,
    PS_SCORE,
    PS_STAR_PENALTY,
    PS_WINNER,
)
from .tables import START_JOKERS, Tables, from_words

MANIFEST = "manifest.json"
PART_RE = re.compile(r"part-(\d{6})\.parquet")
COMPRESSION = "zstd"


class DatasetError(ValueError):
    """A folder that is not a (readable) encore-sim dataset."""


def part_name(chunk: int) -> str:
    return f"part-{chunk:06d}.parquet"


# --- chunk arrays -> Arrow tables ---------------------------------------------

def _bits_list(masks: np.ndarray, width: int) -> pa.Array:
    """list<int8> of the set bits of each mask (bits 0..width-1)."""
    bits = (masks[:, None] >> np.arange(width)) & 1
    counts = bits.sum(axis=1)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
    values = np.nonzero(bits)[1].astype(np.int8)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values))


def games_table(chunk: Chunk, sheet_name: str) -> pa.Table:
    g = chunk.games
    n, players = chunk.seats.shape[:2]
    return pa.Table.from_arrays([
        pa.array(np.full(n, chunk.seed, np.uint64)),
        pa.array(chunk.first + np.arange(n, dtype=np.int64)),
        pa.array(np.full(n, players, np.int8)),
        pa.array([sheet_name] * n, pa.string()),
        pa.array(g[:, engine.GR_ROLLS].astype(np.int16)),
        pa.array(g[:, engine.GR_CAPPED].astype(bool)),
        _bits_list(g[:, engine.GR_ENDED_BY], players),
        _bits_list(g[:, engine.GR_WINNERS], players),
    ], schema=GAMES)


def _popcount(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.uint64)
    return np.unpackbits(x.view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1)


def players_table(chunk: Chunk) -> pa.Table:
    n, players = chunk.seats.shape[:2]
    ps = chunk.seats.reshape(n * players, -1)
    specs = np.array(chunk.specs, dtype=object)
    cols_done = _popcount(ps[:, PS_COLS])
    colours_done = _popcount(ps[:, PS_COLOURS])
    first_joker = ps[:, PS_FIRST_JOKER_ROLL]
    return pa.Table.from_arrays([
        pa.array(np.repeat(chunk.first + np.arange(n, dtype=np.int64), players)),
        pa.array(np.tile(np.arange(players, dtype=np.int8), n)),
        pa.array(specs[chunk.slots.reshape(-1)], pa.string()),
        pa.array(ps[:, PS_SCORE].astype(np.int16)),
        pa.array(ps[:, PS_COL_POINTS].astype(np.int16)),
        pa.array(ps[:, PS_COLOUR_POINTS].astype(np.int16)),
        pa.array(ps[:, PS_JOKERS].astype(np.int8)),
        pa.array((START_JOKERS - ps[:, PS_JOKERS]).astype(np.int8)),
        pa.array(ps[:, PS_STAR_PENALTY].astype(np.int16)),
        pa.array(ps[:, PS_BOXES].astype(np.int16)),
        pa.array(ps[:, PS_COLS_FIRST].astype(np.int8)),
        pa.array((cols_done - ps[:, PS_COLS_FIRST]).astype(np.int8)),
        pa.array(ps[:, PS_COLOURS_FIRST].astype(np.int8)),
        pa.array((colours_done - ps[:, PS_COLOURS_FIRST]).astype(np.int8)),
        pa.array(first_joker.astype(np.int16), mask=first_joker == 0),
        pa.array(ps[:, PS_PASSES].astype(np.int16)),
        pa.array(ps[:, PS_RANK].astype(np.int8)),
        pa.array(ps[:, PS_WINNER].astype(bool)),
    ], schema=PLAYERS)


_COLOUR_FACES = pa.array(list(COLOURS) + ["joker"], pa.string())
_COLOUR_NAMES = pa.array(list(COLOURS), pa.string())


def _cell_lists(tab: Tables):
    """Flat cell names of every placement row and their offsets (cached on the tables)."""
    names, starts = [], [0]
    for k in range(len(tab.size)):
        lo, hi = int(tab.mask[k, 0]), int(tab.mask[k, 1])
        names.extend(cell_name(c, r) for c, r in from_words(np.uint64(lo), np.uint64(hi)))
        starts.append(len(names))
    return pa.array(names, pa.string()), np.array(starts, np.int64)


def turns_table(chunk: Chunk, tab: Tables, cells_cache: dict | None = None) -> pa.Table:
    log, dice = chunk.log, chunk.dice
    n, players = chunk.seats.shape[:2]
    rows = len(log)
    per_game = np.diff(chunk.log_start)
    game_idx = np.repeat(np.arange(n), per_game)
    roll = log[:, engine.LOG_ROLL]
    dice_rows = dice[chunk.dice_start[game_idx] + roll - 1]
    k = 2 if players == 1 else 3
    sub = log[:, engine.LOG_SUB]
    passed = sub < 0
    safe_sub = np.where(passed, 0, sub)

    fixed = lambda width: pa.array(np.arange(rows + 1, dtype=np.int32) * width)
    colour_dice = pa.ListArray.from_arrays(
        fixed(k), _COLOUR_FACES.take(pa.array(dice_rows[:, :k].reshape(-1))))
    number_dice = pa.ListArray.from_arrays(fixed(k), pa.array(dice_rows[:, 3:3 + k].reshape(-1).astype(np.int8)))

    key = id(tab)
    if cells_cache is not None and key in cells_cache:
        names, starts = cells_cache[key]
    else:
        names, starts = _cell_lists(tab)
        if cells_cache is not None:
            cells_cache[key] = (names, starts)
    sizes = np.where(passed, 0, tab.size[safe_sub])
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    within = np.arange(offsets[-1]) - np.repeat(offsets[:-1], sizes)
    idx = np.repeat(starts[safe_sub], sizes) + within
    cells = pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), names.take(pa.array(idx)))

    return pa.Table.from_arrays([
        pa.array((chunk.first + game_idx).astype(np.int64)),
        pa.array(roll.astype(np.int16)),
        pa.array(log[:, engine.LOG_SEAT].astype(np.int8)),
        pa.array(log[:, engine.LOG_ACTIVE].astype(bool)),
        colour_dice,
        number_dice,
        pa.array(log[:, engine.LOG_AVAIL].astype(np.uint8)),
        pa.array(log[:, engine.LOG_CHOICES].astype(np.int16)),
        pa.array(passed),
        pa.array(log[:, engine.LOG_CDIE].astype(np.int8), mask=passed),
        pa.array(log[:, engine.LOG_NDIE].astype(np.int8), mask=passed),
        pc.if_else(pa.array(passed), pa.scalar(None, pa.string()),
                   _COLOUR_NAMES.take(pa.array(tab.colour[safe_sub].astype(np.int64)))),
        pa.array(tab.size[safe_sub].astype(np.int8), mask=passed),
        cells,
        pa.array(log[:, engine.LOG_COST].astype(np.int8)),
    ], schema=TURNS)


# --- files --------------------------------------------------------------------

def atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write_json(path: Path, obj) -> None:
    atomic_write_bytes(path, (json.dumps(obj, indent=2) + "\n").encode())


def write_table(path: Path, table: pa.Table) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    pq.write_table(table, tmp, compression=COMPRESSION)
    os.replace(tmp, path)


def write_chunk(out: Path, c: int, tables: dict[str, pa.Table]) -> None:
    """Write one chunk's tables; the games file goes last and marks the chunk finished."""
    for name in ("players", "turns", "games"):
        if name in tables:
            write_table(out / name / part_name(c), tables[name])


def done_chunks(out: Path) -> set[int]:
    folder = Path(out) / "games"
    if not folder.is_dir():
        return set()
    return {int(m[1]) for p in folder.iterdir() if (m := PART_RE.fullmatch(p.name))}


def remove_temporaries(out: Path) -> None:
    for name in TABLES:
        folder = Path(out) / name
        if folder.is_dir():
            for p in folder.iterdir():
                if p.name.startswith(".") and p.name.endswith(".tmp"):
                    p.unlink()
    for p in Path(out).glob(".*.tmp"):
        p.unlink()


def read_manifest(path) -> dict:
    path = Path(path)
    file = path / MANIFEST
    if not path.is_dir():
        raise DatasetError(f"{path}: no such dataset folder")
    try:
        manifest = json.loads(file.read_text())
    except FileNotFoundError:
        raise DatasetError(f"{path}: not an encore-sim dataset (no {MANIFEST})") from None
    except (OSError, ValueError) as e:
        raise DatasetError(f"{file}: cannot read the manifest: {e}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != "encore-sim-dataset":
        raise DatasetError(f"{file}: not an encore-sim manifest")
    return manifest


def read_part(path: Path, name: str, c: int, columns=None) -> pa.Table:
    """One chunk's table, checked against the schema."""
    file = Path(path) / name / part_name(c)
    try:
        table = pq.read_table(file, columns=columns)
    except FileNotFoundError:
        raise DatasetError(f"{file}: missing (the dataset is incomplete or damaged)") from None
    except (OSError, pa.ArrowException) as e:
        raise DatasetError(f"{file}: not a readable Parquet file: {str(e).splitlines()[0]}") from None
    expected = SCHEMAS[name]
    for col in table.column_names:
        if expected.field(col).type != table.schema.field(col).type:
            raise DatasetError(f"{file}: column {col!r} has type {table.schema.field(col).type}, "
                               f"expected {expected.field(col).type}")
    return table
