"""learned's value kernels: the afterstate value of a sheet, from its features, and every choice
the dice allow ranked by it (strategies.learned describes the value; strategies.learned_decisions
decides by it). The feature layout (F_*), the sheet's layout (LAY_*, sheet_layout) and the scratch
a decision keeps its sheet's features in (SC_*, SE_*) are laid out here."""

import numpy as np
from numba import njit

from sim.bits import ONE, ZERO, ctz, popcount
from sim.engine import SOLO_ROLLS
from sim.rules import R_COLOUR_FIRST, R_COLOUR_LATER, R_PASS_PENALTY, R_SOLO_ROLLS, R_STAR_PENALTY
from sim.sheets import N_COLS
from sim.state import BB_ALIVE, BB_CROSSED, BB_TOUCH, PS_JOKERS, ST_AVAIL, ST_ROLL
from sim.tables import MAX_NUMBER, MAX_SUBSETS, N_COLOURS, N_GROUPS, NW

from sim.moves import dice_faces, group_cost, next_row
from sim.nbinternals import as_any, at as _at, borrow, stack_f64, stack_i64, stack_u64, uncounted

from .features import NEG, expected_best_reply
from .table_features import (
    T_SIZE, TC_COLOURS_TAKEN, TC_COLS_TAKEN, margin_change, stage, table_after, table_context, table_prepare,
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
def _rank(W, o, st, bb, seat, jokers, tab, scratch, at_table, tc, te, to):
    """rank_placements with W's row at o; scratch as rank_placements takes it (the sheet's counts
    and entries sc, se from prepare; the rows subs, costs, rewards, qs). At a table (`at_table`)
    the table part of the row, at W[to:], is added (the table's counts tc and entries te, from
    table_context and table_prepare), and completions whose first value is gone score their
    later value.

    The placements are walked in row order, each at the fewest '!' its group costs: the rows
    (and so the choice on ties) are those of a walk group by group. Passing (row 0) is rewarded
    minus the rules' pass penalty (0 by the rulebook)."""
    lay, sc, se, subs, costs, rewards, qs = scratch
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
def uncounted_scratch(scratch):
    """new_scratch's arrays as uncounted views (sim.nbinternals), valid while they are: inlined
    calls handed the counted arrays (successor_value's, per placement) would count a reference on
    each."""
    lay, sc, se, subs, costs, rewards, qs = scratch
    return (uncounted(lay), uncounted(sc), uncounted(se), uncounted(subs), uncounted(costs), uncounted(rewards),
            uncounted(qs))


@njit(cache=True, inline="always")
def rank_placements(W, base, st, bb, seat, jokers, tab, scratch):
    """Every distinct placement the dice allow, at its fewest jokers, with its reward and its
    one-ply value q = reward - jokers used + V(after); row 0 is passing (sub -1).
    Returns the number of rows. W[base:] holds the solo weights (see row_offset), read at the row
    of the rolls still to come after this one under the rules (solo_row).

    scratch is (lay, sc, se, subs, costs, rewards, qs), as new_scratch makes it: the sheet's
    layout (sheet_layout), its counts and entries (prepare), and the rows, subs[i] the placement
    (-1 passing), costs[i] its '!', rewards[i] its points now, qs[i] its one-ply value."""
    o = row_offset(base, solo_row(solo_rolls(tab) - st[ST_ROLL]))
    W, st, bb = uncounted(W), uncounted(st), uncounted(bb)
    scratch = uncounted_scratch(scratch)
    sc, se = scratch[1], scratch[2]
    return _rank(W, o, st, bb, seat, jokers, tab, scratch, False, sc, se, 0)


@njit(cache=True, inline="always")
def rank_table(W, base, st, ps, bb, seat, tab, scratch, tc, te):
    """rank_placements at a table, with W[base:] the table weights (rows of N_ROW_TABLE per stage):
    the value adds what the player sees of the table (strategies.table_features; its counts tc and
    entries te, scratch)."""
    o = base + N_ROW_TABLE * stage(st)
    table_context(st, ps, bb, tab, seat, tc)
    W, st, bb = uncounted(W), uncounted(st), uncounted(bb)
    scratch = uncounted_scratch(scratch)
    tc, te = uncounted(tc), uncounted(te)
    return _rank(W, o, st, bb, seat, ps[seat, PS_JOKERS], tab, scratch, True, tc, te, o + N_FEAT)


# The decisions inline the ranking (a call of it cost learned 6-7 % of its solo speed: the tables'
# reference count, and the optimiser no longer sees both sides); the research kernels, which rank
# once a roll beside costlier work, share one compiled copy of each instead of inlining their own
# (docs/performance.md, "Compile time"). They hand it their arrays through
# sim.nbinternals.as_any (the scratch through shared_scratch), typed as a strategy's views are, so
# one compile serves every caller.
@njit(cache=True)
def ranked(W, base, st, bb, seat, jokers, tab, scratch):
    """rank_placements, compiled once for the kernels that call it."""
    return rank_placements(W, base, st, bb, seat, jokers, tab, scratch)


@njit(cache=True)
def ranked_table(W, base, st, ps, bb, seat, tab, scratch, tc, te):
    """rank_table, compiled once for the kernels that call it."""
    return rank_table(W, base, st, ps, bb, seat, tab, scratch, tc, te)


@njit(cache=True, inline="always")
def shared_scratch(scratch):
    """new_scratch's arrays as ranked and ranked_table are compiled for: the layout typed as a
    strategy's view of it (as_any), the others as new_scratch makes them."""
    lay, sc, se, subs, costs, rewards, qs = scratch
    return (as_any(lay), sc, se, subs, costs, rewards, qs)


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
    """The arrays a decision works in, (lay, sc, se, subs, costs, rewards, qs) as rank_placements
    takes them, on the heap: for a kernel that plays many decisions with one set (training,
    search). The layout lay is made from tab."""
    return (sheet_layout(tab), np.empty(SC_SIZE, np.int64), np.empty(SE_SIZE), np.empty(ROWS, np.int64),
            np.empty(ROWS, np.int64), np.empty(ROWS), np.empty(ROWS))



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
