"""Replay a game log from scratch and check it against the rules (docs/rules.md), using only the
independent reference in `reference.py` (nothing from `sim`).

Log format (dict, as returned by `sim.play_game`, or built from a dataset's rows by `dataset_logs`):

    {"seed", "game", "sheet", "players", "strategies", "capped": bool,
     "ended_by": [seats], "winners": [seats],
     "rolls": [{"roll": 1-based int, "active": seat,
                "dice": {"colour": [...], "number": [...]},
                "moves": [{"seat", "pass": bool, "colour_die", "number_die", "colour", "number",
                           "cells": [...], "jokers", "available", "n_choices"}]}],
     "result": [{"seat", "score", "column_points", "colour_points", "jokers_left", "jokers_used",
                 "star_penalty", "boxes", "columns_first", "columns_later", "colours_first",
                 "colours_later", "first_joker_roll", "passes", "rank", "winner"}]}

Every field is checked, the derived ones included: `available` (bit i: colour die i, bit 3+i:
number die i, the dice the seat could use), `n_choices` (the choices it was offered: each
distinct (colour face, number face, colour, number, placement) once, since two dice showing one
face offer the same), `first_joker_roll` (None if the seat used no `!`), `rank` (1 + the seats
with a higher score, or the same score and more `!` left).

`check_game_log` raises AssertionError with a message naming the roll, the seat and what is wrong.
A game played under rule variants is checked under them (its `rules`: the reference's
reference.Rules, a --rules text, or an engine's rules read as a record of numbers; else the
log's "rules", if it has one; else the rulebook).
"""

from __future__ import annotations

try:  # imported as `tests.helpers.checker` or as top-level `checker`
    from . import reference as R
except ImportError:  # pragma: no cover
    import reference as R

DEFAULT_MAX_ROLLS = 200

TOP_LEVEL_KEYS = ("seed", "game", "sheet", "players", "strategies", "capped", "ended_by", "winners", "rolls",
                  "result")
MOVE_KEYS = ("seat", "pass", "colour_die", "number_die", "colour", "number", "cells", "jokers", "available",
             "n_choices")
RESULT_KEYS = ("seat", "score", "column_points", "colour_points", "jokers_left", "jokers_used", "star_penalty",
               "boxes", "columns_first", "columns_later", "colours_first", "colours_later", "first_joker_roll",
               "passes", "rank", "winner")


class LogError(AssertionError):
    pass


def _fail(where: str, message: str):
    raise LogError(f"{where}: {message}")


def _check(condition, where: str, message: str):
    if not condition:
        _fail(where, message)


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def check_game_log(log: dict, sheet_text_or_name=None, check_strategies: bool = True, observer=None,
                   rules=None) -> None:
    """Replay `log` and assert that it is a legal, correctly scored game.

    `sheet_text_or_name`: a sheet name ("standard", ...), the text of a sheet file, or a
    reference Sheet; None means the sheet named in the log. With `check_strategies`, also check
    that "greedy" seats always crossed the largest number of boxes available to them (and passed
    only when they had no legal move). `observer(strategy, options, move)`, if given, is called
    for every move with the list of legal non-pass choices the seat had (see
    reference.legal_choices), before the move is checked. `rules`: the rules the game was played
    under (see above).
    """
    _check(isinstance(log, dict), "log", f"is not a dict but {type(log).__name__}")
    for key in TOP_LEVEL_KEYS:
        _check(key in log, "log", f"missing key {key!r}")

    if sheet_text_or_name is None:
        sheet_text_or_name = log["sheet"]
    sheet = R.as_sheet(sheet_text_or_name)
    if isinstance(sheet_text_or_name, str) and "\n" not in sheet_text_or_name:
        _check(log["sheet"] == sheet_text_or_name, "log",
               f"sheet is {log['sheet']!r}, expected {sheet_text_or_name!r}")

    rules = R.as_rules(log.get("rules") if rules is None else rules)
    max_rolls = log.get("max_rolls", DEFAULT_MAX_ROLLS)
    players = log["players"]
    strategies = log["strategies"]
    _check(_is_int(players) and 1 <= players <= 6, "log", f"players must be 1..6, got {players!r}")
    _check(isinstance(strategies, list) and len(strategies) == players, "log",
           f"strategies {strategies!r} must be a list with one entry per seat ({players} seats)")
    for s in strategies:
        _check(isinstance(s, str) and s, "log", f"strategy names must be non-empty strings, got {s!r}")
    _check(isinstance(log["capped"], bool), "log", f"capped must be a bool, got {log['capped']!r}")
    rolls = log["rolls"]
    _check(isinstance(rolls, list), "log", "rolls must be a list")

    solo = players == 1
    k = R.SOLO_DICE if solo else R.MULTIPLAYER_DICE

    crossed = [set() for _ in range(players)]
    jokers_left = [rules.jokers] * players
    column_points = [0] * players
    colour_points = [0] * players
    completed = {key: [0] * players for key in ("columns_first", "columns_later", "colours_first", "colours_later")}
    passes = [0] * players
    first_joker_roll = [None] * players
    columns_done_by_anyone: set[str] = set()  # completed by some player in an earlier roll
    colours_done_by_anyone: set[str] = set()
    ended_at = None  # roll after which the game ended naturally (multiplayer)
    end = f"a player completed {rules.end_colours} colour{'s' * (rules.end_colours > 1)}"

    for index, roll in enumerate(rolls):
        number = index + 1
        where = f"roll {number}"
        _check(ended_at is None, where, f"roll after the end of the game ({end} in roll {ended_at})")
        if solo:
            _check(number <= rules.solo_rolls, where, f"the solo game has exactly {rules.solo_rolls} rolls")
        else:
            _check(number <= max_rolls, where, f"more rolls than the cap max_rolls={max_rolls}")
        _check(isinstance(roll, dict), where, "roll entry is not a dict")
        for key in ("roll", "active", "dice", "moves"):
            _check(key in roll, where, f"missing key {key!r}")
        _check(roll["roll"] == number, where, f"'roll' field is {roll['roll']!r}, expected {number}")
        active = (number - 1) % players
        _check(roll["active"] == active, where, f"active seat is {roll['active']!r}, expected {active}")

        # ---- dice
        dice = roll["dice"]
        _check(isinstance(dice, dict) and set(dice) == {"colour", "number"}, where,
               f"dice must be a dict with keys 'colour' and 'number', got {dice!r}")
        _check(isinstance(dice["colour"], list) and len(dice["colour"]) == k, where,
               f"expected {k} colour dice, got {dice['colour']!r}")
        _check(isinstance(dice["number"], list) and len(dice["number"]) == k, where,
               f"expected {k} number dice, got {dice['number']!r}")
        for face in dice["colour"]:
            _check(isinstance(face, str) and face in R.COLOUR_DIE_FACES, where,
                   f"invalid colour die face {face!r}")
        for face in dice["number"]:
            _check((_is_int(face) and face in R.NUMBERS) or face == R.JOKER, where,
                   f"invalid number die face {face!r}")

        # ---- moves: active player first, then the others in seat order, each exactly once
        moves = roll["moves"]
        expected_seats = [active] + [s for s in range(players) if s != active]
        _check(isinstance(moves, list), where, "moves must be a list")
        seats = [m.get("seat") if isinstance(m, dict) else None for m in moves]
        _check(seats == expected_seats, where,
               f"moves are for seats {seats}, expected {expected_seats} (active first, then seat order)")

        crossed_before = [set(c) for c in crossed]

        active_move = moves[0]
        for move in moves:
            seat = move["seat"]
            mwhere = f"roll {number}, seat {seat}{' (active)' if seat == active else ''}"
            for key in MOVE_KEYS:
                _check(key in move, mwhere, f"move is missing key {key!r}")
            _check(isinstance(move["pass"], bool), mwhere, f"'pass' must be a bool, got {move['pass']!r}")
            colour_idx, number_idx = R.allowed_dice(
                number, seat, active, None if seat == active else active_move, players, k, rules)
            options = R.legal_choices(sheet, crossed[seat], jokers_left[seat], dice, colour_idx, number_idx, rules)
            if observer is not None:
                observer(strategies[seat], options, move)
            available = sum(1 << i for i in colour_idx) | sum(1 << (3 + j) for j in number_idx)
            _check(move["available"] == available and _is_int(move["available"]), mwhere,
                   f"available is {move['available']!r}, expected {available} (colour dice {colour_idx}, "
                   f"number dice {number_idx})")
            offered = {(dice["colour"][i], dice["number"][j], colour, num, placement)
                       for i, j, colour, num, placement, _ in options}
            _check(move["n_choices"] == len(offered) and _is_int(move["n_choices"]), mwhere,
                   f"n_choices is {move['n_choices']!r}, expected {len(offered)} distinct legal choices")

            if move["pass"]:
                passes[seat] += 1
                _check(move["colour_die"] is None and move["number_die"] is None, mwhere,
                       "a pass must have colour_die and number_die None")
                _check(move["colour"] is None and move["number"] is None, mwhere,
                       "a pass must have colour and number None")
                _check(move["cells"] == [], mwhere, f"a pass crosses no cells, got {move['cells']!r}")
                _check(move["jokers"] == 0 and _is_int(move["jokers"]), mwhere,
                       f"a pass spends no jokers, got {move['jokers']!r}")
                if check_strategies and strategies[seat] == "greedy":
                    _check(not options, mwhere,
                           f"greedy seat passed although it had {len(options)} legal choices, e.g. "
                           f"{_describe(options[0]) if options else ''}")
                continue

            ci, ni = move["colour_die"], move["number_die"]
            _check(_is_int(ci) and 0 <= ci < k, mwhere, f"colour_die {ci!r} out of range 0..{k - 1}")
            _check(_is_int(ni) and 0 <= ni < k, mwhere, f"number_die {ni!r} out of range 0..{k - 1}")
            _check(ci in colour_idx, mwhere,
                   f"colour die {ci} was taken by the active player (colour_die "
                   f"{active_move['colour_die']}); a passive player must choose among the other dice")
            _check(ni in number_idx, mwhere,
                   f"number die {ni} was taken by the active player (number_die "
                   f"{active_move['number_die']}); a passive player must choose among the other dice")

            colour_face, number_face = dice["colour"][ci], dice["number"][ni]
            colour, num = move["colour"], move["number"]
            if colour_face == R.JOKER:
                _check(colour in R.COLOURS, mwhere, f"colour joker played as invalid colour {colour!r}")
            else:
                _check(colour == colour_face, mwhere,
                       f"colour is {colour!r} but colour die {ci} shows {colour_face!r}")
            if number_face == R.JOKER:
                _check(_is_int(num) and num in rules.numbers, mwhere,
                       f"number joker played as invalid number {num!r} (it stands for {rules.numbers})")
            else:
                _check(num == number_face and _is_int(num), mwhere,
                       f"number is {num!r} but number die {ni} shows {number_face!r}")

            cost = (colour_face == R.JOKER) + (number_face == R.JOKER)
            _check(move["jokers"] == cost and _is_int(move["jokers"]), mwhere,
                   f"jokers is {move['jokers']!r} but {cost} joker dice were used")
            _check(cost <= jokers_left[seat], mwhere,
                   f"uses {cost} jokers with only {jokers_left[seat]} '!' left")

            cells = move["cells"]
            _check(isinstance(cells, list), mwhere, f"cells must be a list, got {cells!r}")
            for cell in cells:
                _check(isinstance(cell, str) and cell in sheet.colour, mwhere, f"invalid cell name {cell!r}")
            _check(len(set(cells)) == len(cells), mwhere, f"cells contain duplicates: {cells}")
            _check(len(cells) == num, mwhere, f"crosses {len(cells)} cells {cells} but the number is {num}")
            placement = frozenset(cells)
            legal = R.ref_legal_placements(sheet, crossed[seat], colour, num, rules)
            if placement not in legal:
                _fail(mwhere, f"{colour} {num} on {sorted(cells)} is not a legal placement: "
                              f"{_why_illegal(sheet, crossed[seat], colour, cells, rules)}; "
                              f"crossed before: {sorted(crossed[seat])}")

            if check_strategies and strategies[seat] == "greedy":
                best = max(option[3] for option in options)
                _check(num == best, mwhere,
                       f"greedy seat crossed {num} boxes but {best} were possible")

            jokers_left[seat] -= cost
            if cost and first_joker_roll[seat] is None:
                first_joker_roll[seat] = number
            crossed[seat] |= placement

        # ---- awards, settled after every player has chosen (RULES section 6)
        awards, columns_done_by_anyone, colours_done_by_anyone = R.settle_roll(
            sheet, crossed_before, crossed, columns_done_by_anyone, colours_done_by_anyone, solo, rules)
        for s, award in enumerate(awards):
            column_points[s] += award["column_points"]
            colour_points[s] += award["colour_points"]
            for key in completed:
                completed[key][s] += award[key]

        # ---- end of the game (RULES sections 7 and 8; the rules' end colours)
        if not solo and R.game_over_seats(sheet, crossed, rules):
            ended_at = number

    # ---- length of the game and the capped flag
    if solo:
        _check(len(rolls) == rules.solo_rolls, "log",
               f"solo game has {len(rolls)} rolls, expected {rules.solo_rolls}")
        _check(log["capped"] is False, "log", "a solo game is never capped")
    elif ended_at is not None:
        _check(log["capped"] is False, "log",
               f"capped is True but the game ended naturally after roll {ended_at}")
    else:
        _check(len(rolls) == max_rolls, "log",
               f"game stopped after {len(rolls)} rolls although no player completed {rules.end_colours} "
               f"colours and the cap is {max_rolls}")
        _check(log["capped"] is True, "log",
               f"capped must be True: {len(rolls)} rolls (= max_rolls) without a natural end")

    ended_by = [] if ended_at is None else R.game_over_seats(sheet, crossed, rules)
    _check(log["ended_by"] == ended_by, "log", f"ended_by is {log['ended_by']!r}, expected {ended_by} "
           + (f"(the seats with {rules.end_colours} colours completed)" if ended_at else "(no natural end)"))

    # ---- final result (RULES section 7)
    result = log["result"]
    _check(isinstance(result, list) and len(result) == players, "result",
           f"expected one entry per seat ({players}), got {result!r}")
    penalties = [R.star_penalty(sheet, crossed[s], rules) for s in range(players)]
    scores = [R.score(column_points[s], colour_points[s], jokers_left[s], penalties[s], passes[s], rules)
              for s in range(players)]
    wins = R.winners(scores, jokers_left)
    ranks = R.ranks(scores, jokers_left)
    _check(log["winners"] == [s for s in range(players) if wins[s]], "log",
           f"winners is {log['winners']!r}, expected {[s for s in range(players) if wins[s]]} "
           f"(scores {scores}, '!' left {jokers_left})")
    for s in range(players):
        entry = result[s]
        rwhere = f"result, seat {s}"
        for key in RESULT_KEYS:
            _check(key in entry, rwhere, f"missing key {key!r}")
        expected = {
            "seat": s,
            "column_points": column_points[s],
            "colour_points": colour_points[s],
            "jokers_left": jokers_left[s],
            "jokers_used": rules.jokers - jokers_left[s],
            "star_penalty": penalties[s],
            "boxes": len(crossed[s]),
            **{key: counts[s] for key, counts in completed.items()},
            "first_joker_roll": first_joker_roll[s],
            "passes": passes[s],
            "score": scores[s],
            "rank": ranks[s],
            "winner": wins[s],
        }
        for key, value in expected.items():
            _check(entry[key] == value and type(entry[key]) is type(value), rwhere,
                   f"{key} is {entry[key]!r}, expected {value!r} (columns {sorted(R.completed_columns(sheet, crossed[s]))}, "
                   f"colours {sorted(R.completed_colours(sheet, crossed[s]))}, "
                   f"{len(crossed[s])} boxes crossed, scores {scores}, '!' left {jokers_left})")


def _describe(option) -> str:
    ci, ni, colour, number, placement, cost = option
    return f"dice {ci}/{ni} as {colour} {number} on {sorted(placement)} ({cost} jokers)"


def _why_illegal(sheet, crossed, colour, cells, rules) -> str:
    """A human-readable reason why a set of cells is not a legal placement."""
    reasons = []
    taken = sorted(set(cells) & set(crossed))
    if taken:
        reasons.append(f"already crossed: {taken}")
    wrong = sorted(c for c in cells if sheet.colour[c] != colour)
    if wrong:
        reasons.append(f"not {colour}: {wrong}")
    if not R.is_connected(cells):
        reasons.append("not orthogonally connected")
    if not R.is_anchored(cells, crossed):
        reasons.append("not anchored (no box in column H or next to a crossed box)")
    if not 1 <= len(cells) <= max(rules.numbers):
        reasons.append(f"{len(cells)} boxes")
    return ", ".join(reasons) or "unknown reason"


def dataset_logs(folder):
    """The games of a dataset written by `encore-sim run --log-turns`, as logs for check_game_log.

    Read with pyarrow alone (no `sim`): every column of the games, players and turns tables
    lands in the log under its own name, so that checking the log checks the dataset.
    """
    import json
    from pathlib import Path

    import pyarrow.parquet as pq

    folder = Path(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    settings = manifest["settings"]
    games = pq.read_table(folder / "games").to_pylist()
    seats, turns = {}, {}
    for row in pq.read_table(folder / "players").to_pylist():
        seats.setdefault(row["game"], []).append(row)
    for row in pq.read_table(folder / "turns").to_pylist():
        turns.setdefault(row["game"], []).append(row)
    for game in sorted(games, key=lambda g: g["game"]):
        number = game["game"]
        players = sorted(seats[number], key=lambda r: r["seat"])
        rolls = {}
        for t in turns[number]:
            roll = rolls.setdefault(t["roll"], {
                "roll": t["roll"], "active": None, "moves": [],
                "dice": {"colour": t["colour_dice"], "number": [R.JOKER if f == 0 else f for f in t["number_dice"]]}})
            if t["active"]:
                roll["active"] = t["seat"]
            roll["moves"].append({
                "seat": t["seat"], "pass": t["passed"], "colour_die": t["colour_die"], "number_die": t["number_die"],
                "colour": t["colour"], "number": t["number"], "cells": t["cells"], "jokers": t["jokers"],
                "available": t["available"], "n_choices": t["n_choices"]})
        for roll in rolls.values():   # the active player first, then the others in seat order
            roll["moves"].sort(key=lambda m: (m["seat"] != roll["active"], m["seat"]))
        _check(len(rolls) == game["rolls"], f"game {number}", f"rolls is {game['rolls']}, the turns table has "
               f"{len(rolls)}")
        yield {
            "seed": game["seed"], "game": number, "sheet": game["sheet"], "players": game["players"],
            "strategies": [p["strategy"] for p in players], "max_rolls": settings["max_rolls"],
            "rules": settings.get("rules", ""),   # the --rules text the run was played under
            "capped": game["capped"], "ended_by": game["ended_by"], "winners": game["winners"],
            "rolls": [rolls[r] for r in sorted(rolls)],
            "result": [{key: value for key, value in p.items() if key not in ("game", "strategy")} for p in players],
        }
