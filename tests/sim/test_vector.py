"""sim/vector.py: the one container of stepped games (Rows) and its kernels, through its own face:
skip_forced takes the decisions whose only legal action is pass inside the step, and the games,
their scores and the rewards' sums are those without it (and `run`'s), with fewer decisions."""
import numpy as np
import pytest

from sim import vector
from sim.runs.api import play_chunk
from sim.runs.game import outside_lineup
from sim.state import PS_SCORE
from sim.step import SP_SEAT
from sim.tables import build_tables, kernel_tables

GAMES = 8


def greedy_rows(players, skip_forced):
    """GAMES games of seed 5, seat 0 decided outside by greedy (sim.vector.greedy_actions), the others
    by greedy: (final scores, decisions seen, each row's sum of rewards, whether a decision seen had
    pass as its only legal action)."""
    line = outside_lineup([None] + ["greedy"] * (players - 1))
    k = len(build_tables(line.sheet, line.rules).size)
    b, a = vector.new_rows(GAMES, line.fns, line.kinds, line.params, kernel_tables(line.sheet, line.rules), k,
                           players, 100, root=5, autoreset=vector.AUTORESET_DISABLED, skip_forced=skip_forced)
    reset, step, _ = vector.compiled()
    assert reset(b, np.ones(GAMES, np.int8), np.arange(GAMES, dtype=np.int64)) == vector.OK
    actions = np.empty(GAMES, np.int64)
    decisions, rewards, forced_seen = 0, np.zeros(GAMES), False
    while not a["wait"].all():
        deciding = a["sp"][:, SP_SEAT] >= 0
        decisions += int(deciding.sum())
        forced_seen |= bool((~a["obs"]["action_mask"][deciding, :k].any(axis=1)).any())
        vector.greedy_actions(b, actions)
        assert step(b, actions) == vector.OK
        rewards += a["reward"]
    return a["final_scores"][:, :players].copy(), decisions, rewards, forced_seen


@pytest.mark.parametrize("players", [1, 4])
def test_skip_forced_plays_the_same_games_with_fewer_decisions(players):
    scores, decisions, rewards, forced = greedy_rows(players, False)
    skipped_scores, skipped_decisions, skipped_rewards, skipped_forced = greedy_rows(players, True)
    run = play_chunk(5, 0, GAMES, ["greedy"] * players, players=players, rotate=False)
    assert np.array_equal(scores, run.seats[:, :, PS_SCORE])
    assert np.array_equal(skipped_scores, scores)
    assert np.array_equal(skipped_rewards, rewards)     # a skipped decision's reward comes with the next
    assert not skipped_forced
    if forced:
        assert skipped_decisions < decisions
    else:
        assert skipped_decisions == decisions
    if players > 1:
        assert forced     # at a table a passive seat is often left nothing it may cross
