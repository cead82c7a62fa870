"""`lookahead`: the heuristic, one roll deeper (expectimax over the next roll's dice).

1. Every legal choice is scored by the heuristic (strategies.heuristic), table
   terms included.
2. For the `top` best of them, the sheet after the move is looked at once more:
   for each (colour, number) the best heuristic value of a second move is found
   (every legal placement is evaluated), and then averaged exactly over all
   6^4 = 1296 faces of two colour dice and two number dice (the solo roll, and
   the four dice a passive player chooses from), each outcome taking its best
   pair, jokers costing their '!', passing allowed.
3. The choice with the best expectation is played.

The time-dependent weights of the second move are those of one roll later.
All heuristic parameters apply (same names), plus `top`. It plays under the rules the
heuristic reads (tab.rules): passing the next roll costs the pass penalty too.

Step 2 makes the sheet after the first move the base of heuristic.delta, so each
second placement costs one delta (and a mobility count, skipped when its bound
cannot lift the placement above the best of its group or above passing).
"""
import numpy as np
from numba import njit

from sim.bits import ZERO
from sim.moves import mobility, mobility_after, next_row
from sim.nbinternals import argsort, borrow, stack_f64, stack_u64
from sim.rules import R_PASS_PENALTY
from sim.state import BB_ALIVE, BB_CROSSED, BB_TOUCH, CAND_COST, CAND_SUB, PASS, PS_JOKERS, ST_SEAT
from sim.tables import MAX_NUMBER, N_GROUPS, NW

from .features import EXPECT_SIZE, expected_best_reply, placement_fields
from .heuristic import READS_RULES as HEURISTIC_READS
from .heuristic import (
    C_JOKER, C_MOB, CTX_SIZE, NEG, NEXT_ROLL, NOW, PARAMS as H_PARAMS, U_ALIVE, U_TOUCH, UM_SIZE, VALUES_SIZE, delta,
    evaluate, prepare, score_candidates, set_base, sheet_masks,
)
from .interface import strategy

PARAMS = dict(H_PARAMS)
PARAMS["top"] = 2.0          # choices looked at one roll deeper (4: +0.1 point, 1.4x slower)
X_TOP = len(H_PARAMS)


@njit(cache=True, inline="always")
def group_best(bb, seat, tab, ctx, um, sub, jokers, out):
    """out[6c + n - 1]: best V after `sub` and then a placement of colour c, size n (NEG if none);
    returns V after `sub` alone, less the rules' pass penalty (the next roll passed). Entries not
    above that return value may be left at NEG: a reply worse than passing is never played.

    The sheet after `sub` becomes the base of heuristic.delta, so each second placement is
    scored from its own boxes (plus the mobility count); this gives heuristic.evaluate of the
    sheet after both moves up to rounding. Overwrites the base section of ctx and um.
    Inlined into the decision, whose stack arrays make the loop free of reference counts.
    """
    t_mask, t_kill, t_act, t_colour, t_size, t_stars, act_count = placement_fields(tab)
    lo = bb[seat, BB_CROSSED] | t_mask[sub, 0]
    hi = bb[seat, BB_CROSSED + 1] | t_mask[sub, 1]
    for g in range(N_GROUPS):
        out[g] = NEG
    # Legality after `sub` (as engine.cross would leave it), in um's scratch words.
    for w in range(NW):
        um[U_ALIVE + w] = bb[seat, BB_ALIVE + w] & ~t_kill[sub, w]
        um[U_TOUCH + w] = bb[seat, BB_TOUCH + w] | t_act[sub, w]
    w_mob = ctx[C_MOB]
    base = set_base(ctx, um, lo, hi) + ctx[C_JOKER] * jokers
    mob0 = mobility(um, U_ALIVE, U_TOUCH)
    bound_mob = w_mob > 0.0
    # A reply no better than passing never counts (expected_best_reply takes the max with it).
    floor = base + w_mob * mob0 - borrow(tab, "rules")[R_PASS_PENALTY]
    for w in range(NW):
        word = um[U_ALIVE + w] & um[U_TOUCH + w]
        while word != ZERO:
            k, word = next_row(w, word)
            ck = t_colour[k]
            size = t_size[k]
            v = base + delta(ctx, um, t_mask[k, 0], t_mask[k, 1], ck, size, t_stars[k])
            g = MAX_NUMBER * ck + size - 1
            if w_mob != 0.0:
                # As in heuristic.best_placement: k leaves at most mob0 - 1 + act_count[k] placements.
                if bound_mob and v + w_mob * (mob0 - 1 + act_count[k]) <= max(out[g], floor):
                    continue
                v += w_mob * mobility_after(um, U_ALIVE, U_TOUCH, t_kill, t_act, k)
            if v > out[g]:
                out[g] = v
    return floor


def _choose(st, ps, bb, cands, n, tab, params, rng):
    """Heuristic one roll deeper: exact expectation over the next roll's dice for the top choices."""
    # Scratch on the stack (sim.nbinternals; see heuristic's module notes): weights and base of this roll (ctx) and of
    # the next (ctx2); the sheet's words (um, shared: group_best runs after score_candidates
    # is done with it); the best reply per (colour, number); expected_best_reply's table.
    ctx = stack_f64(CTX_SIZE)
    ctx2 = stack_f64(CTX_SIZE)
    um = stack_u64(UM_SIZE)
    best = stack_f64(N_GROUPS)
    tmp = stack_f64(EXPECT_SIZE)
    values = stack_f64(VALUES_SIZE)
    prepare(st, ps, bb, tab, params, ctx, NOW)
    prepare(st, ps, bb, tab, params, ctx2, NEXT_ROLL)
    sheet_masks(tab, um)
    score_candidates(st, ps, bb, cands, n, tab, params, ctx, um, values)
    top = int(params[X_TOP])
    # Indices of the `top` best choices (pass = n), by heuristic value.
    order = argsort(-values[:n + 1])
    if top < 1 or n == 0:
        i = order[0]
        return PASS if i == n else i
    seat = st[ST_SEAT]
    best_i = PASS
    best_e = NEG
    seen = 0
    for j in range(n + 1):
        if seen >= top:
            break
        i = order[j]
        if i == n:
            continue            # passing is judged by the heuristic only if it is the best
        # Skip a placement already looked at with fewer or equal jokers.
        sub = cands[i, CAND_SUB]
        dup = False
        for q in range(j):
            p = order[q]
            if p != n and cands[p, CAND_SUB] == sub:
                dup = True
        if dup:
            continue
        seen += 1
        jokers = ps[seat, PS_JOKERS] - cands[i, CAND_COST]
        base = group_best(bb, seat, tab, ctx2, um, sub, jokers, best)
        # Table terms of the first move (end of game, denial) are kept as a difference.
        extra = values[i] - evaluate_after(bb, seat, tab, ctx, um, sub, jokers)
        # A reply's '!' are worth ctx2[C_JOKER] each to the heuristic; the seat has `jokers` left.
        jv = ctx2[C_JOKER]
        e = expected_best_reply(best, base, 0.0, -jv if jokers >= 1 else NEG, -2.0 * jv if jokers >= 2 else NEG,
                                tmp) + extra
        if e > best_e:
            best_e = e
            best_i = i
    if order[0] == n:
        return PASS
    return best_i


#: A typed 0: a literal one would compile heuristic.evaluate a second time.
NO_MOBILITY = np.int64(0)


@njit(cache=True)
def evaluate_after(bb, seat, tab, ctx, um, sub, jokers):
    """Plain V after `sub` (as score_candidates computes it, without the table terms)."""
    t_mask = borrow(tab, "mask")
    t_kill = borrow(tab, "kill")
    t_act = borrow(tab, "act")
    lo = bb[seat, BB_CROSSED] | t_mask[sub, 0]
    hi = bb[seat, BB_CROSSED + 1] | t_mask[sub, 1]
    mob = mobility_after(bb[seat], BB_ALIVE, BB_TOUCH, t_kill, t_act, sub) if ctx[C_MOB] != 0.0 else NO_MOBILITY
    return evaluate(ctx, um, lo, hi, mob, jokers)


lookahead = strategy(_choose, name="lookahead", params=PARAMS, reads_rules=HEURISTIC_READS,  # heuristic's evaluation
                     description="heuristic plus exact expectation over the next roll for the top choices "
                                 "(heuristic parameters, plus top)")
