"""Rollouts (sim.research.rollouts): each choice judged is followed by learned's play on dice of
their own, the k-th rollout of every choice on the same dice, so that the loss by rollouts compares
the choices and not their luck."""
import numpy as np
import pytest

from sim.engine import LOG_COST, LOG_ROLL, LOG_SUB, SOLO_ROLLS, end_of_game, solo_move, start_roll
from sim.research.analyse import judged
from sim.research.decisions import before_each
from sim.research.rollouts import J_BEST_COST, J_BEST_SUB, J_ROLLED, J_SIZE, judge_solo, play_out, rollout_key
from sim.rng import game_key
from sim.runs.api import play_chunk
from sim.runs.runner import run
from sim.state import PS_JOKERS, PS_SCORE
from sim.tables import N_GROUPS
from strategies.features import EXPECT_SIZE
from strategies.learned import best_row, new_scratch, rank_placements

rollout_key_py = rollout_key.py_func


@pytest.fixture(scope="module")
def heuristic(tmp_path_factory):
    """Three of heuristic's solo games: it often plays otherwise than learned."""
    out = tmp_path_factory.mktemp("rollouts") / "heuristic"
    run(out, games=3, players=1, strategies=["heuristic"], seed=3407)
    return out


def test_each_rollout_of_each_roll_has_dice_of_its_own():
    key = np.uint64(game_key(np.uint64(3407), np.int64(2)))
    keys = {int(rollout_key_py(key, roll, n)) for roll in range(1, 31) for n in range(8)}
    assert len(keys) == 30 * 8 and int(key) not in keys
    assert rollout_key_py(key, 5, 3) == rollout_key_py(np.uint64(int(key)), 5, 3) == rollout_key(key, 5, 3)
    other = np.uint64(game_key(np.uint64(3407), np.int64(3)))
    assert not keys & {int(rollout_key_py(other, roll, n)) for roll in range(1, 31) for n in range(8)}


def _played_out(j, st, ps, bb, roll, sub, cost, dice):
    """learned's final score, untaxed, after (sub, cost) at `roll` and the rest of the game played
    by its choice on the dice of key `dice`: made here from the engine's turn kernel, roll by roll,
    not by the judge's own playout (rollouts.play_out), so the dice of every roll are known to be
    start_roll's on that key."""
    st, ps, bb = st.copy(), ps.copy(), bb.copy()
    scratch = new_scratch(j.tab)
    subs, costs, qs = scratch[3], scratch[4], scratch[6]
    solo_move(st, ps, bb, j.tab, sub, cost, roll)
    for r in range(roll + 1, SOLO_ROLLS + 1):
        start_roll(st, dice, r, 1)
        b = best_row(qs, rank_placements(j.W, 0, st, bb, 0, ps[0, PS_JOKERS], j.tab, scratch))
        solo_move(st, ps, bb, j.tab, subs[b], costs[b], r)
    end_of_game(ps, bb, j.tab, 1)
    return int(ps[0, PS_SCORE])


def test_rollouts_give_both_choices_the_same_dice_exactly(heuristic):
    """judge_solo's promise: where the choice made is not learned's, the n-th rollout of each is
    played on the dice of rollout_key(key, roll, n), n < N, and the loss is the mean of their
    difference. Checked to the last bit at every such decision of three of heuristic's games
    (a statistical check could not see the extra noise of other dice for one choice: it has mean
    0). Untaxed, the rollouts' scores are integers, so the figure is exact whatever the order of
    the sums, and each playout is made here from the engine's turn kernel; taxed (as analyse
    judges), each is the judge's own playout run here on the same key for both choices."""
    j = judged(heuristic)
    seed, games, rollouts = j.settings.seed, 3, 4
    chunk = play_chunk(seed, 0, games, j.line, players=1, sheet=j.sheet, log_turns=True)
    log = chunk.log
    untaxed, taxed = np.empty((len(log), J_SIZE)), np.empty((len(log), J_SIZE))
    for out, tax in ((untaxed, False), (taxed, True)):
        judge_solo(j.W, j.tab, np.uint64(seed), np.arange(games, dtype=np.int64), log, rollouts, tax, out,
                   np.empty(games, np.int64))
    scratch, reply, val = new_scratch(j.tab), np.empty(N_GROUPS), np.empty(EXPECT_SIZE)

    def taxed_playout(st, ps, bb, roll, sub, cost, dice):
        st, ps, bb = st.copy(), ps.copy(), bb.copy()
        return play_out(j.W, (st, ps, bb), j.tab, (sub, cost), roll, dice, True, scratch, (reply, val))

    judged_here = told_apart = 0
    for g in range(games):
        key = np.uint64(game_key(np.uint64(seed), np.int64(g)))
        first = chunk.log_start[g]
        for r, st, ps, bb in before_each(j.tab, seed, g, 1, j.settings.max_rolls, log[first:chunk.log_start[g + 1]]):
            row = first + r
            roll = int(log[row, LOG_ROLL])
            best = int(untaxed[row, J_BEST_SUB]), int(untaxed[row, J_BEST_COST])
            made = int(log[row, LOG_SUB]), int(log[row, LOG_COST])
            if made[0] == best[0] and (made[0] < 0 or made[1] == best[1]):
                assert untaxed[row, J_ROLLED] == taxed[row, J_ROLLED] == 0
                continue
            n_out = rollouts if roll < SOLO_ROLLS else 1      # the last roll: nothing after it, one is exact
            dice = [np.uint64(rollout_key(key, roll, n)) for n in range(n_out)]
            mine = [_played_out(j, st, ps, bb, roll, *best, d) for d in dice]
            theirs = [_played_out(j, st, ps, bb, roll, *made, d) for d in dice]
            assert untaxed[row, J_ROLLED] == (sum(mine) - sum(theirs)) / n_out, (g, roll)
            total = 0.0     # in the judge's order, so that the floats are the same to the bit
            for d in dice:
                total += taxed_playout(st, ps, bb, roll, *best, d)
                total -= taxed_playout(st, ps, bb, roll, *made, d)
            assert taxed[row, J_ROLLED] == total / n_out, (g, roll)
            if roll < SOLO_ROLLS:
                # The check tells dice apart: on the next N rollouts' dice the choice made scores otherwise.
                other = [_played_out(j, st, ps, bb, roll, *made, np.uint64(rollout_key(key, roll, n_out + n)))
                         for n in range(n_out)]
                judged_here += 1
                told_apart += sum(other) != sum(theirs)
    print(f"{judged_here} decisions rolled out, {told_apart} of them scored otherwise on other dice")
    assert judged_here >= 20 and told_apart >= judged_here // 2
