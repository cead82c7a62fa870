"""A chunk of played games, and the Arrow tables of it that a dataset stores.

The kernels' result arrays of games first .. first+n-1 of one root seed (Chunk, what
sim.runs.api.play_chunk returns) become the rows of the dataset's games, players and turns tables
(sim.runs.schema) here; sim.runs.dataset writes and reads those tables.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from .. import engine
from ..rules import RULEBOOK, Rules
from ..sheets import COLOURS, cell_name, load_sheet
from ..state import (
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
from ..tables import Tables, build_tables, from_words
from .defaults import SHEET
from .schema import GAMES, PLAYERS, TURNS

#: Arrow integer types and the NumPy types of their values.
NUMPY = {pa.int8(): np.int8, pa.int16(): np.int16, pa.int32(): np.int32, pa.int64(): np.int64,
          pa.uint8(): np.uint8, pa.uint64(): np.uint64}


def _bitmap(flags: np.ndarray) -> pa.Buffer:
    """Arrow's bit-packed booleans (and validity bitmaps): least significant bit first."""
    return pa.py_buffer(np.packbits(np.asarray(flags, bool), bitorder="little"))


def _arrow(values: np.ndarray, type_: pa.DataType, null_mask: np.ndarray | None = None) -> pa.Array:
    """A primitive array of `values` (cast to `type_`); null where null_mask is true."""
    if type_ == pa.bool_():
        data = _bitmap(values)
    else:
        data = pa.py_buffer(np.ascontiguousarray(values, dtype=NUMPY[type_]))
    nulls = 0 if null_mask is None else int(np.count_nonzero(null_mask))
    validity = _bitmap(~null_mask) if nulls else None
    return pa.Array.from_buffers(type_, len(values), [validity, data], null_count=nulls)




def _strings(distinct, idx: np.ndarray, null_mask: np.ndarray | None = None) -> pa.Array:
    """A string array of distinct[i] for each i of idx; null where null_mask is true."""
    encoded = [s.encode() for s in distinct]
    offsets = np.zeros(len(encoded) + 1, np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    strings = pa.Array.from_buffers(pa.string(), len(encoded),
                                    [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])
    # Arrow's take copies the bytes, and a null index gives a null string.
    return strings.take(_arrow(idx, pa.int32(), null_mask))


def _lists(offsets: np.ndarray, values: pa.Array) -> pa.Array:
    """list<values.type> of values[offsets[i]:offsets[i+1]] per row."""
    return pa.Array.from_buffers(pa.list_(values.type), len(offsets) - 1,
                                 [None, pa.py_buffer(np.ascontiguousarray(offsets, dtype=np.int32))],
                                 children=[values])


def _table(schema: pa.Schema, columns: dict) -> pa.Table:
    """The table of `schema` from its columns by name: numpy arrays take the field's type,
    (values, null_mask) pairs are nullable ones, Arrow arrays (strings, lists) are kept."""
    assert list(columns) == schema.names, (list(columns), schema.names)
    arrays = []
    for field, col in zip(schema, columns.values()):
        if isinstance(col, tuple):
            col = _arrow(col[0], field.type, null_mask=col[1])
        elif isinstance(col, np.ndarray):
            col = _arrow(col, field.type)
        arrays.append(col)
    return pa.Table.from_arrays(arrays, schema=schema)


def _bits_list(masks: np.ndarray, width: int) -> pa.Array:
    """list<int8> of the set bits of each mask (bits 0..width-1)."""
    bits = (masks[:, None] >> np.arange(width)) & 1
    offsets = np.concatenate(([0], np.cumsum(bits.sum(axis=1))))
    return _lists(offsets, _arrow(np.nonzero(bits)[1], pa.int8()))


def games_table(chunk: Chunk, sheet_name: str) -> pa.Table:
    g = chunk.games
    n, players = chunk.seats.shape[:2]
    return _table(GAMES, {
        "seed": np.full(n, chunk.seed, np.uint64),
        "game": chunk.first + np.arange(n, dtype=np.int64),
        "players": np.full(n, players),
        "sheet": _strings([sheet_name], np.zeros(n, np.intp)),
        "rolls": g[:, engine.GR_ROLLS],
        "capped": g[:, engine.GR_CAPPED] != 0,
        "ended_by": _bits_list(g[:, engine.GR_ENDED_BY], players),
        "winners": _bits_list(g[:, engine.GR_WINNERS], players),
    })


def _popcount(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x.astype(np.uint64))


def players_table(chunk: Chunk) -> pa.Table:
    n, players = chunk.seats.shape[:2]
    ps = chunk.seats.reshape(n * players, -1)
    first_joker = ps[:, PS_FIRST_JOKER_ROLL]
    return _table(PLAYERS, {
        "game": np.repeat(chunk.first + np.arange(n, dtype=np.int64), players),
        "seat": np.tile(np.arange(players), n),
        "strategy": _strings(chunk.labels or chunk.specs, chunk.slots.reshape(-1)),
        "score": ps[:, PS_SCORE],
        "column_points": ps[:, PS_COL_POINTS],
        "colour_points": ps[:, PS_COLOUR_POINTS],
        "jokers_left": ps[:, PS_JOKERS],
        "jokers_used": chunk.rules.jokers - ps[:, PS_JOKERS],
        "star_penalty": ps[:, PS_STAR_PENALTY],
        "boxes": ps[:, PS_BOXES],
        "columns_first": ps[:, PS_COLS_FIRST],
        "columns_later": _popcount(ps[:, PS_COLS]) - ps[:, PS_COLS_FIRST],
        "colours_first": ps[:, PS_COLOURS_FIRST],
        "colours_later": _popcount(ps[:, PS_COLOURS]) - ps[:, PS_COLOURS_FIRST],
        "first_joker_roll": (first_joker, first_joker == 0),
        "passes": ps[:, PS_PASSES],
        "rank": ps[:, PS_RANK],
        "winner": ps[:, PS_WINNER] != 0,
    })


_COLOUR_FACES = (*COLOURS, "joker")


def _cell_lists(tab: Tables):
    """Every cell name of the sheet, and per placement row the indices of its cells
    into that list (flat) with their start offsets (cached per tables)."""
    names, index = [], {}
    flat, starts = [], [0]
    for k in range(len(tab.size)):
        lo, hi = int(tab.mask[k, 0]), int(tab.mask[k, 1])
        for c, r in from_words(np.uint64(lo), np.uint64(hi)):
            name = cell_name(c, r)
            if name not in index:
                index[name] = len(names)
                names.append(name)
            flat.append(index[name])
        starts.append(len(flat))
    return names, np.array(flat, np.intp), np.array(starts, np.int64)


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
    per_roll = np.arange(rows + 1) * k

    key = id(tab)
    if cells_cache is not None and key in cells_cache:
        names, flat, starts = cells_cache[key]
    else:
        names, flat, starts = _cell_lists(tab)
        if cells_cache is not None:
            cells_cache[key] = (names, flat, starts)
    sizes = np.where(passed, 0, tab.size[safe_sub])
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    cells = flat[np.repeat(starts[safe_sub] - offsets[:-1], sizes) + np.arange(offsets[-1])]

    return _table(TURNS, {
        "game": chunk.first + game_idx,
        "roll": roll,
        "seat": log[:, engine.LOG_SEAT],
        "active": log[:, engine.LOG_ACTIVE] != 0,
        "colour_dice": _lists(per_roll, _strings(_COLOUR_FACES, dice_rows[:, :k].reshape(-1))),
        "number_dice": _lists(per_roll, _arrow(dice_rows[:, 3:3 + k].reshape(-1), pa.int8())),
        "available": log[:, engine.LOG_AVAIL],
        "n_choices": log[:, engine.LOG_CHOICES],
        "passed": passed,
        "colour_die": (log[:, engine.LOG_CDIE], passed),
        "number_die": (log[:, engine.LOG_NDIE], passed),
        "colour": _strings(COLOURS, tab.colour[safe_sub], null_mask=passed),
        "number": (tab.size[safe_sub], passed),
        "cells": _lists(offsets, _strings(names, cells)),
        "jokers": log[:, engine.LOG_COST],
    })


@dataclass
class Chunk:
    """Results of games first .. first+n-1 of one root seed.

    chunk.to_pandas("players") (or "games", "turns" with log_turns) is a DataFrame with the
    columns of the dataset table of that name, documented in the README and sim/runs/schema.py;
    chunk.to_arrow(...) the same as a pyarrow Table. Underneath are the kernels' arrays:

    games  int64 (n, GR_SIZE)             per game, fields GR_* of sim.engine
    seats  int64 (n, players, PS_SIZE)    per game and seat, fields PS_* of sim.state
    slots  int64 (n, players)             which strategy (index into specs) played each seat
    With log_turns, game g's dice are dice[dice_start[g]:dice_start[g+1]] (one
    row of six faces per roll) and its decisions log[log_start[g]:log_start[g+1]]
    (LOG_* fields of sim.engine); otherwise these are None.
    """
    seed: int
    first: int
    specs: tuple[str, ...]
    games: np.ndarray
    seats: np.ndarray
    slots: np.ndarray
    dice_start: np.ndarray | None = None
    dice: np.ndarray | None = None
    log_start: np.ndarray | None = None
    log: np.ndarray | None = None
    sheet: object = None     # the sim.sheets.Sheet played on
    rules: Rules = RULEBOOK  # the rules played under
    #: With an exception in a user's strategy (sim.guard.ERR_RAISED): what it did and where.
    raised: str | None = None
    #: How tables name each strategy (strategies.registry.labels); None: by their specs.
    labels: tuple[str, ...] | None = None

    def to_arrow(self, table: str = "players", columns=None):
        """Table "games" (a row per game), "players" (per game and seat) or "turns" (per
        decision; needs log_turns=True) as a pyarrow Table: the rows `encore-sim run` writes;
        only `columns` (names) if given."""
        if table == "games":
            out = games_table(self, self.sheet.name if self.sheet is not None else "")
        elif table == "players":
            out = players_table(self)
        elif table == "turns":
            if self.log is None:
                raise ValueError("this chunk was played without log_turns=True: it has no turns")
            out = turns_table(self, build_tables(self.sheet or load_sheet(SHEET), self.rules))
        else:
            raise ValueError(f"unknown table {table!r}: expected games, players or turns")
        if columns is None:
            return out
        unknown = [c for c in columns if c not in out.column_names]
        if unknown:
            raise ValueError(f"table {table!r} has no column {unknown[0]!r} (columns: {', '.join(out.column_names)})")
        return out.select(list(columns))

    def to_pandas(self, table: str = "players", columns=None):
        """to_arrow(table, columns) as a pandas DataFrame, as pandas.read_parquet reads the dataset's
        table (nullable integer columns become floats with NaN). The turns table's list and string
        columns cost most of the memory: name the columns you need."""
        return self.to_arrow(table, columns).to_pandas()
