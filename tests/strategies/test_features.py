"""The evaluating strategies' helpers (strategies.features), as plain Python against brute force:
bit counts and neighbours on the two-word bitboards, and the exact mean of the best reply over
every face of four dice."""
import itertools

import numpy as np

from sim.state import CAND_COST, CAND_SUB, PASS
from strategies import features as F

candidate_of, byte_counts, stacked_pairs, neighbours, crossed_span, expected_best_reply = (getattr(F, f).py_func for f in (
    "candidate_of", "byte_counts", "stacked_pairs", "neighbours", "crossed_span", "expected_best_reply"))
RNG = np.random.default_rng(11)
#: The bits that are boxes: 8 * column + row, 15 columns of 7 rows.
BOARD = [8 * col + row for col in range(15) for row in range(7)]


def words(n=1, share=0.5):
    """n random two-word masks of boxes (a share of them set), as (lo words, hi words)."""
    lo, hi = np.zeros(n, np.uint64), np.zeros(n, np.uint64)
    for i in range(n):
        for b in BOARD:
            if RNG.random() < share:
                if b < 64:
                    lo[i] |= np.uint64(1 << b)
                else:
                    hi[i] |= np.uint64(1 << (b - 64))
    return lo, hi


def boxes(lo, hi):
    """The set of bits 0..127 of a two-word mask."""
    return {b for b in range(128) if (int(lo) | int(hi) << 64) >> b & 1}


def test_the_candidate_row_of_a_placement_at_its_cost():
    cands = np.zeros((4, 4), np.int64)
    cands[:, CAND_SUB], cands[:, CAND_COST] = [5, 5, 9, 2], [1, 0, 0, 0]
    assert [candidate_of(cands, 4, 5, 0), candidate_of(cands, 4, 5, 1), candidate_of(cands, 3, 2, 0)] == [1, 0, PASS]
    assert candidate_of(cands, 4, -1, 0) == PASS


def test_byte_counts_and_the_span_of_the_crossed_columns():
    for x in np.concatenate(words(25)):
        counts = int(byte_counts(x))
        assert [counts >> (8 * i) & 0xFF for i in range(8)] == [bin(int(x) >> (8 * i) & 0xFF).count("1") for i in range(8)]
    a = byte_counts(np.uint64(0b11 << 16))                 # two boxes of column C
    b = byte_counts(np.uint64(1 << (8 * 4)))              # one of column M (I + 4)
    assert crossed_span(a, b) == (2, 12)
    assert crossed_span(np.uint64(0), np.uint64(0)) == (7, 7)       # nothing crossed: H alone


def test_neighbours_are_the_boxes_next_to_a_box_inside_the_board():
    (m0,), (m1,) = words(1, 0.9)
    for _ in range(30):
        (lo,), (hi,) = words(1, 0.1)
        got = boxes(*neighbours(lo, hi, m0, m1))
        inside = boxes(m0, m1)
        want = {n for b in boxes(lo, hi) for n in (b - 1, b + 1, b - 8, b + 8) if 0 <= n < 128} & inside
        assert got == want


def test_stacked_pairs_are_empty_boxes_above_an_empty_box_of_their_colour():
    um = np.ravel(np.column_stack(words(5)))        # colour k's two words at 2k, 2k + 1
    (lo,), (hi,) = words(1, 0.3)
    got = boxes(*stacked_pairs(um, lo, hi))
    crossed = boxes(lo, hi)
    want = set()
    for k in range(5):
        empty = boxes(um[2 * k], um[2 * k + 1]) - crossed
        want |= {b for b in empty if b + 1 in empty}     # the box below b is b + 1, in its column's byte
    assert got == want


def test_the_expected_best_reply_is_the_mean_over_every_face():
    val = np.zeros(F.EXPECT_SIZE)
    for trial in range(6):
        best = RNG.normal(5, 3, 36)
        best[RNG.random(36) < 0.3] = F.NEG              # groups no reply makes
        if trial % 2 == 0:
            best[[6 * c + 5 for c in range(6)]] = F.NEG   # no 6 but under joker-six
        stay = float(RNG.normal(4, 1))
        keep = [0.0, -1.0, -2.5] if trial < 4 else [0.0, -1.0, F.NEG]
        expected = brute_force(best, stay, keep)
        assert abs(expected_best_reply(best, stay, *keep, val) - expected) < 1e-9


def brute_force(best, stay, keep) -> float:
    def reply(c, n):
        """The best reply with colour face c (5: joker) and number face n (0: joker)."""
        colours = range(5) if c == 5 else [c]
        numbers = range(1, 7) if n == 0 else [n]
        b = max(best[6 * cc + nn - 1] for cc in colours for nn in numbers)
        return max(b + keep[(c == 5) + (n == 0)], stay)

    total = 0.0
    for c1, c2, n1, n2 in itertools.product(range(6), range(6), range(6), range(6)):
        total += max(reply(c, n) for c in (c1, c2) for n in (n1, n2))
    return total / 6 ** 4
