"""strategies.learned_value: the value of a sheet rescored incrementally exactly as afresh, and the
next roll's exact expectation."""

import numpy as np
import pytest

from sim import engine
from sim.state import BB_ALIVE, BB_TOUCH, PS_JOKERS, ST_DICE, ST_ROLL, new_state
from sim.tables import build_tables, kernel_tables
from sim.training import solo as T
from strategies import learned_value as V

from learned_kit import SEED, standard_search_kit


def test_incremental_successor_value_is_exact():
    """successor_value rescoring only what a placement touches must equal the full feature sum,
    and its reward must equal the columns / colour completed plus 2 per star."""
    tab, ktab = build_tables("standard"), kernel_tables("standard")
    rng = np.random.default_rng(5)
    W = rng.normal(size=V.N_T * V.N_FEAT)
    lay = V.sheet_layout(ktab)
    sc, se = np.empty(V.SC_SIZE, np.int64), np.empty(V.SE_SIZE)
    sc2, idx = np.empty(V.SC_SIZE, np.int64), np.empty(V.N_ACTIVE, np.int64)
    checked = 0
    for _ in range(4):
        st, ps, bb, _ = new_state()
        engine.reset(st, ps, bb, ktab, 1, 30)
        while True:
            moves = [k for k in range(len(tab.size))
                     if (int(bb[0, BB_ALIVE + k // 64]) & int(bb[0, BB_TOUCH + k // 64])) >> (k % 64) & 1]
            if not moves:
                break
            o = V.row_offset(0, int(rng.integers(1, 30)))
            lo, hi = bb[0, 0], bb[0, 1]
            base = V.prepare(W, o, lay, lo, hi, sc, se)
            V.sheet_features(lay, lo, hi, sc2, idx)
            assert base == pytest.approx(V.sheet_value(W, o, idx), abs=1e-9)
            for k in moves:
                v, r = V.successor_value(W, o, lay, ktab, sc, se, k, 0)
                lo2, hi2 = lo | tab.mask[k, 0], hi | tab.mask[k, 1]
                V.sheet_features(lay, lo2, hi2, sc2, idx)
                assert v == pytest.approx(V.sheet_value(W, o, idx), abs=1e-9)
                new = engine.full_columns(lo2, hi2) & ~engine.full_columns(lo, hi)
                ref = 2 * tab.stars[k] + sum(int(tab.col_first[c]) for c in range(15) if new >> c & 1)
                m0, m1 = tab.colour_mask[tab.colour[k]]
                if (lo2 & m0) == m0 and (hi2 & m1) == m1:
                    ref += 5
                assert r == ref
                checked += 1
            engine.cross(ps, bb, ktab, 0, moves[rng.integers(len(moves))], 0, 1)
    assert checked > 1000


def test_next_roll_value_is_the_mean_best_reply_over_every_face():
    """What `top` adds: next_roll_value after a choice must be the mean, over all 6^4 faces of
    the next roll set one by one on a copy of the game after that choice, of the best row
    rank_placements finds there (passing included; every '!' it can spend)."""
    ktab, W, scratch, (reply, val) = standard_search_kit()
    lay, sc, se, subs, costs, rewards, qs = scratch
    rng = np.random.default_rng(8)
    checked = 0
    for game in range(6):
        st, ps, bb, _ = new_state()
        key = np.uint64(T.start_solo(st, ps, bb, ktab, SEED, game))
        stop = int(rng.integers(2, 29))
        for roll in range(1, stop + 1):
            st[ST_ROLL] = roll
            engine.set_dice(st, key, roll)
            jokers = int(ps[0, PS_JOKERS])
            m = V.rank_placements(W, 0, st, bb, 0, jokers, ktab, scratch)
            if roll < stop:
                # Random play spends '!' and passes, so positions with few '!' left are met.
                i = int(rng.integers(m))
                if subs[i] >= 0:
                    engine.cross(ps, bb, ktab, 0, subs[i], costs[i], roll)
                engine.settle_awards(st, ps, bb, ktab)
                continue
            o1 = V.row_offset(0, 30 - roll - 1)
            for i in sorted({0, int(np.argmax(qs[:m])), *rng.integers(m, size=3).tolist()}):
                sub, cost = int(subs[i]), int(costs[i])
                got = V.next_roll_value(W, o1, lay, ktab, bb, 0, sub, jokers - cost, sc, se, reply, val)
                st2, ps2, bb2 = st.copy(), ps.copy(), bb.copy()
                if sub >= 0:
                    engine.cross(ps2, bb2, ktab, 0, sub, cost, roll)
                engine.settle_awards(st2, ps2, bb2, ktab)
                st2[ST_ROLL] = roll + 1
                scratch2 = V.new_scratch(ktab)
                qs2 = scratch2[6]
                total = 0.0
                for c0, c1, n0, n1 in np.ndindex(6, 6, 6, 6):
                    st2[ST_DICE:ST_DICE + 6] = (c0, c1, -1, n0, n1, -1)
                    m2 = V.rank_placements(W, 0, st2, bb2, 0, int(ps2[0, PS_JOKERS]), ktab, scratch2)
                    total += qs2[:m2].max()
                assert got == pytest.approx(total / 6 ** 4, abs=1e-9), (game, roll, sub, cost)
                checked += 1
    assert checked >= 12
