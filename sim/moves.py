"""The placements the dice allow: the walk the engine, the reference players and the strategies share.

A pair of dice stands for one or more (colour, number) groups and costs a '!' per joker face
(RULES sections 4 and 5). The placements of group g = 6 * colour + number - 1 are the rows of
the sheet's tables in two adjacent bitset words (sim.tables: gword, gmask), and those open to a
seat are the rows that are both alive and touching (sim.state). Every walk over them reads:

    faces = dice_word(st, tab.rules[R_NUMBERS])
    for p in range(9):                                    (or: dice_faces, then group_cost per
        cd, nd, cost, groups = die_pair(faces, dice, jokers, p)    group g: a group at its
        while groups:                                      fewest '!')
            g, groups = next_group(groups)
            for half in range(2):
                w, word = legal_word(bb, seat, gword, gmask, g, half)
                while word != ZERO:
                    sub, word = next_row(w, word)         # placement row `sub`

The loop itself is written out where it runs (engine.legal_choices, players.greedy_pick, the
strategies' placement loops): Numba has no zero-cost way to pass a loop body to a helper, and
these loops are the simulator's hottest code. Everything the loop computes comes from here. The
helpers of the pair loop take numbers, not arrays: an inlined function given an array counts a
reference to it, which cost greedy about 12% of its speed when die_pair read st (docs/performance.md,
"Measured again on a quiet machine"); die_pair also tests the dice before it reads their faces.

mobility and mobility_after count the legal placements of any colour and number, now or after a
move, from a row of bitboard words (bb[seat], or a strategy's scratch copy of one).
"""
import numpy as np
from numba import njit

from .bits import ONE, ctz, popcount
from .state import BB_ALIVE, BB_TOUCH, COLOUR_JOKER, NUMBER_JOKER, ST_DICE
from .tables import MAX_NUMBER, NW


#: Group bits 6c (number 1 of each colour c): times a number mask, that mask in every colour.
_EVERY_COLOUR = 0b000001_000001_000001_000001_000001
#: Where dice_word keeps the numbers a number joker stands for.
_NUMBERS_AT = 48


@njit(cache=True)
def pair_groups(cface, nface, joker_numbers):
    """A colour die's face and a number die's face: ('!' they cost, groups), groups the bitmask of
    the (colour, number) groups g = 6 * colour + number - 1 they stand for (a colour joker stands
    for every colour, a number joker for the numbers of bitmask joker_numbers, bit n - 1 for n:
    1..5 by the rulebook, 1..6 under joker-six)."""
    cost = np.int64(cface == COLOUR_JOKER) + np.int64(nface == NUMBER_JOKER)
    numbers = joker_numbers if nface == NUMBER_JOKER else 1 << (nface - 1)
    return cost, numbers * _EVERY_COLOUR if cface == COLOUR_JOKER else numbers << (MAX_NUMBER * cface)


@njit(cache=True, inline="always")
def dice_word(st, numbers):
    """The six dice faces of st (sim.state: ST_DICE..), packed 8 bits each into one number, and
    the numbers a number joker stands for (tab.rules[R_NUMBERS]) above them, so that die_pair works
    on numbers alone (an inlined function given an array counts a reference to it, which in these
    loops costs more than the work)."""
    word = numbers << _NUMBERS_AT
    for d in range(6):
        word |= (st[ST_DICE + d] & 0xFF) << (8 * d)
    return word


@njit(cache=True)
def die_pair(faces, dice, jokers, p):
    """Die pair p = 3 * colour die + number die (0..8) of the faces dice_word packed, from the dice
    in bitmask `dice` (as ST_AVAIL), for a seat with `jokers` '!' left: (colour die, number die,
    '!' it costs, groups) as pair_groups, groups 0 if either die is not in `dice` or the pair
    costs too many '!'."""
    cd = p // 3
    nd = p - 3 * cd
    if not ((dice >> cd) & 1 and (dice >> (3 + nd)) & 1):
        return cd, nd, np.int64(0), 0
    cost, groups = pair_groups((faces >> (8 * cd)) & 0xFF, (faces >> (8 * (3 + nd))) & 0xFF, faces >> _NUMBERS_AT)
    return cd, nd, cost, groups if cost <= jokers else 0


@njit(cache=True)
def next_group(groups):
    """(g, rest): the lowest group of a non-zero groups mask of die_pair, and the mask without it."""
    return ctz(np.uint64(groups)), groups & (groups - 1)


#: face_cost of a colour or number no die shows: more jokers than a sheet starts with.
NO_FACE = 9


@njit(cache=True)
def face_cost(faces, joker, i):
    """Jokers a placement spends on face i of one kind of die, from dice_faces' mask and
    joker flag of that kind: 0 if a die shows i, 1 if only the joker does, else NO_FACE."""
    return 0 if (faces >> i) & 1 else (1 if joker else NO_FACE)


@njit(cache=True)
def group_cost(cols, nums, cj, nj, g):
    """The fewest jokers a placement of group g = 6 * colour + number - 1 costs with the dice
    dice_faces found (cols, nums, cj, nj); NO_FACE or more if they cannot make it. (A group of
    number 6 has placements only under joker-six, where the number joker makes it.)"""
    c = g // MAX_NUMBER
    return face_cost(cols, cj, c) + face_cost(nums, nj, g - MAX_NUMBER * c + 1)


@njit(cache=True, inline="always")
def dice_faces(st, avail):
    """What the dice in `avail` show: bitmasks of the real colours (bit c) and numbers (bit n),
    and whether a colour joker and a number joker show. A placement of colour c and number n
    then costs face_cost(cols, cj, c) + face_cost(nums, nj, n) jokers, at the fewest."""
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
def legal_word(bb, seat, gword, gmask, g, half):
    """(w, word): the placements of group g open to `seat` are the set bits of `word`, rows
    64 * w + bit, for half 0 and 1 (a group's rows lie in two adjacent words)."""
    w = gword[g] + half
    return w, bb[seat, BB_ALIVE + w] & bb[seat, BB_TOUCH + w] & gmask[g, half]


@njit(cache=True)
def next_row(w, word):
    """(row, rest): the lowest placement row of a non-zero legal `word` of bitset word w, and
    the word without it."""
    return 64 * w + ctz(word), word & (word - ONE)


@njit(cache=True, inline="always")
def mobility(words, alive, touch):
    """Legal placements (any colour and number) of the bitboard row `words`, whose alive and
    touch bitsets start at words[alive] and words[touch] (for bb[seat]: BB_ALIVE, BB_TOUCH)."""
    total = 0
    for w in range(NW):
        total += popcount(words[alive + w] & words[touch + w])
    return total


@njit(cache=True, inline="always")
def mobility_after(words, alive, touch, kill, act, sub):
    """mobility of the same row after it plays placement `sub` (kill, act: the tables' rows)."""
    total = 0
    for w in range(NW):
        total += popcount(words[alive + w] & ~kill[sub, w] & (words[touch + w] | act[sub, w]))
    return total


