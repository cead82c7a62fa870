"""Small Numba helpers shared by the evaluating strategies (heuristic, lookahead).

Everything works on the bitboard layout of sim.tables (two uint64 words, one
byte per column, bit 8*col + row) and never modifies the state arrays.
"""
import numpy as np
from numba import njit, types

from sim.bits import popcount
from sim.state import COLOUR_JOKER, NUMBER_JOKER, ST_DICE

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_BYTE = np.uint64(0xFF)
_U1 = np.uint64(1)
_U8 = np.uint64(8)
_U56 = np.uint64(56)

#: Columns A..O; H is the start column.
N_COLS = 15
H_COL = 7


@njit(types.uint64(types.uint64), cache=True, inline="always")
def byte_counts(x):
    """Popcount of every byte of x, each in its own byte (SWAR)."""
    x = x - ((x >> _U1) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    return (x + (x >> np.uint64(4))) & _M4


@njit(cache=True, inline="always")
def stacked_pairs(um, lo, hi):
    """Boxes (lo, hi words) that are empty with an empty box of their colour right below.

    um[2k], um[2k+1] are colour k's masks; one move can fill both boxes of such a pair.
    """
    p0 = np.uint64(0)
    p1 = np.uint64(0)
    for k in range(5):
        u0 = um[2 * k] & ~lo
        u1 = um[2 * k + 1] & ~hi
        p0 |= u0 & (u0 >> _U1)
        p1 |= u1 & (u1 >> _U1)
    return p0, p1


@njit(types.void(types.uint64, types.uint64, types.int64[:]), cache=True)
def column_counts(lo, hi, out):
    """out[c] = crossed boxes of column c (0..7), c = 0..14."""
    a = byte_counts(lo)
    b = byte_counts(hi)
    for c in range(8):
        out[c] = np.int64((a >> np.uint64(8 * c)) & _BYTE)
    for c in range(7):
        out[8 + c] = np.int64((b >> np.uint64(8 * c)) & _BYTE)


@njit(types.UniTuple(types.uint64, 2)(types.uint64, types.uint64, types.uint64, types.uint64),
      cache=True, inline="always")
def neighbours(lo, hi, m0, m1):
    """Boxes orthogonally next to a box of (lo, hi), inside board mask (m0, m1); may include (lo, hi)."""
    a = (lo << _U1) | (lo >> _U1) | (lo << _U8) | (lo >> _U8) | (hi << _U56)
    b = (hi << _U1) | (hi >> _U1) | (hi << _U8) | (hi >> _U8) | (lo >> _U56)
    return a & m0, b & m1


@njit(cache=True)
def isolated_boxes(lo, hi, colour_mask, board_mask):
    """Empty boxes with no empty box of their colour next to them.

    Such a box can only be filled by a move of exactly 1 (a '1' or a number
    joker of its colour), so every new one makes completing its column and
    colour harder.
    """
    m0, m1 = board_mask[0], board_mask[1]
    total = 0
    for k in range(colour_mask.shape[0]):
        u0 = colour_mask[k, 0] & ~lo
        u1 = colour_mask[k, 1] & ~hi
        n0, n1 = neighbours(u0, u1, m0, m1)
        total += popcount(u0 & ~n0) + popcount(u1 & ~n1)
    return total


@njit(cache=True, inline="always")
def legal_count_after(bb, row, kill, act, sub):
    """Legal placements (any colour and number) open to seat `row` after it plays subset `sub`."""
    total = 0
    nw = kill.shape[1]
    for w in range(nw):
        total += popcount(bb[row, 2 + w] & ~kill[sub, w] & (bb[row, 2 + nw + w] | act[sub, w]))
    return total


@njit(types.int64(types.uint64[:, :], types.int64), cache=True)
def legal_count(bb, row):
    """Legal placements (any colour and number) open to seat `row` now."""
    total = 0
    nw = (bb.shape[1] - 2) // 2
    for w in range(nw):
        total += popcount(bb[row, 2 + w] & bb[row, 2 + nw + w])
    return total


@njit(types.int64(types.int64), cache=True, inline="always")
def column_span(colmask):
    """Packed (L, R): the leftmost and rightmost column with a crossed box, H always included."""
    m = colmask | (1 << H_COL)
    lo = 0
    while not (m >> lo) & 1:
        lo += 1
    hi = N_COLS - 1
    while not (m >> hi) & 1:
        hi -= 1
    return lo * 16 + hi


@njit(cache=True, inline="always")
def dice_faces(st, avail):
    """What the dice in `avail` show: bitmasks of the real colours (bit c) and numbers (bit n),
    and whether a colour joker and a number joker show. A placement of colour c and number n
    then costs 0 jokers per kind if the face shows, 1 if only the joker does."""
    cols = 0
    nums = 0
    cj = False
    nj = False
    for d in range(3):
        if (avail >> d) & 1:
            f = st[ST_DICE + d]
            if f == COLOUR_JOKER:
                cj = True
            elif f >= 0:
                cols |= 1 << f
        if (avail >> (3 + d)) & 1:
            f = st[ST_DICE + 3 + d]
            if f == NUMBER_JOKER:
                nj = True
            elif f > 0:
                nums |= 1 << f
    return cols, nums, cj, nj


@njit(cache=True, inline="always")
def crossed_span(a, b):
    """(left, right): the columns the crossed area spans, from the byte-wise column counts
    a (columns A..H) and b (I..O) of byte_counts; H always counts, as the area grows from it."""
    left = 7
    right = 7
    for c in range(7):
        if (a >> np.uint64(8 * c)) & _BYTE:
            left = c
            break
    for c in range(6, -1, -1):
        if (b >> np.uint64(8 * c)) & _BYTE:
            right = 8 + c
            break
    return left, right
