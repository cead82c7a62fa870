"""`tempered`: learned's values, its choice drawn at a temperature: the bots of play's levels.

    tempered:temp=T,table_temp=U

At every decision the distinct placements (each at its fewest '!') and passing are valued as
`learned` values them (rank_placements solo, rank_table at a table: reward now plus the value of
the sheet after the move), and one is drawn with probability proportional to exp(value / T): T is
in points, so at T = 1 a choice a point worse than another is taken e^-1 = 0.37 times as often.
T = 0 takes the best value (learned's one-ply choice, without its dice denial at tables); a large
T plays almost at random among the placements. At a table the temperature is U (`table_temp`):
there learned's value is its margin over the best opponent, and a point of margin weighs more than
a point of its own score, so the same strength takes another temperature. The draw comes from the
seat's own random stream (sim.rng), so a game of a seed is the same game every time. The levels
(strategies.levels) are temperatures set by measurement (bench/levels.py).
"""
from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from sim.nbinternals import as_any, uncounted
from sim.rng import uniform
from sim.rules import Rules
from sim.state import PASS, PS_JOKERS, ST_PLAYERS, ST_SEAT

from .features import candidate_of
from .interface import strategy
from .learned import LAY_SIZE, ROWS, SC_SIZE, SE_SIZE, best_row, ranked, ranked_table, weights_data
from .table_features import TC_SIZE, TE_SIZE

PARAMS = {"temp": 1.0, "table_temp": 0.1}
#: The parameters row: temp, table_temp, then learned's data (the sheet's layout, its weights: weights_data).
_DATA_LAY = len(PARAMS)
_DATA_W = _DATA_LAY + LAY_SIZE


@njit(cache=True)
def _choose_tempered(st, ps, bb, cands, n, tab, params, rng):
    """A choice drawn with weight exp(learned's value / temp) among the distinct placements and passing."""
    if n == 0:
        return PASS
    W = uncounted(params[_DATA_W:].view(np.float32))
    lay = uncounted(params[_DATA_LAY:_DATA_W].view(np.int64))
    subs, costs, rewards, qs = np.empty(ROWS, np.int64), np.empty(ROWS, np.int64), np.empty(ROWS), np.empty(ROWS)
    scratch = (as_any(lay), np.empty(SC_SIZE, np.int64), np.empty(SE_SIZE), subs, costs, rewards, qs)
    seat = st[ST_SEAT]
    if st[ST_PLAYERS] == 1:
        m = ranked(as_any(W), 0, as_any(st), as_any(bb), seat, ps[seat, PS_JOKERS], tab, scratch)
    else:
        tc, te = np.empty(TC_SIZE, np.int64), np.empty(TE_SIZE)
        m = ranked_table(as_any(W), 0, as_any(st), as_any(ps), as_any(bb), seat, tab, scratch, tc, te)
    k = best_row(qs, m)
    temp = params[0] if st[ST_PLAYERS] == 1 else params[1]
    if temp > 0.0:
        # Weights relative to the best (no overflow), into `rewards`, which is spent.
        top = qs[k]
        total = 0.0
        for i in range(m):
            rewards[i] = np.exp((qs[i] - top) / temp)
            total += rewards[i]
        u = uniform(rng) * total
        k = m - 1
        for i in range(m):
            u -= rewards[i]
            if u < 0.0:
                k = i
                break
    return candidate_of(cands, n, subs[k], costs[k])


def tempered_data(sheet, file, players: int, rules=None):
    """learned's data (its layout words and weights) for the game: tempered values as it does."""
    return weights_data(sheet, None, players, rules)


# As learned: its weights are those of the rules played.
tempered = strategy(_choose_tempered, name="tempered", params=PARAMS, data=tempered_data,
                    reads_rules=frozenset(f.name for f in dataclasses.fields(Rules)),
                    description="learned's values, the choice drawn with weight exp(value / temp) (at tables "
                                "table_temp): play's levels")
