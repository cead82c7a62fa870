"""`learned`: a player driven by a learned afterstate value (an n-tuple table sum).

Solo, the value of the sheet after a move, with t rolls still to come and j '!'
left, is a sum of table entries, one per feature, each table indexed by t:

    V(sheet, t, j) = sum over the 80 active features f of W[o + f]     (V = 0 at t = 0)

where o = row_offset(base, t) is where row t starts in the flat weights W[base:].
Features, one row of W (N_FEAT entries per t, t = 0..29):

    offset      size          indexed by                                   active
    F_COLMASK   15 x 128      column c, its 7 crossed boxes as a bit mask     15
    F_COLDIST   15 x 8 x 8    column c, crossed count, columns the crossed    15
                              area must still grow to reach c (0..7)
    F_ADJ       14 x 8 x 8    columns c, c+1: both crossed counts             14
    F_BLOCK     30 x 64       block b, its crossed boxes as a bit mask        30
                              (bit i = the block's i-th box in bit order)
    F_COLOUR    5 x 22 x 7    colour k, its empty boxes, its unfinished        5
                              blocks
    F_JOKER     9             '!' left (more than 8 share the last entry)      1

Column masks see stars and single boxes, column distances see reach (columns A
and O pay 5 but start 7 columns away from H), block masks see which dice a
colour still needs. Block features follow the block order of the sheet's
tables, so weights are trained per sheet (encore-sim train; the shipped ones
in strategies/data/, one file per built-in sheet).

A move is chosen by one-ply search over the distinct placements the dice
allow (and passing): reward now + V(afterstate), where the reward is the
column and colour points the move completes, +2 per star it crosses (every
star starts at -2) and -1 per '!' it uses (each kept '!' scores 1). The sum
of rewards over a game is the score + 30 - 8, so V estimates the points still
to come. sim.training.solo learns W by TD(lambda) on self-play, from optimistic
starting weights.

Under rule variants (sim.rules; the kernels read them from tab.rules) the same holds with the
rules' numbers: a crossed star gains the star penalty, a completed colour the colour bonus, a
pass costs the pass penalty (its reward), and t counts the rules' solo rolls (a game longer than
30 rolls values t >= 29 by the last row). Weights are trained under the rules they play
(weights_rules: the part of the rules that changes the game the weights are for); the weights
file records them, and `learned` finds weights for the run's rules by that record.

With `top` >= 1 the `top` best placements are also looked at one roll deeper:
the next roll's value is averaged exactly over its 1296 dice faces (best reply
per colour and number, jokers charged, passing allowed); with `close` > 0 only
those within `close` points of the best one-ply value, as the search pays
almost only at close calls.

At a table (2-6 players) the value is of another kind: the points still to
come minus the best opponent's final score, from the sheet's features and what
the player sees of the table (strategies.table_features), in rows of
N_ROW_TABLE per stage of the game; sim.training.table learns it.

The weights are not compiled in: they follow the strategy's parameters and the
sheet's layout in `params`, float32 packed two to a float64 word (Strategy.data:
weights_data picks them for the run's sheet and number of players, or reads the
file of learned:weights=FILE).
"""
import dataclasses
import datetime
import functools
import hashlib
import importlib.resources
import os
import re
import shlex
import zipfile
from pathlib import Path

import numpy as np
from numba import njit

from sim.bits import ONE, ZERO, ctz, popcount
from sim.engine import SOLO_ROLLS
from sim.players import placement_code, placement_of
from sim.rules import (
    R_COLOUR_FIRST, R_COLOUR_LATER, R_FREE_ROLLS, R_PASS_PENALTY, R_SOLO_ROLLS, R_STAR_PENALTY, RULEBOOK, Rules,
    parse_rules,
)
from sim.sheets import BUILTIN_SHEETS, N_COLS, load_sheet
from sim.state import (
    BB_ALIVE, BB_CROSSED, BB_TOUCH, CAND_CDIE, CAND_COST, CAND_NDIE, CAND_SUB, PASS,
    PS_JOKERS, ST_AVAIL, ST_IS_ACTIVE, ST_PLAYERS, ST_ROLL, ST_SEAT,
)
from sim.tables import MAX_NUMBER, MAX_SUBSETS, N_COLOURS, N_GROUPS, NW, kernel_tables

from sim.moves import dice_faces, group_cost, legal_word, next_row
from sim.nbinternals import at as _at, borrow, stack_f64, stack_i64, stack_u64, uncounted

from .features import EXPECT_SIZE, NEG, candidate_of, expected_best_reply
from . import store
from .interface import strategy
from .table_features import (
    N_STAGES, T_SIZE, TC_COLOURS_TAKEN, TC_COLS_TAKEN, TC_SIZE, TE_SIZE, margin_change, stage, table_after,
    table_context, table_prepare,
)

# --- the feature layout (one row of W per t) ---------------------------------------
N_BLOCKS = 30
MAX_BLOCK = 6
F_COLMASK = 0
F_COLDIST = F_COLMASK + N_COLS * 128
F_ADJ = F_COLDIST + N_COLS * 64
F_BLOCK = F_ADJ + (N_COLS - 1) * 64
F_COLOUR = F_BLOCK + N_BLOCKS * 64
F_JOKER = F_COLOUR + N_COLOURS * 22 * 7
#: '!' left 0..8 (the rulebook's 8 at most); under jokers=N > 8 the counts above 8 share the last
#: entry (joker_entry), so the shipped layout serves every rules.
N_JOKER_ENTRIES = 9
N_FEAT = F_JOKER + N_JOKER_ENTRIES
#: Rows of the solo value: t = rolls still to come after the move, 0..29 (solo_row: a game longer
#: than the rulebook's 30 rolls values its earlier rolls by the last row).
N_T = SOLO_ROLLS
#: At a table: a row per stage of the game (table_features.stage), the sheet's N_FEAT entries
#: then the table's T_SIZE.
N_ROW_TABLE = N_FEAT + T_SIZE
N_ACTIVE = 2 * N_COLS + (N_COLS - 1) + N_BLOCKS + N_COLOURS + 1
#: Sheet features only (the joker feature is added separately: it alone depends on the dice used).
N_SHEET = N_ACTIVE - 1

# --- the sheet layout the features need: int64 lay[LAY_SIZE] ----------------------
LAY_BITS = 0                                  # 30 x 6: bit index of each block's i-th box (0 past its size)
LAY_BCOL = LAY_BITS + N_BLOCKS * MAX_BLOCK    # 30: colour of each block
LAY_BSIZE = LAY_BCOL + N_BLOCKS               # 30: boxes in each block
LAY_LOCAL = LAY_BSIZE + N_BLOCKS              # 128: i for the block's i-th box, per bit index (0 off the sheet)
LAY_PCOL = LAY_LOCAL + 128                    # MAX_SUBSETS: a placement's columns (place_columns)
LAY_PBLOCK = LAY_PCOL + MAX_SUBSETS           # MAX_SUBSETS: its block, colour, size, stars (place_block)
# All block masks at once, packed 6 bits a block, BLOCKS_PER_WORD blocks to a word (block b at bits
# 6 * (b % 10) of word b // 10): what each half column's boxes add to them (rows 0-3, rows 4-6
# and the guard bit), the packed masks of full blocks, and per colour the low bit of its blocks'
# fields.
BLOCKS_PER_WORD = 10
PACKED = N_BLOCKS // BLOCKS_PER_WORD
LAY_NIBBLE = LAY_PBLOCK + MAX_SUBSETS         # N_COLS x 2 x 16 x PACKED
LAY_FULL = LAY_NIBBLE + N_COLS * 2 * 16 * PACKED  # PACKED
LAY_OPEN = LAY_FULL + PACKED                  # N_COLOURS x PACKED
LAY_CMASK = LAY_OPEN + N_COLOURS * PACKED     # N_COLOURS x 2: the boxes of each colour
LAY_SIZE = LAY_CMASK + N_COLOURS * 2
# A placement's columns, packed: its first column, how many (1..5), then 7 bits of boxes per column.
P_NCOLS = 4
P_COLBOXES = 8
# Its block, packed: the block, its boxes in the block (bit i: the block's i-th box), colour, size,
# stars.
P_LOCAL = 5
P_COLOUR = P_LOCAL + MAX_BLOCK
P_SIZE = P_COLOUR + 3
P_STARS = P_SIZE + 3

# --- one sheet's features, kept to score its successors incrementally ------------
# sc ("sheet counts", int64[SC_SIZE]) and se ("sheet entries", float64[SE_SIZE]): prepare fills
# them for the sheet before the decision, successor_value rescores a placement from them.
SC_COUNT = 0                        # N_COLS crossed boxes per column
SC_MASK = SC_COUNT + N_COLS         # N_COLS column masks
SC_BMASK = SC_MASK + N_COLS         # N_BLOCKS block masks
SC_EMPTY = SC_BMASK + N_BLOCKS      # N_COLOURS empty boxes per colour
SC_OPEN = SC_EMPTY + N_COLOURS      # N_COLOURS unfinished blocks per colour
SC_LEFT = SC_OPEN + N_COLOURS       # the crossed area spans columns LEFT..RIGHT (H always)
SC_RIGHT = SC_LEFT + 1
SC_NEW = SC_RIGHT + 1               # N_COLS scratch: column counts after a placement
SC_SIZE = SC_NEW + N_COLS
SE_CM = 0                           # N_COLS column-mask entries
SE_BLOCK = SE_CM + N_COLS           # N_BLOCKS block entries
SE_COLOUR = SE_BLOCK + N_BLOCKS     # N_COLOURS colour entries
SE_CD = SE_COLOUR + N_COLOURS       # the sum of the column-distance entries
SE_BASE = SE_CD + 1                 # V of the sheet (without '!')
SE_CDC = SE_BASE + 1                # N_COLS column-distance entries
SE_ADJ = SE_CDC + N_COLS            # N_COLS - 1 adjacent-pair entries
SE_SIZE = SE_ADJ + N_COLS - 1

_B7F = np.uint64(0x7F)
#: Rows of rank_placements: passing and at most every placement of a sheet.
ROWS = MAX_SUBSETS + 1

#: Dice denial at a table (decide_table): points per box the dice left let an opponent cross,
#: and how many of the best choices it weighs.
DENY = 0.5
DENY_TOP = 4
#: Version of the weights file layout (save_weights / read_weights).
FORMAT = 1


@njit(cache=True)
def sheet_layout(tab):
    """The layout (int64[LAY_SIZE]) from the sheet's tables: the boxes of every block, in bit
    order, and its colour; every placement's columns and block, packed (place_columns,
    place_block)."""
    lay = np.empty(LAY_SIZE, np.int64)
    block_mask = borrow(tab, "block_mask")
    colour_mask = borrow(tab, "colour_mask")
    # No negative entry (no -1 for "none"): as float64 words in the parameters row (DATA_LAY) a
    # negative int64 is a NaN, which no comparison of rows finds equal to itself.
    lay[LAY_LOCAL:LAY_SIZE] = 0
    for b in range(N_BLOCKS):
        i = 0
        for w in range(2):
            word = block_mask[b, w]
            while word != ZERO:
                bit = 64 * w + ctz(word)
                lay[LAY_BITS + MAX_BLOCK * b + i] = bit
                lay[LAY_LOCAL + bit] = i
                word &= word - ONE
                i += 1
        for j in range(i, MAX_BLOCK):
            lay[LAY_BITS + MAX_BLOCK * b + j] = 0
        lay[LAY_BSIZE + b] = i
        lay[LAY_BCOL + b] = 0
        for k in range(N_COLOURS):
            if (block_mask[b, 0] & colour_mask[k, 0]) | (block_mask[b, 1] & colour_mask[k, 1]):
                lay[LAY_BCOL + b] = k
    for b in range(N_BLOCKS):
        w = LAY_FULL + b // BLOCKS_PER_WORD
        field = 6 * (b % BLOCKS_PER_WORD)
        lay[w] |= ((1 << lay[LAY_BSIZE + b]) - 1) << field
        lay[LAY_OPEN + PACKED * lay[LAY_BCOL + b] + b // BLOCKS_PER_WORD] |= 1 << field
        for i in range(lay[LAY_BSIZE + b]):
            bit = lay[LAY_BITS + MAX_BLOCK * b + i]
            half = 2 * (bit >> 3) + ((bit & 7) >> 2)          # the box's half column
            for nib in range(16):
                if (nib >> (bit & 3)) & 1:
                    lay[LAY_NIBBLE + PACKED * (16 * half + nib) + b // BLOCKS_PER_WORD] |= 1 << (field + i)
    for k in range(N_COLOURS):
        lay[LAY_CMASK + 2 * k] = np.int64(colour_mask[k, 0])
        lay[LAY_CMASK + 2 * k + 1] = np.int64(colour_mask[k, 1])
    mask = borrow(tab, "mask")
    for sub in range(borrow(tab, "size").shape[0]):
        p0, p1 = mask[sub, 0], mask[sub, 1]
        c_lo = (ctz(p0) >> 3) if p0 != ZERO else 8 + (ctz(p1) >> 3)
        n = 0
        boxes = 0
        # A connected placement's columns are a run: at most MAX_NUMBER of them (a 6-box placement
        # under joker-six may span six).
        for c in range(c_lo, min(c_lo + MAX_NUMBER, N_COLS)):
            pm = _column(p0, p1, c)
            if pm == 0:
                break
            boxes |= pm << (P_COLBOXES + 7 * n)
            n += 1
        lay[LAY_PCOL + sub] = c_lo | (n << P_NCOLS) | boxes
        local = 0
        for w in range(2):
            word = p0 if w == 0 else p1
            while word != ZERO:
                local |= 1 << lay[LAY_LOCAL + 64 * w + ctz(word)]
                word &= word - ONE
        lay[LAY_PBLOCK + sub] = (borrow(tab, "block")[sub] | (local << P_LOCAL)
                                 | (borrow(tab, "colour")[sub] << P_COLOUR)
                                 | (borrow(tab, "size")[sub] << P_SIZE) | (borrow(tab, "stars")[sub] << P_STARS))
    return lay


@njit(cache=True)
def _column(lo, hi, c):
    word = lo if c < 8 else hi
    return np.int64((word >> np.uint64(8 * (c & 7))) & _B7F)


@njit(cache=True, inline="always")
def place_columns(lay, sub):
    """(first column, columns, boxes) of placement `sub`: boxes >> 7 * j & 0x7F are its boxes in
    column first + j (bit r: row r)."""
    p = lay[LAY_PCOL + sub]
    return p & 15, (p >> P_NCOLS) & 7, p >> P_COLBOXES


@njit(cache=True, inline="always")
def place_block(lay, sub):
    """(block, its boxes in the block as block masks count them, colour, size, stars) of
    placement `sub`."""
    p = lay[LAY_PBLOCK + sub]
    return (p & 31, (p >> P_LOCAL) & 63, (p >> P_COLOUR) & 7, (p >> P_SIZE) & 7, (p >> P_STARS) & 7)


@njit(cache=True, inline="always")
def place_group(lay, sub):
    """The group (6 * colour + size - 1, as sim.tables numbers them) of placement `sub`."""
    p = lay[LAY_PBLOCK + sub]
    return MAX_NUMBER * ((p >> P_COLOUR) & 7) + ((p >> P_SIZE) & 7) - 1


@njit(cache=True, inline="always")
def joker_entry(jokers):
    """The feature index of `jokers` '!' left: F_JOKER + 0..8, counts above 8 (jokers=N) on the last."""
    return F_JOKER + min(jokers, N_JOKER_ENTRIES - 1)


@njit(cache=True, inline="always")
def solo_row(t):
    """The row of the solo weights for t rolls still to come: t itself for 0..N_T-1; a game longer
    than the rulebook's (solo-rolls > 30) values every t >= N_T - 1 by the last row, the nearest
    the weights have."""
    return min(max(t, 0), N_T - 1)


@njit(cache=True, inline="always")
def solo_rolls(tab):
    """The rules' length of the solo game (30 by the rulebook)."""
    return _at(borrow(tab, "rules"), R_SOLO_ROLLS)


@njit(cache=True)
def row_offset(base, t):
    """Where the weights for t rolls to come start in a flat weights vector W[base:]:
    rows of N_FEAT, t = 0..N_T-1 (row 0 stays 0: nothing is left to earn)."""
    return base + N_FEAT * t


@njit(cache=True)
def _dist(c, left, right):
    return left - c if c < left else (c - right if c > right else 0)


@njit(cache=True)
def _colour_index(k, empty, open_blocks):
    return F_COLOUR + 154 * k + 7 * empty + open_blocks


@njit(cache=True)
def sheet_state(lay, lo, hi, sc):
    """Column counts and masks, the crossed area, block masks and colour gaps of a sheet."""
    left = 7
    right = 7
    # The block masks, packed (LAY_NIBBLE): each half column's boxes add their bits.
    p0 = 0
    p1 = 0
    p2 = 0
    for c in range(N_COLS):
        m = _column(lo, hi, c)
        sc[SC_MASK + c] = m
        sc[SC_COUNT + c] = popcount(np.uint64(m))
        if m != 0:
            left = min(left, c)
            right = max(right, c)
        a = LAY_NIBBLE + PACKED * (32 * c + (m & 15))
        z = LAY_NIBBLE + PACKED * (32 * c + 16 + (m >> 4))
        p0 |= lay[a] | lay[z]
        p1 |= lay[a + 1] | lay[z + 1]
        p2 |= lay[a + 2] | lay[z + 2]
    sc[SC_LEFT] = left
    sc[SC_RIGHT] = right
    for i in range(BLOCKS_PER_WORD):
        sc[SC_BMASK + i] = (p0 >> (6 * i)) & 63
        sc[SC_BMASK + BLOCKS_PER_WORD + i] = (p1 >> (6 * i)) & 63
        sc[SC_BMASK + 2 * BLOCKS_PER_WORD + i] = (p2 >> (6 * i)) & 63
    # A block is open if its field differs from the full one: each field folded onto its low bit.
    f0 = p0 ^ lay[LAY_FULL]
    f1 = p1 ^ lay[LAY_FULL + 1]
    f2 = p2 ^ lay[LAY_FULL + 2]
    f0 |= (f0 >> 1) | (f0 >> 2) | (f0 >> 3) | (f0 >> 4) | (f0 >> 5)
    f1 |= (f1 >> 1) | (f1 >> 2) | (f1 >> 3) | (f1 >> 4) | (f1 >> 5)
    f2 |= (f2 >> 1) | (f2 >> 2) | (f2 >> 3) | (f2 >> 4) | (f2 >> 5)
    for k in range(N_COLOURS):
        sc[SC_EMPTY + k] = (popcount(~lo & np.uint64(lay[LAY_CMASK + 2 * k]))
                            + popcount(~hi & np.uint64(lay[LAY_CMASK + 2 * k + 1])))
        o = LAY_OPEN + PACKED * k
        sc[SC_OPEN + k] = (popcount(np.uint64(f0 & lay[o])) + popcount(np.uint64(f1 & lay[o + 1]))
                           + popcount(np.uint64(f2 & lay[o + 2])))


@njit(cache=True)
def sheet_features(lay, lo, hi, sc, idx):
    """Write the N_SHEET active sheet features of crossed boxes (lo, hi) into idx (sc: scratch)."""
    sheet_state(lay, lo, hi, sc)
    left, right = sc[SC_LEFT], sc[SC_RIGHT]
    for c in range(N_COLS):
        idx[c] = F_COLMASK + 128 * c + sc[SC_MASK + c]
        idx[N_COLS + c] = F_COLDIST + 64 * c + 8 * sc[SC_COUNT + c] + _dist(c, left, right)
    for c in range(N_COLS - 1):
        idx[2 * N_COLS + c] = F_ADJ + 64 * c + 8 * sc[SC_COUNT + c] + sc[SC_COUNT + c + 1]
    o = 3 * N_COLS - 1
    for b in range(N_BLOCKS):
        idx[o + b] = F_BLOCK + 64 * b + sc[SC_BMASK + b]
    o += N_BLOCKS
    for k in range(N_COLOURS):
        idx[o + k] = _colour_index(k, sc[SC_EMPTY + k], sc[SC_OPEN + k])


@njit(cache=True)
def prepare(W, o, lay, lo, hi, sc, se):
    """Features of the sheet (lo, hi) into sc / se, for successor_value; returns its V (no '!').
    W[o:o + N_FEAT] is the row of weights for the rolls to come (see row_offset)."""
    sheet_state(lay, lo, hi, sc)
    left, right = sc[SC_LEFT], sc[SC_RIGHT]
    # The order of the sums is the value's definition to the last bit: the players' decisions and
    # the trainers' weights depend on it (see successor_value).
    v = 0.0
    cd = 0.0
    for c in range(N_COLS):
        e = W[o + F_COLMASK + 128 * c + sc[SC_MASK + c]]
        se[SE_CM + c] = e
        v += e
        e = W[o + F_COLDIST + 64 * c + 8 * sc[SC_COUNT + c] + _dist(c, left, right)]
        se[SE_CDC + c] = e
        cd += e
    se[SE_CD] = cd
    v += cd
    for c in range(N_COLS - 1):
        e = W[o + F_ADJ + 64 * c + 8 * sc[SC_COUNT + c] + sc[SC_COUNT + c + 1]]
        se[SE_ADJ + c] = e
        v += e
    for b in range(N_BLOCKS):
        e = W[o + F_BLOCK + 64 * b + sc[SC_BMASK + b]]
        se[SE_BLOCK + b] = e
        v += e
    for k in range(N_COLOURS):
        e = W[o + _colour_index(k, sc[SC_EMPTY + k], sc[SC_OPEN + k])]
        se[SE_COLOUR + k] = e
        v += e
    se[SE_BASE] = v
    return v


@njit(cache=True, inline="always")
def successor_value(W, o, lay, tab, sc, se, sub, taken):
    """(V without '!', reward) of the prepared sheet after placement `sub`.

    Only what the placement touches is rescored: its columns (a connected group
    spans a contiguous run of them), their neighbours' pair entries, its block and
    colour, and the distance entries (all of them only if the crossed area grows).
    The reward is the columns and colour it completes plus the rules' star penalty (2) per star
    it crosses; completions score their later value where `taken` says their first value is gone
    (bit c: column c, bit 16 + k: colour k; 0 in solo). sc[SC_NEW + c] is left
    holding the column counts after the placement for its columns.

    V is the sheet's value plus, in this order, each changed entry's difference: column masks,
    column distances, adjacent pairs, block, colour. The same additions in the same order give
    the same value to the last bit, which the shipped weights' training reproduces.
    """
    c_lo, n_cols, boxes = place_columns(lay, sub)
    b, local, k, size, stars = place_block(lay, sub)
    c_hi = c_lo + n_cols - 1
    v = _at(se, SE_BASE)
    rules = borrow(tab, "rules")
    r = _at(rules, R_STAR_PENALTY) * stars      # every open star costs the penalty at the end
    col_first = borrow(tab, "col_first")
    col_later = borrow(tab, "col_later")
    for j in range(n_cols):
        c = c_lo + j
        m = _at(sc, SC_MASK + c) | ((boxes >> (7 * j)) & 0x7F)
        v += _at(W, o + F_COLMASK + 128 * c + m) - _at(se, SE_CM + c)
        n = popcount(np.uint64(m))
        sc[SC_NEW + c] = n
        if n == 7:
            r += _at(col_later, c) if (taken >> c) & 1 else _at(col_first, c)
    left, right = _at(sc, SC_LEFT), _at(sc, SC_RIGHT)
    if c_lo >= left and c_hi <= right:          # the crossed area keeps its span: distances 0
        for c in range(c_lo, c_hi + 1):
            v += _at(W, o + F_COLDIST + 64 * c + 8 * _at(sc, SC_NEW + c)) - _at(se, SE_CDC + c)
    else:
        nl = min(left, c_lo)
        nr = max(right, c_hi)
        cd = 0.0
        for c in range(N_COLS):
            n = _at(sc, SC_NEW + c) if c_lo <= c <= c_hi else _at(sc, SC_COUNT + c)
            cd += _at(W, o + F_COLDIST + 64 * c + 8 * n + _dist(c, nl, nr))
        v += cd - _at(se, SE_CD)
    if c_lo > 0:
        c = c_lo - 1
        v += _at(W, o + F_ADJ + 64 * c + 8 * _at(sc, SC_COUNT + c) + _at(sc, SC_NEW + c_lo)) - _at(se, SE_ADJ + c)
    for c in range(c_lo, c_hi):
        v += _at(W, o + F_ADJ + 64 * c + 8 * _at(sc, SC_NEW + c) + _at(sc, SC_NEW + c + 1)) - _at(se, SE_ADJ + c)
    if c_hi < N_COLS - 1:
        v += (_at(W, o + F_ADJ + 64 * c_hi + 8 * _at(sc, SC_NEW + c_hi) + _at(sc, SC_COUNT + c_hi + 1))
              - _at(se, SE_ADJ + c_hi))
    m = _at(sc, SC_BMASK + b) | local
    v += _at(W, o + F_BLOCK + 64 * b + m) - _at(se, SE_BLOCK + b)
    empty = _at(sc, SC_EMPTY + k) - size
    open_blocks = _at(sc, SC_OPEN + k) - (1 if m == (1 << _at(lay, LAY_BSIZE + b)) - 1 else 0)
    v += _at(W, o + _colour_index(k, empty, open_blocks)) - _at(se, SE_COLOUR + k)
    if empty == 0:
        r += _at(rules, R_COLOUR_LATER) if (taken >> (16 + k)) & 1 else _at(rules, R_COLOUR_FIRST)
    return v, float(r)


@njit(cache=True, inline="always")
def sheet_value(W, o, idx):
    v = 0.0
    for i in range(N_SHEET):
        v += W[o + idx[i]]
    return v


@njit(cache=True, inline="always")
def _rank(W, o, st, bb, seat, jokers, tab, lay, sc, se, subs, costs, rewards, qs, at_table, tc, te, to):
    """rank_placements with W's row at o. sc, se: the sheet's counts and entries (prepare);
    subs, costs, rewards, qs: the rows. At a table (`at_table`) the table part of the row, at
    W[to:], is added (the table's counts tc and entries te, from table_context and
    table_prepare), and completions whose first value is gone score their later value.

    The placements are walked in row order, each at the fewest '!' its group costs: the rows
    (and so the choice on ties) are those of a walk group by group. Passing (row 0) is rewarded
    minus the rules' pass penalty (0 by the rulebook)."""
    cols, nums, cj, nj = dice_faces(st, st[ST_AVAIL])
    penalty = _at(borrow(tab, "rules"), R_PASS_PENALTY)
    subs[0] = -1
    costs[0] = 0
    rewards[0] = float(-penalty)
    qs[0] = (prepare(W, o, lay, bb[seat, BB_CROSSED], bb[seat, BB_CROSSED + 1], sc, se) + W[o + joker_entry(jokers)]
             - penalty)
    taken = 0
    if at_table:
        qs[0] += table_prepare(W, to, tc, sc[SC_COUNT:SC_COUNT + N_COLS], te)
        if penalty != 0:        # the pass lowers the points now the margin entry reads
            qs[0] += margin_change(W, to, tc, te, -penalty)
        taken = tc[TC_COLS_TAKEN] | (tc[TC_COLOURS_TAKEN] << 16)
    # The groups the dice make, at their fewest '!': their rows (gword, gmask) in `offered`.
    gword = borrow(tab, "gword")
    gmask = borrow(tab, "gmask")
    offered = stack_u64(NW)
    group_costs = stack_i64(N_GROUPS)
    for w in range(NW):
        offered[w] = ZERO
    for g in range(N_GROUPS):
        cost = group_cost(cols, nums, cj, nj, g)
        group_costs[g] = cost
        if cost <= jokers:
            offered[gword[g]] |= gmask[g, 0]
            offered[gword[g] + 1] |= gmask[g, 1]
    m = 1
    for w in range(NW):
        word = bb[seat, BB_ALIVE + w] & bb[seat, BB_TOUCH + w] & offered[w]
        while word != ZERO:
            sub, word = next_row(w, word)
            cost = group_costs[place_group(lay, sub)]
            v, r = successor_value(W, o, lay, tab, sc, se, sub, taken)
            subs[m] = sub
            costs[m] = cost
            rewards[m] = r
            q = r - cost + v + W[o + joker_entry(jokers - cost)]
            if at_table:
                c_lo, n_cols, _ = place_columns(lay, sub)
                _, _, k, size, _ = place_block(lay, sub)
                q += table_after(W, to, tc, te, sc, SC_NEW, c_lo, n_cols, k, size, int(r) - cost)
            qs[m] = q
            m += 1
    return m


@njit(cache=True, inline="always")
def best_row(qs, m):
    """The row of rank_placements' best one-ply value among qs[:m], the first on ties: the solo
    player's choice without search (decide_solo, training and rollouts all pick by it)."""
    best = 0
    for i in range(1, m):
        if qs[i] > qs[best]:
            best = i
    return best


@njit(cache=True, inline="always")
def rank_placements(W, base, st, bb, seat, jokers, tab, lay, sc, se, subs, costs, rewards, qs):
    """Every distinct placement the dice allow, at its fewest jokers, with its reward and its
    one-ply value q = reward - jokers used + V(after); row 0 is passing (sub -1).
    Returns the number of rows. W[base:] holds the solo weights (see row_offset), read at the row
    of the rolls still to come after this one under the rules (solo_row)."""
    o = row_offset(base, solo_row(solo_rolls(tab) - st[ST_ROLL]))
    W, st, bb, lay, sc, se = uncounted(W), uncounted(st), uncounted(bb), uncounted(lay), uncounted(sc), uncounted(se)
    subs, costs, rewards, qs = uncounted(subs), uncounted(costs), uncounted(rewards), uncounted(qs)
    return _rank(W, o, st, bb, seat, jokers, tab, lay, sc, se, subs, costs, rewards, qs, False, sc, se, 0)


@njit(cache=True, inline="always")
def rank_table(W, base, st, ps, bb, seat, tab, lay, sc, se, subs, costs, rewards, qs, tc, te):
    """rank_placements at a table, with W[base:] the table weights (rows of N_ROW_TABLE per stage):
    the value adds what the player sees of the table (strategies.table_features)."""
    o = base + N_ROW_TABLE * stage(st)
    table_context(st, ps, bb, tab, seat, tc)
    W, st, bb, lay, sc, se = uncounted(W), uncounted(st), uncounted(bb), uncounted(lay), uncounted(sc), uncounted(se)
    subs, costs, rewards, qs = uncounted(subs), uncounted(costs), uncounted(rewards), uncounted(qs)
    tc, te = uncounted(tc), uncounted(te)
    return _rank(W, o, st, bb, seat, ps[seat, PS_JOKERS], tab, lay, sc, se, subs, costs, rewards, qs, True, tc, te,
                 o + N_FEAT)


# The decisions inline the ranking (a call of it cost learned 6-7 % of its solo speed: the tables'
# reference count, and the optimiser no longer sees both sides); the research kernels, which rank
# once a roll beside costlier work, share one compiled copy of each instead of inlining their own
# (docs/performance.md, "Compile time"). They hand it their arrays through
# sim.nbinternals.as_any, typed as a strategy's views are, so one compile serves every caller.
@njit(cache=True)
def ranked(W, base, st, bb, seat, jokers, tab, lay, sc, se, subs, costs, rewards, qs):
    """rank_placements, compiled once for the kernels that call it."""
    return rank_placements(W, base, st, bb, seat, jokers, tab, lay, sc, se, subs, costs, rewards, qs)


@njit(cache=True)
def ranked_table(W, base, st, ps, bb, seat, tab, lay, sc, se, subs, costs, rewards, qs, tc, te):
    """rank_table, compiled once for the kernels that call it."""
    return rank_table(W, base, st, ps, bb, seat, tab, lay, sc, se, subs, costs, rewards, qs, tc, te)


@njit(cache=True)
def group_best(W, o, lay, tab, bb, seat, sub, sc, se, best):
    """best[6c + n - 1]: the best reward + V (without '!') of a second placement of colour c and
    size n after placement `sub` (NEG if none); returns V (without '!') after `sub` alone."""
    W, lay, bb, best = uncounted(W), uncounted(lay), uncounted(bb), uncounted(best)
    sc, se = uncounted(sc), uncounted(se)
    t_kill = borrow(tab, "kill")
    t_act = borrow(tab, "act")
    lo = bb[seat, BB_CROSSED] | borrow(tab, "mask")[sub, 0]
    hi = bb[seat, BB_CROSSED + 1] | borrow(tab, "mask")[sub, 1]
    base = prepare(W, o, lay, lo, hi, sc, se)
    for g in range(N_GROUPS):
        best[g] = NEG
    for w in range(NW):
        word = (bb[seat, BB_ALIVE + w] & ~t_kill[sub, w]) & (bb[seat, BB_TOUCH + w] | t_act[sub, w])
        while word != ZERO:
            k, word = next_row(w, word)
            v, r = successor_value(W, o, lay, tab, sc, se, k, 0)
            g = place_group(lay, k)
            if v + r > best[g]:
                best[g] = v + r
    return base


@njit(cache=True)
def next_roll_value(W, o1, lay, tab, bb, seat, sub, j1, sc, se, reply, val):
    """The next roll's best reward - '!' used + V (weights row at o1), averaged exactly over its
    1,296 dice faces, after placement `sub` (-1: passing) leaves j1 '!': what rank_placements'
    best row would be worth on each face. reply (N_GROUPS) and val (EXPECT_SIZE): scratch."""
    W, lay, bb, reply = uncounted(W), uncounted(lay), uncounted(bb), uncounted(reply)
    sc, se = uncounted(sc), uncounted(se)
    if sub < 0:
        stay = prepare(W, o1, lay, bb[seat, BB_CROSSED], bb[seat, BB_CROSSED + 1], sc, se)
        for g in range(N_GROUPS):
            reply[g] = NEG
        for w in range(NW):
            word = bb[seat, BB_ALIVE + w] & bb[seat, BB_TOUCH + w]
            while word != ZERO:
                k, word = next_row(w, word)
                v, r = successor_value(W, o1, lay, tab, sc, se, k, 0)
                g = place_group(lay, k)
                reply[g] = max(reply[g], v + r)
    else:
        stay = group_best(W, o1, lay, tab, bb, seat, sub, sc, se, reply)
    # A reply adds the value of the '!' it keeps, less 1 for each it spends; passing keeps all j1
    # and costs the rules' pass penalty.
    keep0 = W[o1 + joker_entry(j1)]
    keep1 = W[o1 + joker_entry(j1 - 1)] - 1.0 if j1 >= 1 else NEG
    keep2 = W[o1 + joker_entry(j1 - 2)] - 2.0 if j1 >= 2 else NEG
    stay += keep0 - _at(borrow(tab, "rules"), R_PASS_PENALTY)
    return expected_best_reply(reply, stay, keep0, keep1, keep2, val)


@njit(cache=True)
def new_scratch(tab):
    """The arrays a decision works in (see decide_solo), on the heap: for a kernel that plays
    many decisions with one set (training, search). The layout lay is made from tab."""
    return (sheet_layout(tab), np.empty(SC_SIZE, np.int64), np.empty(SE_SIZE), np.empty(ROWS, np.int64),
            np.empty(ROWS, np.int64), np.empty(ROWS), np.empty(ROWS))


@njit(cache=True, inline="always")
def solo_choice(W, base, st, ps, bb, tab, top, close, lay, sc, se, subs, costs, rewards, qs):
    """The solo decision with weights W[base:], as (subset row, '!' used); (-1, 0) passes:
    one-ply argmax, or the `top` best a roll deeper (only those within `close` points of the
    best one-ply value, if close > 0: the others are clear losses, and the search is the costly
    part). lay (made by sheet_layout) and the scratch sc, se, subs, costs, rewards, qs: as
    _place_solo makes them on its stack, or new_scratch."""
    seat = st[ST_SEAT]
    jokers = ps[seat, PS_JOKERS]
    m = rank_placements(W, base, st, bb, seat, jokers, tab, lay, sc, se, subs, costs, rewards, qs)
    t = solo_rolls(tab) - st[ST_ROLL]       # rolls to come after this one, under the rules
    best = best_row(qs, m)
    if top < 1 or t < 1 or m == 1:
        return subs[best], costs[best]
    floor = NEG
    if close > 0.0:
        floor = qs[best] - close
        second = NEG
        for i in range(m):
            if i != best and qs[i] > second:
                second = qs[i]
        if second < floor:
            return subs[best], costs[best]
    o1 = row_offset(base, solo_row(t - 1))
    reply = stack_f64(N_GROUPS)
    val = stack_f64(EXPECT_SIZE)
    # The rows in order of one-ply value (the first on ties), each then spent (qs = NEG): the
    # exact expectation of the next roll decides among them.
    chosen = best
    best_e = NEG
    for q in range(min(top, m)):
        i = best_row(qs, m)
        if qs[i] < floor:
            break
        qs[i] = NEG
        e = rewards[i] - costs[i] + next_roll_value(W, o1, lay, tab, bb, seat, subs[i], jokers - costs[i], sc, se,
                                                    reply, val)
        if e > best_e:
            best_e = e
            chosen = i
    return subs[chosen], costs[chosen]


@njit(cache=True)
def decide_solo(W, base, st, ps, bb, cands, n, tab, top, close, lay, sc, se, subs, costs, rewards, qs):
    """solo_choice as the row of cands[:n] that plays it (PASS to pass)."""
    sub, cost = solo_choice(W, base, st, ps, bb, tab, top, close, lay, sc, se, subs, costs, rewards, qs)
    return candidate_of(cands, n, sub, cost)


@njit(cache=True)
def dice_left_worth(st, bb, tab, seat, avail):
    """What the dice `avail` are worth to the other seats: the mean over them of the most boxes
    one placement can cross with those dice, without '!' (each spent '!' costs a point)."""
    cols, nums, _, _ = dice_faces(st, avail)
    gword = borrow(tab, "gword")
    gmask = borrow(tab, "gmask")
    total = 0
    for s in range(st[ST_PLAYERS]):
        if s == seat:
            continue
        best = 0
        for num in range(MAX_NUMBER, 0, -1):
            if not (nums >> num) & 1:
                continue
            for c in range(5):
                if not (cols >> c) & 1:
                    continue
                g = MAX_NUMBER * c + num - 1
                _, w0 = legal_word(bb, s, gword, gmask, g, 0)
                _, w1 = legal_word(bb, s, gword, gmask, g, 1)
                if (w0 | w1) != ZERO:
                    best = num
                    break
            if best > 0:
                break
        total += best
    return total / (st[ST_PLAYERS] - 1)


@njit(cache=True, inline="always")
def decide_table(W, base, st, ps, bb, cands, n, tab, deny, lay, sc, se, subs, costs, rewards, qs):
    """The decision at a table with table weights W[base:]: one-ply argmax of reward + value.

    Dice denial: an active player after roll 3 leaves the other seats the four dice it does not
    take; each of its DENY_TOP best choices (by value) then loses `deny` points per box the dice
    it leaves let the others cross (dice_left_worth), and among the dice pairs that make the same
    placement it takes the pair leaving the least. Scratch as decide_solo."""
    tc = stack_i64(TC_SIZE)
    te = stack_f64(TE_SIZE)
    m = rank_table(W, base, st, ps, bb, st[ST_SEAT], tab, lay, sc, se, subs, costs, rewards, qs, tc, te)
    best = 0
    for i in range(1, m):
        if qs[i] > qs[best]:
            best = i
    if deny <= 0.0 or st[ST_IS_ACTIVE] == 0 or st[ST_ROLL] <= _at(borrow(tab, "rules"), R_FREE_ROLLS):
        return candidate_of(cands, n, subs[best], costs[best])
    seat = st[ST_SEAT]
    all_dice = st[ST_AVAIL]
    pick = PASS
    pick_q = NEG
    # What the dice left are worth depends on which dice are left only (6 bits): each set is
    # weighed once, as several choices and dice pairs leave the same dice.
    worth = stack_f64(64)
    weighed = 0
    # Dice let a placement cross at most 5 boxes: a choice more than 5 * deny below the best
    # cannot overtake it, so it is not scanned.
    floor = qs[best] - 5.0 * deny
    for _ in range(min(DENY_TOP, m)):
        top = 0
        for i in range(1, m):
            if qs[i] > qs[top]:
                top = i
        if qs[top] <= NEG or qs[top] < floor:
            break
        if subs[top] < 0:           # passing leaves the others all six dice
            if not (weighed >> all_dice) & 1:
                worth[all_dice] = dice_left_worth(st, bb, tab, seat, all_dice)
                weighed |= 1 << all_dice
            q = qs[top] - deny * worth[all_dice]
            if q > pick_q:
                pick_q, pick = q, PASS
        else:
            for k in range(n):
                if cands[k, CAND_SUB] != subs[top] or cands[k, CAND_COST] != costs[top]:
                    continue
                left = all_dice & ~(1 << cands[k, CAND_CDIE]) & ~(1 << (3 + cands[k, CAND_NDIE]))
                if not (weighed >> left) & 1:
                    worth[left] = dice_left_worth(st, bb, tab, seat, left)
                    weighed |= 1 << left
                q = qs[top] - deny * worth[left]
                if q > pick_q:
                    pick_q, pick = q, k
        qs[top] = NEG
    return pick


def weights_shape(players: int) -> tuple[int, int]:
    """Rows x entries of the weights for the solo game (players 1) or a table of `players`."""
    return (N_T, N_FEAT) if players == 1 else (N_STAGES, N_ROW_TABLE)


def weights_rules(rules, players: int) -> Rules:
    """The part of `rules` (a Rules or a --rules text) that learned's weights for the solo game
    (players 1) or a table of `players` depend on: the rest plays the same games. The solo game
    never ends by colours and has no passive seats (end-colours, free-rolls); a table's game is not
    the solo game's length (solo-rolls). Weights are trained, recorded and found by these."""
    rules = parse_rules(rules)
    if players == 1:
        return dataclasses.replace(rules, end_colours=RULEBOOK.end_colours, free_rolls=RULEBOOK.free_rolls)
    return dataclasses.replace(rules, solo_rolls=RULEBOOK.solo_rolls)


def _game(players: int) -> str:
    return "the solo game" if players == 1 else f"{players} players"


class WeightsError(ValueError):
    """A weights file that cannot be used: missing, damaged, or made for another sheet."""


def save_weights(path, W, sheet, games: int, seed: int, players: int = 1, init_sha256: str = "",
                 step=(0.0, 0.0), rules=RULEBOOK, init_name: str = "") -> None:
    """Write weights W (weights_shape(players)) trained on `sheet` under `rules` to the .npz file
    `path`, atomically: a temporary file beside it is renamed over it once complete, so an
    interrupted save leaves no half-written weights file. games, seed, init_sha256 and init_name
    (of the weights training continued from, "" if none) and step (at the start and at the end)
    record how they were trained, `trained` when (UTC); `rules` is recorded as the --rules text of
    weights_rules ("" for the rulebook)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    trained = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
    try:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, W=np.asarray(W, np.float32).reshape(weights_shape(players)), format=FORMAT,
                                sheet=sheet.text, sheet_name=sheet.name, players=players, games=games, seed=seed,
                                init_sha256=init_sha256, init_name=init_name, step=np.asarray(step, np.float64),
                                rules=weights_rules(rules, players).text, trained=trained)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_weights(path, sheet=None, players=None, rules=None) -> np.ndarray:
    """The weights (float32, weights_shape) of a file written by save_weights; WeightsError, one
    line, if it is not such a file or (with `sheet`, `players`, `rules`) was trained for another
    sheet, number of players or rules (a file without recorded rules, written before rule
    variants, was trained under the rulebook)."""
    name = Path(path).name
    try:
        with np.load(path, allow_pickle=False) as f:
            fmt, W, text, trained_on = int(f["format"]), f["W"], str(f["sheet"]), str(f["sheet_name"])
            trained_players = int(f["players"])
            trained_rules = str(f["rules"]) if "rules" in f.files else ""
    except FileNotFoundError:
        raise WeightsError(f"weights file {path} does not exist") from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as e:
        what = f"key {e}" if isinstance(e, KeyError) else "not an .npz archive, or a damaged one"
        raise WeightsError(f"{name} is not a weights file of `learned` written by encore-sim train ({what})") from None
    if fmt != FORMAT:
        raise WeightsError(f"{name} has weights format {fmt}; this version reads format {FORMAT}")
    if not 1 <= trained_players <= 6 or W.shape != weights_shape(trained_players) or not np.isfinite(W).all():
        raise WeightsError(f"{name}: damaged weights (shape {W.shape} for {trained_players} players, "
                           f"expected {weights_shape(max(1, min(trained_players, 6)))}, all finite)")
    if players is not None and players != trained_players:
        raise WeightsError(f"{name} was trained for {_game(trained_players)}, not for {_game(players)}: "
                           f"train weights for it with encore-sim train --players {players}")
    if sheet is not None and text != sheet.text:
        raise WeightsError(f"{name} was trained for sheet {trained_on!r}, not for this sheet ({sheet.name!r}): "
                           f"train weights for it with encore-sim train --sheet")
    if rules is not None:
        try:
            recorded = weights_rules(trained_rules, trained_players)
        except ValueError:
            raise WeightsError(f"{name} records rules this version does not know: {trained_rules!r}") from None
        wanted = weights_rules(rules, trained_players)
        if recorded != wanted:
            raise WeightsError(f"{name} was trained under the rules {recorded.label}, not under {wanted.label}: "
                               f"play it under its own rules, or leave weights= out to play the weights of "
                               f"{wanted.label} (shipped, or in the weights store)")
    return W.astype(np.float32, copy=False)


def shipped_name(sheet_name: str, players: int = 1, rules=RULEBOOK) -> str:
    """The file name of the shipped weights of a built-in sheet, solo or for a table, under
    `rules`: learned-SHEET[-Np][-RULES].npz, RULES the slug (sim.rules.Rules.slug) of the rules
    the weights depend on (weights_rules), none for the rulebook."""
    r = weights_rules(rules, players)
    return (f"learned-{sheet_name}" + ("" if players == 1 else f"-{players}p")
            + ("" if r.is_rulebook else f"-{r.slug}") + ".npz")


def _builtin_name(sheet) -> str | None:
    """The name of the built-in sheet with this layout, or None."""
    for name in BUILTIN_SHEETS:
        if load_sheet(name).text == sheet.text:
            return name
    return None


def shipped_file(sheet, players: int = 1, rules=RULEBOOK):
    """The shipped weights file of a built-in sheet with this layout under `rules`, or None."""
    name = _builtin_name(sheet)
    if name is None:
        return None
    f = importlib.resources.files("strategies").joinpath("data", shipped_name(name, players, rules))
    return f if f.is_file() else None


def store_name(sheet, players: int = 1, rules=RULEBOOK) -> str:
    """The file name of the weights for `sheet` (a Sheet), solo or a table of `players`, under
    `rules`, in the weights store (strategies.store): a built-in sheet's is its shipped name; any
    other sheet's carries a digest of its text, so that two sheets of one name do not share a file."""
    name = _builtin_name(sheet)
    if name is None:
        digest = hashlib.sha256(sheet.text.encode()).hexdigest()[:10]
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", sheet.name or "sheet") + f"-{digest}"
    return shipped_name(name, players, rules)


class MissingWeights(WeightsError):
    """`learned` has no weights for a sheet, table size and rules: none ship, none in the store.
    `sheet`, `players` and `rules` (weights_rules) say which; `message(train=...)` words the
    remedy for the caller (a command's --train flag, or a Python keyword)."""

    def __init__(self, sheet, players: int, rules: Rules):
        self.sheet, self.players, self.rules = sheet, players, weights_rules(rules, players)
        super().__init__(self.message())

    def message(self, train: str | None = None) -> str:
        """The one line; `train` names the caller's way to train them at once (a flag, a keyword)."""
        r = self.rules
        what = f"{_game(self.players)} on sheet {self.sheet.name!r}" + ("" if r.is_rulebook else
                                                                       f" under the rules {r.text}")
        # A sheet read from a dataset has no file of its own: the command then names the file to give.
        sheet = _builtin_name(self.sheet) or (shlex.quote(self.sheet.path) if self.sheet.path else "FILE")
        command = ("encore-sim train" + ("" if r.is_rulebook else f" --rules {r.text}")
                   + ("" if sheet == "standard" else f" --sheet {sheet}")
                   + ("" if self.players == 1 else f" --players {self.players}"))
        file = "" if sheet != "FILE" else f", FILE being sheet {self.sheet.name!r}'s file"
        return (f"`learned` has no weights for {what}, shipped or in the weights store ({store.folder()}): "
                + (f"add {train} to train them now, or " if train else "") + f"train them with `{command}`{file}")


@functools.lru_cache(maxsize=16)
def _weights_vector(sheet, file, digest, players, rules):
    if file is None:
        shipped = shipped_file(sheet, players, rules)
        if shipped is not None:
            with importlib.resources.as_file(shipped) as p:
                return read_weights(p, sheet, players, rules).ravel()
        file = store.find(store_name(sheet, players, rules))
        if file is None:
            raise MissingWeights(sheet, players, rules)
    # A stored file found by its name is still checked against what it records: a damaged or
    # mismatched one is an error naming it, never a silent fall-back to other weights.
    return read_weights(file, sheet, players, rules).ravel()


def weights_file(sheet, players: int = 1, rules=RULEBOOK):
    """Where `learned`'s own weights for `sheet`, `players` and `rules` are: (path, "shipped" or
    "yours"), or None where there are none."""
    shipped = shipped_file(sheet, players, rules)
    if shipped is not None:
        return Path(str(shipped)), "shipped"
    found = store.find(store_name(sheet, players, rules))
    return (found, "yours") if found is not None else None


def weights_array(sheet, file=None, players: int = 1, rules=RULEBOOK) -> np.ndarray:
    """The weights `learned` plays with on `sheet` (solo, or at a table of `players`) under `rules`
    (a Rules or a --rules text), flat float32: those of `file` (learned:weights=FILE; trained under
    the same rules), else the shipped ones of the sheet's layout and the rules, else those in the
    weights store (strategies.store); MissingWeights where there are none. Read-only (cached per
    file content)."""
    rules = weights_rules(rules, players)
    if file is None:
        found = weights_file(sheet, players, rules)
        file = None if found is None or found[1] == "shipped" else found[0]
    digest = hashlib.sha256(Path(file).read_bytes()).hexdigest() if file is not None else None
    v = _weights_vector(sheet, None if file is None else str(file), digest, players, rules)
    v.flags.writeable = False
    return v


def pack(W) -> np.ndarray:
    """Flat float32 weights as the float64 words that carry them after the strategy's parameters
    (two per word; the strategy views them as float32 again). float32 rather than float64 halves
    the memory a decision reads from: the tables are far larger than a core's cache."""
    return np.frombuffer(np.ascontiguousarray(W, np.float32).tobytes(), np.float64)


def layout_words(sheet, rules=RULEBOOK) -> np.ndarray:
    """The sheet's layout (sheet_layout) under `rules` as the int64 words that carry it in the
    parameters row: its placement rows are those of the rules' tables (6-box ones under joker-six)."""
    return sheet_layout(kernel_tables(sheet, parse_rules(rules))).view(np.float64)


def weights_data(sheet, file=None, players: int = 1, rules=RULEBOOK) -> np.ndarray:
    """Strategy.data of `learned`: the sheet's layout words, then weights_array packed (both for
    the run's rules)."""
    return np.concatenate((layout_words(sheet, rules), pack(weights_array(sheet, file, players, rules))))


PARAMS = {"top": 0.0, "deny": DENY, "close": 0.0}
N_PARAMS = len(PARAMS)
#: Where each parameter stands in the parameters row (the order of PARAMS).
P_TOP, P_DENY, P_CLOSE = (list(PARAMS).index(name) for name in ("top", "deny", "close"))
#: The parameters row: PARAMS, then from DATA_LAY the sheet's layout (LAY_SIZE int64 words, made
#: once per run rather than at every decision: that cost 6% of the solo speed), then from
#: DATA_W the weights (float32, two to a word).
DATA_LAY = N_PARAMS
DATA_W = DATA_LAY + LAY_SIZE


@njit(cache=True, inline="always")
def _weights(params):
    """The packed weights (see pack) and the sheet's layout, as uncounted views of params."""
    return uncounted(params[DATA_W:].view(np.float32)), uncounted(params[DATA_LAY:DATA_W].view(np.int64))


# The solo and the table decision are compiled apart, each once: a function holding both (as
# _choose and _place_solo each did, inlined) made every run compile both twice (docs/performance.md,
# "Compile time"). The scratch lives on each one's stack (sim.nbinternals): nothing is allocated
# per decision.
@njit(cache=True)
def _place_solo(st, ps, bb, cands, n, tab, params, rng):
    """learned's solo decision as sim.players.placement_code (Strategy.solo_placer): the engine
    then need not list the candidates, about 0.15 of the 1.1 µs a solo decision took."""
    W, lay = _weights(params)
    st, ps, bb = uncounted(st), uncounted(ps), uncounted(bb)
    sc, se = stack_i64(SC_SIZE), stack_f64(SE_SIZE)
    subs, costs, rewards, qs = stack_i64(ROWS), stack_i64(ROWS), stack_f64(ROWS), stack_f64(ROWS)
    sub, cost = solo_choice(W, 0, st, ps, bb, tab, int(params[P_TOP]), params[P_CLOSE], lay, sc, se, subs, costs,
                            rewards, qs)
    return placement_code(sub, cost)


@njit(cache=True)
def _decide_at_table(st, ps, bb, cands, n, tab, params, rng):
    """learned's decision at a table of 2-6: a row of cands[:n] (decide_table); Strategy.table_decider."""
    if n == 0:
        return PASS
    st, ps, bb, cands, params = uncounted(st), uncounted(ps), uncounted(bb), uncounted(cands), uncounted(params)
    W, lay = _weights(params)
    sc, se = stack_i64(SC_SIZE), stack_f64(SE_SIZE)
    subs, costs, rewards, qs = stack_i64(ROWS), stack_i64(ROWS), stack_f64(ROWS), stack_f64(ROWS)
    return decide_table(W, 0, st, ps, bb, cands, n, tab, params[P_DENY], lay, sc, se, subs, costs, rewards, qs)


def _choose(st, ps, bb, cands, n, tab, params, rng):
    """Learned afterstate value: solo, or at a table with what it sees of the other sheets."""
    if n == 0:
        return PASS
    # Uncounted views (sim.nbinternals): the callee would count a reference on each array.
    st, ps, bb, cands = uncounted(st), uncounted(ps), uncounted(bb), uncounted(cands)
    params, rng = uncounted(params), uncounted(rng)
    if st[ST_PLAYERS] != 1:
        return _decide_at_table(st, ps, bb, cands, n, tab, params, rng)
    code = _place_solo(st, ps, bb, cands, n, tab, params, rng)
    if code == PASS:
        return PASS
    sub, cost = placement_of(code)
    return candidate_of(cands, n, sub, cost)


# Every rule: its weights are trained under the rules it plays (training on demand where none ship).
learned = strategy(_choose, name="learned", params=PARAMS, data=weights_data, file_param="weights",
                   reads_rules=frozenset(f.name for f in dataclasses.fields(Rules)),
                   description="one-ply search on an afterstate value learned by TD(lambda) self-play "
                               "(encore-sim train): solo per sheet, and at 2-6 player tables with the race")
learned = dataclasses.replace(learned, solo_placer=_place_solo, table_decider=_decide_at_table)


@njit(cache=True)
def solo_sheet_value(W, lay, lo, hi, t, jokers):
    """The solo value V of a sheet with boxes (lo, hi) crossed and `jokers` '!' left, t rolls still
    to come (0..N_T-1; V is 0 at t = 0): the points the sheet is expected still to earn under
    learned's own play (column and colour points, +2 per star crossed (the rules' star penalty),
    -1 per '!' spent, minus the pass penalty per pass). W, lay:
    the solo weights and layout as weights_data packs them (W[0:] as in decide_solo with base 0).
    The value rank_placements gives the sheet after a move, computed afresh: for strategies.kit."""
    sc = stack_i64(SC_SIZE)
    se = stack_f64(SE_SIZE)
    o = row_offset(0, solo_row(t))
    return prepare(W, o, lay, lo, hi, sc, se) + W[o + joker_entry(jokers)]
