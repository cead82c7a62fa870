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
from .gamelog import log_rules
from .manifest import check_files, dataset_rules, manifest_files, manifest_sheet
from ..rules import RULEBOOK, Rules
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
from ..tables import bit_of, build_tables, to_words

LETTERS = "gybro"


def legend(rules: Rules = RULEBOOK) -> str:
    """What draw_sheet's marks mean (docs/rules.md names the parts of the game), a star box's cost
    the rules'."""
    return (f"  g y b r o: green yellow blue red orange;  g  open, [g] crossed;  * a star box: "
            f"-{rules.star_penalty} unless crossed\n"
            "  H<: the start column: every move crosses a box in H or next to a box its player crossed before")


LEGEND = legend()


def from_dataset(path, game: int, checked: bool = True, rules=None) -> tuple[dict, Sheet, list[dict] | None]:
    """(game log, sheet, stored players rows or None) for game `game` of the dataset at `path`
    (a folder or a filesystem URL), played under the dataset's rules; None when the game's chunk
    is not finished. `checked`: users' strategies are compiled with bounds checking. `rules`, if
    given, must be the dataset's (ValueError otherwise)."""
    manifest = read_manifest(path)
    dataset_rules(manifest, rules)
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
    the strategy the run seats there, under the run's rules; `files` maps a user file spec to the
    file it was run with."""
    specs = s.seats(check_int("game", game, 0, 2**62))
    line = lineup(specs, [(files or {}).get(spec) for spec in specs], s.sheet, s.players, s.checked, rules=s.rules)
    return play_game(s.seed, game, line, s.sheet, s.max_rolls, rules=s.rules)


def check_stored(log: dict, stored: list[dict] | None) -> str | None:
    """None if the replayed scores equal the stored ones (or nothing is stored), else a message."""
    if stored is None:
        return None
    mine = [(r["seat"], r["score"]) for r in log["result"]]
    theirs = [(r["seat"], r["score"]) for r in stored]
    if mine != theirs:
        return f"replayed scores {mine} differ from the dataset's {theirs}"
    return None


def draw_sheet(sheet: Sheet, crossed: set[tuple[int, int]], rules: Rules = RULEBOOK) -> list[str]:
    """The sheet as text, `crossed` marked, under it the columns' values of `rules`."""
    lines = [("     " + "".join(f" {c}{'<' if i == 7 else ' '} " for i, c in enumerate(COLUMNS))).rstrip()]
    for row in range(N_ROWS):
        cells = []
        for col in range(N_COLS):
            letter = LETTERS[sheet.colour[row, col]]
            star = "*" if sheet.star[row, col] else ""
            cells.append(f"[{letter}{star}]".ljust(4) if (col, row) in crossed else f" {letter}{star}".ljust(4))
        lines.append((f"  {row + 1}  " + "".join(cells)).rstrip())
    lines.append("     " + "".join(f"{v:>2}/{w:<1}" for v, w in zip(*rules.column_points)).rstrip()
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


def render(log: dict, sheet=None, every_roll: bool = False, trace=None) -> str:
    """The game of `log` (sim.play_game's format) as text: rolls, moves, awards, sheets, scores,
    under the rules the log names (the rulebook's if it names none); with `trace` (the game's rows
    of the trace table, sim.runs.trace) each seat's chance of winning, expected score and luck
    after every roll."""
    sheet = load_sheet(sheet if sheet is not None else log["sheet"])
    rules = log_rules(log)
    players = log["players"]
    # By their labels, as every other command names them (a user's @strategy name, not its path).
    names = log.get("labels") or log["strategies"]
    names = names if len(names) == players else names * players
    crossed = [set() for _ in range(players)]
    jokers = [rules.jokers] * players
    # Bitmasks as the engine keeps them; in solo nothing is ever taken (every completion scores first).
    cols_taken = colours_taken = 0
    cols_done, colours_done = [0] * players, [0] * players
    colour_mask = build_tables(sheet).colour_mask
    # Writable arrays, as the engine's own constants were: a read-only one would compile awards() anew.
    col_first, col_later = (np.array(values, np.int64) for values in rules.column_points)
    out = [f"Game {log['game']} of seed {log['seed']}: "
           + ("solo" if players == 1 else f"{players} players") + f", sheet {log['sheet']}"
           + ("" if rules.is_rulebook else f", rules {rules.text}"),
           "Seats: " + ", ".join(f"{s}={n}" for s, n in enumerate(names)),
           "Rolls: colour dice | number dice; moves: colour number -> boxes crossed (dice taken, ! spent; ! left)"]
    if trace is not None:
        from .trace import roll_line
        out.append("Chances: each seat's chance of winning (its expected final score, the roll's luck in points)"
                   if players > 1 else "Trace: the expected final score after each roll, and the roll's luck in points")
        out.append(roll_line(trace[trace["roll"] == 0], "before the first roll:"))
    out.append("")

    def sheets(title):
        for s in range(players):
            out.append(f"  {title} seat {s} ({names[s]}), {jokers[s]} ! left")
            out.extend("  " + line for line in draw_sheet(sheet, crossed[s], rules))
        out.append(legend(rules))
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
                col_first, col_later, colour_mask, *rules.colour_bonus)
            out.extend(_award_lines(s, new_cols, first_cols, new_colours, first_colours, rules))
            cols_done[s] |= new_cols
            colours_done[s] |= new_colours
            new_cols_all |= new_cols
            new_colours_all |= new_colours
        if players > 1:
            cols_taken |= new_cols_all
            colours_taken |= new_colours_all
        if trace is not None:
            out.append(roll_line(trace[trace["roll"] == r["roll"]]))
        if every_roll:
            out.append("")
            sheets("after roll " + str(r["roll"]) + ":")
    out += ["", _the_end(log, rules), ""]
    sheets("Final sheet of")
    out.append(_score_formula(rules))
    out.extend("  " + line for line in score_table(log["result"], names, rules))
    return "\n".join(out)


def _award_lines(s, new_cols, first_cols, new_colours, first_colours, rules: Rules) -> list[str]:
    """What seat s completes in a roll, and what each completion scores under `rules`."""
    out = []
    col_first, col_later = rules.column_points
    for col in range(N_COLS):
        if (new_cols >> col) & 1:
            first = (first_cols >> col) & 1
            pts = col_first[col] if first else col_later[col]
            out.append(f"    * seat {s} completes column {COLUMNS[col]} "
                       f"({'first' if first else 'later'}: {pts} point{'s' if pts != 1 else ''})")
    for c in range(len(COLOURS)):
        if (new_colours >> c) & 1:
            first = (first_colours >> c) & 1
            pts = rules.colour_bonus[0 if first else 1]
            out.append(f"    * seat {s} completes {COLOURS[c]} "
                       f"({'first' if first else 'later'}: {pts} point{'s' if pts != 1 else ''})")
    return out


_COLOURS_COUNT = ("no", "one", "two", "three", "four", "five")


def _the_end(log: dict, rules: Rules) -> str:
    """How the game ended, in the words of `rules` (the rolls of the solo game, the colours a table's ends at)."""
    if log["players"] == 1:
        return f"The solo game ends after {rules.solo_rolls} roll{'s' if rules.solo_rolls != 1 else ''}."
    if log["capped"]:
        return "The game ends at the roll cap."
    n = rules.end_colours
    return f"The game ends after a seat completed {_COLOURS_COUNT[n]} colour{'s' if n != 1 else ''}."


def _score_formula(rules: Rules) -> str:
    """The score's parts as the score table shows them, with the rules' penalties."""
    text = (f"Scores: score = columns + colours + ! left - star penalty ({rules.star_penalty} per star box "
            "not crossed)")
    if rules.pass_penalty:
        text += f" - pass penalty ({rules.pass_penalty} per pass)"
    return text


def score_table(result: list[dict], names: list[str], rules: Rules = RULEBOOK) -> list[str]:
    """The final scores, one line per seat, each column as wide as its widest cell; under a pass
    penalty a column of it (the dataset has none: it is the rules' penalty times `passes`)."""
    # Hand-written: nine columns of a few seats; a table library would be a dependency for 4 lines.
    columns = [("seat", ">", "seat"), ("strategy", "<", None), ("score", ">", "score"),
               ("columns", ">", "column_points"), ("colours", ">", "colour_points"), ("! left", ">", "jokers_left"),
               ("star penalty", ">", "star_penalty"), ("boxes", ">", "boxes"), ("winner", "<", "winner")]
    if rules.pass_penalty:
        columns.insert(7, ("pass penalty", ">", "pass_penalty"))
        result = [{**r, "pass_penalty": rules.pass_penalty * r["passes"]} for r in result]
    cells = [[str(names[r["seat"]]) if key is None else ("yes" if r[key] else "") if key == "winner" else str(r[key])
              for _, _, key in columns] for r in result]
    widths = [max(len(title), *(len(row[i]) for row in cells)) for i, (title, _, _) in enumerate(columns)]
    lines = ["  ".join(f"{title:{align}{w}}" for (title, align, _), w in zip(columns, widths))]
    lines += ["  ".join(f"{c:{align}{w}}" for c, (_, align, _), w in zip(row, columns, widths)) for row in cells]
    return [line.rstrip() for line in lines]
