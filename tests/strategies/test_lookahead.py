"""strategies.lookahead: heuristic's parameters, and its incremental evaluation exactly the
plain one."""
import numpy as np
import pytest

from sim import engine
from sim.state import BB_ALIVE, BB_TOUCH, ST_ROLL, ST_SEAT, new_state
from sim.tables import MAX_NUMBER, N_GROUPS, build_tables, kernel_tables
from strategies import heuristic as H
from strategies import lookahead as L
from strategies.features import legal_count


def test_lookahead_shares_the_heuristic_parameters():
    assert list(L.PARAMS)[:len(H.PARAMS)] == list(H.PARAMS)
    assert list(L.PARAMS.values())[:len(H.PARAMS)] == list(H.PARAMS.values())


def test_lookahead_incremental_evaluation_is_exact():
    """group_best scores second moves incrementally; it must equal evaluate on the full sheet."""
    tab, ktab = build_tables("standard"), kernel_tables("standard")
    params = np.array(list(L.PARAMS.values()))
    st, ps, bb, _ = new_state()
    engine.reset(st, ps, bb, ktab, 1, 30)
    rng = np.random.default_rng(3)
    um = np.empty(H.UM_SIZE, np.uint64)
    H.sheet_masks(tab, um)

    def legal(bbx):
        return [k for k in range(len(tab.size))
                if (int(bbx[0, BB_ALIVE + k // 64]) & int(bbx[0, BB_TOUCH + k // 64])) >> (k % 64) & 1]

    for step in range(20):
        st[ST_ROLL], st[ST_SEAT] = step + 1, 0
        ctx = np.empty(H.CTX_SIZE)
        H.prepare(st, ps, bb, ktab, params, ctx, 1)
        moves = legal(bb)
        if not moves:
            break
        sub = moves[rng.integers(len(moves))]
        out = np.empty(N_GROUPS)
        base = L.group_best(bb, 0, ktab, ctx, um, sub, 5, out)
        ps2, bb2 = ps.copy(), bb.copy()
        engine.cross(ps2, bb2, ktab, 0, sub, 0, 1)
        assert base == pytest.approx(H.evaluate(ctx, um, bb2[0, 0], bb2[0, 1], legal_count(bb2, 0), 5))
        ref = np.full(N_GROUPS, L.NEG)
        for k in legal(bb2):
            ps3, bb3 = ps2.copy(), bb2.copy()
            engine.cross(ps3, bb3, ktab, 0, k, 0, 1)
            g = MAX_NUMBER * tab.colour[k] + tab.size[k] - 1
            ref[g] = max(ref[g], H.evaluate(ctx, um, bb3[0, 0], bb3[0, 1], legal_count(bb3, 0), 5))
        # Replies worse than passing (base) may be left at NEG: they never count.
        np.testing.assert_allclose(np.maximum(out, base), np.maximum(ref, base), rtol=0, atol=1e-9)
        engine.cross(ps, bb, ktab, 0, sub, 0, 1)
