"""A game as plain JSON-serialisable data: the log `play_game` returns (its format is in the
README), built from a chunk's kernel arrays."""
from __future__ import annotations

from .. import engine
from ..rules import parse_rules
from ..sheets import COLOURS, Sheet, cell_name
from ..state import (
    PS_BOXES, PS_COL_POINTS, PS_COLOUR_POINTS, PS_COLOURS, PS_COLOURS_FIRST, PS_COLS, PS_COLS_FIRST,
    PS_FIRST_JOKER_ROLL, PS_JOKERS, PS_PASSES, PS_RANK, PS_SCORE, PS_STAR_PENALTY, PS_WINNER, COLOUR_JOKER,
    NUMBER_JOKER,
)
from ..tables import START_JOKERS, build_tables, from_words


def game_log(chunk, sheet: Sheet, max_rolls: int) -> dict:
    """The log of the first game of `chunk` (played with log_turns) on `sheet`."""
    players = chunk.seats.shape[1]
    tab = build_tables(sheet, chunk.rules)
    gres = chunk.games[0]
    log = {
        "seed": chunk.seed,
        "game": chunk.first,
        "sheet": sheet.name,
        "players": players,
        "strategies": list(chunk.specs),
        "labels": list(chunk.labels or chunk.specs),   # as results name them: a user's by its @strategy name
        "max_rolls": max_rolls,
        "capped": bool(gres[engine.GR_CAPPED]),
        "ended_by": _seats(gres[engine.GR_ENDED_BY], players),
        "winners": _seats(gres[engine.GR_WINNERS], players),
        "rolls": game_rolls(chunk.dice, chunk.log, gres, tab, players),
        "result": game_result(chunk.seats[0], players, chunk.rules.jokers),
    }
    return with_rules(log, chunk.rules)


def with_rules(log: dict, rules) -> dict:
    """The log naming the rules it was played under (their --rules text) after "max_rolls", unless
    they are the rulebook's: a log of the rulebook's game stays as it was before rule variants."""
    if rules.is_rulebook:
        return log
    keys = list(log)
    at = keys.index("max_rolls") + 1
    return {**{k: log[k] for k in keys[:at]}, "rules": rules.text, **{k: log[k] for k in keys[at:]}}


def log_rules(log: dict):
    """The rules a game log was played under (sim.rules.Rules)."""
    return parse_rules(log.get("rules") or "")


def mask_cells(mask) -> list[str]:
    """Cell names of a two-word box mask, column by column."""
    return [cell_name(col, row) for col, row in from_words(mask[0], mask[1])]


def colour_face(face: int):
    return "joker" if face == COLOUR_JOKER else COLOURS[face]


def number_face(face: int):
    return "joker" if face == NUMBER_JOKER else int(face)


def _seats(mask, players) -> list[int]:
    return [s for s in range(players) if (int(mask) >> s) & 1]


def game_rolls(dice_log, log, gres, tab, players) -> list[dict]:
    rolls = []
    rows = iter(log)
    n_dice = 2 if players == 1 else 3
    for r in range(int(gres[engine.GR_ROLLS])):
        dice = dice_log[r]
        moves = []
        for _ in range(players):
            row = next(rows)
            moves.append(game_move(row, tab))
        rolls.append({
            "roll": r + 1,
            "active": r % players,
            "dice": {
                "colour": [colour_face(f) for f in dice[:n_dice]],
                "number": [number_face(f) for f in dice[3:3 + n_dice]],
            },
            "moves": moves,
        })
    return rolls


def game_move(row, tab) -> dict:
    seat = int(row[engine.LOG_SEAT])
    offered = {"available": int(row[engine.LOG_AVAIL]), "n_choices": int(row[engine.LOG_CHOICES])}
    if row[engine.LOG_SUB] < 0:
        return {"seat": seat, "pass": True, "colour_die": None, "number_die": None, "colour": None,
                "number": None, "cells": [], "jokers": 0, **offered}
    sub = row[engine.LOG_SUB]
    return {
        "seat": seat,
        "pass": False,
        "colour_die": int(row[engine.LOG_CDIE]),
        "number_die": int(row[engine.LOG_NDIE]),
        "colour": COLOURS[tab.colour[sub]],
        "number": int(tab.size[sub]),
        "cells": mask_cells(tab.mask[sub]),
        "jokers": int(row[engine.LOG_COST]),
        **offered,
    }


def game_result(ps, players, jokers=START_JOKERS) -> list[dict]:
    """Each seat's result: the fields of a dataset's players table (sim.runs.schema.PLAYERS); `jokers`:
    the '!' a sheet started with."""
    return [
        {
            "seat": s,
            "score": int(ps[s, PS_SCORE]),
            "column_points": int(ps[s, PS_COL_POINTS]),
            "colour_points": int(ps[s, PS_COLOUR_POINTS]),
            "jokers_left": int(ps[s, PS_JOKERS]),
            "jokers_used": jokers - int(ps[s, PS_JOKERS]),
            "star_penalty": int(ps[s, PS_STAR_PENALTY]),
            "boxes": int(ps[s, PS_BOXES]),
            "columns_first": int(ps[s, PS_COLS_FIRST]),
            "columns_later": int(ps[s, PS_COLS]).bit_count() - int(ps[s, PS_COLS_FIRST]),
            "colours_first": int(ps[s, PS_COLOURS_FIRST]),
            "colours_later": int(ps[s, PS_COLOURS]).bit_count() - int(ps[s, PS_COLOURS_FIRST]),
            "first_joker_roll": int(ps[s, PS_FIRST_JOKER_ROLL]) or None,
            "passes": int(ps[s, PS_PASSES]),
            "rank": int(ps[s, PS_RANK]),
            "winner": bool(ps[s, PS_WINNER]),
        }
        for s in range(players)
    ]


def describe(choice: dict) -> str:
    """A choice as `encore-sim replay` prints a move: 'yellow 3 -> H7 I6 I7 (1 ! spent)' or 'pass'."""
    if choice["pass"]:
        return "pass"
    extra = f" ({choice['jokers']} ! spent)" if choice["jokers"] else ""
    return f"{choice['colour']} {choice['number']} -> {' '.join(choice['cells'])}{extra}"
