"""Sweeps (sim.experiments.sweep): a range's points, paired against the first, ranked."""
import numpy as np
import pandas as pd
import pytest

from sim.errors import SettingError
from sim.experiments.rulescompare import compare_rules
from sim.experiments.sweep import pareto, ranked


@pytest.fixture(scope="module")
def sweep():
    r = compare_rules("greedy", "jokers=6..9", games=120, players=2, seed=8, check_adaptation=False, measures=True)
    return ranked(r, by="rolls", versus="margin")


def test_a_sweep_of_four_points_is_four_comparisons_with_the_first(sweep):
    assert sweep.labels == ["jokers=6", "jokers=7", "rulebook", "jokers=9"]
    for b in sweep.labels[1:]:
        alone = compare_rules("greedy", ["jokers=6", b], games=120, players=2, seed=8, check_adaptation=False)
        mine = sweep.table[sweep.table["rules_b"] == b].reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, alone.table)


def test_the_ranking_sorts_the_points_and_marks_the_front(sweep):
    t = sweep.ranking
    assert t["rolls"].is_monotonic_increasing and sorted(t["rules"]) == sorted(sweep.labels)
    for _, row in t.iterrows():
        if row["rules"] != "jokers=6":
            assert row["rolls"] == pytest.approx(sweep.row("rolls", rules=row["rules"])["mean_b"])
    better = [(t["rolls"] < r["rolls"]) & (t["margin"] > r["margin"]) for _, r in t.iterrows()]
    assert t["pareto"].tolist() == [not b.any() for b in better]
    assert pareto(np.array([1, 2, 3]), np.array([1, 3, 2])).tolist() == [True, True, False]


def test_bad_sweeps_are_refused_before_playing():
    import encore_sim as es
    with pytest.raises(SettingError, match="at most"):
        compare_rules("greedy", "jokers=0..30,star-penalty=0..20", games=10, players=2)
    with pytest.raises(SettingError, match="cannot rank by"):
        es.compare_rules("jokers=6..7", games=10, players=2, by="nothing")
