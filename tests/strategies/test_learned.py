"""The `learned` strategy: legal play, the training command, a weights file through a run, and
strength against `heuristic` on common dice (its value kernels, decisions and weights files:
test_learned_value.py, test_learned_decisions.py, test_learned_weights.py)."""
import hashlib

import numpy as np
import pytest

from sim.runs import api as sim
from sim import engine
from sim.runs.api import play_chunk
from sim.state import PS_SCORE
from sim.sheets import load_sheet
from strategies import REGISTRY
from strategies import learned as L
from sim.training import solo as T
from sim.training import run as TR

from checker import check_game_log

SEED = 20261202
SHEETS = ["standard", "red", "blue", "green", "orange", "yellow"]


def test_registered_with_a_description():
    s = REGISTRY["learned"]
    assert s.description
    assert list(s.params) == ["top", "deny", "close"] and s.file_param == "weights"


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
