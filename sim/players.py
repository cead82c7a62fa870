"""The reference players: `random` and `greedy` as decision functions (sim.state.DECIDE_SIG).

They live beside the engine, not in strategies/, because the game loop runs
them without an indirect call: sim.engine.decide switches on a per-seat player
kind (PLAYER_RANDOM, PLAYER_GREEDY) and plays them inline, and any other
strategy is called through its function pointer: the built-in ones on the
engine's own arrays (PLAYER_CALL), a user's on copies (PLAYER_GUARDED). A
built-in that ranks placements itself (learned, solo) can name its placement
instead of a row of the candidate table (PLAYER_PLACE): the engine then skips
legal_choices, and `placed` finds the dice for it.
strategies/builtin.py registers these very functions, so `greedy` played by
the switch and `greedy` called as a strategy are one definition.

`greedy_pick` is greedy fused with the enumeration of legal choices: it finds
greedy's choice and the number of choices without writing the candidate table.
tests/sim/test_players.py checks it against legal_choices + greedy.
"""
import numpy as np
from numba import njit

from .bits import ctz, popcount
from .moves import dice_word, die_pair, next_group
from .rng import below
from .rules import R_NUMBERS
from .state import BB_ALIVE, BB_TOUCH, CAND_COST, CAND_SUB, PASS, PS_JOKERS, ST_AVAIL, ST_DICE, ST_SEAT
from .tables import MAX_NUMBER

#: How the game loop runs a seat's strategy (sim.engine.decide).
PLAYER_CALL = 0      # any decision function, called through its first-class function value
PLAYER_RANDOM = 1    # random_choice, inlined
PLAYER_GREEDY = 2    # greedy, as greedy_pick
PLAYER_PLACE = 3     # a built-in that names its placement (placement_code), not a row of the candidate table
PLAYER_GUARDED = 4   # a user's strategy: called on copies of the state, and stopped if it writes them (sim.guard)
PLAYER_STRICT = 5    # as PLAYER_GUARDED, also checking the tables and parameters after every decision
PLAYER_EXTERNAL = 6  # decided outside the kernels: a person, a learning agent, a batched strategy (sim.step)


@njit(cache=True, inline="always")
def random_choice(st, ps, bb, cands, n, tab, params, rng):
    """Uniform over the legal choices, pass included."""
    return below(rng, n + 1) - 1


@njit(cache=True, inline="always")
def greedy(st, ps, bb, cands, n, tab, params, rng):
    """Most boxes crossed now; on a tie the fewest jokers, then the first offered."""
    best = PASS
    best_key = -1
    for i in range(n):
        key = 4 * tab.size[cands[i, CAND_SUB]] - cands[i, CAND_COST]
        if key > best_key:
            best, best_key = i, key
    return best


@njit(cache=True, inline="always")
def first_of_face(st, avail, die):
    """True if no lower-numbered available die of the same kind shows the same face.

    Two dice showing one face offer the same choices and leave the same dice,
    so only the first is offered.
    """
    base = die - die % 3
    for j in range(base, die):
        if (avail >> j) & 1 and st[ST_DICE + j] == st[ST_DICE + die]:
            return 0
    return 1


@njit(cache=True, inline="always")
def offered_dice(st, avail):
    """Bitmask (as ST_AVAIL) of the available dice legal_choices offers: the first die of each face."""
    offered = 0
    for d in range(6):
        if (avail >> d) & 1 and first_of_face(st, avail, d):
            offered |= 1 << d
    return offered


@njit(cache=True, inline="always")
def greedy_pick(st, ps, bb, tab):
    """greedy's choice among legal_choices' candidates, and their number, without listing them.

    All rows of a (colour, number) group have `number` boxes, so greedy's key
    4 * size - cost is one value per (dice pair, group): the choice is the
    first legal row of the first group with the highest key, and its index is
    the count of candidates enumerated before it (same order as legal_choices).
    Returns (n, k, colour die, number die, subset row, cost); k = -1: pass.
    """
    seat = st[ST_SEAT]
    offered = offered_dice(st, st[ST_AVAIL])
    jokers = ps[seat, PS_JOKERS]
    n = 0
    best_k = PASS
    best_key = -1
    best_cd = best_nd = best_g = best_cost = -1
    # The group tables are read from tab where used, not taken once into locals and passed to
    # moves.legal_word as legal_choices does: an inlined function given an array counts a reference
    # to it, which here cost greedy about 7% of its speed (docs/performance.md, "Measured again").
    faces = dice_word(st, tab.rules[R_NUMBERS])
    for p in range(9):
        cd, nd, cost, groups = die_pair(faces, offered, jokers, p)
        while groups:
            g, groups = next_group(groups)
            w = tab.gword[g]
            count = (popcount(bb[seat, BB_ALIVE + w] & bb[seat, BB_TOUCH + w] & tab.gmask[g, 0])
                     + popcount(bb[seat, BB_ALIVE + w + 1] & bb[seat, BB_TOUCH + w + 1] & tab.gmask[g, 1]))
            key = 4 * (g % MAX_NUMBER + 1) - cost   # 4 * boxes - jokers
            if count > 0 and key > best_key:
                best_k, best_key = n, key
                best_cd, best_nd, best_g, best_cost = cd, nd, g, cost
            n += count
    if best_k == PASS:
        return n, PASS, -1, -1, -1, 0
    w = tab.gword[best_g]
    word = bb[seat, BB_ALIVE + w] & bb[seat, BB_TOUCH + w] & tab.gmask[best_g, 0]
    if word == np.uint64(0):
        w += 1
        word = bb[seat, BB_ALIVE + w] & bb[seat, BB_TOUCH + w] & tab.gmask[best_g, 1]
    return n, best_k, best_cd, best_nd, 64 * w + ctz(word), best_cost


@njit(cache=True)
def placement_code(sub, cost):
    """What a PLAYER_PLACE strategy returns for placement row `sub` at `cost` '!': 4 * sub + cost,
    or PASS for sub -1 (a placement costs at most two '!', so the code is one number)."""
    return PASS if sub < 0 else 4 * sub + cost


@njit(cache=True)
def placement_of(code):
    """(subset row, '!' used) that a placement_code (not PASS) names."""
    return code >> 2, code & 3


@njit(cache=True, inline="always")
def placed(st, ps, bb, tab, code):
    """The move a placement_code names, for seat st[ST_SEAT] with dice st[ST_AVAIL]:
    (k, colour die, number die, subset row, cost), k = PASS, 0 (a legal placement) or -2 when
    the code names no legal choice. The dice are the first pair in legal_choices' order that
    offers the placement at that cost, so the move is the one legal_choices + candidate_of
    (strategies.features) would play.
    """
    if code == PASS:
        return PASS, -1, -1, -1, 0
    sub, cost = placement_of(code)
    seat = st[ST_SEAT]
    if code < 0 or sub >= tab.size.shape[0]:
        return -2, -1, -1, -1, 0
    w = sub >> 6
    if not ((bb[seat, BB_ALIVE + w] & bb[seat, BB_TOUCH + w]) >> np.uint64(sub & 63)) & np.uint64(1):
        return -2, -1, -1, -1, 0
    g = MAX_NUMBER * tab.colour[sub] + tab.size[sub] - 1
    offered = offered_dice(st, st[ST_AVAIL])
    jokers = ps[seat, PS_JOKERS]
    faces = dice_word(st, tab.rules[R_NUMBERS])
    for p in range(9):
        cd, nd, pair_cost, groups = die_pair(faces, offered, jokers, p)
        if (groups >> g) & 1 and pair_cost == cost:
            return 0, cd, nd, sub, cost
    return -2, -1, -1, -1, 0
