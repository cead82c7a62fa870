"""learned's decisions, from its value kernels (strategies.learned_value): solo, one-ply or a roll
deeper at close calls; at a table, one-ply with dice denial."""

from numba import njit

from sim.bits import ZERO
from sim.rules import R_FREE_ROLLS
from sim.state import (
    CAND_CDIE, CAND_COST, CAND_NDIE, CAND_SUB, PASS, PS_JOKERS, ST_AVAIL, ST_IS_ACTIVE, ST_PLAYERS, ST_ROLL,
    ST_SEAT,
)
from sim.tables import MAX_NUMBER, N_GROUPS

from sim.moves import dice_faces, legal_word
from sim.nbinternals import at as _at, borrow, stack_f64, stack_i64

from .features import EXPECT_SIZE, NEG, candidate_of
from .table_features import TC_SIZE, TE_SIZE
from .learned_value import best_row, next_roll_value, rank_placements, rank_table, row_offset, solo_rolls, solo_row


#: Dice denial at a table (decide_table): points per box the dice left let an opponent cross,
#: and how many of the best choices it weighs.
DENY = 0.5
DENY_TOP = 4


@njit(cache=True, inline="always")
def solo_choice(W, base, st, ps, bb, tab, top, close, scratch):
    """The solo decision with weights W[base:], as (subset row, '!' used); (-1, 0) passes:
    one-ply argmax, or the `top` best a roll deeper (only those within `close` points of the
    best one-ply value, if close > 0: the others are clear losses, and the search is the costly
    part). scratch (lay, sc, se, subs, costs, rewards, qs) as rank_placements takes it: as
    _place_solo makes it on its stack, or new_scratch."""
    seat = st[ST_SEAT]
    jokers = ps[seat, PS_JOKERS]
    m = rank_placements(W, base, st, bb, seat, jokers, tab, scratch)
    lay, sc, se, subs, costs, rewards, qs = scratch
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
def decide_solo(W, base, st, ps, bb, cands, n, tab, top, close, scratch):
    """solo_choice as the row of cands[:n] that plays it (PASS to pass)."""
    sub, cost = solo_choice(W, base, st, ps, bb, tab, top, close, scratch)
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
def decide_table(W, base, st, ps, bb, cands, n, tab, deny, scratch):
    """The decision at a table with table weights W[base:]: one-ply argmax of reward + value.

    Dice denial: an active player after roll 3 leaves the other seats the four dice it does not
    take; each of its DENY_TOP best choices (by value) then loses `deny` points per box the dice
    it leaves let the others cross (dice_left_worth), and among the dice pairs that make the same
    placement it takes the pair leaving the least. Scratch as decide_solo."""
    tc = stack_i64(TC_SIZE)
    te = stack_f64(TE_SIZE)
    m = rank_table(W, base, st, ps, bb, st[ST_SEAT], tab, scratch, tc, te)
    _, _, _, subs, costs, _, qs = scratch
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
        passing = subs[top] < 0
        # Passing is one choice, and leaves the others all six dice; a placement, each dice pair
        # that makes it.
        for k in range(1 if passing else n):
            if passing:
                left, choice = all_dice, PASS
            elif cands[k, CAND_SUB] != subs[top] or cands[k, CAND_COST] != costs[top]:
                continue
            else:
                left, choice = all_dice & ~(1 << cands[k, CAND_CDIE]) & ~(1 << (3 + cands[k, CAND_NDIE])), k
            if not (weighed >> left) & 1:
                worth[left] = dice_left_worth(st, bb, tab, seat, left)
                weighed |= 1 << left
            q = qs[top] - deny * worth[left]
            if q > pick_q:
                pick_q, pick = q, choice
        qs[top] = NEG
    return pick

