"""What the play page shows of a game in progress, as plain JSON data (`encore-sim play`).

    v = page_view(g, awards)     # g: a sim.runs.game.GameInProgress, seat g.you the person's

The page draws everything from this one dict, fetched again after every move and on a reload,
so the state lives in the server alone. It shows what a player at the table may see and no more:
the moves of a roll's passive seats stay hidden until the roll is over (RULES section 3: each
passive player decides without seeing the others), so the log holds the finished rolls and the
active seat's move of the current one.

Which columns and colours a seat scored first or later is not in the engine's state at the end of
a roll (`ST_COLS_TAKEN` by then holds every column completed), so `Awards` watches each roll's
completions as the game steps: the page circles the value a seat got, as on the paper sheet.
"""
from __future__ import annotations

from ..sheets import COLOURS, COLUMNS, START_COLUMN
from ..state import (
    PS_COL_POINTS, PS_COLOUR_POINTS, PS_COLOURS, PS_COLS, PS_JOKERS, PS_PASSES, ST_ACTIVE, ST_AVAIL, ST_COLOURS_TAKEN,
    ST_COLS_TAKEN, ST_DICE, ST_IS_ACTIVE, ST_PLAYERS, ST_ROLL, BB_CROSSED, PS_WINNER,
)
from .. import engine
from ..runs.gamelog import colour_face, game_move, mask_cells, number_face


class Awards:
    """Each seat's completed columns and colours with the value it got (first or later), watched
    roll by roll: call `watch(g)` after every step of the game (it compares with the last look)."""

    def __init__(self, players: int):
        self.columns = [{} for _ in range(players)]     # column index -> "first" | "later"
        self.colours = [{} for _ in range(players)]     # colour index -> "first" | "later"
        self._taken = (0, 0)                            # columns, colours taken before the last look
        self.events: list[dict] = []                    # each completion: roll, seat, kind, name, which

    def watch(self, g, roll: int | None = None) -> None:
        """`roll`: the roll the completions seen now were made in (the person's last decision's: the
        bots play the rest of that roll before the next decision), for the log's announcements."""
        solo = g.players == 1
        for s in range(g.players):
            for kind, names, mask, seen, taken in (
                    ("column", COLUMNS, g.ps[s, PS_COLS], self.columns[s], self._taken[0]),
                    ("colour", COLOURS, g.ps[s, PS_COLOURS], self.colours[s], self._taken[1])):
                for i in _bits(int(mask)):
                    if i not in seen:
                        # first: nobody completed it in an earlier roll (RULES section 6); solo: always
                        seen[i] = "first" if solo or not (taken >> i) & 1 else "later"
                        self.events.append({"roll": roll, "seat": s, "kind": kind, "name": names[i],
                                            "which": seen[i]})
        self._taken = (int(g.st[ST_COLS_TAKEN]), int(g.st[ST_COLOURS_TAKEN]))

    def to_dict(self) -> dict:
        return {"columns": [{str(k): v for k, v in d.items()} for d in self.columns],
                "colours": [{str(k): v for k, v in d.items()} for d in self.colours]}

    @classmethod
    def from_dict(cls, d: dict, players: int, taken=(0, 0)) -> "Awards":
        a = cls(players)
        a.columns = [{int(k): v for k, v in x.items()} for x in d["columns"]]
        a.colours = [{int(k): v for k, v in x.items()} for x in d["colours"]]
        a._taken = taken
        return a


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if (mask >> i) & 1]


def sheet_view(sheet, rules) -> dict:
    """The printed sheet: colours and stars row by row, the columns' values, the colour bonus."""
    return {
        "name": sheet.name,
        "columns": COLUMNS,
        "start_column": START_COLUMN,
        "colours": list(COLOURS),
        "boxes": [[int(c) for c in row] for row in sheet.colour],
        "stars": [[bool(x) for x in row] for row in sheet.star],
        "column_points": {"first": [int(x) for x in rules.column_points[0]],
                          "later": [int(x) for x in rules.column_points[1]]},
        "colour_bonus": {"first": int(rules.colour_bonus[0]), "later": int(rules.colour_bonus[1])},
        "jokers": int(rules.jokers),
        "star_penalty": int(rules.star_penalty),
    }


def dice_view(st, players: int) -> dict:
    """The roll's dice (faces as the game log names them) and which of them the deciding seat may use."""
    n = 2 if players == 1 else 3
    avail = int(st[ST_AVAIL])
    return {
        "colour": [colour_face(int(f)) for f in st[ST_DICE:ST_DICE + n]],
        "number": [number_face(int(f)) for f in st[ST_DICE + 3:ST_DICE + 3 + n]],
        "colour_available": [bool((avail >> d) & 1) for d in range(n)],
        "number_available": [bool((avail >> (3 + d)) & 1) for d in range(n)],
    }


def choice_view(i: int, row, tab) -> dict:
    """Choice i (a row of legal choices: colour die, number die, placement row, '!' spent)."""
    cd, nd, sub, cost = (int(x) for x in row)
    return {"i": i, "colour_die": cd, "number_die": nd, "colour": COLOURS[int(tab.colour[sub])],
            "number": int(tab.size[sub]), "cells": mask_cells(tab.mask[sub]), "jokers": cost}


def log_view(g, tab) -> list[dict]:
    """The rolls so far, as the game log (sim.runs.gamelog) has them: every move of a finished roll;
    of the current roll, the active seat's alone (a passive seat's stays hidden until the roll ends)."""
    rows = g.log[:int(g.gres[engine.GR_LOG_ROWS])]
    roll_now = int(g.st[ST_ROLL])
    n = 2 if g.players == 1 else 3
    rolls = []
    for r in range(1, roll_now + 1):
        moves = [game_move(row, tab) for row in rows[rows[:, engine.LOG_ROLL] == r]
                 if r < roll_now or g.over or row[engine.LOG_ACTIVE]]
        dice = g.dice_log[r - 1]
        rolls.append({"roll": r, "active": (r - 1) % g.players,
                      "dice": {"colour": [colour_face(int(f)) for f in dice[:n]],
                               "number": [number_face(int(f)) for f in dice[3:3 + n]]},
                      "moves": moves})
    return rolls


def seat_view(g, s: int, awards: Awards, scores, names=None) -> dict:
    ps = g.ps[s]
    return {
        "seat": s,
        "label": g.labels[s],
        "name": names[s] if names else g.labels[s],
        "yours": bool(g.external[s]),
        "crossed": mask_cells(g.bb[s, BB_CROSSED:BB_CROSSED + 2]),
        "jokers_left": int(ps[PS_JOKERS]),
        "columns": {COLUMNS[int(k)]: v for k, v in awards.columns[s].items()},
        "colours": {COLOURS[int(k)]: v for k, v in awards.colours[s].items()},
        "column_points": int(ps[PS_COL_POINTS]),
        "colour_points": int(ps[PS_COLOUR_POINTS]),
        "passes": int(ps[PS_PASSES]),
        "score": int(scores[s]),
        "winner": bool(g.over and ps[PS_WINNER]),
    }


def end_view(g, names) -> dict | None:
    """Why the game ended (None while it goes on): the solo game's last roll, the seats that completed
    a second colour (RULES section 7), or the roll limit."""
    if not g.over:
        return None
    roll = int(g.st[ST_ROLL])
    if g.players == 1:
        return {"cause": "rolls", "seats": [], "text": f"The solo game ends after its {roll} rolls."}
    done = [s for s in range(g.players) if bin(int(g.ps[s, PS_COLOURS])).count("1") >= 2]
    if done:
        who = " and ".join(names[s] for s in done)
        verb = "complete" if done == [0] or len(done) > 1 else "completes"
        return {"cause": "colours", "seats": done,
                "text": f"The game ends in roll {roll}: {who} {verb} a second colour."}
    return {"cause": "rolls", "seats": [], "text": f"The game ends at the limit of {roll} rolls."}


def page_view(g, awards: Awards, tab, names=None) -> dict:
    """Everything the page draws of game g (a GameInProgress) now; `tab`: its sheet's tables
    (sim.tables.build_tables: placement rows to boxes); `names`: what the page calls each seat."""
    st = g.st
    scores = g.scores()
    deciding = g.seat
    view = {
        "over": bool(g.over),
        "roll": int(st[ST_ROLL]),
        "rolls": int(g.max_rolls) if g.players == 1 else None,
        "players": int(st[ST_PLAYERS]),
        "active_seat": int(st[ST_ACTIVE]),
        "seat": deciding,
        "you_active": bool(deciding is not None and st[ST_IS_ACTIVE]),
        "columns_taken": [COLUMNS[i] for i in _bits(int(st[ST_COLS_TAKEN]))],
        "colours_taken": [COLOURS[i] for i in _bits(int(st[ST_COLOURS_TAKEN]))],
        "seats": [seat_view(g, s, awards, scores, names) for s in range(g.players)],
        "dice": dice_view(st, g.players) if deciding is not None else None,
        "choices": [choice_view(i, row, tab) for i, row in enumerate(g.choices())],
        "log": log_view(g, tab),
        "end": end_view(g, names or g.labels),
    }
    for roll in view["log"]:
        roll["events"] = [e for e in awards.events if e["roll"] == roll["roll"]]
    return view

