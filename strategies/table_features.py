"""What `learned` sees of the table: races for columns and colours, the game's end, the margin.

At a table (2-6 players) learned's value adds these features to the features of its own sheet
(strategies.learned). Each is a table entry indexed by what it sees, in the weights row of the
game's stage (rolls played), after the N_FEAT sheet entries of the row:

    offset     size              indexed by                                         active
    T_RACE     15 x 8 x 2 x 8    column c: own crossed count, first value gone,        15
                                 the most boxes an opponent has crossed in it
    T_CRACE    5 x 22 x 2 x 8    colour k: own empty boxes, first value gone,           5
                                 an opponent's fewest empty boxes in it (bucketed)
    T_END      8 x 8             own distance to the game's end, the nearest           1
                                 opponent's (both bucketed, see end_distance)
    T_MARGIN   61                own points now - the best opponent's, -30..30          1

"Points now" is what a sheet would score if the game ended now: column and colour points,
'!' left, -2 per star box not crossed (the rules' star penalty), minus the rules' pass penalty
(0 by the rulebook) per pass. The distance to the game's end is the boxes a sheet still misses
for the rules' end colours (2 by the rulebook). The opponents' part of the features is the same for
every move a player considers in a decision, so it is computed once (table_context), and only
what a placement changes is rescored (table_after), as the sheet features are.
"""
import numpy as np
from numba import njit

from sim.bits import popcount
from sim.nbinternals import borrow
from sim.rules import R_END_COLOURS, R_PASS_PENALTY, R_STAR_PENALTY
from sim.sheets import N_COLS
from sim.state import (
    BB_CROSSED, PS_COL_POINTS, PS_COLOUR_POINTS, PS_JOKERS, PS_PASSES, ST_COLOURS_TAKEN, ST_COLS_TAKEN, ST_PLAYERS,
    ST_ROLL,
)
from sim.tables import N_COLOURS

T_RACE = 0
T_CRACE = T_RACE + N_COLS * 128
T_END = T_CRACE + N_COLOURS * 22 * 16
T_MARGIN = T_END + 64
T_SIZE = T_MARGIN + 61
T_ACTIVE = N_COLS + N_COLOURS + 2
MARGIN_CAP = 30
#: Weights rows at a table: one per stage of 3 rolls, the last for roll 46 on.
N_STAGES = 16

# --- the table context of one decision: int64 tc[TC_SIZE], float64 te[TE_SIZE] ---------
TC_COLS_TAKEN = 0                       # columns whose first value is gone (st[ST_COLS_TAKEN])
TC_COLOURS_TAKEN = TC_COLS_TAKEN + 1
TC_OPP_COUNT = TC_COLOURS_TAKEN + 1     # N_COLS: the most boxes an opponent has crossed per column
TC_OPP_EMPTY = TC_OPP_COUNT + N_COLS    # N_COLOURS: an opponent's fewest empty boxes per colour
TC_OPP_END = TC_OPP_EMPTY + N_COLOURS   # the nearest opponent's end-distance bucket
TC_OWN_POINTS = TC_OPP_END + 1          # own points now (before the move)
TC_OPP_POINTS = TC_OWN_POINTS + 1       # the best opponent's points now
TC_EMPTY = TC_OPP_POINTS + 1            # N_COLOURS: own empty boxes per colour (before the move)
TC_OPP_BUCKET = TC_EMPTY + N_COLOURS    # N_COLOURS: _bucket of TC_OPP_EMPTY
TC_LOW = TC_OPP_BUCKET + N_COLOURS      # own two fewest empty boxes of a colour (TC_LOW <= TC_LOW + 1)
TC_LOW_COLOUR = TC_LOW + 2              # and their colours
TC_END_COLOURS = TC_LOW_COLOUR + 2      # colours completed that end the game (the rules')
TC_SIZE = TC_END_COLOURS + 1
TE_RACE = 0                             # N_COLS own column entries
TE_CRACE = TE_RACE + N_COLS             # N_COLOURS own colour entries
TE_SUM = TE_CRACE + N_COLOURS           # the table part's value before the move
TE_END = TE_SUM + 1                     # its end entry
TE_MARGIN = TE_END + 1                  # its margin entry
TE_SIZE = TE_MARGIN + 1

_B7F = np.uint64(0x7F)


@njit(cache=True, inline="always")
def stage(st):
    """The weights row of a decision (or afterstate) at roll st[ST_ROLL]."""
    return min((st[ST_ROLL] - 1) // 3, N_STAGES - 1)


#: _bucket's buckets: 0, 1-2, 3-4, 5-7, 8-11, 12-17, 18-26, 27+ boxes still to cross -> 0..7.
_BUCKET_OF = np.array([0, 1, 1, 2, 2, 3, 3, 3, 4, 4, 4, 4] + [5] * 6 + [6] * 9 + [7], np.int64)


@njit(cache=True)
def _bucket(n):
    """0, 1-2, 3-4, 5-7, 8-11, 12-17, 18-26, 27+ -> 0..7: boxes still to cross."""
    return _BUCKET_OF[min(max(n, 0), _BUCKET_OF.shape[0] - 1)]


@njit(cache=True, inline="always")
def end_distance(empty, k, new_empty, colours):
    """Bucket of the boxes a sheet must still cross to complete `colours` colours (the game's end,
    2 by the rulebook): the sum of its `colours` smallest per-colour empty counts, with colour k's
    count replaced by new_empty (k = -1: none replaced)."""
    if colours != 2:
        return _bucket(fewest_sum(empty, 0, k, new_empty, colours))
    a = 99
    b = 99
    for c in range(N_COLOURS):
        e = new_empty if c == k else empty[c]
        if e < a:
            b = a
            a = e
        elif e < b:
            b = e
    return _bucket(a + b)


@njit(cache=True)
def fewest_sum(empty, at, k, new_empty, colours):
    """The sum of the `colours` smallest of empty[at:at + 5], with colour k's replaced by new_empty
    (k = -1: none): a sheet's boxes to the game's end under end-colours other than 2 (picked
    one by one: five values at most)."""
    total = 0
    used = 0
    for _ in range(min(colours, N_COLOURS)):
        best = 1000
        pick = 0
        for c in range(N_COLOURS):
            if (used >> c) & 1:
                continue
            e = new_empty if c == k else empty[at + c]
            if e < best:
                best = e
                pick = c
        used |= 1 << pick
        total += best
    return total


@njit(cache=True)
def _column_count(lo, hi, c):
    word = lo if c < 8 else hi
    return popcount((word >> np.uint64(8 * (c & 7))) & _B7F)


@njit(cache=True)
def points_now(ps, bb, tab, s):
    """What seat s would score if the game ended now, under the rules' star and pass penalties."""
    star_mask = borrow(tab, "star_mask")
    rules = borrow(tab, "rules")
    missed = popcount(star_mask[0] & ~bb[s, BB_CROSSED]) + popcount(star_mask[1] & ~bb[s, BB_CROSSED + 1])
    return (ps[s, PS_COL_POINTS] + ps[s, PS_COLOUR_POINTS] + ps[s, PS_JOKERS] - rules[R_STAR_PENALTY] * missed
            - rules[R_PASS_PENALTY] * ps[s, PS_PASSES])


@njit(cache=True)
def colour_empty(bb, tab, s, out):
    """out[k]: seat s's empty boxes of colour k."""
    colour_mask = borrow(tab, "colour_mask")
    for k in range(N_COLOURS):
        out[k] = 21 - popcount(bb[s, BB_CROSSED] & colour_mask[k, 0]) - popcount(bb[s, BB_CROSSED + 1]
                                                                                 & colour_mask[k, 1])


@njit(cache=True)
def table_context(st, ps, bb, tab, seat, tc):
    """The opponents' side of the features (and own points and empties) for seat's decision."""
    tc[TC_COLS_TAKEN] = st[ST_COLS_TAKEN]
    tc[TC_COLOURS_TAKEN] = st[ST_COLOURS_TAKEN]
    colours = borrow(tab, "rules")[R_END_COLOURS]
    tc[TC_END_COLOURS] = colours
    for c in range(N_COLS):
        tc[TC_OPP_COUNT + c] = 0
    for k in range(N_COLOURS):
        tc[TC_OPP_EMPTY + k] = 21
    opp_end = 7
    opp_points = -1000
    empty = tc[TC_EMPTY:TC_EMPTY + N_COLOURS]   # scratch for the opponents first, own last
    for s in range(st[ST_PLAYERS]):
        if s == seat:
            continue
        lo, hi = bb[s, BB_CROSSED], bb[s, BB_CROSSED + 1]
        for c in range(N_COLS):
            tc[TC_OPP_COUNT + c] = max(tc[TC_OPP_COUNT + c], _column_count(lo, hi, c))
        colour_empty(bb, tab, s, empty)
        for k in range(N_COLOURS):
            tc[TC_OPP_EMPTY + k] = min(tc[TC_OPP_EMPTY + k], empty[k])
        opp_end = min(opp_end, end_distance(empty, -1, 0, colours))
        opp_points = max(opp_points, points_now(ps, bb, tab, s))
    tc[TC_OPP_END] = opp_end
    tc[TC_OPP_POINTS] = opp_points
    tc[TC_OWN_POINTS] = points_now(ps, bb, tab, seat)
    colour_empty(bb, tab, seat, empty)
    # What table_after needs of every placement, once: the opponents' colour buckets, and own
    # two fewest empties (end_distance_after).
    low1, low2, k1, k2 = 99, 99, -1, -1
    for k in range(N_COLOURS):
        tc[TC_OPP_BUCKET + k] = _bucket(tc[TC_OPP_EMPTY + k])
        e = empty[k]
        if e < low1:
            low2, k2 = low1, k1
            low1, k1 = e, k
        elif e < low2:
            low2, k2 = e, k
    tc[TC_LOW] = low1
    tc[TC_LOW + 1] = low2
    tc[TC_LOW_COLOUR] = k1
    tc[TC_LOW_COLOUR + 1] = k2


# Whether a first value is gone matters only while the player has not completed the column or
# colour: after, its points are counted. (A decision sees what was taken before the roll, an
# afterstate in training what was taken after it, own completions included.)
@njit(cache=True, inline="always")
def _race_index(tc, c, own):
    gone = (tc[TC_COLS_TAKEN] >> c) & 1 if own < 7 else 0
    return T_RACE + 128 * c + 16 * own + 8 * gone + tc[TC_OPP_COUNT + c]


@njit(cache=True, inline="always")
def _crace_index(tc, k, own_empty):
    gone = (tc[TC_COLOURS_TAKEN] >> k) & 1 if own_empty > 0 else 0
    return T_CRACE + 352 * k + 16 * own_empty + 8 * gone + tc[TC_OPP_BUCKET + k]


@njit(cache=True, inline="always")
def _end_index(tc, own_end):
    return T_END + 8 * own_end + tc[TC_OPP_END]


@njit(cache=True, inline="always")
def _margin_index(tc, gain):
    d = tc[TC_OWN_POINTS] + gain - tc[TC_OPP_POINTS]
    return T_MARGIN + MARGIN_CAP + max(-MARGIN_CAP, min(MARGIN_CAP, d))


@njit(cache=True)
def table_features(tc, counts, idx, start):
    """Write the T_ACTIVE table feature indices (relative to the table part of the row) of the
    sheet with column counts `counts` and the empties in tc (as table_context left them) into
    idx[start:]; the margin as before any move."""
    for c in range(N_COLS):
        idx[start + c] = _race_index(tc, c, counts[c])
    for k in range(N_COLOURS):
        idx[start + N_COLS + k] = _crace_index(tc, k, tc[TC_EMPTY + k])
    idx[start + N_COLS + N_COLOURS] = _end_index(tc, end_distance(tc[TC_EMPTY:TC_EMPTY + N_COLOURS], -1, 0,
                                                                  tc[TC_END_COLOURS]))
    idx[start + N_COLS + N_COLOURS + 1] = _margin_index(tc, 0)


@njit(cache=True)
def table_prepare(W, o, tc, counts, te):
    """The table part's value before any move (W[o:] is the table part of the row), keeping
    the entries table_after rescores."""
    v = 0.0
    for c in range(N_COLS):
        e = W[o + _race_index(tc, c, counts[c])]
        te[TE_RACE + c] = e
        v += e
    for k in range(N_COLOURS):
        e = W[o + _crace_index(tc, k, tc[TC_EMPTY + k])]
        te[TE_CRACE + k] = e
        v += e
    e = W[o + _end_index(tc, end_distance(tc[TC_EMPTY:TC_EMPTY + N_COLOURS], -1, 0, tc[TC_END_COLOURS]))]
    te[TE_END] = e
    v += e
    e = W[o + _margin_index(tc, 0)]
    te[TE_MARGIN] = e
    v += e
    te[TE_SUM] = v
    return v


@njit(cache=True, inline="always")
def end_distance_after(tc, k, new_empty):
    """end_distance of own empties (as table_context left them) with colour k's replaced by
    new_empty <= its count, from the two fewest that table_context kept (end-colours other than 2:
    from all five)."""
    if tc[TC_END_COLOURS] != 2:
        return _bucket(fewest_sum(tc, TC_EMPTY, k, new_empty, tc[TC_END_COLOURS]))
    if k == tc[TC_LOW_COLOUR]:
        n = new_empty + tc[TC_LOW + 1]
    elif k == tc[TC_LOW_COLOUR + 1]:
        n = new_empty + tc[TC_LOW]
    else:
        n = tc[TC_LOW] + min(new_empty, tc[TC_LOW + 1])
    return _bucket(n)


@njit(cache=True, inline="always")
def table_after(W, o, tc, te, counts, at, c_lo, n_cols, k, size, gain):
    """The table part's value after a placement of `size` boxes of colour k in columns
    c_lo .. c_lo + n_cols - 1, which gains `gain` points now; counts[at + c] are the column
    counts after it for those columns (others unchanged)."""
    v = te[TE_SUM]
    for c in range(c_lo, c_lo + n_cols):
        v += W[o + _race_index(tc, c, counts[at + c])] - te[TE_RACE + c]
    e = tc[TC_EMPTY + k] - size
    v += W[o + _crace_index(tc, k, e)] - te[TE_CRACE + k]
    v += W[o + _end_index(tc, end_distance_after(tc, k, e))] - te[TE_END]
    v += W[o + _margin_index(tc, gain)] - te[TE_MARGIN]
    return v


@njit(cache=True, inline="always")
def margin_change(W, o, tc, te, gain):
    """What a move changing own points now by `gain` and nothing on the sheet (a pass under the
    rules' pass penalty) adds to the table part's value: its margin entry moves."""
    return W[o + _margin_index(tc, gain)] - te[TE_MARGIN]
