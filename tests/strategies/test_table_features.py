"""`learned` at a table: the table features on hand-built positions, the exact incremental value,
legal play at 2-6 players on every sheet, shipped weights, and training."""
import importlib.resources
import os
import subprocess
import sys

import numpy as np
import pytest

from sim.runs import api as sim
from sim import engine
from sim.runs.api import play_chunk
from sim.sheets import load_sheet, parse_cell
from sim.state import (
    BB_ALIVE, BB_TOUCH, PS_COL_POINTS, PS_COLOUR_POINTS, PS_JOKERS, PS_WINNER, ST_AVAIL, ST_COLOURS_TAKEN,
    ST_COLS_TAKEN, ST_DICE, ST_ROLL, ST_SEAT, new_state,
)
from sim.tables import build_tables, kernel_tables
from strategies import learned as L
from strategies import table_features as TF
from sim.training import run as TR

import sheetgen
from checker import check_game_log
from invoking import invoke

SHEETS = ["standard", "red", "blue", "green", "orange", "yellow"]


def _table(players, crossed, sheet="standard"):
    """State arrays of a table where seat s has crossed the cells crossed[s] (engine kernels)."""
    tab, ktab = build_tables(sheet), kernel_tables(sheet)
    st, ps, bb, _ = new_state()
    engine.reset(st, ps, bb, ktab, players, 200)
    for s, cells in enumerate(crossed):
        for name in cells:
            col, row = parse_cell(name)
            engine.cross(ps, bb, ktab, s, tab.box_row[8 * col + row], 0, 0)
    return st, ps, bb, ktab


def _reference_points(sheet, cells, col_points, colour_points, jokers):
    stars = sum(1 for r in range(7) for c in range(15) if sheet.star[r, c] and (c, r) not in cells)
    return col_points + colour_points + jokers - 2 * stars


def test_table_context_on_a_hand_built_position():
    sheet = load_sheet("standard")
    # Seat 0 decides; seat 1 has crossed 6 boxes of column H and 3 of G; seat 2 all of column I.
    H = [f"H{r}" for r in range(1, 8)]
    I_ = [f"I{r}" for r in range(1, 8)]
    crossed = [["H1", "H2"], H[:6] + ["G1", "G2", "G3"], H + I_]
    st, ps, bb, tab = _table(3, crossed)
    st[ST_COLS_TAKEN] = 1 << 8            # column I taken (seat 2 completed it in an earlier roll)
    st[ST_COLOURS_TAKEN] = 1 << 2
    ps[2, PS_COL_POINTS] = 2
    ps[1, PS_JOKERS] = 5
    tc = np.zeros(TF.TC_SIZE, np.int64)
    TF.table_context(st, ps, bb, tab, 0, tc)
    cells = [{parse_cell(c) for c in seat} for seat in crossed]
    for c in range(15):
        want = max(sum(1 for (cc, _) in cells[s] if cc == c) for s in (1, 2))
        assert tc[TF.TC_OPP_COUNT + c] == want, c
    assert tc[TF.TC_OPP_COUNT + 7] == 7 and tc[TF.TC_OPP_COUNT + 6] == 3 and tc[TF.TC_OPP_COUNT + 8] == 7
    for k in range(5):
        empty = [21 - sum(1 for (c, r) in cells[s] if sheet.colour[r, c] == k) for s in range(3)]
        assert tc[TF.TC_OPP_EMPTY + k] == min(empty[1:]), k
        assert tc[TF.TC_EMPTY + k] == empty[0], k
    # The end distance: the two smallest empties of a sheet, bucketed; the nearest opponent's.
    def end(s):
        e = sorted(21 - sum(1 for (c, r) in cells[s] if sheet.colour[r, c] == k) for k in range(5))
        return TF._bucket(e[0] + e[1])
    assert tc[TF.TC_OPP_END] == min(end(1), end(2))
    points = [_reference_points(sheet, cells[s], int(ps[s, PS_COL_POINTS]), int(ps[s, PS_COLOUR_POINTS]),
                                int(ps[s, PS_JOKERS])) for s in range(3)]
    assert tc[TF.TC_OWN_POINTS] == points[0] == 8 - 30 + 2 * sum(
        1 for (c, r) in cells[0] if sheet.star[r, c])
    assert tc[TF.TC_OPP_POINTS] == max(points[1:])
    assert tc[TF.TC_COLS_TAKEN] == 1 << 8 and tc[TF.TC_COLOURS_TAKEN] == 1 << 2


def test_bucket_and_indices():
    assert [TF._bucket(n) for n in (0, 1, 2, 3, 4, 5, 7, 8, 11, 12, 17, 18, 26, 27, 42)] == \
        [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]
    tc = np.zeros(TF.TC_SIZE, np.int64)
    tc[TF.TC_COLS_TAKEN] = 1 << 3
    tc[TF.TC_OPP_COUNT + 3] = 5
    # A column's first value gone counts only while the player has not completed it.
    assert TF._race_index(tc, 3, 4) == TF.T_RACE + 128 * 3 + 16 * 4 + 8 + 5
    assert TF._race_index(tc, 3, 7) == TF.T_RACE + 128 * 3 + 16 * 7 + 5
    tc[TF.TC_OWN_POINTS], tc[TF.TC_OPP_POINTS] = 10, 55
    assert TF._margin_index(tc, 0) == TF.T_MARGIN            # -45, clipped at -30
    tc[TF.TC_OWN_POINTS], tc[TF.TC_OPP_POINTS] = 12, 10
    assert TF._margin_index(tc, 3) == TF.T_MARGIN + 30 + 5
    # All indices of a row stay inside the table part.
    assert TF.T_MARGIN + 60 < TF.T_SIZE <= TF.T_MARGIN + 61


def test_rank_table_is_exact():
    """Each placement's value at a table, rescored incrementally, equals the value recomputed from
    scratch: reward (later values where the first is gone) - jokers + the sheet's value + the
    table part of the afterstate, with the opponents as they are."""
    tab, ktab = build_tables("standard"), kernel_tables("standard")
    rng = np.random.default_rng(9)
    W = rng.normal(size=TF.N_STAGES * L.N_ROW_TABLE)
    lay = L.sheet_layout(ktab)
    sc, se = np.empty(L.SC_SIZE, np.int64), np.empty(L.SE_SIZE)
    sc2, idx = np.empty(L.SC_SIZE, np.int64), np.empty(L.N_ACTIVE + TF.T_ACTIVE, np.int64)
    subs, costs = np.empty(L.ROWS, np.int64), np.empty(L.ROWS, np.int64)
    rewards, qs = np.empty(L.ROWS), np.empty(L.ROWS)
    scratch = (lay, sc, se, subs, costs, rewards, qs)
    tc, te, tc2 = np.empty(TF.TC_SIZE, np.int64), np.empty(TF.TE_SIZE), np.empty(TF.TC_SIZE, np.int64)
    checked = 0
    for game in range(6):
        players = 2 + game % 5
        st, ps, bb, _ = new_state()
        engine.reset(st, ps, bb, ktab, players, 200)
        for roll in range(1, 40):
            for s in range(players):      # random moves, for positions with races and completions
                moves = [k for k in range(len(tab.size))
                         if (int(bb[s, BB_ALIVE + k // 64]) & int(bb[s, BB_TOUCH + k // 64])) >> (k % 64) & 1]
                if moves:
                    engine.cross(ps, bb, ktab, s, moves[rng.integers(len(moves))], 0, roll)
            if engine.settle_awards(st, ps, bb, ktab):
                break
            st[ST_ROLL] = roll + 1
            seat = int(rng.integers(players))
            st[ST_SEAT] = seat
            st[ST_DICE:ST_DICE + 6] = rng.integers(0, 6, 6)
            st[ST_AVAIL] = 0b111111
            m = L.rank_table(W, 0, st, ps, bb, seat, ktab, scratch, tc, te)
            o = L.N_ROW_TABLE * TF.stage(st)
            for i in range(m):
                sub, cost = subs[i], costs[i]
                lo, hi = bb[seat, 0], bb[seat, 1]
                ref = -cost
                if sub >= 0:
                    lo, hi = lo | tab.mask[sub, 0], hi | tab.mask[sub, 1]
                    new = engine.full_columns(lo, hi) & ~engine.full_columns(bb[seat, 0], bb[seat, 1])
                    for c in range(15):
                        if new >> c & 1:
                            ref += tab.col_later[c] if st[ST_COLS_TAKEN] >> c & 1 else tab.col_first[c]
                    k = tab.colour[sub]
                    m0, m1 = tab.colour_mask[k]
                    if (lo & m0) == m0 and (hi & m1) == m1:
                        ref += 3 if st[ST_COLOURS_TAKEN] >> k & 1 else 5
                    ref += 2 * tab.stars[sub]
                assert rewards[i] - cost == ref
                L.sheet_features(lay, lo, hi, sc2, idx)
                idx[L.N_SHEET] = L.F_JOKER + ps[seat, PS_JOKERS] - cost
                value = sum(W[o + j] for j in idx[:L.N_ACTIVE])
                tc2[:] = tc
                for kk in range(5):
                    m0, m1 = tab.colour_mask[kk]
                    tc2[TF.TC_EMPTY + kk] = 21 - bin(int(lo & m0)).count("1") - bin(int(hi & m1)).count("1")
                tc2[TF.TC_OWN_POINTS] += ref
                TF.table_features(tc2, sc2[L.SC_COUNT:L.SC_COUNT + 15], idx, L.N_ACTIVE)
                value += sum(W[o + L.N_FEAT + j] for j in idx[L.N_ACTIVE:])
                assert qs[i] == pytest.approx(ref + value, abs=1e-9)
                checked += 1
    assert checked > 500


def _random_weights(path, sheet, players, seed):
    W = np.random.default_rng(seed).normal(size=L.weights_shape(players))
    L.save_weights(path, W, load_sheet(sheet), 0, seed, players)


def test_legal_play_at_every_table_size_on_every_sheet(tmp_path):
    # Legal play does not depend on the weights: random ones make for varied games.
    others = ["heuristic", "greedy", "random", "lookahead", "learned"]
    for i, sheet in enumerate(SHEETS):
        for players in range(2, 7):
            path = tmp_path / f"{sheet}-{players}.npz"
            _random_weights(path, sheet, players, i * 10 + players)
            lineup = ["learned"] + [others[(i + s) % len(others)] for s in range(1, players)]
            lineup = [f"learned:weights={path}" if s == "learned" else s for s in lineup]
            check_game_log(sim.play_game(7, i * 10 + players, lineup, sheet=sheet), sheet)


@pytest.mark.parametrize("sheet_name", SHEETS)
def test_shipped_table_weights(sheet_name):
    """Every built-in sheet ships weights for 2-6 players, picked by `learned` alone."""
    sheet = load_sheet(sheet_name)
    for players in range(2, 7):
        with importlib.resources.as_file(L.shipped_file(sheet, players)) as path:
            w = L.read_weights(path, sheet, players)
        assert w.shape == (TF.N_STAGES, L.N_ROW_TABLE) and np.isfinite(w).all() and np.abs(w).sum() > 0
        chunk = play_chunk(3, 0, 12, ["learned"], players=players, sheet=sheet_name)
        assert not chunk.games[:, engine.GR_ERROR].any()


def test_a_sheet_without_table_weights_says_how_to_train_them(tmp_path):
    sheet = tmp_path / "mine.txt"
    sheet.write_text(subprocess.run([sys.executable, sheetgen.__file__, "--seed", "5"],
                                    capture_output=True, text=True, check=True).stdout)
    r = invoke("run", "-n", "2", "-p", "4", "-s", "learned", "--sheet", str(sheet), "--out", str(tmp_path / "out"))
    assert r.exit_code == 2
    store = os.environ["ENCORE_SIM_WEIGHTS"]
    assert r.output.strip().splitlines() == [
        f"Error: `learned` has no weights for 4 players on sheet 'mine', shipped or in the weights store ({store}): "
        f"add --train to train them now, or train them with `encore-sim train --sheet {sheet} --players 4`"]
    assert not (tmp_path / "out").exists()


def test_weights_for_another_game_are_refused(tmp_path):
    solo = tmp_path / "solo.npz"
    _random_weights(solo, "standard", 1, 1)
    with pytest.raises(ValueError, match="trained for the solo game, not for 4 players"):
        play_chunk(1, 0, 2, [f"learned:weights={solo}"], players=4)
    four = tmp_path / "four.npz"
    _random_weights(four, "standard", 4, 1)
    with pytest.raises(ValueError, match="trained for 4 players, not for the solo game"):
        play_chunk(1, 0, 2, [f"learned:weights={four}"], players=1)
    with pytest.raises(ValueError, match="trained for 4 players, not for 3 players"):
        play_chunk(1, 0, 2, [f"learned:weights={four}", "greedy", "greedy"], players=3)


def test_table_training_is_deterministic_and_learns(tmp_path):
    """A tiny run (a few batches) gives the same weights on 1 and 2 threads, and already wins
    more often against heuristic than the untrained (zero) weights, on dice it never saw."""
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    TR.train_file(a, players=2, games=3072, seed=5, threads=1)
    TR.train_file(b, players=2, games=3072, seed=5, threads=2)
    wa = L.read_weights(a, players=2)
    assert np.array_equal(wa, L.read_weights(b, players=2)) and np.abs(wa).sum() > 0
    zero = tmp_path / "zero.npz"
    L.save_weights(zero, np.zeros(L.weights_shape(2)), load_sheet("standard"), 0, 0, 2)

    def wins(path):
        chunk = play_chunk(99, 0, 600, [f"learned:weights={path}", "heuristic"], players=2, rotate=True)
        seat = chunk.slots == 0
        return chunk.seats[:, :, PS_WINNER][seat].mean()
    assert wins(a) > wins(zero) + 0.05, (wins(a), wins(zero))
    # Continued with a tiny step, the weights stay those of the file they started from.
    TR.train_file(b, players=2, games=512, seed=6, threads=1, init=a, step=(1e-9, 1e-9))
    assert np.abs(L.read_weights(b, players=2) - wa).max() < 1e-3


def test_dice_left_worth_is_the_most_boxes_the_others_can_cross():
    """Dice denial's measure, against the Python API's legal placements: per other seat, the
    largest number shown that some colour shown can place, averaged over the other seats."""
    rng = np.random.default_rng(4)
    crossed = [["H1", "H2"], ["H3", "H4", "I4"], [], ["H5", "H6", "H7", "G7"]]
    st, ps, bb, tab = _table(4, crossed)
    from sim.runs.api import legal_placements
    for _ in range(40):
        st[ST_DICE:ST_DICE + 6] = list(rng.integers(0, 6, 3)) + list(rng.integers(0, 6, 3))
        avail = int(rng.integers(1, 64))
        want = []
        for s in (1, 2, 3):
            cols = {int(st[ST_DICE + d]) for d in range(3) if avail >> d & 1 and st[ST_DICE + d] < 5}
            nums = {int(st[ST_DICE + 3 + d]) for d in range(3) if avail >> (3 + d) & 1 and st[ST_DICE + 3 + d] > 0}
            best = max([n for c in cols for n in nums
                        if legal_placements(crossed[s], ["green", "yellow", "blue", "red", "orange"][c], n)]
                       or [0])
            want.append(best)
        assert L.dice_left_worth(st, bb, tab, 0, avail) == pytest.approx(sum(want) / 3)
