"""The skill ladder (sim.experiments.skill): duels on the same dice, both seatings."""
import numpy as np

from sim.experiments.skill import ladder_frame, step_values
from sim.runs.measures import aggregate


def test_two_copies_of_one_strategy_step_nothing():
    frame = ladder_frame(120, ladder=("heuristic", "heuristic"), seed=3)
    row = aggregate(frame).iloc[0]
    assert row["metric"] == "skill_step" and row["who"] == "heuristic>heuristic"
    assert row["ci_low"] <= 0 <= row["ci_high"] and row["value"] == 0


def test_the_stronger_wins_more_and_the_ladder_is_paired_by_game():
    frame = ladder_frame(150, ladder=("random", "greedy", "heuristic"), seed=3, chunk_size=60)
    t = aggregate(frame).set_index("who")
    assert t.loc["greedy>random", "ci_low"] > 0.4          # greedy beats random almost every game
    assert t.loc["heuristic>greedy", "ci_low"] > 0
    # batches of 60 give the games one batch of 150 gives
    assert np.array_equal(frame["skill_step@greedy>random"], step_values("random", "greedy", 3, 0, 150))
