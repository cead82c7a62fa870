"""The `learned` strategy: exact incremental features, shipped weights, legal play, the
training command, and strength against `heuristic` on common dice."""
import hashlib
import importlib.resources

import numpy as np
import pytest

from sim.runs import api as sim
from sim import engine
from sim.runs.api import play_chunk
from sim.state import BB_ALIVE, BB_TOUCH, CAND_COST, CAND_SUB, PS_JOKERS, PS_SCORE, ST_DICE, ST_ROLL, new_state
from sim.sheets import load_sheet
from sim.tables import N_GROUPS, build_tables, kernel_tables
from strategies import REGISTRY
from strategies import learned as L
from sim.training import solo as T
from strategies.features import EXPECT_SIZE
from sim.training import run as TR

from checker import check_game_log

SEED = 20261202
SHEETS = ["standard", "red", "blue", "green", "orange", "yellow"]


def test_registered_with_a_description():
    s = REGISTRY["learned"]
    assert s.description
    assert list(s.params) == ["top", "deny", "close"] and s.file_param == "weights"


@pytest.mark.parametrize("sheet", SHEETS)
def test_shipped_weights_of_every_sheet(sheet):
    sheet_obj = load_sheet(sheet)
    with importlib.resources.as_file(L.shipped_file(sheet_obj)) as path:
        w = L.read_weights(path, sheet_obj)
    assert w.shape == (L.N_T, L.N_FEAT) and w.dtype == np.float32
    assert np.isfinite(w).all()
    assert not w[0].any(), "V after the last roll must be 0"
    assert np.abs(w[1:]).sum() > 0, "the shipped weights are untrained zeros"
    # What the strategy reads after its parameters: the sheet's layout, then these weights, row
    # after row.
    data = L.weights_data(sheet_obj)
    assert np.array_equal(data[:L.LAY_SIZE].view(np.int64), L.sheet_layout(kernel_tables(sheet_obj)))
    assert np.array_equal(data[L.LAY_SIZE:].view(np.float32), w.ravel())


def test_incremental_successor_value_is_exact():
    """successor_value rescoring only what a placement touches must equal the full feature sum,
    and its reward must equal the columns / colour completed plus 2 per star."""
    tab, ktab = build_tables("standard"), kernel_tables("standard")
    rng = np.random.default_rng(5)
    W = rng.normal(size=L.N_T * L.N_FEAT)
    lay = L.sheet_layout(ktab)
    sc, se = np.empty(L.SC_SIZE, np.int64), np.empty(L.SE_SIZE)
    sc2, idx = np.empty(L.SC_SIZE, np.int64), np.empty(L.N_ACTIVE, np.int64)
    checked = 0
    for _ in range(4):
        st, ps, bb, _ = new_state()
        engine.reset(st, ps, bb, ktab, 1, 30)
        while True:
            moves = [k for k in range(len(tab.size))
                     if (int(bb[0, BB_ALIVE + k // 64]) & int(bb[0, BB_TOUCH + k // 64])) >> (k % 64) & 1]
            if not moves:
                break
            o = L.row_offset(0, int(rng.integers(1, 30)))
            lo, hi = bb[0, 0], bb[0, 1]
            base = L.prepare(W, o, lay, lo, hi, sc, se)
            L.sheet_features(lay, lo, hi, sc2, idx)
            assert base == pytest.approx(L.sheet_value(W, o, idx), abs=1e-9)
            for k in moves:
                v, r = L.successor_value(W, o, lay, ktab, sc, se, k, 0)
                lo2, hi2 = lo | tab.mask[k, 0], hi | tab.mask[k, 1]
                L.sheet_features(lay, lo2, hi2, sc2, idx)
                assert v == pytest.approx(L.sheet_value(W, o, idx), abs=1e-9)
                new = engine.full_columns(lo2, hi2) & ~engine.full_columns(lo, hi)
                ref = 2 * tab.stars[k] + sum(int(tab.col_first[c]) for c in range(15) if new >> c & 1)
                m0, m1 = tab.colour_mask[tab.colour[k]]
                if (lo2 & m0) == m0 and (hi2 & m1) == m1:
                    ref += 5
                assert r == ref
                checked += 1
            engine.cross(ps, bb, ktab, 0, moves[rng.integers(len(moves))], 0, 1)
    assert checked > 1000


@pytest.mark.parametrize("spec", ["learned", "learned:top=2", "learned:top=3,close=0.3"])
def test_plays_only_legal_moves(spec):
    # Solo games on every sheet with its shipped weights, checked by the independent checker
    # (tables: tests/strategies/test_table_features.py).
    for i in range(24):
        sheet = SHEETS[i % len(SHEETS)]
        check_game_log(sim.play_game(SEED, i, [spec], sheet=sheet), sheet)


def test_solo_games_are_legal_in_bulk():
    chunk = play_chunk(SEED, 0, 300, ["learned"], players=1)
    assert not chunk.games[:, engine.GR_ERROR].any()


def test_training_is_deterministic_and_learns(tmp_path):
    """A tiny run writes weights that load, are the same for any thread count, and already
    play better than untrained weights (on dice never used in training)."""
    out = tmp_path / "w.npz"
    TR.train_file(out, sheet="blue", games=1500, seed=11, threads=1)
    w = L.read_weights(out, load_sheet("blue"))
    assert w.shape == (L.N_T, L.N_FEAT) and not w[0].any()
    trained = T.evaluate(w, 12, 0, 300, sheet="blue")
    untrained = T.evaluate(T.initial_weights(T.Settings().optimism), 12, 0, 300, sheet="blue")
    assert trained.mean() > untrained.mean() + 3, (trained.mean(), untrained.mean())
    out2 = tmp_path / "w2.npz"
    TR.train_file(out2, sheet="blue", games=1500, seed=11, threads=2)
    assert np.array_equal(w, L.read_weights(out2))
    TR.train_file(out2, sheet="blue", games=1500, seed=12, threads=2)
    assert not np.array_equal(w, L.read_weights(out2))


def test_training_interrupted_writes_nothing(tmp_path, monkeypatch):
    out = tmp_path / "w.npz"

    def stop(*args):
        raise KeyboardInterrupt
    monkeypatch.setattr(T, "learn_batch", stop)
    with pytest.raises(KeyboardInterrupt):
        TR.train_file(out, games=2000, threads=1)
    assert list(tmp_path.iterdir()) == []


def test_training_continues_from_a_weights_file(tmp_path):
    """--init starts from the given weights (with a tiny step they stay put, while the same run
    afresh ends far from them), is deterministic, may write over its own input, records what it
    continued from, and refuses weights of another sheet or game and steps out of range."""
    first = tmp_path / "first.npz"
    TR.train_file(first, games=600, seed=3, threads=1)
    w0 = L.read_weights(first)
    still, fresh = tmp_path / "still.npz", tmp_path / "fresh.npz"
    TR.train_file(still, games=600, seed=4, threads=1, init=first, step=(1e-9, 1e-9))
    TR.train_file(fresh, games=600, seed=4, threads=1, step=(1e-9, 1e-9))
    assert np.abs(L.read_weights(still) - w0).max() < 1e-3
    assert np.abs(L.read_weights(fresh) - w0).max() > 0.1    # optimistic flat weights, not w0
    cont, again = tmp_path / "cont.npz", tmp_path / "again.npz"
    TR.train_file(cont, games=600, seed=4, threads=1, init=first, step=(0.03, 0.003))
    TR.train_file(again, games=600, seed=4, threads=2, init=first, step=(0.03, 0.003))
    w1 = L.read_weights(cont)
    assert np.array_equal(w1, L.read_weights(again)) and np.abs(w1 - w0).max() > 0.01
    with np.load(cont) as f:
        assert str(f["init_sha256"]) == hashlib.sha256(first.read_bytes()).hexdigest()
        assert f["step"].tolist() == [0.03, 0.003] and int(f["games"]) == 600 and int(f["seed"]) == 4
    TR.train_file(first, games=600, seed=4, threads=1, init=first, step=(0.03, 0.003))
    assert np.array_equal(L.read_weights(first), w1)
    with pytest.raises(L.WeightsError, match="trained for sheet 'standard', not for this sheet \\('blue'\\)"):
        TR.train_file(tmp_path / "x.npz", sheet="blue", games=10, init=cont)
    with pytest.raises(L.WeightsError, match="trained for the solo game, not for 2 players"):
        TR.train_file(tmp_path / "x.npz", players=2, games=10, init=cont)
    for step in ((0, 0.1), (0.1, 2), (0.1, float("nan")), (0.1,)):
        with pytest.raises(ValueError, match="step"):
            TR.train_file(tmp_path / "x.npz", games=10, step=step)
    assert not (tmp_path / "x.npz").exists()


def test_weights_file_errors(tmp_path):
    blue, standard = load_sheet("blue"), load_sheet("standard")
    good = tmp_path / "good.npz"
    L.save_weights(good, np.zeros((L.N_T, L.N_FEAT)), standard, 0, 0)
    with pytest.raises(L.WeightsError, match="trained for sheet 'standard', not for this sheet \\('blue'\\)"):
        L.read_weights(good, blue)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(L.WeightsError, match="junk.npz is not a weights file"):
        L.read_weights(tmp_path / "junk.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(L.WeightsError, match="other.npz is not a weights file"):
        L.read_weights(tmp_path / "other.npz")
    truncated = tmp_path / "cut.npz"
    truncated.write_bytes(good.read_bytes()[:2000])
    with pytest.raises(L.WeightsError, match="cut.npz is not a weights file"):
        L.read_weights(truncated)
    with np.load(good) as f:
        fields = dict(f)
    np.savez(tmp_path / "shape.npz", **{**fields, "W": np.zeros((3, 4), np.float32)})
    with pytest.raises(L.WeightsError, match="damaged weights"):
        L.read_weights(tmp_path / "shape.npz")
    with pytest.raises(L.WeightsError, match="does not exist"):
        L.read_weights(tmp_path / "missing.npz")


#: Per sheet, the 95% CI's low bound of learned's lead over heuristic in the test's games (measured:
#: standard 4.13, red 4.71, blue 5.07, green 4.23, orange 4.55, yellow 3.49) less a point.
LEAD_LOW = {"standard": 3.1, "red": 3.7, "blue": 4.0, "green": 3.2, "orange": 3.5, "yellow": 2.4}


def test_beats_heuristic_on_common_dice():
    # 300 paired solo games per sheet on the test's seed. The documented lead is about 5 points
    # (4.2 to 5.7 here): each sheet is held to its own figure, so a regression of 2 points on any fails.
    assert sorted(LEAD_LOW) == sorted(SHEETS)
    for sheet in SHEETS:
        a = play_chunk(SEED, 0, 300, ["learned"], players=1, sheet=sheet).seats[:, 0, PS_SCORE]
        b = play_chunk(SEED, 0, 300, ["heuristic"], players=1, sheet=sheet).seats[:, 0, PS_SCORE]
        diff = (a - b).astype(np.float64)
        low = diff.mean() - 1.96 * diff.std() / np.sqrt(len(diff))
        assert low > LEAD_LOW[sheet], (sheet, a.mean(), b.mean(), low)


def test_weights_file_in_manifest_replay_and_resume(tmp_path, monkeypatch):
    """A run names its weights file like a user's strategy file: path and sha256 in the manifest;
    replay and resume use exactly those weights, from any folder, and refuse changed ones."""
    from sim.runs.replay import check_stored, from_dataset
    from sim.runs.manifest import stored_run_args
    from sim.runs.runner import run
    (tmp_path / "w").mkdir()
    weights = tmp_path / "w" / "mine.npz"
    TR.train_file(weights, games=600, seed=3, threads=1)
    monkeypatch.chdir(tmp_path / "w")
    out = tmp_path / "run"
    spec = "learned:weights=mine.npz"
    m = run(out, games=60, players=1, strategies=[spec], seed=5, chunk_size=20)
    info = m["strategies"][0]
    assert info["spec"] == spec and info["file"] == str(weights)
    assert info["sha256"] == hashlib.sha256(weights.read_bytes()).hexdigest()
    expected = play_chunk(5, 0, 60, [f"learned:weights={weights}"], players=1).seats[:, 0, PS_SCORE]
    assert not np.array_equal(expected, play_chunk(5, 0, 60, ["learned"], players=1).seats[:, 0, PS_SCORE])
    monkeypatch.chdir(tmp_path)          # the spec's relative path no longer leads to the file
    log, _, stored = from_dataset(out, 7)
    assert check_stored(log, stored) is None and log["result"][0]["score"] == expected[7]
    assert run(out, resume=True, **stored_run_args(out))["status"] == "complete"
    TR.train_file(weights, games=600, seed=4, threads=1)
    with pytest.raises(ValueError, match="has changed since the run"):
        from_dataset(out, 7)
    with pytest.raises(ValueError, match="has changed since the run started"):
        run(out, resume=True, **stored_run_args(out))


def _standard_search_kit():
    """The standard sheet's kernel tables, its shipped solo weights (float64) and the scratch of
    a decision and of next_roll_value."""
    ktab = kernel_tables(load_sheet("standard"))
    W = np.asarray(L.weights_array(load_sheet("standard")), np.float64).ravel()
    return ktab, W, L.new_scratch(ktab), (np.empty(N_GROUPS), np.empty(EXPECT_SIZE))


def test_next_roll_value_is_the_mean_best_reply_over_every_face():
    """What `top` adds: next_roll_value after a choice must be the mean, over all 6^4 faces of
    the next roll set one by one on a copy of the game after that choice, of the best row
    rank_placements finds there (passing included; every '!' it can spend)."""
    ktab, W, (lay, sc, se, subs, costs, rewards, qs), (reply, val) = _standard_search_kit()
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
            m = L.rank_placements(W, 0, st, bb, 0, jokers, ktab, lay, sc, se, subs, costs, rewards, qs)
            if roll < stop:
                # Random play spends '!' and passes, so positions with few '!' left are met.
                i = int(rng.integers(m))
                if subs[i] >= 0:
                    engine.cross(ps, bb, ktab, 0, subs[i], costs[i], roll)
                engine.settle_awards(st, ps, bb, ktab)
                continue
            o1 = L.row_offset(0, 30 - roll - 1)
            for i in sorted({0, int(np.argmax(qs[:m])), *rng.integers(m, size=3).tolist()}):
                sub, cost = int(subs[i]), int(costs[i])
                got = L.next_roll_value(W, o1, lay, ktab, bb, 0, sub, jokers - cost, sc, se, reply, val)
                st2, ps2, bb2 = st.copy(), ps.copy(), bb.copy()
                if sub >= 0:
                    engine.cross(ps2, bb2, ktab, 0, sub, cost, roll)
                engine.settle_awards(st2, ps2, bb2, ktab)
                st2[ST_ROLL] = roll + 1
                lay2, sc2, se2, subs2, costs2, rewards2, qs2 = L.new_scratch(ktab)
                total = 0.0
                for c0, c1, n0, n1 in np.ndindex(6, 6, 6, 6):
                    st2[ST_DICE:ST_DICE + 6] = (c0, c1, -1, n0, n1, -1)
                    m2 = L.rank_placements(W, 0, st2, bb2, 0, int(ps2[0, PS_JOKERS]), ktab, lay2, sc2, se2,
                                           subs2, costs2, rewards2, qs2)
                    total += qs2[:m2].max()
                assert got == pytest.approx(total / 6 ** 4, abs=1e-9), (game, roll, sub, cost)
                checked += 1
    assert checked >= 12


def test_search_weighs_the_top_choices_and_only_the_close_calls():
    """decide_solo with `top` and `close`: among the `top` best rows by one-ply value, those
    within `close` points of the best (all of them for close = 0) go to the exact next-roll
    expectation, which picks (the first on ties); with one row left, the one-ply best is played
    unsearched. Checked against that rule computed here on positions of random play."""
    ktab, W, (lay, sc, se, subs, costs, rewards, qs), (reply, val) = _standard_search_kit()
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
            m = L.rank_placements(W, 0, st, bb, 0, jokers, ktab, lay, sc, se, subs, costs, rewards, qs)
            q, sub, cost, reward = qs[:m].copy(), subs[:m].copy(), costs[:m].copy(), rewards[:m].copy()
            order = sorted(range(m), key=lambda i: -q[i])          # stable: the first on ties
            o1 = L.row_offset(0, 30 - roll - 1)
            for top, close in [(2, 0.0), (3, 0.0), (2, 0.25), (5, 0.5), (4, 1e9)]:
                pool = [i for i in order[:top] if close == 0.0 or q[i] >= q[order[0]] - close]
                want = order[0]
                if len(pool) > 1:
                    e = [reward[i] - cost[i] + L.next_roll_value(W, o1, lay, ktab, bb, 0, int(sub[i]),
                                                                 jokers - int(cost[i]), sc, se, reply, val)
                         for i in pool]
                    want = pool[int(np.argmax(e))]
                    if want != order[0]:
                        kinds["searched, not the one-ply best"] += 1
                elif m > 1:
                    kinds["unsearched"] += 1
                k = L.decide_solo(W, 0, st, ps, bb, cands, n, ktab, top, close, lay, sc, se, subs, costs, rewards, qs)
                got = (-1, 0) if k < 0 else (int(cands[k, CAND_SUB]), int(cands[k, CAND_COST]))
                assert got == (int(sub[want]), int(cost[want])), (game, roll, top, close)
            i = int(rng.integers(m)) if rng.random() < 0.3 else order[0]
            if sub[i] >= 0:
                engine.cross(ps, bb, ktab, 0, int(sub[i]), int(cost[i]), roll)
            engine.settle_awards(st, ps, bb, ktab)
    assert min(kinds.values()) >= 20, kinds


def test_solo_games_name_their_placement_and_play_as_through_the_candidate_table():
    """Solo, learned names its placement (Strategy.solo_placer, run as PLAYER_PLACE: no candidate
    table); played instead as any built-in (PLAYER_CALL, a row of the table), every game, score
    and logged move is the same, on two sheets and with the search of `top`. A placer that names
    a choice the dice do not offer stops the run with StrategyError."""
    import dataclasses

    from numba import njit

    from sim import players
    from sim.state import DECIDE_SIG

    for spec, sheet, games in (("learned", "standard", 300), ("learned", "green", 200),
                               ("learned:top=2,close=0.25", "standard", 40)):
        line = sim.lineup([spec], sheet=sheet)
        assert line.kinds[0] == players.PLAYER_PLACE
        via_table = dataclasses.replace(line, fns=(REGISTRY["learned"].fn,) * len(line.fns),
                                        kinds=np.where(np.arange(len(line.kinds)) < len(line.fns), players.PLAYER_CALL,
                                                       line.kinds))
        a = play_chunk(SEED, 3, games, line, sheet=sheet, log_turns=True)
        b = play_chunk(SEED, 3, games, via_table, sheet=sheet, log_turns=True)
        for field in ("games", "seats", "dice", "log"):
            assert np.array_equal(getattr(a, field), getattr(b, field)), (spec, sheet, field)
    assert sim.lineup(["learned"], players=2).kinds[0] == players.PLAYER_CALL   # tables: the candidate table

    @njit(DECIDE_SIG)
    def three_jokers(st, ps, bb, cands, n, tab, params, rng):
        return players.placement_code(0, 3)   # no placement costs three '!'

    line = sim.lineup(["learned"])
    bad = dataclasses.replace(line, fns=(three_jokers,) * len(line.fns))
    chunk = play_chunk(SEED, 0, 2, bad)
    with pytest.raises(sim.StrategyError, match="returned 3"):
        sim.check_chunk(chunk)
