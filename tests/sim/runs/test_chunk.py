"""sim.runs.dataset builds its Arrow arrays from numpy buffers, without pandas.

The tables must equal those of the straightforward pa.array construction
(kept below as the reference; it may import pandas, the run may not), and a
whole run must leave pandas unimported.
"""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from sim import engine
from sim.runs.api import play_chunk
from sim.runs.chunk import games_table, players_table, turns_table
from sim.runs.dataset import write_chunk
from sim.runs.schema import GAMES, PLAYERS, TURNS
from sim.sheets import COLOURS, cell_name, load_sheet
from sim.state import (
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
from sim.tables import START_JOKERS, build_tables, from_words
from invoking import invoke
from loaded import modules_loaded_by

ROOT = Path(__file__).resolve().parents[3]


# --- the reference: every array through pa.array ------------------------------------

def _bits_list(masks, width):
    bits = (masks[:, None] >> np.arange(width)) & 1
    offsets = np.concatenate(([0], np.cumsum(bits.sum(axis=1)))).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(np.nonzero(bits)[1].astype(np.int8)))


def ref_games(chunk, sheet_name):
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


def _popcount(x):
    return np.array([bin(int(v)).count("1") for v in x], np.int64)


def ref_players(chunk):
    n, players = chunk.seats.shape[:2]
    ps = chunk.seats.reshape(n * players, -1)
    specs = np.array(chunk.specs, dtype=object)
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
        pa.array((_popcount(ps[:, PS_COLS]) - ps[:, PS_COLS_FIRST]).astype(np.int8)),
        pa.array(ps[:, PS_COLOURS_FIRST].astype(np.int8)),
        pa.array((_popcount(ps[:, PS_COLOURS]) - ps[:, PS_COLOURS_FIRST]).astype(np.int8)),
        pa.array(first_joker.astype(np.int16), mask=first_joker == 0),
        pa.array(ps[:, PS_PASSES].astype(np.int16)),
        pa.array(ps[:, PS_RANK].astype(np.int8)),
        pa.array(ps[:, PS_WINNER].astype(bool)),
    ], schema=PLAYERS)


def ref_turns(chunk, tab):
    log, dice = chunk.log, chunk.dice
    n, players = chunk.seats.shape[:2]
    rows = len(log)
    game_idx = np.repeat(np.arange(n), np.diff(chunk.log_start))
    roll = log[:, engine.LOG_ROLL]
    dice_rows = dice[chunk.dice_start[game_idx] + roll - 1]
    k = 2 if players == 1 else 3
    sub = log[:, engine.LOG_SUB]
    passed = sub < 0
    faces = list(COLOURS) + ["joker"]
    cells = [[] if p else [cell_name(c, r) for c, r in from_words(np.uint64(int(tab.mask[s, 0])),
                                                                    np.uint64(int(tab.mask[s, 1])))]
             for p, s in zip(passed, sub)]
    fixed = pa.array(np.arange(rows + 1, dtype=np.int32) * k)
    return pa.Table.from_arrays([
        pa.array((chunk.first + game_idx).astype(np.int64)),
        pa.array(roll.astype(np.int16)),
        pa.array(log[:, engine.LOG_SEAT].astype(np.int8)),
        pa.array(log[:, engine.LOG_ACTIVE].astype(bool)),
        pa.ListArray.from_arrays(fixed, pa.array([faces[f] for f in dice_rows[:, :k].reshape(-1)], pa.string())),
        pa.ListArray.from_arrays(fixed, pa.array(dice_rows[:, 3:3 + k].reshape(-1).astype(np.int8))),
        pa.array(log[:, engine.LOG_AVAIL].astype(np.uint8)),
        pa.array(log[:, engine.LOG_CHOICES].astype(np.int16)),
        pa.array(passed),
        pa.array(log[:, engine.LOG_CDIE].astype(np.int8), mask=passed),
        pa.array(log[:, engine.LOG_NDIE].astype(np.int8), mask=passed),
        pa.array([None if p else COLOURS[tab.colour[s]] for p, s in zip(passed, sub)], pa.string()),
        pa.array([None if p else int(tab.size[s]) for p, s in zip(passed, sub)], pa.int8()),
        pa.array(cells, pa.list_(pa.string())),
        pa.array(log[:, engine.LOG_COST].astype(np.int8)),
    ], schema=TURNS)


# --- the comparison ---------------------------------------------------------------------

def _chunk(case):
    seed, first, count, specs, players, extra = case
    return play_chunk(seed, first, count, specs, players=players, log_turns=True, **extra)


CASES = {
    "solo": (5, 100, 60, ["greedy"], 1, {}),
    "solo random": (6, 0, 40, ["random"], 1, {}),
    "4 players, 3 strategies rotated": (7, 20, 30, ["greedy", "random", "greedy", "random"], 4, {"rotate": True}),
    # No pass and no joker anywhere: null-free nullable columns, an all-null first_joker_roll.
    "4 players, 3 rolls": (3, 1, 1, ["greedy"], 4, {"max_rolls": 3}),
    # Capped early: some seats never used a joker (first_joker_roll partly null).
    "2 players, capped": (9, 0, 25, ["greedy", "random"], 2, {"max_rolls": 6}),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_tables_equal_pa_array_construction(case, tmp_path):
    chunk = _chunk(CASES[case])
    sheet = load_sheet("standard")
    tab = build_tables(sheet)
    cache = {}
    tables = {"games": games_table(chunk, sheet.name), "players": players_table(chunk),
              "turns": turns_table(chunk, tab, cache)}
    expected = {"games": ref_games(chunk, sheet.name), "players": ref_players(chunk),
                "turns": ref_turns(chunk, tab)}
    again = turns_table(chunk, tab, cache)  # from the cached cell lists
    assert again.equals(tables["turns"], check_metadata=True)
    for name, table in tables.items():
        table.validate(full=True)
        assert table.schema.equals(expected[name].schema, check_metadata=True)
        assert table.equals(expected[name], check_metadata=True), name
        for col in table.column_names:
            assert table[col].null_count == expected[name][col].null_count, (name, col)
    for name in tables:
        (tmp_path / name).mkdir()
    write_chunk(tmp_path, 0, tables)
    for name, table in tables.items():
        path = tmp_path / name / "part-000000.parquet"
        assert pq.read_table(path).equals(expected[name]), name
        _check_encodings(pq.ParquetFile(path).metadata.row_group(0), table.schema)


def _check_encodings(row_group, schema):
    """game delta-encoded, every other non-boolean column dictionary-encoded, no statistics of strings."""
    for i in range(row_group.num_columns):
        col = row_group.column(i)
        field = schema.field(col.path_in_schema.split(".")[0])
        value_type = getattr(field.type, "value_type", field.type)
        if field.name == "game":
            assert "DELTA_BINARY_PACKED" in col.encodings and "RLE_DICTIONARY" not in col.encodings
        elif value_type != pa.bool_():
            assert "RLE_DICTIONARY" in col.encodings, col.path_in_schema
        assert col.is_stats_set == (value_type != pa.string()), col.path_in_schema


def test_cases_cover_nulls_and_their_absence():
    players = {case: players_table(_chunk(c))["first_joker_roll"].null_count for case, c in CASES.items()}
    turns = {case: pc.sum(turns_table(_chunk(c), build_tables(load_sheet("standard")))["passed"]).as_py()
             for case, c in CASES.items()}
    assert players["4 players, 3 rolls"] == 4 and turns["4 players, 3 rolls"] in (0, None)
    assert turns["solo"] > 0 and turns["4 players, 3 strategies rotated"] > 0
    assert 0 < players["2 players, capped"] < 50


# --- a run imports no pandas ----------------------------------------------------------------

@pytest.mark.parametrize("players,log_turns", [(1, False), (1, True), (4, True)])
def test_run_does_not_import_pandas(players, log_turns, tmp_path):
    code = (
        "import sys\n"
        "from sim.runs.runner import run\n"
        f"run({str(tmp_path / 'out')!r}, games=300, players={players}, strategies=['greedy'], seed=1,\n"
        f"    chunk_size=100, threads=2, log_turns={log_turns})\n"
        "assert 'pandas' not in sys.modules, 'pandas was imported'\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("quiet", [True, False])
def test_cli_run_does_not_import_pandas(quiet, tmp_path):
    args = ["run", "--games", "200", "--players", "1", "--seed", "1", *["--quiet"] * quiet]
    assert modules_loaded_by([*args, "--out", tmp_path / "out"], ("pandas",)) == []
    r = invoke(*args, "--out", tmp_path / "again")
    assert r.exit_code == 0, r.output
    assert ("Solo rating bands" in r.stdout) != quiet
