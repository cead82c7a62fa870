"""`recorded`: a seat that plays the moves a file holds, roll by roll.

A person's game (sim.play.game) is saved as a dataset whose manifest seats them as
`recorded:moves=moves.json`, so that `summary`, `replay`, `analyse` and `report` rebuild their
game from the manifest as they rebuild any run's: the recorded seat makes the person's moves, the
other seats are played by their strategies again. Results name the seat by the player the file
names ("you"), not by the spec.

The file (JSON; write_moves writes it):

    {"format": "encore-sim-moves", "version": 1, "player": "you",
     "moves": [MOVE of roll 1, MOVE of roll 2, ...]}
    MOVE: {"pass": true}, or {"colour_die": 0, "number_die": 2, "cells": ["H6", "H7"], "jokers": 0}

A seat decides once a roll, so move r - 1 is its move of roll r; the dice are 0-based among the
roll's three (solo: two) colour and number dice. A move that is not one of the seat's legal
choices in its roll, or a roll past the last move, is an illegal choice: the run stops with a
StrategyError naming the seat and roll, as for any strategy's illegal choice.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
from numba import njit

from sim.sheets import parse_cell
from sim.state import CAND_CDIE, CAND_COST, CAND_NDIE, CAND_SUB, PASS, ST_ROLL
from sim.tables import bit_of, build_tables, to_words

from .interface import strategy

FORMAT = "encore-sim-moves"
VERSION = 1
#: Words per move in the strategy's data: colour die, number die, placement row (-1: pass), '!' spent.
_WORDS = 4


class MovesError(ValueError):
    """A moves file that cannot be played: missing, damaged, or not this game's (one line)."""


def read_moves(file) -> dict:
    """The moves file's content, checked: its format, the player's name, one move per roll."""
    name = Path(file).name
    try:
        data = json.loads(Path(file).read_text())
    except FileNotFoundError:
        raise MovesError(f"moves file {file} does not exist") from None
    except (OSError, ValueError) as e:
        raise MovesError(f"{name} is not a moves file of `recorded` ({type(e).__name__}: {e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        raise MovesError(f"{name} is not a moves file of `recorded` (format {FORMAT!r}, version {VERSION})")
    if not isinstance(data.get("player"), str) or not data["player"].strip():
        raise MovesError(f"{name}: 'player' must name the player")
    moves = data.get("moves")
    if not isinstance(moves, list):
        raise MovesError(f"{name}: 'moves' must be a list, one move per roll")
    for r, m in enumerate(moves, 1):
        _check_move(m, f"{name}, roll {r}")
    return data


def _check_move(m, where: str) -> None:
    if not isinstance(m, dict):
        raise MovesError(f"{where}: a move is {{'pass': true}} or its dice, cells and '!'")
    if m.get("pass") is True:
        return
    for key, hi in (("colour_die", 2), ("number_die", 2), ("jokers", 2)):
        x = m.get(key)
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= hi:
            raise MovesError(f"{where}: {key!r} must be an integer 0..{hi}, got {x!r}")
    cells = m.get("cells")
    if not isinstance(cells, list) or not cells or not all(isinstance(c, str) for c in cells):
        raise MovesError(f"{where}: 'cells' must list the boxes crossed, such as ['H6', 'H7']")


def write_moves(path, player: str, moves: list[dict]) -> None:
    """Write a moves file (atomically: a stopped process leaves the old file or the new one)."""
    for r, m in enumerate(moves, 1):
        _check_move(m, f"move of roll {r}")
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps({"format": FORMAT, "version": VERSION, "player": player, "moves": moves},
                              indent=1) + "\n")
    tmp.replace(path)


def placement_rows(tab) -> dict:
    """(mask word 0, mask word 1) -> placement row of the tables `tab` (sim.tables.Tables)."""
    return {(int(tab.mask[i, 0]), int(tab.mask[i, 1])): i for i in range(len(tab.size))}


def placement_row(rows: dict, cells, where: str = "") -> int:
    """The placement row of the boxes `cells` (names such as "H6"); MovesError if none is."""
    try:
        key = to_words(bit_of(*parse_cell(c)) for c in cells)
    except ValueError as e:
        raise MovesError(f"{where}: {e}") from None
    if key not in rows:
        raise MovesError(f"{where}: {' '.join(cells)} is no placement of this sheet")
    return rows[key]


def moves_data(sheet, file, players: int, rules=None) -> np.ndarray:
    """Strategy.data of `recorded`: the moves of `file`, count first, then per roll (colour die,
    number die, placement row, '!' spent); a pass is (-1, -1, -1, 0)."""
    if file is None:
        raise MovesError("strategy 'recorded' plays the moves of a file: recorded:moves=FILE")
    data = read_moves(file)
    rows = placement_rows(build_tables(sheet, rules))
    out = np.zeros(1 + _WORDS * len(data["moves"]))
    out[0] = len(data["moves"])
    for r, m in enumerate(data["moves"]):
        o = 1 + _WORDS * r
        if m.get("pass") is True:
            out[o:o + _WORDS] = -1, -1, -1, 0
        else:
            sub = placement_row(rows, m["cells"], f"{Path(file).name}, roll {r + 1}")
            out[o:o + _WORDS] = m["colour_die"], m["number_die"], sub, m["jokers"]
    return out


def player_of(file) -> str | None:
    """How results name the seat: the player of the moves file (None if it cannot be read)."""
    try:
        return read_moves(file)["player"]
    except MovesError:
        return None


@njit(cache=True)
def _play_recorded(st, ps, bb, cands, n, tab, params, rng):
    """The recorded move of this roll: the row of cands that makes it, or an illegal index (n)
    where the recording has none (past its end) or its move is not legal here."""
    roll = st[ST_ROLL]
    if roll > params[0]:
        return n
    o = 1 + _WORDS * (roll - 1)
    cd, nd, sub, cost = int(params[o]), int(params[o + 1]), int(params[o + 2]), int(params[o + 3])
    if sub < 0:
        return PASS
    for i in range(n):
        if cands[i, CAND_CDIE] == cd and cands[i, CAND_NDIE] == nd and cands[i, CAND_SUB] == sub \
                and cands[i, CAND_COST] == cost:
            return i
    return n


recorded = strategy(_play_recorded, name="recorded", data=moves_data, file_param="moves", reads_rules=(),
                    description="plays the moves of a file, roll by roll (recorded:moves=FILE): a person's "
                                "saved game")
recorded = dataclasses.replace(recorded, label_of=player_of)
