"""The skill ladder: how often the stronger of two built-ins beats the weaker, on the same dice.

    frame = ladder_frame(games=2_000, rules="joker-six")    # a row per game (sim.runs.measures)
    aggregate(frame)                                        # skill_step@greedy>random, ... with 95% CIs

A step is a duel at a table of two: game g is played twice on its dice, the stronger in seat 0
and then in seat 1, so neither the dice nor the first player's edge favours either side. The
game's value is the stronger's win share over the two (a tie's win split) minus 1/2: 0 when the
two are as good as each other, +1/2 when the stronger always wins. Two copies of one strategy
play the same game in both seatings, so each game's step is 0. A rule change that makes skill
count more lengthens the steps (Ludii's skill trace; the Restricted Play idea: a game is deeper
when a stronger player beats a weaker one by more).

The frame is a per-game frame of sim.runs.measures, one column per step
(`skill_step@STRONGER>WEAKER`), so aggregate() gives its intervals and pairs two rule sets or
sheets on the same games.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..runs import api
from ..runs.api import check_chunk, play_chunk
from ..runs.defaults import COMPARE_CHUNK, SEED, SHEET
from ..state import PS_WINNER

#: The built-ins from weakest to strongest (docs/strategies.md).
LADDER = ("random", "greedy", "heuristic", "learned")


def step_column(weaker: str, stronger: str) -> str:
    return f"skill_step@{stronger}>{weaker}"


def step_values(weaker, stronger, seed, first: int, count: int, sheet=SHEET, rules=None) -> np.ndarray:
    """Per game first .. first+count-1: the stronger's win share over the two seatings minus 1/2."""
    shares = []
    for line, seat in (([stronger, weaker], 0), ([weaker, stronger], 1)):
        chunk = play_chunk(seed, first, count, api.lineup(line, sheet=sheet, players=2, rules=rules), players=2,
                           sheet=sheet, rules=rules)
        check_chunk(chunk)
        won = chunk.seats[:, :, PS_WINNER].astype(np.float64)
        shares.append(won[:, seat] / won.sum(axis=1))
    return (shares[0] + shares[1]) / 2 - 0.5


def ladder_frame(games: int, ladder=LADDER, seed=SEED, sheet=SHEET, rules=None, first: int = 0,
                 chunk_size: int | None = None) -> pd.DataFrame:
    """A per-game frame (games first .. first+games-1) with a column per step of `ladder` (each
    strategy against the next, weakest first)."""
    if len(ladder) < 2:
        raise ValueError("a skill ladder needs at least two strategies, weakest first")
    size = chunk_size or COMPARE_CHUNK["table"]
    out = {"game": first + np.arange(games, dtype=np.int64)}
    for weaker, stronger in zip(ladder, ladder[1:]):
        out[step_column(weaker, stronger)] = np.concatenate(
            [step_values(weaker, stronger, seed, start, min(size, first + games - start), sheet, rules)
             for start in range(first, first + games, size)])
    return pd.DataFrame(out)
