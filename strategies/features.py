"""Small Numba helpers shared by the evaluating strategies (heuristic, lookahead).

Everything works on the bitboard layout of sim.tables (two uint64 words, one
byte per column, bit 8*col + row) and never modifies the state arrays.
"""
import numpy as np
from numba import njit

from sim.moves import mobility
from sim.nbinternals import borrow
from sim.state import BB_ALIVE, BB_TOUCH, CAND_COST, CAND_SUB, PASS

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_BYTE = np.uint64(0xFF)
_U1 = np.uint64(1)
_U8 = np.uint64(8)
_U56 = np.uint64(56)
#: A value below any a strategy can give a choice: "none yet" in searches for the best.
NEG = -1.0e18



@njit(cache=True)
def candidate_of(cands, n, sub, cost):
    """Row of cands offering placement `sub` at `cost` jokers (PASS for sub -1): how a strategy
    that chose among distinct placements names its choice."""
    if sub < 0:
        return PASS
    for i in range(n):
        if cands[i, CAND_SUB] == sub and cands[i, CAND_COST] == cost:
            return i
    return PASS  # unreachable: the engine offers every placement at its fewest jokers


@njit(cache=True, inline="always")
def placement_fields(tab):
    """The tables' rows per placement, borrowed (sim.nbinternals.borrow: no reference counts):
    (mask, kill, act, colour, size, stars, act_count)."""
    return (borrow(tab, "mask"), borrow(tab, "kill"), borrow(tab, "act"), borrow(tab, "colour"),
            borrow(tab, "size"), borrow(tab, "stars"), borrow(tab, "act_count"))


@njit(cache=True)
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



@njit(cache=True)
def neighbours(lo, hi, m0, m1):
    """Boxes orthogonally next to a box of (lo, hi), inside board mask (m0, m1); may include (lo, hi)."""
    a = (lo << _U1) | (lo >> _U1) | (lo << _U8) | (lo >> _U8) | (hi << _U56)
    b = (hi << _U1) | (hi >> _U1) | (hi << _U8) | (hi >> _U8) | (lo >> _U56)
    return a & m0, b & m1



@njit(cache=True)
def legal_count(bb, row):
    """Legal placements (any colour and number) open to seat `row` now."""
    return mobility(bb[row], BB_ALIVE, BB_TOUCH)



@njit(cache=True)
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


#: Faces of two colour dice and two number dice (the solo roll; the four dice a passive player has).
N_FACES = 6 ** 4
#: expected_best_reply's scratch: 6 x 6 values of a (colour face, number face), a row of 6.
EXPECT_SIZE = 42


@njit(cache=True)
def expected_best_reply(best, stay, keep0, keep1, keep2, val):
    """Mean over the 1296 faces of 2 colour + 2 number dice of the best reply they allow.

    best[6c + n - 1]: the value of the best reply of colour c and number n, spending no '!'
    (-1e18 if there is none; number 6, which no die shows, only under joker-six); stay: the value of passing, which is always allowed. keep0, keep1,
    keep2: what a reply spending 0, 1 or 2 '!' adds to that value (-1e18 where the seat has fewer
    '!' left). A colour joker stands for any colour, a number joker for any number, each for a
    '!'. val: EXPECT_SIZE floats of scratch, val[6 * colour face + number face] (colour face 5,
    number face 0: the jokers) then a row. Exact: every face pair is counted with its weight.
    """
    top_all = NEG
    for c in range(5):
        top_c = NEG
        for n in range(1, 6):
            b = best[6 * c + n - 1]
            val[6 * c + n] = max(b + keep0, stay)
            if b > top_c:
                top_c = b
        top_c = max(top_c, best[6 * c + 5])       # a 6: the number joker alone (joker-six)
        val[6 * c] = max(top_c + keep1, stay)
        if top_c > top_all:
            top_all = top_c
    for n in range(1, 6):
        top_n = NEG
        for c in range(5):
            b = best[6 * c + n - 1]
            if b > top_n:
                top_n = b
        val[30 + n] = max(top_n + keep1, stay)
    val[30] = max(top_all + keep2, stay)
    total = 0.0
    row = 36
    for c1 in range(6):
        for c2 in range(c1, 6):
            wc = 1.0 if c1 == c2 else 2.0
            for n in range(6):
                val[row + n] = max(val[6 * c1 + n], val[6 * c2 + n])
            sub = 0.0
            for n1 in range(6):
                r1 = val[row + n1]
                sub += r1                      # n1 == n2
                for n2 in range(n1 + 1, 6):
                    sub += 2.0 * max(r1, val[row + n2])
            total += wc * sub
    return total / N_FACES
