"""One step of policy improvement over `learned` (sim.research.improvement): its games are learned's
own, its rollouts estimate what they should, its two estimates are computed as documented, and
nothing depends on the thread count."""
import numba
import numpy as np
import pytest
from sim.runs.api import play_chunk
from sim.state import PS_SCORE
from sim.research.improvement import gains, measure
from sim.research.rollouts import ABSENT

SEED = 20261204


@pytest.fixture(scope="module")
def measured():
    return measure(games=6, seed=SEED, rollouts=40, top=3, threads=1)


def test_the_games_are_learneds_own(measured):
    own = play_chunk(SEED, 0, 6, ["learned"], players=1).seats[:, 0, PS_SCORE]
    assert np.array_equal(measured.scores, own)


def test_no_decision_after_the_last_roll_and_absent_choices_marked(measured):
    m = measured.means
    assert (m[:, 0] == ABSENT).all() and (m[:, 30] == ABSENT).all()
    rolled = m[:, 1:30, 1, 0] > ABSENT / 2
    assert rolled.mean() > 0.8      # almost every roll offers two choices or more
    present = m[:, 1:30] > ABSENT / 2
    # a choice k is rolled out only if the better ones are
    assert (present[:, :, 1:] <= present[:, :, :-1]).all()
    # the choices come in learned's order: its value puts each no higher than the one before
    g = measured.gaps[:, 1:30]
    assert (np.where(present[..., 0], np.diff(g, prepend=0.0, axis=-1), 0.0) >= 0).all()
    assert (g[:, :, 0] == 0).all()
    # the two halves roll different dice (and not the game's own)
    assert (m[:, 1:29, 0, 0] != m[:, 1:29, 0, 1]).mean() > 0.5


def test_the_same_whatever_the_threads(measured):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    again = measure(games=6, seed=SEED, rollouts=40, top=3, threads=2)
    assert np.array_equal(again.means, measured.means)


def test_rollouts_of_the_played_choice_average_to_learneds_score():
    """After roll 1, rollouts of learned's own choice are learned's games from there on: over many
    games their mean is learned's mean score (a wrong state, dice or policy in the rollouts moves it)."""
    h = measure(games=40, seed=SEED + 1, rollouts=60, top=2)
    first = h.means[:, 1, 0, :].mean(axis=1)
    reference = play_chunk(SEED + 2, 0, 4000, ["learned"], players=1).seats[:, 0, PS_SCORE].astype(float)
    se = np.hypot(first.std(ddof=1) / np.sqrt(len(first)), reference.std(ddof=1) / np.sqrt(len(reference)))
    assert abs(first.mean() - reference.mean()) < 4 * se


def test_gains_pick_by_one_half_and_score_by_the_other():
    means = np.full((1, 31, 3, 2), ABSENT)
    means[0, 5] = [[20.0, 21.0], [23.0, 20.0], [22.0, 24.0]]   # half A prefers choice 1, half B choice 2
    means[0, 6] = [[30.0, 30.0], [29.0, 29.0], [ABSENT, ABSENT]]  # learned's choice is best; choice 2 absent
    low, high = gains(means)
    # A picks 1, B scores it 20 - 21 = -1; B picks 2, A scores it 22 - 20 = +2: mean +0.5
    assert low[0, 5] == pytest.approx(0.5)
    # pooled means 20.5, 21.5, 23.0: best 23.0 - 20.5
    assert high[0, 5] == pytest.approx(2.5)
    assert low[0, 6] == 0.0 and high[0, 6] == 0.0
    assert (low[0, :5] == 0).all() and (high[0, 7:] == 0).all()


def test_report_states_both_estimates(measured):
    text = measured.report()
    low, high = gains(measured.means)
    assert f"{low.sum(axis=1).mean():+6.2f}" in text and f"{high.sum(axis=1).mean():+6.2f}" in text
    assert f"{measured.scores.mean():6.2f}" in text


def test_the_tax_keeps_each_expectation_and_takes_out_most_of_the_noise():
    """Taxed and untaxed rollouts of the same choices on the same dice: the tax has mean 0 (a
    tax that knew the dice, or a wrong expectation, would shift the taxed means), and the two
    halves of the taxed rollouts agree far more closely."""
    kw = dict(games=8, seed=SEED + 3, rollouts=40, top=2, threads=1)
    taxed, plain = measure(**kw), measure(**kw, taxed=False)
    assert np.array_equal(taxed.scores, plain.scores) and taxed.taxed and not plain.taxed
    ok = taxed.means > ABSENT / 2
    assert np.array_equal(ok, plain.means > ABSENT / 2)
    # Per decision and half, learned's own choice: minus the mean tax of independent rollouts.
    diff = (taxed.means - plain.means)[..., 0, :][ok[..., 0, :]]
    assert abs(diff.mean()) < 4 * diff.std(ddof=1) / np.sqrt(diff.size)
    halves = [(h.means[..., 0] - h.means[..., 1])[ok[..., 0]] for h in (taxed, plain)]
    assert halves[0].std() < 0.5 * halves[1].std()
    assert "40 taxed rollouts each" in taxed.report() and "40 rollouts each" in plain.report()
