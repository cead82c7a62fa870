"""Table training (sim.training.table): each batch half self-play, half the learner against the
built-ins, its win rate reported; the weights depend on the arguments alone. How well they play:
tests/strategies/test_table_features.py."""
import numpy as np
import pytest

from sim.training.run import table_lineup
from sim.training.table import BATCH, train_table
from strategies.learned import N_ROW_TABLE
from strategies.table_features import N_STAGES


@pytest.fixture(scope="module")
def lineup():
    return table_lineup()


def trained(lineup, games, seed=3, **kw):
    seen = []
    fns, kinds, params = lineup
    W = train_table((fns, kinds, params.copy()), "standard", 2, games, seed,
                    progress=lambda done, wins: seen.append((done, wins)), **kw)
    return W, seen


def test_a_batch_reports_the_learner_s_wins_against_the_built_ins(lineup):
    W, seen = trained(lineup, BATCH // 2 + 20)
    assert W.shape == (N_STAGES, N_ROW_TABLE) and W.dtype == np.float32 and W.any()
    ((done, wins),) = seen
    assert done == BATCH // 2 + 20 and wins in {k / 20 for k in range(21)}
    _, alone = trained(lineup, 40)          # a batch of self-play alone: no win rate
    assert alone == [(40, None)]


def test_the_weights_depend_on_the_arguments_alone(lineup):
    W, _ = trained(lineup, 60)
    assert np.array_equal(W, trained(lineup, 60)[0])
    assert not np.array_equal(W, trained(lineup, 60, seed=4)[0])
    still, _ = trained(lineup, 60, init=W, alpha=1e-9, alpha_end=1e-9)
    assert np.abs(still - W).max() < 1e-4
