"""strategies.learned_decisions: the solo decision's search at close calls, against its rule."""

import numpy as np

from sim import engine
from sim.state import CAND_COST, CAND_SUB, PS_JOKERS, ST_ROLL, new_state
from sim.training import solo as T
from strategies import learned_decisions as D
from strategies import learned_value as V

from learned_kit import SEED, standard_search_kit


def test_search_weighs_the_top_choices_and_only_the_close_calls():
    """decide_solo with `top` and `close`: among the `top` best rows by one-ply value, those
    within `close` points of the best (all of them for close = 0) go to the exact next-roll
    expectation, which picks (the first on ties); with one row left, the one-ply best is played
    unsearched. Checked against that rule computed here on positions of random play."""
    ktab, W, scratch, (reply, val) = standard_search_kit()
    lay, sc, se, subs, costs, rewards, qs = scratch
    rng = np.random.default_rng(9)
    kinds = {"unsearched": 0, "searched, not the one-ply best": 0}
    for game in range(40):
        st, ps, bb, cands = new_state()
        key = np.uint64(T.start_solo(st, ps, bb, ktab, SEED + 1, game))
        for roll in range(1, 30):
            st[ST_ROLL] = roll
            engine.set_dice(st, key, roll)
            jokers = int(ps[0, PS_JOKERS])
            n = engine.legal_choices(st, ps, bb, ktab, cands)
            m = V.rank_placements(W, 0, st, bb, 0, jokers, ktab, scratch)
            q, sub, cost, reward = qs[:m].copy(), subs[:m].copy(), costs[:m].copy(), rewards[:m].copy()
            order = sorted(range(m), key=lambda i: -q[i])          # stable: the first on ties
            o1 = V.row_offset(0, 30 - roll - 1)
            for top, close in [(2, 0.0), (3, 0.0), (2, 0.25), (5, 0.5), (4, 1e9)]:
                pool = [i for i in order[:top] if close == 0.0 or q[i] >= q[order[0]] - close]
                want = order[0]
                if len(pool) > 1:
                    e = [reward[i] - cost[i] + V.next_roll_value(W, o1, lay, ktab, bb, 0, int(sub[i]),
                                                                 jokers - int(cost[i]), sc, se, reply, val)
                         for i in pool]
                    want = pool[int(np.argmax(e))]
                    if want != order[0]:
                        kinds["searched, not the one-ply best"] += 1
                elif m > 1:
                    kinds["unsearched"] += 1
                k = D.decide_solo(W, 0, st, ps, bb, cands, n, ktab, top, close, scratch)
                got = (-1, 0) if k < 0 else (int(cands[k, CAND_SUB]), int(cands[k, CAND_COST]))
                assert got == (int(sub[want]), int(cost[want])), (game, roll, top, close)
            i = int(rng.integers(m)) if rng.random() < 0.3 else order[0]
            if sub[i] >= 0:
                engine.cross(ps, bb, ktab, 0, int(sub[i]), int(cost[i]), roll)
            engine.settle_awards(st, ps, bb, ktab)
    assert min(kinds.values()) >= 20, kinds
