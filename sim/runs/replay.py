"""Replaying one game from its seed and printing it roll by roll with text sheets.

    log = game_log(seed, game, strategies, sheet, max_rolls)   # = sim.play_game
    log = from_dataset(path, game)                               # settings from manifest.json
    print(render(log, sheet))

A box is drawn in 4 characters: ` g  ` open, ` g* ` open star box,
`[g] ` crossed, `[g*]` crossed star box (letters g y b r o as in sheet files);
LEGEND says so under every sheet drawn.
"""
from __future__ import annotations

import numpy as np
import pyarrow.compute as pc

from .api import check_int, lineup, play_game
from .dataset import done_chunks, read_manifest, read_part
from .manifest import check_files, manifest_files, manifest_sheet
from ..sheets import (
    COLOURS,
    COLUMNS,
    N_COLS,
    N_ROWS,
    Sheet,
    load_sheet,
    parse_cell,
)
from ..engine import awards
from .settings import Settings
from ..tables import COLOUR_FIRST, COLOUR_LATER, COLUMN_FIRST, COLUMN_LATER, bit_of, build_tables, to_words

LETTERS = "gybro"
#: What draw_sheet's marks mean (docs/rules.md names the parts of the game).
LEGEND = ("  g y b r o: green yellow blue red orange;  g  open, [g] crossed;  * a star box: -2 unless crossed\n"
          "  H<: the start column: every move crosses a box in H or next to a box its player crossed before")


def from_dataset(path, game: int, checked: bool = True) -> tuple[dict, Sheet, list[dict] | None]:
    """(game log, sheet, stored players rows or None) for game `game` of the dataset at `path`
    (a folder or a filesystem URL); None when the game's chunk is not finished. `checked`:
    users' strategies are compiled with bounds checking."""
    manifest = read_manifest(path)
    s = Settings.from_manifest(manifest, manifest_sheet(manifest), checked)
    game = check_int("game", game, 0, s.games - 1)
    check_files(manifest)
    log = game_of(s, game, manifest_files(manifest))
    stored = None
    c = game // s.chunk_size
    if c in done_chunks(path):
        table = read_part(path, "players", c)
        rows = table.filter(pc.equal(table["game"], game)).to_pylist()
        stored = sorted(rows, key=lambda r: r["seat"])
    return log, s.sheet, stored


def game_of(s: Settings, game: int, files: dict | None = None) -> dict:
    """The log of game `game` of a run with settings `s` (sim.runs.api.play_game), each seat played by
    the strategy the run seats there; `files` maps a user file spec to the file it was run with."""
    specs = s.seats(check_int("game", game, 0, 2**62))
    line = lineup(specs, [(files or {}).get(spec) for spec in specs], s.sheet, s.players, s.checked)
    return play_game(s.seed, game, line, s.sheet, s.max_rolls)


def check_stored(log: dict, stored: list[dict] | None) -> str | None:
    """None if the replayed scores equal the stored ones (or nothing is stored), else a message."""
    if stored is None:
        return None
    mine = [(r["seat"], r["score"]) for r in log["result"]]
    theirs = [(r["seat"], r["score"]) for r in stored]
    if mine != theirs:
        return f"replayed scores {mine} differ from the dataset's {theirs}"
    return None


def draw_sheet(sheet: Sheet, crossed: set[tuple[int, int]]) -> list[str]:
    lines = [("     " + "".join(f" {c}{'<' if i == 7 else ' '} " for i, c in enumerate(COLUMNS))).rstrip()]
    for row in range(N_ROWS):
        cells = []
        for col in range(N_COLS):
            letter = LETTERS[sheet.colour[row, col]]
            star = "*" if sheet.star[row, col] else ""
            cells.append(f"[{letter}{star}]".ljust(4) if (col, row) in crossed else f" {letter}{star}".ljust(4))
        lines.append((f"  {row + 1}  " + "".join(cells)).rstrip())
    lines.append("     " + "".join(f"{v:>2}/{w:<1}" for v, w in zip(COLUMN_FIRST, COLUMN_LATER)).rstrip()
                 + "   column points first/later")
    return lines


def _dice(d: dict) -> str:
    return " ".join(d["colour"]) + " | " + " ".join(str(x) for x in d["number"])


def _move(m: dict, name: str, jokers_left: int) -> str:
    who = f"seat {m['seat']} ({name})"
    if m["pass"]:
        return f"    {who}: pass"
    extra = f", {m['jokers']} ! spent" if m["jokers"] else ""
    return (f"    {who}: {m['colour']} {m['number']} -> {' '.join(m['cells'])}"
            f"   (colour die {m['colour_die']}, number die {m['number_die']}{extra}; {jokers_left} ! left)")


def render(log: dict, sheet=None, every_roll: bool = False) -> str:
    """The game of `log` (sim.play_game's format) as text: rolls, moves, awards, sheets, scores."""
    sheet = load_sheet(sheet if sheet is not None else log["sheet"])
    players = log["players"]
    # By their labels, as every other command names them (a user's @strategy name, not its path).
    names = log.get("labels") or log["strategies"]
    names = names if len(names) == players else names * players
    crossed = [set() for _ in range(players)]
    jokers = [8] * players
    # Bitmasks as the engine keeps them; in solo nothing is ever taken (every completion scores first).
    cols_taken = colours_taken = 0
    cols_done, colours_done = [0] * players, [0] * players
    colour_mask = build_tables(sheet).colour_mask
    out = [f"Game {log['game']} of seed {log['seed']}: "
           + ("solo" if players == 1 else f"{players} players") + f", sheet {log['sheet']}",
           "Seats: " + ", ".join(f"{s}={n}" for s, n in enumerate(names)),
           "Rolls: colour dice | number dice; moves: colour number -> boxes crossed (dice taken, ! spent; ! left)",
           ""]

    def sheets(title):
        for s in range(players):
            out.append(f"  {title} seat {s} ({names[s]}), {jokers[s]} ! left")
            out.extend("  " + line for line in draw_sheet(sheet, crossed[s]))
        out.append(LEGEND)
        out.append("")

    for r in log["rolls"]:
        active = "" if players == 1 else f", active seat {r['active']}"
        out.append(f"Roll {r['roll']}{active}: {_dice(r['dice'])}")
        for m in r["moves"]:
            s = m["seat"]
            for name in m["cells"]:
                crossed[s].add(parse_cell(name))
            jokers[s] -= m["jokers"]
            out.append(_move(m, names[s], jokers[s]))
        new_cols_all = new_colours_all = 0
        for s in range(players):
            lo, hi = to_words(bit_of(col, row) for col, row in crossed[s])
            new_cols, new_colours, first_cols, first_colours, _, _ = awards(
                np.uint64(lo), np.uint64(hi), cols_done[s], colours_done[s], cols_taken, colours_taken,
                COLUMN_FIRST, COLUMN_LATER, colour_mask, COLOUR_FIRST, COLOUR_LATER)
            for col in range(N_COLS):
                if (new_cols >> col) & 1:
                    first = (first_cols >> col) & 1
                    pts = COLUMN_FIRST[col] if first else COLUMN_LATER[col]
                    out.append(f"    * seat {s} completes column {COLUMNS[col]} "
                               f"({'first' if first else 'later'}: {pts} point{'s' if pts != 1 else ''})")
            for c in range(len(COLOURS)):
                if (new_colours >> c) & 1:
                    first = (first_colours >> c) & 1
                    pts = COLOUR_FIRST if first else COLOUR_LATER
                    out.append(f"    * seat {s} completes {COLOURS[c]} "
                               f"({'first' if first else 'later'}: {pts} points)")
            cols_done[s] |= new_cols
            colours_done[s] |= new_colours
            new_cols_all |= new_cols
            new_colours_all |= new_colours
        if players > 1:
            cols_taken |= new_cols_all
            colours_taken |= new_colours_all
        if every_roll:
            out.append("")
            sheets("after roll " + str(r["roll"]) + ":")
    out.append("")
    if players > 1:
        out.append("The game ends " + ("at the roll cap." if log["capped"] else
                                       "after a seat completed two colours."))
    else:
        out.append("The solo game ends after 30 rolls.")
    out.append("")
    sheets("Final sheet of")
    out.append("Scores: score = columns + colours + ! left - star penalty (2 per star box not crossed)")
    out.extend("  " + line for line in _score_table(log["result"], names))
    return "\n".join(out)


def _score_table(result: list[dict], names: list[str]) -> list[str]:
    """The final scores, one line per seat, each column as wide as its widest cell."""
    # Hand-written: nine columns of a few seats; a table library would be a dependency for 4 lines.
    columns = [("seat", ">", "seat"), ("strategy", "<", None), ("score", ">", "score"),
               ("columns", ">", "column_points"), ("colours", ">", "colour_points"), ("! left", ">", "jokers_left"),
               ("star penalty", ">", "star_penalty"), ("boxes", ">", "boxes"), ("winner", "<", "winner")]
    cells = [[str(names[r["seat"]]) if key is None else ("yes" if r[key] else "") if key == "winner" else str(r[key])
              for _, _, key in columns] for r in result]
    widths = [max(len(title), *(len(row[i]) for row in cells)) for i, (title, _, _) in enumerate(columns)]
    lines = ["  ".join(f"{title:{align}{w}}" for (title, align, _), w in zip(columns, widths))]
    lines += ["  ".join(f"{c:{align}{w}}" for c, (_, align, _), w in zip(row, columns, widths)) for row in cells]
    return [line.rstrip() for line in lines]
