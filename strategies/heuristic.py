"""`heuristic`: a one-move player that scores every legal choice with a board evaluation.

The evaluation V of a sheet estimates the points it will end the game with:

    V = sum over columns  value_c * exp(-k_col(H) * (missing_c - pair * pairs_c / 2 + col_dist * dist_c))
      + sum over colours  value_k * colour * exp(-k_colour(H) * (missing_k - colour_pair * cpairs_k / 2))
      - uncrossed stars * star_penalty(H)
      + jokers * joker_value(H)
      + box * boxes + colbox * sum of (column value / 7) over crossed boxes
      + mob * legal placements open next roll * H / 30
      - single * empty boxes cut off from every other empty box of their colour

where H is the number of rolls still to come (exact in solo; estimated at a
table from how close the leading sheet is to its second colour), k(H) =
lam + mu / (H + 1) (progress is worth less as time runs out), missing_c the
empty boxes of column c, pairs_c its vertically adjacent empty pairs of one
colour (one move can fill both; pair = 2 counts moves, i.e. vertical runs of one colour, instead
of boxes), cpairs_k the orthogonally adjacent empty pairs of colour k (colour_pair = 2 counts
connected empty pieces of the colour, each needing one matching die), and dist_c how many columns the crossed area still
has to grow to touch it (it grows from H, so columns A and O start far away).

At a table (2-6 players) three more terms apply:
  * races: a column or colour whose first value is still open, but which an
    opponent is closer to completing than us, counts as later + race * (first - later);
  * end of game: a move that completes our second colour (which ends the game)
    gets + end * clip(margin / 4, -1, 1), margin = our score after it minus the
    best opponent's score now; so we end the game when ahead and avoid it when behind;
  * dice denial: as active player (after roll 3) each choice loses
    deny * (the best the opponents can do with the four dice it leaves them).

Every weight exists twice: `solo_*` is used in the solo game, `multi_*` at a
table (a solo-tuned player hoards jokers and plays too slowly for a table).

Under rule variants (sim.rules) the numbers above are the rules' (tab.rules): H counts the
rules' solo rolls, a star costs the star penalty (the -2 above), a colour the colour bonus (5 / 3),
passing the pass penalty, the game ends with the end colours (the "second colour" above), and
dice denial starts after the free rolls. The weights stay as tuned for the rulebook; the terms
scaled by H / 30 keep 30 as their time unit (a '!' or an open placement is worth what the rolls
still to come make of it, whatever the game's length).

How a decision is computed (the values are those of the definition above, up to
float rounding; tests/strategies/test_heuristic.py checks it on thousands of positions):
  1. prepare: the weights of this decision (rolls left, races) in a float scratch `ctx`;
     at a table one pass over the seats gives both the rolls-left estimate and the races.
  2. set_base: every term of the sheet as it is, per column and per colour, plus the
     column sum for any wider span (see the section "incremental evaluation").
  3. delta: each placement changes one colour and the <= 5 columns it touches; it is
     scored from its own boxes (about 60 word operations). The mobility count (7 bitset
     words) is skipped when even its upper bound, mob_now - 1 + act_count[k], cannot
     make the placement the best so far.
  4. Dice denial (active player at a table): per opponent, the best (boxes + 2 stars)
     of each (colour, number) group the dice can show, then per die pair, then per pair
     we could take away: 10 values from one walk of each opponent's legal placements.

What a decision costs besides the evaluation itself (docs/performance.md): the scratch
(ctx, um, the candidate values) lives on the stack (sim.nbinternals.stack_f64), and the
placement loops (best_placement, score_candidates) are inlined into _choose. Numba counts
a reference (an atomic add and subtract) on every array handed to an inlined function,
i.e. on ctx and um for each placement scored; a stack array has no meminfo, and once the
loop sits in the function that owns the stack arrays the compiler sees that and drops the
counts. The tables' arrays are read through sim.nbinternals.borrow, and _choose hands its own
arguments on as sim.nbinternals.uncounted views, for the same reason.
"""
import math

import numpy as np
from numba import njit

from sim.bits import ZERO, ONE, ctz, popcount
from sim.engine import awards
from sim.moves import dice_faces, dice_word, die_pair, group_cost, legal_word, mobility, mobility_after, next_group, next_row
from sim.nbinternals import borrow, stack_f64, stack_u64, uncounted
from sim.state import (
    BB_ALIVE, BB_CROSSED, BB_TOUCH, CAND_CDIE, CAND_COST, CAND_NDIE, CAND_SUB, MAX_CANDS, PASS, PS_COL_POINTS,
    PS_COLOUR_POINTS, PS_COLOURS, PS_COLS, PS_JOKERS, PS_PASSES, ST_AVAIL, ST_COLOURS_TAKEN, ST_COLS_TAKEN,
    ST_IS_ACTIVE, ST_PLAYERS, ST_ROLL, ST_SEAT,
)
from sim.sheets import N_COLS
from sim.rules import (
    R_COLOUR_FIRST, R_COLOUR_LATER, R_END_COLOURS, R_FREE_ROLLS, R_NUMBERS, R_PASS_PENALTY, R_SOLO_ROLLS,
    R_STAR_PENALTY,
)
from sim.tables import MAX_NUMBER, MAX_SUBSETS, N_COLOURS, N_GROUPS, NW

from .features import NEG, byte_counts, candidate_of, crossed_span, neighbours, placement_fields, stacked_pairs
from .interface import strategy
from .table_features import fewest_sum

# --- parameters: one block per mode, same layout --------------------------------
#: name -> (solo default, multiplayer default)
WEIGHTS = {
    "box": (0.075, 0.075),       # per box crossed
    "colbox": (0.42, 0.42),      # per box crossed, times its column's value / 7
    "col": (1.0, 1.0),           # column completion potential, times the column's value
    "col_lam": (0.23, 0.23),     # decay of the potential per missing box, early
    "col_mu": (3.0, 3.0),        # extra decay per missing box as rolls run out: mu / (H + 1)
    "col_dist": (1.0, 1.0),      # a column d columns beyond the crossed area counts d*col_dist more missing boxes
    "colour": (0.93, 0.77),      # colour completion potential, times 5 (first) or 3 (later)
    "colour_lam": (0.094, 0.19),
    "colour_mu": (4.5, 4.5),
    "star": (0.13, 0.13),        # fraction of the -2 an uncrossed star is expected to cost, early
    "star_t": (3.0, 3.0),        # ... plus star_t / (H + 1), capped at 1
    "joker": (1.65, 1.0),         # value of a '!' kept (it scores 1 at the end)
    "joker_t": (0.5, 0.2),       # extra value of a '!' early (times H / 30)
    "mob": (0.10, 0.10),         # per legal placement open next roll (times H / 30)
    "single": (0.67, 0.68),      # per empty box cut off from every other empty box of its colour
    "pair": (2.0, 1.0),          # a column's missing boxes count pair / 2 less per vertical pair of one colour
    "colour_pair": (1.69, 0.0),   # a colour's missing boxes count colour_pair / 2 less per adjacent empty pair
}
N_WEIGHTS = len(WEIGHTS)
#: Table-only parameters, after both weight blocks.
EXTRAS = {
    "race": 0.5,       # share of (first - later) kept when an opponent is closer to a completion
    "end": 6.0,        # value of ending the game clearly ahead (minus it when behind)
    "deny": 0.3,       # per point of the opponents' best choice with the dice we leave
    "horizon": 2.0,    # estimated rolls left at a table = horizon * boxes the leader misses for 2 colours
}

PARAMS = {}
for _k, (_s, _m) in WEIGHTS.items():
    PARAMS["solo_" + _k] = _s
for _k, (_s, _m) in WEIGHTS.items():
    PARAMS["multi_" + _k] = _m
PARAMS.update(EXTRAS)

(W_BOX, W_COLBOX, W_COL, W_COL_LAM, W_COL_MU, W_COL_DIST, W_COLOUR, W_COLOUR_LAM, W_COLOUR_MU,
 W_STAR, W_STAR_T, W_JOKER, W_JOKER_T, W_MOB, W_SINGLE, W_PAIR, W_COLOUR_PAIR) = range(N_WEIGHTS)
X_RACE = 2 * N_WEIGHTS
X_END = X_RACE + 1
X_DENY = X_RACE + 2
X_HORIZON = X_RACE + 3

# --- per-decision context: a float64 scratch array -------------------------------
# Weights of this decision (filled by prepare; they depend on the rolls left and races):
C_COLV = 0                          # N_COLS column values (race-adjusted) times the column weight
C_PCOL = C_COLV + N_COLS            # 8: exp(-k_col * r), r = 0..7
C_QDIST = C_PCOL + 8                # N_COLS: exp(-k_col * col_dist * d), d = 0..14
C_PCOLOUR = C_QDIST + N_COLS        # 22: exp(-k_colour * r), r = 0..21
C_COLOURV = C_PCOLOUR + 22          # N_COLOURS colour values (race-adjusted) times the colour weight
C_STAR = C_COLOURV + N_COLOURS      # penalty per uncrossed star
C_JOKER = C_STAR + 1                # value per joker
C_MOB = C_JOKER + 1
C_SINGLE = C_MOB + 1
C_BOX = C_SINGLE + 1
C_COLBOX = C_BOX + 1                # N_COLS: colbox weight * column value / 7
C_H = C_COLBOX + N_COLS             # rolls left
C_PAIR = C_H + 1
C_PPAIR = C_PAIR + 1                # 8: exp(k_col * pair / 2 * j), j = 0..7 vertical pairs in a column
C_CPAIR = C_PPAIR + 8               # 1: colour_pair weight
C_PCPAIR = C_CPAIR + 1              # 32: exp(k_colour * colour_pair / 2 * j), j = 0..31 adjacent pairs in a colour
# The base sheet placements are scored against (filled by set_base):
C_F = C_PCPAIR + 32                 # N_COLS: column factor PCOL[7 - n_c] * PPAIR[pairs_c]
C_PREF = C_F + N_COLS               # N_COLS + 1: C_PREF + c = sum over columns < c of COLV * F
C_LSUM = C_PREF + N_COLS + 1        # 8: C_LSUM + j = sum over c < j of COLV_c * F_c * q^(j - c), j = 0..7, q = QDIST[1]
C_RSUM = C_LSUM + 8                 # 8: C_RSUM + j - 7 = sum over c > j of COLV_c * F_c * q^(c - j), j = 7..14
C_CFAC = C_RSUM + 8                 # N_COLOURS: colour factor PCOLOUR[gaps_k] * PCPAIR[cpairs_k]
C_GAPS = C_CFAC + N_COLOURS         # N_COLOURS: empty boxes of colour k
C_ISO = C_GAPS + N_COLOURS          # N_COLOURS: isolated empty boxes of colour k
C_LEFT = C_ISO + N_COLOURS          # the crossed area spans columns left..right (H always)
C_RIGHT = C_LEFT + 1
C_COLSUM = C_RIGHT + 1              # the column potential, sum of COLV * F * QDIST[dist]
C_DONE = C_COLSUM + 1               # colours complete
# Scratch:
C_TMP = C_DONE + 1                  # 2 * N_COLOURS: prepare: missing boxes per colour, ours then the closest opponent's
C_GBEST = C_TMP + 2 * N_COLOURS     # N_GROUPS: dice denial: an opponent's best (boxes + 2 stars) per (colour, number)
C_PAIRV = C_GBEST + N_GROUPS        # 9: dice denial: that opponent's best per die pair (3 * colour die + number die)
C_DV = C_PAIRV + 9                  # 9: dice denial of each die pair we could take (mean over opponents)
C_SEAT = C_DV + 9                   # N_COLOURS: table_view: one seat's missing boxes per colour
CTX_SIZE = C_SEAT + N_COLOURS

# --- uint64 scratch: the sheet's masks (sheet_masks) and the base sheet (set_base) ---
U_COLOUR = 0                # 10: colour k is words U_COLOUR + 2k, + 2k + 1
U_STAR = U_COLOUR + 10      # 2
U_BOARD = U_STAR + 2        # 2
U_LO = U_BOARD + 2          # base sheet: crossed boxes
U_HI = U_LO + 1
U_CNT = U_HI + 1            # 2: byte_counts of the crossed boxes (per column)
U_PCNT = U_CNT + 2          # 2: byte_counts of the stacked pairs (per column)
U_ALIVE = U_PCNT + 2        # 7: lookahead: alive placements after the first move
U_TOUCH = U_ALIVE + 7       # 7: ... and touch
UM_SIZE = U_TOUCH + 7
_BYTE = np.uint64(0xFF)
_B7 = np.uint64(7)
_HIGH = np.uint64(0x8080808080808080)
#: Room for the values of every choice of any decision and of passing (score_candidates).
VALUES_SIZE = MAX_CANDS + 1


@njit(cache=True)
def sheet_masks(tab, um):
    colour_mask = borrow(tab, "colour_mask")
    star_mask = borrow(tab, "star_mask")
    board_mask = borrow(tab, "board_mask")
    for k in range(N_COLOURS):
        um[U_COLOUR + 2 * k] = colour_mask[k, 0]
        um[U_COLOUR + 2 * k + 1] = colour_mask[k, 1]
    um[U_STAR] = star_mask[0]
    um[U_STAR + 1] = star_mask[1]
    um[U_BOARD] = board_mask[0]
    um[U_BOARD + 1] = board_mask[1]


@njit(cache=True, inline="always")
def geometric(ctx, at, count, q):
    p = 1.0
    for i in range(count):
        ctx[at + i] = p
        p *= q


@njit(cache=True)
def byte_max(a, b):
    """Byte-wise max of two words whose bytes are all < 0x80 (column counts)."""
    ge = (((a | _HIGH) - b) & _HIGH) >> _B7          # 1 in the bytes where a >= b
    m = ge * _BYTE
    return (a & m) | (b & ~m)


@njit(cache=True)
def table_view(st, bb, colour_mask, ctx, colours):
    """At a table, one pass over the seats: returns the rolls-left estimate (boxes the
    leader still needs for `colours` colours, the rules' end colours, unscaled) and leaves in
    ctx[C_TMP:C_TMP+10] the missing boxes per colour, ours then the closest opponent's."""
    players = st[ST_PLAYERS]
    seat = st[ST_SEAT]
    for k in range(N_COLOURS):
        ctx[C_TMP + N_COLOURS + k] = 1000.0
    best = 1000
    for s in range(players):
        lo, hi = bb[s, BB_CROSSED], bb[s, BB_CROSSED + 1]
        m1 = 100
        m2 = 100
        for k in range(N_COLOURS):
            r = popcount(colour_mask[k, 0] & ~lo) + popcount(colour_mask[k, 1] & ~hi)
            if r < m1:
                m2 = m1
                m1 = r
            elif r < m2:
                m2 = r
            if s == seat:
                ctx[C_TMP + k] = r
            elif r < ctx[C_TMP + N_COLOURS + k]:
                ctx[C_TMP + N_COLOURS + k] = r
            ctx[C_SEAT + k] = r
        need = m1 + m2 if colours == 2 else int(fewest_sum(ctx, C_SEAT, -1, 0.0, colours))
        if need < best:
            best = need
    return float(best)


#: prepare's `ahead`, typed as a variable would be: a literal 0 or 1 compiled it once for each.
NOW = np.int64(0)
NEXT_ROLL = np.int64(1)


@njit(cache=True)
def prepare(st, ps, bb, tab, params, ctx, ahead):
    """Fill ctx with the weights of this decision (time, races, first or later values),
    as seen `ahead` rolls later (0 = now)."""
    players = st[ST_PLAYERS]
    seat = st[ST_SEAT]
    solo = players == 1
    o = 0 if solo else N_WEIGHTS
    rules = borrow(tab, "rules")
    if solo:
        h = float(max(rules[R_SOLO_ROLLS] - st[ST_ROLL], 0))
    else:
        h = params[X_HORIZON] * table_view(st, bb, borrow(tab, "colour_mask"), ctx, rules[R_END_COLOURS])
    h = max(h - ahead, 0.0)
    ctx[C_H] = h
    k_col = params[o + W_COL_LAM] + params[o + W_COL_MU] / (h + 1.0)
    k_colour = params[o + W_COLOUR_LAM] + params[o + W_COLOUR_MU] / (h + 1.0)
    q_col = math.exp(-k_col)
    geometric(ctx, C_PCOL, 8, q_col)
    ctx[C_PAIR] = params[o + W_PAIR]
    geometric(ctx, C_PPAIR, 8, math.exp(0.5 * k_col * params[o + W_PAIR]))
    ctx[C_CPAIR] = params[o + W_COLOUR_PAIR]
    if ctx[C_CPAIR] != 0.0:
        geometric(ctx, C_PCPAIR, 32, math.exp(0.5 * k_colour * params[o + W_COLOUR_PAIR]))
    # With the default col_dist = 1, -k_col * col_dist is -k_col exactly: the same exp.
    col_dist = params[o + W_COL_DIST]
    geometric(ctx, C_QDIST, N_COLS, q_col if col_dist == 1.0 else math.exp(-k_col * col_dist))
    geometric(ctx, C_PCOLOUR, 22, math.exp(-k_colour))
    star = params[o + W_STAR] + params[o + W_STAR_T] / (h + 1.0)
    ctx[C_STAR] = rules[R_STAR_PENALTY] * min(star, 1.0)      # the points an open star costs at the end
    ctx[C_JOKER] = params[o + W_JOKER] + params[o + W_JOKER_T] * h / 30.0
    ctx[C_MOB] = params[o + W_MOB] * h / 30.0
    ctx[C_SINGLE] = params[o + W_SINGLE]
    ctx[C_BOX] = params[o + W_BOX]
    w_col = params[o + W_COL]
    w_colour = params[o + W_COLOUR]
    per_box = params[o + W_COLBOX] / 7.0
    race = params[X_RACE] if not solo else 1.0
    # Column counts, ours and the most any opponent has, a byte per column.
    mine0 = byte_counts(bb[seat, BB_CROSSED])
    mine1 = byte_counts(bb[seat, BB_CROSSED + 1])
    opp0 = ZERO
    opp1 = ZERO
    if not solo:
        for s in range(players):
            if s != seat:
                opp0 = byte_max(opp0, byte_counts(bb[s, BB_CROSSED]))
                opp1 = byte_max(opp1, byte_counts(bb[s, BB_CROSSED + 1]))
    cols_taken = st[ST_COLS_TAKEN]
    col_first = borrow(tab, "col_first")
    col_later = borrow(tab, "col_later")
    for c in range(N_COLS):
        first = col_first[c]
        later = col_later[c]
        ctx[C_COLBOX + c] = per_box * first
        if solo:
            v = float(first)
        elif (cols_taken >> c) & 1:
            v = float(later)
        else:
            # Is an opponent closer to this column (more boxes crossed in it) than we are?
            shift = np.uint64(8 * (c & 7))
            mine = (mine0 if c < 8 else mine1) >> shift & _BYTE
            theirs = (opp0 if c < 8 else opp1) >> shift & _BYTE
            v = float(first) if theirs <= mine else later + race * (first - later)
        ctx[C_COLV + c] = w_col * v
    first = rules[R_COLOUR_FIRST]
    later = rules[R_COLOUR_LATER]
    for k in range(N_COLOURS):
        if solo:
            v = float(first)
        elif (st[ST_COLOURS_TAKEN] >> k) & 1:
            v = float(later)
        else:
            closer = ctx[C_TMP + N_COLOURS + k] < ctx[C_TMP + k]
            v = float(first) if not closer else later + race * (first - later)
        ctx[C_COLOURV + k] = w_colour * v


@njit(cache=True)
def colour_pairs(u0, u1):
    """Orthogonally adjacent pairs of boxes in (u0, u1) (empty boxes of one colour), at most 31."""
    n = (popcount(u0 & (u0 >> ONE)) + popcount(u1 & (u1 >> ONE)) + popcount(u0 & (u0 >> np.uint64(8)))
         + popcount(u1 & (u1 >> np.uint64(8))) + popcount((u0 >> np.uint64(56)) & u1))
    return min(n, 31)


@njit(cache=True, inline="always")
def colour_factor(ctx, um, lo, hi, k):
    """Colour k's empty boxes (u0, u1), their number r and its completion factor
    PCOLOUR[r] * PCPAIR[adjacent empty pairs]: (u0, u1, r, factor)."""
    u0 = um[U_COLOUR + 2 * k] & ~lo
    u1 = um[U_COLOUR + 2 * k + 1] & ~hi
    r = popcount(u0) + popcount(u1)
    f = ctx[C_PCOLOUR + r]
    if ctx[C_CPAIR] != 0.0:
        f *= ctx[C_PCPAIR + colour_pairs(u0, u1)]
    return u0, u1, r, f


@njit(cache=True, inline="always")
def column_bytes(ctx, um, lo, hi):
    """Per-column byte counts of a sheet, split as byte_counts words (columns A..H, I..O):
    its crossed boxes (a, b) and, when the pair term is on, its stacked empty pairs (pa, pb)."""
    p0 = ZERO
    p1 = ZERO
    if ctx[C_PAIR] != 0.0:
        p0, p1 = stacked_pairs(um, lo, hi)
    return byte_counts(lo), byte_counts(hi), byte_counts(p0), byte_counts(p1)


@njit(cache=True)
def column_byte(a, b, c):
    """Column c's count from the split words a (columns 0..7) and b (8..14)."""
    if c < 8:
        return np.int64((a >> np.uint64(8 * c)) & _BYTE)
    return np.int64((b >> np.uint64(8 * (c - 8))) & _BYTE)


@njit(cache=True)
def evaluate(ctx, um, lo, hi, mobility, jokers):
    """V of a sheet with boxes (lo, hi) crossed, `mobility` legal placements and `jokers` left.

    The reference evaluation, straight from the definition; play scores placements with
    set_base and delta, which give the same value (tests/strategies/test_heuristic.py).
    um holds the sheet's masks as made by sheet_masks (the Tables struct is not passed
    to hot functions: handing it over costs a reference count per array).
    """
    a, b, pa, pb = column_bytes(ctx, um, lo, hi)
    left, right = crossed_span(a, b)
    v = 0.0
    boxes = 0
    for c in range(N_COLS):
        n = column_byte(a, b, c)
        pr = column_byte(pa, pb, c)
        boxes += n
        d = left - c if c < left else (c - right if c > right else 0)
        v += ctx[C_COLV + c] * ctx[C_PCOL + 7 - n] * ctx[C_PPAIR + pr] * ctx[C_QDIST + d] + ctx[C_COLBOX + c] * n
    for k in range(N_COLOURS):
        v += ctx[C_COLOURV + k] * colour_factor(ctx, um, lo, hi, k)[3]
    stars = popcount(um[U_STAR] & ~lo) + popcount(um[U_STAR + 1] & ~hi)
    v -= ctx[C_STAR] * stars
    v += ctx[C_JOKER] * jokers
    v += ctx[C_BOX] * boxes
    v += ctx[C_MOB] * mobility
    if ctx[C_SINGLE] != 0.0:
        m0, m1 = um[U_BOARD], um[U_BOARD + 1]
        iso = 0
        for k in range(N_COLOURS):
            u0 = um[U_COLOUR + 2 * k] & ~lo
            u1 = um[U_COLOUR + 2 * k + 1] & ~hi
            n0, n1 = neighbours(u0, u1, m0, m1)
            iso += popcount(u0 & ~n0) + popcount(u1 & ~n1)
        v -= ctx[C_SINGLE] * iso
    return v


# --- incremental evaluation ------------------------------------------------------
#
# A placement changes one colour and the (at most five, adjacent) columns it
# touches; the only term reaching further is the distance factor, which moves
# for every column when the crossed area grows to the left or right. set_base
# computes, once per decision, every term of the sheet as it is, plus the column
# sum for any new span: with g_c = COLV_c * F_c, the columns left of a span
# start nl contribute sum_{c<nl} g_c q^(nl-c) (C_LSUM, a recurrence in nl), those
# right of nr likewise (C_RSUM), those inside it a prefix-sum difference. delta
# then scores a placement from its own boxes only: about 60 word operations,
# where a whole-sheet evaluation loops over 15 columns and 5 colours twice.


@njit(cache=True, inline="always")
def span_sum(ctx, nl, nr):
    """Column potential of the base sheet if the crossed area spanned columns nl..nr."""
    return ctx[C_LSUM + nl] + (ctx[C_PREF + nr + 1] - ctx[C_PREF + nl]) + ctx[C_RSUM + nr - 7]


@njit(cache=True)
def set_base(ctx, um, lo, hi):
    """Make (lo, hi) the base sheet of delta; returns its V without mobility and jokers."""
    a, b, pa, pb = column_bytes(ctx, um, lo, hi)
    um[U_LO] = lo
    um[U_HI] = hi
    um[U_CNT] = a
    um[U_CNT + 1] = b
    um[U_PCNT] = pa
    um[U_PCNT + 1] = pb
    left, right = crossed_span(a, b)
    v = 0.0
    boxes = 0
    ctx[C_PREF] = 0.0
    for c in range(N_COLS):
        n = column_byte(a, b, c)
        pr = column_byte(pa, pb, c)
        boxes += n
        f = ctx[C_PCOL + 7 - n] * ctx[C_PPAIR + pr]
        ctx[C_F + c] = f
        ctx[C_PREF + c + 1] = ctx[C_PREF + c] + ctx[C_COLV + c] * f
        v += ctx[C_COLBOX + c] * n
    q = ctx[C_QDIST + 1]
    ctx[C_LSUM] = 0.0
    for j in range(7):
        ctx[C_LSUM + j + 1] = (ctx[C_LSUM + j] + ctx[C_COLV + j] * ctx[C_F + j]) * q
    ctx[C_RSUM + 7] = 0.0
    for j in range(14, 7, -1):
        ctx[C_RSUM + j - 8] = (ctx[C_RSUM + j - 7] + ctx[C_COLV + j] * ctx[C_F + j]) * q
    colsum = span_sum(ctx, left, right)
    ctx[C_LEFT] = left
    ctx[C_RIGHT] = right
    ctx[C_COLSUM] = colsum
    v += colsum
    use_single = ctx[C_SINGLE] != 0.0
    m0, m1 = um[U_BOARD], um[U_BOARD + 1]
    done = 0
    iso = 0
    for k in range(N_COLOURS):
        u0, u1, r, f = colour_factor(ctx, um, lo, hi, k)
        ctx[C_CFAC + k] = f
        ctx[C_GAPS + k] = r
        v += ctx[C_COLOURV + k] * f
        if r == 0:
            done += 1
        if use_single:
            n0, n1 = neighbours(u0, u1, m0, m1)
            i = popcount(u0 & ~n0) + popcount(u1 & ~n1)
            ctx[C_ISO + k] = i
            iso += i
    ctx[C_DONE] = done
    v -= ctx[C_SINGLE] * iso
    v -= ctx[C_STAR] * (popcount(um[U_STAR] & ~lo) + popcount(um[U_STAR + 1] & ~hi))
    v += ctx[C_BOX] * boxes
    return v


@njit(cache=True, inline="always")
def _columns_delta(ctx, x, cnt, pcnt, lost, first_col):
    """Change of the touched columns' terms of one word (inside the new span, so at distance 0);
    x, cnt, pcnt, lost: byte counts of the placement, the base sheet, its stacked pairs and
    the pairs the placement breaks. Returns (change, leftmost, rightmost touched column)."""
    dv = 0.0
    lo_c = 99
    hi_c = -1
    while x != ZERO:
        sh = np.uint64(ctz(x) & 56)
        c = first_col + np.int64(sh >> np.uint64(3))
        m = np.int64((x >> sh) & _BYTE)
        x &= ~(_BYTE << sh)
        n = np.int64((cnt >> sh) & _BYTE)
        pr = np.int64(((pcnt >> sh) & _BYTE) - ((lost >> sh) & _BYTE))
        dv += (ctx[C_COLV + c] * (ctx[C_PCOL + 7 - n - m] * ctx[C_PPAIR + pr] - ctx[C_F + c])
               + ctx[C_COLBOX + c] * m)
        if lo_c == 99:
            lo_c = c
        hi_c = c
    return dv, lo_c, hi_c


@njit(cache=True, inline="always")
def delta(ctx, um, k0, k1, ck, size, stars):
    """Change of V (without mobility and jokers) when the base sheet crosses boxes (k0, k1),
    all of colour ck, `stars` of them stars."""
    lo = um[U_LO]
    hi = um[U_HI]
    u0 = um[U_COLOUR + 2 * ck] & ~lo
    u1 = um[U_COLOUR + 2 * ck + 1] & ~hi
    v0 = u0 & ~k0
    v1 = u1 & ~k1
    l0 = ZERO
    l1 = ZERO
    if ctx[C_PAIR] != 0.0:
        # Stacked pairs are of one colour: only colour ck's can break.
        l0 = byte_counts((u0 & (u0 >> ONE)) & ~(v0 & (v0 >> ONE)))
        l1 = byte_counts((u1 & (u1 >> ONE)) & ~(v1 & (v1 >> ONE)))
    d0, a0, b0 = _columns_delta(ctx, byte_counts(k0), um[U_CNT], um[U_PCNT], l0, 0)
    d1, a1, b1 = _columns_delta(ctx, byte_counts(k1), um[U_CNT + 1], um[U_PCNT + 1], l1, 8)
    dv = d0 + d1
    left = np.int64(ctx[C_LEFT])
    right = np.int64(ctx[C_RIGHT])
    nl = min(left, a0, a1)
    nr = max(right, b0, b1)
    if nl != left or nr != right:
        dv += span_sum(ctx, nl, nr) - ctx[C_COLSUM]
    f = ctx[C_PCOLOUR + np.int64(ctx[C_GAPS + ck]) - size]
    if ctx[C_CPAIR] != 0.0:
        f *= ctx[C_PCPAIR + colour_pairs(v0, v1)]
    dv += ctx[C_COLOURV + ck] * (f - ctx[C_CFAC + ck])
    dv += ctx[C_STAR] * stars + ctx[C_BOX] * size
    if ctx[C_SINGLE] != 0.0:
        n0, n1 = neighbours(v0, v1, um[U_BOARD], um[U_BOARD + 1])
        dv -= ctx[C_SINGLE] * (popcount(v0 & ~n0) + popcount(v1 & ~n1) - ctx[C_ISO + ck])
    return dv


@njit(cache=True, inline="always")
def completes(ctx, ck, size):
    """Colours complete after crossing `size` boxes of colour ck on the base sheet (at a table the
    game ends when they reach the rules' end colours)."""
    return ctx[C_DONE] + (1.0 if ctx[C_GAPS + ck] == size else 0.0)


@njit(cache=True)
def score_after(st, ps, bb, tab, seat, lo, hi, jokers):
    """Seat's score if the game ended with boxes (lo, hi) crossed and `jokers` left (the rules'
    colour values, star and pass penalties)."""
    star_mask = borrow(tab, "star_mask")
    rules = borrow(tab, "rules")
    _, _, _, _, col_points, colour_points = awards(
        lo, hi, ps[seat, PS_COLS], ps[seat, PS_COLOURS], st[ST_COLS_TAKEN], st[ST_COLOURS_TAKEN],
        borrow(tab, "col_first"), borrow(tab, "col_later"), borrow(tab, "colour_mask"),
        rules[R_COLOUR_FIRST], rules[R_COLOUR_LATER])
    pts = ps[seat, PS_COL_POINTS] + ps[seat, PS_COLOUR_POINTS] + jokers + col_points + colour_points
    pts -= rules[R_STAR_PENALTY] * (popcount(star_mask[0] & ~lo) + popcount(star_mask[1] & ~hi))
    pts -= rules[R_PASS_PENALTY] * ps[seat, PS_PASSES]
    return pts


@njit(cache=True)
def end_bonus(st, ps, bb, tab, params, lo2, hi2, jokers):
    """Table only: value of ending the game (our 2nd colour: the rules' end colours) with boxes
    (lo2, hi2) crossed."""
    seat = st[ST_SEAT]
    players = st[ST_PLAYERS]
    mine = score_after(st, ps, bb, tab, seat, lo2, hi2, jokers)
    opp = -1000
    for s in range(players):
        if s != seat:
            o = score_after(st, ps, bb, tab, s, bb[s, BB_CROSSED], bb[s, BB_CROSSED + 1], ps[s, PS_JOKERS])
            if o > opp:
                opp = o
    return params[X_END] * min(max((mine - opp) / 4.0, -1.0), 1.0)


# --- dice denial -----------------------------------------------------------------

@njit(cache=True)
def group_values(bb, seat, gword, gmask, stars, cols, nums, ctx, star_points):
    """ctx[C_GBEST + 6c + n - 1] = best (boxes + star_points * stars: the rules' star penalty, 2)
    seat can cross with colour c and number n, 0 if none; only for the colours in `cols` and
    numbers in `nums`."""
    for c in range(N_COLOURS):
        if not (cols >> c) & 1:
            continue
        for num in range(1, MAX_NUMBER + 1):
            if not (nums >> num) & 1:
                continue
            g = MAX_NUMBER * c + num - 1
            best = 0
            for half in range(2):
                w, word = legal_word(bb, seat, gword, gmask, g, half)
                while word != ZERO:
                    k, word = next_row(w, word)
                    if stars[k] * star_points + num > best:
                        best = stars[k] * star_points + num
            ctx[C_GBEST + g] = best


@njit(cache=True)
def denial_values(st, ps, bb, tab, ctx):
    """Dice denial: ctx[C_DV + 3 cd + nd] = mean over opponents of the best (boxes + 2 stars
    - jokers; a star counts the rules' star penalty) they can do with the dice left after we
    take colour die cd and number die nd;
    returns the same for passing (all dice left)."""
    players = st[ST_PLAYERS]
    seat = st[ST_SEAT]
    avail = st[ST_AVAIL]
    cols, nums, cj, nj = dice_faces(st, avail)
    cols |= 31 if cj else 0         # the colours and numbers the dice can stand for
    nums |= tab.rules[R_NUMBERS] << 1 if nj else 0
    for p in range(9):
        ctx[C_DV + p] = 0.0
    total_pass = 0.0
    gword = borrow(tab, "gword")
    gmask = borrow(tab, "gmask")
    stars = borrow(tab, "stars")
    faces = dice_word(st, tab.rules[R_NUMBERS])
    for s in range(players):
        if s == seat:
            continue
        group_values(bb, s, gword, gmask, stars, cols, nums, ctx, tab.rules[R_STAR_PENALTY])
        jokers = ps[s, PS_JOKERS]
        # Their best with each die pair (NEG where the pair is not there or too dear).
        for p in range(9):
            _, _, cost, groups = die_pair(faces, avail, jokers, p)
            top = NEG
            while groups:
                g, groups = next_group(groups)
                top = max(top, ctx[C_GBEST + g] - cost)
            ctx[C_PAIRV + p] = top
        # What is left to them: all pairs (we pass), or the pairs avoiding both our dice.
        best_all = 0.0
        for p in range(9):
            best_all = max(best_all, ctx[C_PAIRV + p])
        total_pass += best_all
        for cd in range(3):
            for nd in range(3):
                top = 0.0
                for a in range(3):
                    if a == cd:
                        continue
                    for b in range(3):
                        if b != nd:
                            top = max(top, ctx[C_PAIRV + 3 * a + b])
                ctx[C_DV + 3 * cd + nd] += top
    for p in range(9):
        ctx[C_DV + p] /= players - 1
    return total_pass / (players - 1)


@njit(cache=True, inline="always")
def denial_applies(st, tab, params):
    """Dice denial: at a table, the active seat, once the rules' free rolls are over (before, the
    others choose from all six dice whatever it takes)."""
    return (st[ST_PLAYERS] > 1 and st[ST_IS_ACTIVE] == 1 and st[ST_ROLL] > borrow(tab, "rules")[R_FREE_ROLLS]
            and params[X_DENY] != 0.0)


# --- scoring the choices of a decision -------------------------------------------

@njit(cache=True, inline="always")
def score_candidates(st, ps, bb, cands, n, tab, params, ctx, um, values):
    """values[i] = heuristic value of cands[i]; values[n] = value of passing."""
    seat = st[ST_SEAT]
    players = st[ST_PLAYERS]
    lo, hi = bb[seat, BB_CROSSED], bb[seat, BB_CROSSED + 1]
    jokers = ps[seat, PS_JOKERS]
    deny = denial_applies(st, tab, params)
    base = set_base(ctx, um, lo, hi)
    rules = borrow(tab, "rules")
    end_colours = rules[R_END_COLOURS]
    end = players > 1 and params[X_END] != 0.0 and ctx[C_DONE] < end_colours
    w_mob = ctx[C_MOB]
    w_joker = ctx[C_JOKER]
    # Passing costs the rules' pass penalty (0 by the rulebook).
    values[n] = (base + (w_mob * mobility(bb[seat], BB_ALIVE, BB_TOUCH) if w_mob != 0.0 else 0.0) + w_joker * jokers
                 - rules[R_PASS_PENALTY])
    if deny:
        values[n] -= params[X_DENY] * denial_values(st, ps, bb, tab, ctx)
    mask, kill, act, t_colour, t_size, t_stars, _ = placement_fields(tab)
    # A placement offered by several die pairs is evaluated once (without its jokers,
    # which enter V linearly): cache[sub], valid where `seen` has the bit.
    cache = stack_f64(MAX_SUBSETS)
    seen = stack_u64(NW)
    for w in range(NW):
        seen[w] = ZERO
    for i in range(n):
        sub = cands[i, CAND_SUB]
        cost = cands[i, CAND_COST]
        bit = ONE << np.uint64(sub & 63)
        if seen[sub >> 6] & bit:
            v0 = cache[sub]
        else:
            v0 = base + delta(ctx, um, mask[sub, 0], mask[sub, 1], t_colour[sub], t_size[sub], t_stars[sub])
            if w_mob != 0.0:
                v0 += w_mob * mobility_after(bb[seat], BB_ALIVE, BB_TOUCH, kill, act, sub)
            cache[sub] = v0
            seen[sub >> 6] |= bit
        v = v0 + w_joker * (jokers - cost)
        if end and completes(ctx, t_colour[sub], t_size[sub]) >= end_colours:
            v += end_bonus(st, ps, bb, tab, params, lo | mask[sub, 0], hi | mask[sub, 1], jokers - cost)
        if deny:
            v -= params[X_DENY] * ctx[C_DV + 3 * cands[i, CAND_CDIE] + cands[i, CAND_NDIE]]
        values[i] = v


@njit(cache=True, inline="always")
def best_placement(st, ps, bb, tab, params, ctx, um):
    """Best (value, subset row, jokers) over the distinct placements the dice allow, passing
    included (subset -1). Each placement is scored once, at the fewest jokers any die pair
    offering it costs; valid whenever the value of a choice does not depend on which dice it
    takes (no dice denial)."""
    seat = st[ST_SEAT]
    players = st[ST_PLAYERS]
    avail = st[ST_AVAIL]
    lo, hi = bb[seat, BB_CROSSED], bb[seat, BB_CROSSED + 1]
    jokers = ps[seat, PS_JOKERS]
    base = set_base(ctx, um, lo, hi)
    rules = borrow(tab, "rules")
    end_colours = rules[R_END_COLOURS]
    end = players > 1 and params[X_END] != 0.0 and ctx[C_DONE] < end_colours
    w_mob = ctx[C_MOB]
    w_joker = ctx[C_JOKER]
    cols, nums, cj, nj = dice_faces(st, avail)
    mob_now = mobility(bb[seat], BB_ALIVE, BB_TOUCH) if w_mob != 0.0 else 0
    best_v = base + w_mob * mob_now + w_joker * jokers - rules[R_PASS_PENALTY]      # passing
    best_k = -1
    best_cost = 0
    mask, kill, act, _, _, t_stars, act_count = placement_fields(tab)
    gword = borrow(tab, "gword")
    gmask = borrow(tab, "gmask")
    # Playing k leaves at most mob_now - 1 + act_count[k] legal placements (k itself goes, at
    # most act[k] arrive): most placements are out of the running before they are counted.
    bound_mob = w_mob > 0.0
    # The groups of number 6 have placements only under joker-six (a number joker makes them).
    top = MAX_NUMBER if (rules[R_NUMBERS] >> (MAX_NUMBER - 1)) & 1 else MAX_NUMBER - 1
    for g in range(N_GROUPS):
        c = g // MAX_NUMBER
        num = g - MAX_NUMBER * c + 1
        if num > top:
            continue
        cost = group_cost(cols, nums, cj, nj, g)
        if cost > jokers:
            continue
        rest = base + w_joker * (jokers - cost)
        for half in range(2):
            w, word = legal_word(bb, seat, gword, gmask, g, half)
            while word != ZERO:
                sub, word = next_row(w, word)
                v = rest + delta(ctx, um, mask[sub, 0], mask[sub, 1], c, num, t_stars[sub])
                if end and completes(ctx, c, num) >= end_colours:
                    v += end_bonus(st, ps, bb, tab, params, lo | mask[sub, 0], hi | mask[sub, 1], jokers - cost)
                if w_mob != 0.0:
                    if bound_mob and v + w_mob * (mob_now - 1 + act_count[sub]) <= best_v:
                        continue
                    v += w_mob * mobility_after(bb[seat], BB_ALIVE, BB_TOUCH, kill, act, sub)
                if v > best_v:
                    best_v = v
                    best_k = sub
                    best_cost = cost
    return best_v, best_k, best_cost


def _choose(st, ps, bb, cands, n, tab, params, rng):
    """One-move evaluation: columns, colours, stars, jokers, reach, races, end-game, denial."""
    if n == 0:
        return PASS
    # The functions inlined below would count a reference on each argument array per call.
    st, ps, bb, cands, params = uncounted(st), uncounted(ps), uncounted(bb), uncounted(cands), uncounted(params)
    # Scratch on the stack: no allocation, and no reference counts in the placement loop.
    ctx = stack_f64(CTX_SIZE)
    um = stack_u64(UM_SIZE)
    prepare(st, ps, bb, tab, params, ctx, NOW)
    sheet_masks(tab, um)
    if not denial_applies(st, tab, params):
        _, sub, cost = best_placement(st, ps, bb, tab, params, ctx, um)
        return candidate_of(cands, n, sub, cost)
    values = stack_f64(VALUES_SIZE)
    score_candidates(st, ps, bb, cands, n, tab, params, ctx, um, values)
    best = PASS
    best_v = values[n]
    for i in range(n):
        if values[i] > best_v:
            best_v = values[i]
            best = i
    return best


#: The rules' numbers its evaluation reads (strategies.adaptation; tests/strategies/test_adaptation.py checks
#: them against the R_* constants and column values the module reads).
READS_RULES = frozenset({"pass_penalty", "star_penalty", "end_colours", "solo_rolls", "free_rolls", "joker_six",
                         "colour_bonus", "column_points"})
heuristic = strategy(_choose, name="heuristic", params=PARAMS, reads_rules=READS_RULES,
                     description="one-move evaluation: column/colour completion potential, stars, jokers, "
                                 "reach, races, end-game, dice denial (solo_* / multi_* weights)")
