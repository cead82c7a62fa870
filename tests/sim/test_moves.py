"""The placements the dice allow (sim.moves), as plain Python: the groups a pair of dice stands for
and its '!', the pair walk and the cheapest-face walk agreeing on every group's cost, and the
bitset walks over legal rows."""
import itertools

import numpy as np
import pytest

from sim import moves as M
from sim.state import BB_ALIVE, BB_SIZE, BB_TOUCH, COLOUR_JOKER, MAX_SEATS, NUMBER_JOKER, ST_DICE, ST_SIZE
from sim.tables import MAX_NUMBER, NW

pair_groups, die_pair, next_group, face_cost, group_cost, dice_faces, dice_word, legal_word, next_row, mobility, \
    mobility_after = (getattr(M, f).py_func for f in (
        "pair_groups", "die_pair", "next_group", "face_cost", "group_cost", "dice_faces", "dice_word", "legal_word",
        "next_row", "mobility", "mobility_after"))
RULEBOOK_NUMBERS = 0b11111       # a number joker stands for 1..5


def groups_of(mask):
    out = []
    while mask:
        g, mask = next_group(mask)
        out.append((int(g) // MAX_NUMBER, int(g) % MAX_NUMBER + 1))
    return out


@pytest.mark.parametrize("cface, nface", list(itertools.product(range(6), range(6))))
def test_a_pair_stands_for_its_colours_and_numbers_at_a_joker_each(cface, nface):
    cost, groups = pair_groups(cface, nface, RULEBOOK_NUMBERS)
    colours = range(5) if cface == COLOUR_JOKER else [cface]
    numbers = range(1, 6) if nface == NUMBER_JOKER else [nface]
    assert cost == (cface == COLOUR_JOKER) + (nface == NUMBER_JOKER)
    assert groups_of(groups) == sorted(itertools.product(colours, numbers))


def test_joker_six_lets_the_number_joker_stand_for_six():
    _, groups = pair_groups(2, NUMBER_JOKER, 0b111111)
    assert groups_of(groups) == [(2, n) for n in range(1, 7)]


def table(faces):
    st = np.zeros(ST_SIZE, np.int64)
    st[ST_DICE:ST_DICE + 6] = faces
    return st


def test_the_pair_walk_and_the_cheapest_faces_agree_on_every_group():
    """For random rolls, dice available and '!' left: the fewest '!' any pair of die_pair spends on
    a group is group_cost's, and die_pair offers no group it cannot pay for."""
    rng = np.random.default_rng(7)
    for _ in range(300):
        faces = [*rng.integers(0, 6, 3), *rng.integers(0, 6, 3)]
        dice, jokers = int(rng.integers(0, 64)), int(rng.integers(0, 3))
        st = table(faces)
        word = dice_word(st, RULEBOOK_NUMBERS)
        best = {}
        for p in range(9):
            cd, nd, cost, groups = die_pair(word, dice, jokers, p)
            assert (cd, nd) == divmod(p, 3)
            if not ((dice >> cd) & 1 and (dice >> (3 + nd)) & 1):
                assert groups == 0
            assert groups == 0 or cost <= jokers
            for g in groups_of(groups):
                best[g] = min(best.get(g, 9), cost)
        cols, nums, cj, nj = dice_faces(st, dice)
        for c, n in itertools.product(range(5), range(1, 6)):
            cost = group_cost(cols, nums, cj, nj, MAX_NUMBER * c + n - 1)
            assert best.get((c, n), M.NO_FACE) == (cost if cost <= jokers else M.NO_FACE), (faces, dice, c, n)


def test_a_face_costs_nothing_shown_one_joker_else_more_than_a_sheet_has():
    assert [face_cost(0b100, False, 2), face_cost(0, True, 2), face_cost(0b1, False, 2)] == [0, 1, M.NO_FACE]


def test_the_legal_rows_are_alive_and_touching_and_mobility_counts_them():
    rng = np.random.default_rng(3)
    bb = rng.integers(0, 2**63, (MAX_SEATS, BB_SIZE), dtype=np.uint64)
    gword = np.array([2], np.int64)
    gmask = np.array([[np.uint64(0xF0F0), np.uint64(2**63 + 1)]], np.uint64)
    rows = []
    for half in range(2):
        w, word = legal_word(bb, 1, gword, gmask, 0, half)
        assert w == 2 + half and word == bb[1, BB_ALIVE + w] & bb[1, BB_TOUCH + w] & gmask[0, half]
        while word:
            row, word = next_row(w, word)
            rows.append(int(row))
    expected = [64 * w + b for w in (2, 3) for b in range(64)
                if (int(bb[1, BB_ALIVE + w]) & int(bb[1, BB_TOUCH + w]) & int(gmask[0, w - 2])) >> b & 1]
    assert rows == expected
    both = sum(bin(int(bb[1, BB_ALIVE + w]) & int(bb[1, BB_TOUCH + w])).count("1") for w in range(NW))
    assert mobility(bb[1], BB_ALIVE, BB_TOUCH) == both
    kill = np.zeros((1, NW), np.uint64)
    act = np.zeros((1, NW), np.uint64)
    assert mobility_after(bb[1], BB_ALIVE, BB_TOUCH, kill, act, 0) == both      # a move that changes nothing
    kill[0, :] = np.uint64(2**64 - 1)
    assert mobility_after(bb[1], BB_ALIVE, BB_TOUCH, kill, act, 0) == 0          # one that kills every row
