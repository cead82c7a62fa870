"""The win model of the trace: its fit recovers what made the data, it ships for the shipped
weights, and its chances are calibrated on games it was not fitted on."""
import numpy as np
import pytest

from sim.runs.trace import calibration, model_for
from sim.runs.winmodel import EDGES, WinModel, bucket, features, fit_rows


def _synthetic(coef, rows=40_000, seats=3, seed=1):
    """Trace-like rows whose winners are drawn from the model with coefficients `coef` (all buckets)."""
    rng = np.random.default_rng(seed)
    points = rng.integers(-20, 30, (rows, seats)).astype(float)
    value = rng.normal(0, 6, (rows, seats))
    end = np.full((rows, seats), 11)
    roll = rng.integers(1, 40, rows)
    p = WinModel(seats, np.tile(coef, (len(EDGES), 1)), np.zeros((len(EDGES), 3))).win_prob(points, value, end, roll)
    winner = (rng.random(rows)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    share = np.eye(seats)[winner]
    final = points + 2.0 + 0.5 * value + rng.normal(0, 1, (rows, seats))
    return points, value, end, roll, share, final


def test_the_fit_recovers_the_coefficients_that_drew_the_winners():
    true = np.array([0.3, -0.05, 0.4, 0.1])
    m = fit_rows(*_synthetic(true), players=3)
    k = int(bucket(np.full((1, 3), 11))[0])
    assert np.allclose(m.win[k], true, atol=0.06), m.win[k]
    assert np.allclose(m.score[k], [2.0, 0.5, 0.0], atol=0.05), m.score[k]
    # Buckets without rows take the nearest fitted bucket's coefficients.
    assert np.array_equal(m.win[0], m.win[k]) and np.array_equal(m.win[-1], m.win[k])


def test_chances_sum_to_one_and_favour_the_larger_margin():
    m = WinModel(2, np.tile([0.3, 0.0, 0.0, 0.0], (len(EDGES), 1)), np.zeros((len(EDGES), 3)))
    p = m.win_prob(np.array([[0.0, 0.0], [5.0, 0.0]]), np.zeros((2, 2)), np.full((2, 2), 20), np.array([2, 2]))
    assert np.allclose(p.sum(axis=1), 1) and p[0, 0] == pytest.approx(0.5) and p[1, 0] > 0.8
    X = features(np.array([[1.0, 2.0, 3.0]]), np.zeros((1, 3)), np.array([4]))
    assert X[0, :, 2].tolist() == [0, 1, 0]            # seat 1 is active in roll 5
    assert X[0, :, 3].tolist() == [0, 0, 1]            # only the leader leads its best rival


def test_the_shipped_models_are_those_of_the_shipped_weights():
    assert model_for("standard", 1) is None           # solo: learned's value is the expected score
    for players in (2, 4, 6):
        m = model_for("standard", players, fit_missing=False)
        assert m is not None and m.players == players and m.games >= 1000


def test_calibrated_on_unseen_games():
    # Every decile of the predicted chances within 3 points of the observed win rate, beyond the
    # sampling noise of a small test (docs/trace.md has the table at full size).
    cal = calibration("standard", 2, games=600)
    seen = cal[cal["rows"] >= 200]
    assert len(seen) >= 8
    gap = (seen["predicted"] - seen["observed"]).abs()
    assert (gap <= 3 + seen["ci"]).all(), cal


def test_weights_of_the_store_get_a_model_fitted_on_first_use_and_kept(tmp_path, monkeypatch):
    from sim.runs import trace
    monkeypatch.setenv("ENCORE_SIM_WEIGHTS", str(tmp_path))
    # The standard sheet's 2-player weights, as if they were the user's (trained with --train).
    monkeypatch.setattr(trace, "weights_file", lambda sheet, players, rules: (tmp_path / "w.npz", "yours"))
    said = []
    m = model_for("standard", 2, games=300, say=said.append)
    assert m.games == 300 and len(said) == 1 and "Fitting the win model" in said[0]
    assert (tmp_path / "learned-standard-2p.winmodel.json").is_file()

    def refit(*args, **kwargs):
        raise AssertionError("fitted again")
    monkeypatch.setattr(trace, "fit_model", refit)
    kept = model_for("standard", 2)
    assert np.array_equal(kept.win, m.win) and kept.weights == m.weights
