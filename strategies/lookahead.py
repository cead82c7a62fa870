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
All heuristic parameters apply (same names), plus `top`.
"""
import numpy as np
from numba import njit

from sim.bits import ONE, ZERO, ctz, popcount
from sim.state import BB_ALIVE, BB_CROSSED, BB_TOUCH, CAND_COST, CAND_SUB, PASS, PS_JOKERS, ST_SEAT
from sim.tables import NW

from .features import byte_counts, column_counts, neighbours, stacked_pairs
from .heuristic import (
    _BYTE, C_BOX, C_COLBOX, C_COLOURV, C_COLV, C_CPAIR, C_JOKER, C_MOB, C_PAIR, C_PCOL, C_PCOLOUR, C_PCPAIR,
    C_PPAIR, C_QDIST, C_SINGLE, C_STAR, CTX_SIZE, colour_pairs, PARAMS as H_PARAMS, U_BOARD, UM_SIZE, evaluate, prepare, score_candidates,
    sheet_masks,
)
from .interface import strategy

PARAMS = dict(H_PARAMS)
PARAMS["top"] = 2.0          # choices looked at one roll deeper (4: +0.1 point, 1.4x slower)
X_TOP = len(H_PARAMS)
NEG = -1.0e18


@njit(cache=True)
def group_best(bb, seat, tab, ctx, um, sub, jokers, out):
    """out[5c + n - 1]: best V after `sub` and then a placement of colour c, size n (NEG if none);
    returns V after `sub` alone (the next roll passed).

    The second placements are scored incrementally against the sheet after `sub`
    (only the columns, the colour and the stars they touch change); this gives
    exactly heuristic.evaluate of the sheet after both moves, several times faster.
    """
    lo = bb[seat, BB_CROSSED] | tab.mask[sub, 0]
    hi = bb[seat, BB_CROSSED + 1] | tab.mask[sub, 1]
    for g in range(25):
        out[g] = NEG
    alive = np.empty(NW, np.uint64)
    touch = np.empty(NW, np.uint64)
    for w in range(NW):
        alive[w] = bb[seat, BB_ALIVE + w] & ~tab.kill[sub, w]
        touch[w] = bb[seat, BB_TOUCH + w] | tab.act[sub, w]
    w_mob = ctx[C_MOB]
    mob0 = 0
    if w_mob != 0.0:
        for w in range(NW):
            mob0 += popcount(alive[w] & touch[w])
    base = evaluate(ctx, um, lo, hi, 0, jokers)      # without the mobility term

    # The sheet after `sub`: column counts, span, colour gaps, isolated boxes per colour.
    a = byte_counts(lo)
    b = byte_counts(hi)
    counts = np.empty(15, np.int64)
    for c in range(8):
        counts[c] = np.int64((a >> np.uint64(8 * c)) & _BYTE)
    for c in range(7):
        counts[8 + c] = np.int64((b >> np.uint64(8 * c)) & _BYTE)
    left = 7
    right = 7
    for c in range(7):
        if counts[c] > 0:
            left = c
            break
    for c in range(14, 7, -1):
        if counts[c] > 0:
            right = c
            break
    # Vertical pairs of empty boxes of one colour, per column (see heuristic.evaluate).
    use_pair = ctx[C_PAIR] != 0.0
    pairs = np.zeros(15, np.int64)
    if use_pair:
        p0, p1 = stacked_pairs(um, lo, hi)
        column_counts(p0, p1, pairs)
    colsum = 0.0
    for c in range(15):
        d = left - c if c < left else (c - right if c > right else 0)
        colsum += ctx[C_COLV + c] * ctx[C_PCOL + 7 - counts[c]] * ctx[C_PPAIR + pairs[c]] * ctx[C_QDIST + d]
    gaps = np.empty(5, np.int64)
    iso = np.empty(5, np.int64)
    cfac = np.empty(5)
    use_cpair = ctx[C_CPAIR] != 0.0
    m0, m1 = um[U_BOARD], um[U_BOARD + 1]
    for k in range(5):
        u0 = um[2 * k] & ~lo
        u1 = um[2 * k + 1] & ~hi
        gaps[k] = popcount(u0) + popcount(u1)
        cfac[k] = ctx[C_PCOLOUR + gaps[k]] * (ctx[C_PCPAIR + colour_pairs(u0, u1)] if use_cpair else 1.0)
        n0, n1 = neighbours(u0, u1, m0, m1)
        iso[k] = popcount(u0 & ~n0) + popcount(u1 & ~n1)
    w_single = ctx[C_SINGLE]
    w_star = ctx[C_STAR]
    w_box = ctx[C_BOX]
    cnt = np.empty(15, np.int64)
    lost = np.zeros(15, np.int64)

    t_mask = tab.mask
    t_colour = tab.colour
    t_size = tab.size
    t_stars = tab.stars
    t_kill = tab.kill
    t_act = tab.act
    for w in range(NW):
        word = alive[w] & touch[w]
        while word != ZERO:
            k = 64 * w + ctz(word)
            word &= word - ONE
            k0 = t_mask[k, 0]
            k1 = t_mask[k, 1]
            x = byte_counts(k0)
            y = byte_counts(k1)
            ck = t_colour[k]
            if use_pair:
                u0 = um[2 * ck] & ~lo
                u1 = um[2 * ck + 1] & ~hi
                v0 = u0 & ~k0
                v1 = u1 & ~k1
                la = byte_counts((u0 & (u0 >> ONE)) & ~(v0 & (v0 >> ONE)))
                lb = byte_counts((u1 & (u1 >> ONE)) & ~(v1 & (v1 >> ONE)))
            nl = left
            nr = right
            dv = 0.0
            for c in range(15):
                if c < 8:
                    m = np.int64((x >> np.uint64(8 * c)) & _BYTE)
                    if use_pair:
                        lost[c] = np.int64((la >> np.uint64(8 * c)) & _BYTE)
                else:
                    m = np.int64((y >> np.uint64(8 * (c - 8))) & _BYTE)
                    if use_pair:
                        lost[c] = np.int64((lb >> np.uint64(8 * (c - 8))) & _BYTE)
                cnt[c] = m
                if m > 0:
                    dv += ctx[C_COLBOX + c] * m
                    if c < nl:
                        nl = c
                    if c > nr:
                        nr = c
            if nl == left and nr == right:
                for c in range(15):
                    m = cnt[c]
                    if m > 0:
                        f0 = ctx[C_PCOL + 7 - counts[c]] * ctx[C_PPAIR + pairs[c]]
                        f1 = ctx[C_PCOL + 7 - counts[c] - m] * ctx[C_PPAIR + pairs[c] - lost[c]]
                        dv += ctx[C_COLV + c] * (f1 - f0)
            else:
                cs = 0.0
                for c in range(15):
                    d = nl - c if c < nl else (c - nr if c > nr else 0)
                    pc = pairs[c] - (lost[c] if cnt[c] > 0 else 0)
                    cs += ctx[C_COLV + c] * ctx[C_PCOL + 7 - counts[c] - cnt[c]] * ctx[C_PPAIR + pc] * ctx[C_QDIST + d]
                dv += cs - colsum
            size = t_size[k]
            r = gaps[ck]
            if use_cpair:
                w0 = um[2 * ck] & ~(lo | k0)
                w1 = um[2 * ck + 1] & ~(hi | k1)
                dv += ctx[C_COLOURV + ck] * (ctx[C_PCOLOUR + r - size] * ctx[C_PCPAIR + colour_pairs(w0, w1)]
                                             - cfac[ck])
            else:
                dv += ctx[C_COLOURV + ck] * (ctx[C_PCOLOUR + r - size] - ctx[C_PCOLOUR + r])
            dv += w_star * t_stars[k]
            dv += w_box * size
            if w_single != 0.0:
                u0 = um[2 * ck] & ~(lo | k0)
                u1 = um[2 * ck + 1] & ~(hi | k1)
                n0, n1 = neighbours(u0, u1, m0, m1)
                dv -= w_single * (popcount(u0 & ~n0) + popcount(u1 & ~n1) - iso[ck])
            if w_mob != 0.0:
                mob = 0
                for q in range(NW):
                    mob += popcount(alive[q] & ~t_kill[k, q] & (touch[q] | t_act[k, q]))
                dv += w_mob * mob
            v = base + dv
            g = 5 * ck + size - 1
            if v > out[g]:
                out[g] = v
    return base + w_mob * mob0


@njit(cache=True)
def expected_next(best, base, jokers, joker_value):
    """Mean over the 1296 faces of 2 colour + 2 number dice of the best reply value.

    best[25] per (colour, number); base = value of passing. Faces: colour 0..4 and
    5 = joker; number 1..5 and 0 = joker.
    """
    val = np.empty((6, 6))
    top_all = NEG
    for c in range(5):
        top_c = NEG
        for n in range(1, 6):
            b = best[5 * c + n - 1]
            val[c, n] = b
            if b > top_c:
                top_c = b
        val[c, 0] = top_c - joker_value if jokers >= 1 else NEG
        if top_c > top_all:
            top_all = top_c
    for n in range(1, 6):
        top_n = NEG
        for c in range(5):
            b = best[5 * c + n - 1]
            if b > top_n:
                top_n = b
        val[5, n] = top_n - joker_value if jokers >= 1 else NEG
    val[5, 0] = top_all - 2.0 * joker_value if jokers >= 2 else NEG
    total = 0.0
    row = np.empty(6)
    for c1 in range(6):
        for c2 in range(c1, 6):
            wc = 1.0 if c1 == c2 else 2.0
            for n in range(6):
                row[n] = max(val[c1, n], val[c2, n], base)
            sub = 0.0
            for n1 in range(6):
                sub += row[n1]                      # n1 == n2
                for n2 in range(n1 + 1, 6):
                    sub += 2.0 * max(row[n1], row[n2])
            total += wc * sub
    return total / 1296.0


def _choose(st, ps, bb, cands, n, tab, params, rng):
    """Heuristic one roll deeper: exact expectation over the next roll's dice for the top choices."""
    ctx = np.empty(CTX_SIZE)
    ctx2 = np.empty(CTX_SIZE)
    um = np.empty(UM_SIZE, np.uint64)
    values = np.empty(n + 1)
    prepare(st, ps, bb, tab, params, ctx, 0)
    prepare(st, ps, bb, tab, params, ctx2, 1)
    sheet_masks(tab, um)
    score_candidates(st, ps, bb, cands, n, tab, params, ctx, um, values)
    top = int(params[X_TOP])
    # Indices of the `top` best choices (pass = n), by heuristic value.
    order = np.argsort(-values)
    if top < 1 or n == 0:
        i = order[0]
        return PASS if i == n else i
    seat = st[ST_SEAT]
    best = np.empty(25)
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
        e = expected_next(best, base, jokers, ctx2[C_JOKER]) + extra
        if e > best_e:
            best_e = e
            best_i = i
    if order[0] == n:
        return PASS
    return best_i


@njit(cache=True)
def evaluate_after(bb, seat, tab, ctx, um, sub, jokers):
    """Plain V after `sub` (as score_candidates computes it, without the table terms)."""
    lo = bb[seat, BB_CROSSED] | tab.mask[sub, 0]
    hi = bb[seat, BB_CROSSED + 1] | tab.mask[sub, 1]
    mob = 0
    if ctx[C_MOB] != 0.0:
        for w in range(NW):
            mob += popcount(bb[seat, BB_ALIVE + w] & ~tab.kill[sub, w] & (bb[seat, BB_TOUCH + w] | tab.act[sub, w]))
    return evaluate(ctx, um, lo, hi, mob, jokers)


lookahead = strategy(_choose, name="lookahead", params=PARAMS,
                     description="heuristic plus exact expectation over the next roll for the top choices "
                                 "(heuristic parameters, plus top)")
