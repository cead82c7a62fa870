"""The Parquet schemas of an `encore-sim run` dataset: one place for types and meanings.

A dataset is a folder::

    OUT/manifest.json                  how the run was made (see sim.runs.runner)
    OUT/games/part-CCCCCC.parquet      one row per game
    OUT/players/part-CCCCCC.parquet    one row per game and seat
    OUT/turns/part-CCCCCC.parquet      one row per decision (only with --log-turns)
    OUT/trace/part-CCCCCC.parquet      one row per game, roll and seat (only with --trace)

Chunk C holds games C*chunk_size .. (C+1)*chunk_size-1, so every file is
determined by the run's settings alone. Each field carries its description in
the field metadata (key b"description"); `markdown()` renders the tables of
the README from here.
"""
from __future__ import annotations

import pyarrow as pa

TABLES = ("games", "players", "turns", "trace")


def _f(name, type_, description, nullable=False):
    return pa.field(name, type_, nullable=nullable, metadata={"description": description})


GAMES = pa.schema([
    _f("seed", pa.uint64(), "root seed of the run (game `game` of seed `seed` is reproducible alone)"),
    _f("game", pa.int64(), "game number within the root seed, 0-based"),
    _f("players", pa.int8(), "seats at the table; 1 = solo game"),
    _f("sheet", pa.string(), "score sheet name (built-in name or the file's stem)"),
    _f("rolls", pa.int16(), "rolls played (30 in solo under the rulebook)"),
    _f("capped", pa.bool_(), "true if the roll cap (--max-rolls) stopped the game before a natural end"),
    _f("ended_by", pa.list_(pa.int8()),
       "seats that had completed two colours (the rules' end-colours) when the game ended naturally (empty if capped, and in solo)"),
    _f("winners", pa.list_(pa.int8()),
       "winning seats: highest score, then most '!' left (RULES section 7); several if still tied"),
])

PLAYERS = pa.schema([
    _f("game", pa.int64(), "game number, joins games.game"),
    _f("seat", pa.int8(), "seat 0..players-1; seat 0 is the active player of roll 1"),
    _f("strategy", pa.string(), "label of the strategy that played this seat: a built-in's spec (`greedy`, "
       "`heuristic:deny=1`), a user's `@strategy` name or `file.py:function` (the manifest has its full spec)"),
    _f("score", pa.int16(), "final score = column_points + colour_points + jokers_left - star_penalty - passes x the "
       "rules' pass penalty (0 in the rulebook)"),
    _f("column_points", pa.int16(), "points for completed columns"),
    _f("colour_points", pa.int16(), "points for completed colours"),
    _f("jokers_left", pa.int8(), "'!' boxes not used (1 point each)"),
    _f("jokers_used", pa.int8(), "'!' boxes used (the '!' a sheet starts with, 8 in the rulebook, - jokers_left)"),
    _f("star_penalty", pa.int16(), "2 points (the rules' star penalty) per star box not crossed"),
    _f("boxes", pa.int16(), "boxes crossed at the end"),
    _f("columns_first", pa.int8(), "columns completed with the first (higher) value"),
    _f("columns_later", pa.int8(), "columns completed after another player (lower value)"),
    _f("colours_first", pa.int8(), "colours completed first (5 points in the rulebook)"),
    _f("colours_later", pa.int8(), "colours completed after another player (3 points in the rulebook)"),
    _f("first_joker_roll", pa.int16(), "roll in which the seat first used a joker; null if never", True),
    _f("passes", pa.int16(), "decisions in which the seat crossed nothing (each costs the rules' pass penalty, 0 in the rulebook)"),
    _f("rank", pa.int8(), "1 = best, by score then '!' left; seats tied on both share a rank"),
    _f("winner", pa.bool_(), "true if the seat won or shared the win (always true in solo)"),
])

TURNS = pa.schema([
    _f("game", pa.int64(), "game number, joins games.game"),
    _f("roll", pa.int16(), "roll number, 1-based"),
    _f("seat", pa.int8(), "seat deciding"),
    _f("active", pa.bool_(), "true for the active player's decision (made first in its roll)"),
    _f("colour_dice", pa.list_(pa.string()),
       "colour dice rolled, die 0 first (`green`..`orange`, `joker`); solo rolls 2, tables 3"),
    _f("number_dice", pa.list_(pa.int8()), "number dice rolled, die 0 first (1..5; 0 = joker)"),
    _f("available", pa.uint8(),
       "dice this seat could use: bit i = colour die i, bit 3+i = number die i"),
    _f("n_choices", pa.int16(), "legal placements offered (passing not counted)"),
    _f("passed", pa.bool_(), "true if the seat crossed nothing"),
    _f("colour_die", pa.int8(), "colour die used (index into colour_dice); null on a pass", True),
    _f("number_die", pa.int8(), "number die used (index into number_dice); null on a pass", True),
    _f("colour", pa.string(), "colour crossed (a joker die resolved); null on a pass", True),
    _f("number", pa.int8(), "boxes crossed (a joker die resolved); null on a pass", True),
    _f("cells", pa.list_(pa.string()), "boxes crossed, e.g. [H1, H2]; empty on a pass"),
    _f("jokers", pa.int8(), "'!' boxes this decision used (0..2)"),
])

TRACE = pa.schema([
    _f("game", pa.int64(), "game number, joins games.game"),
    _f("roll", pa.int16(), "rolls played: 0 before the first roll, then after each roll to the last"),
    _f("seat", pa.int8(), "seat 0..players-1, joins players.seat"),
    _f("points", pa.int16(), "the seat's score if the game ended after this roll (the final score at the last roll)"),
    _f("expected_score", pa.float32(), "its expected final score: points now and what learned's value of its sheet "
       "says is still to come (a fitted map at a table; the final score at the last roll)"),
    _f("expected_margin", pa.float32(), "its expected final score minus the best opponent's: points now plus "
       "learned's table value (the final margin at the last roll; NaN solo)"),
    _f("win_prob", pa.float32(), "its chance of winning, from the win model fitted on learned's games (1 at the "
       "last roll to the winner, 1/k to each of k tied winners, 0 to the others; 1 solo)"),
    _f("luck", pa.float32(), "what this roll's dice were worth to it beyond an average roll, in points of "
       "learned's value (as `analyse` measures luck solo); null at roll 0", True),
    _f("luck_win", pa.float32(), "that luck in win probability: its points times what a point of learned's "
       "value was worth to the seat's chance before the roll (NaN at roll 0 and solo)"),
])

SCHEMAS = {"games": GAMES, "players": PLAYERS, "turns": TURNS, "trace": TRACE}


def description(field: pa.Field) -> str:
    return (field.metadata or {}).get(b"description", b"").decode()


def markdown(names=TABLES) -> str:
    """The schema tables of `names` (the README's: games, players, turns; docs/trace.md's: trace)."""
    out = []
    for name in names:
        schema = SCHEMAS[name]
        out.append(f"**{name}**\n")
        out.append("| column | type | meaning |")
        out.append("|---|---|---|")
        for f in schema:
            out.append(f"| `{f.name}` | {f.type}{' (nullable)' if f.nullable else ''} | {description(f)} |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown())


def available_dice(available: int) -> dict:
    """A move's `available` decoded: {"colour": [i, ...], "number": [i, ...]}, the indices into its
    roll's colour_dice and number_dice of the dice the seat could use (bit i: colour die i, bit
    3 + i: number die i)."""
    available = int(available)
    if not 0 <= available < 64:
        raise ValueError(f"available must be a 6-bit mask 0..63, got {available}")
    return {"colour": [i for i in range(3) if available >> i & 1],
            "number": [i for i in range(3) if available >> (3 + i) & 1]}
