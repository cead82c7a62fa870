"""Solo training (sim.training.solo): optimistic flat weights to start from, a run whose weights
depend on its arguments alone, and learned's scores with any weights evaluated on given games."""
import numpy as np
import pytest

from sim.runs.api import play_chunk
from sim.state import PS_SCORE
from sim.training.solo import BATCH, Settings, evaluate, initial_weights, train
from strategies.learned import N_ACTIVE, N_FEAT, N_T, read_weights, weights_file
from sim.sheets import load_sheet


def test_flat_weights_value_each_roll_to_come_at_the_optimism():
    W = initial_weights(2.0).reshape(N_T, N_FEAT)
    assert np.allclose(W, 2.0 * np.arange(N_T)[:, None] / N_ACTIVE)
    # N_ACTIVE features are on in a sheet: t rolls to come are worth optimism * t points
    assert W[10, :N_ACTIVE].sum() == pytest.approx(20.0)


def test_a_run_depends_on_its_arguments_alone_and_reports_each_batch():
    seen = []
    games = BATCH + 40
    W = train("blue", games=games, seed=5, threads=1, progress=lambda done, mean: seen.append((done, mean)))
    assert W.shape == (N_T, N_FEAT) and W.dtype == np.float32
    assert [d for d, _ in seen] == [BATCH, games] and all(-40 < m < 80 for _, m in seen)
    assert np.array_equal(W, train("blue", games=games, seed=5, threads=2))
    assert not np.array_equal(W, train("blue", games=games, seed=6, threads=1))
    start = initial_weights(Settings().optimism)
    assert np.array_equal(train("blue", games=games, seed=5, threads=1, init=start), W)    # afresh = from these


def test_evaluate_scores_learned_s_games_as_run_plays_them():
    sheet = load_sheet("standard")
    path, _ = weights_file(sheet, 1)
    W = read_weights(path, sheet)
    scores = evaluate(W, 3, 10, 40)
    assert np.array_equal(scores, play_chunk(3, 10, 40, ["learned"], players=1).seats[:, 0, PS_SCORE])   # top 0, close 0
