"""Rollouts of `learned`'s own solo play after each of its best choices (the kernels of
strategies.research.improvement, which explains what they measure).

Rollout dice: rollout n from roll r of game g has the dice of rollout_key(game_key(seed, g), r, n);
the games themselves use the dice of (seed, g) as every run does, so what they give depends on the
arguments only, never on the thread count.

Taxed rollouts: at every roll of a rollout, what the dice it got are worth to learned's value
beyond their average is taken off its score (the best one-ply value of the roll, minus the exact
mean of that best over the 1,296 faces: learned.next_roll_value). The tax has mean 0 whatever
happened before the roll, so a taxed rollout has the untaxed one's expectation; but it takes out
most of the dice's luck (learned's own solo scores, taxed: standard deviation about 1.6 points
instead of 6), so far fewer rollouts tell two choices apart.
"""
import numpy as np
from numba import njit, prange

from sim.engine import SOLO_ROLLS, cross, finish, set_dice, settle_awards
from sim.rng import game_key, mix64
from sim.state import PS_JOKERS, PS_SCORE, ST_ROLL, new_state
from sim.tables import N_GROUPS

from ..features import EXPECT_SIZE
from ..learned import best_row, new_scratch, next_roll_value, rank_placements, row_offset
from ..training.solo import start_solo

#: Apart from the game's dice: a rollout's dice are drawn from keys of their own.
_ROLLOUT_SALT = np.uint64(0x6A09E667F3BCC909)
#: out[..] of a choice that does not exist (fewer than `top` choices at that decision).
ABSENT = -1.0e9


@njit(cache=True, inline="always")
def rollout_key(key, roll, n):
    """The dice key of rollout n from roll `roll` of the game with dice key `key`."""
    return game_key(mix64(key + np.uint64(roll)) ^ _ROLLOUT_SALT, n)


@njit(cache=True)
def _play_out(W, st, ps, bb, tab, sub, cost, roll, key, taxed, lay, sc, se, subs, costs, rewards, qs, reply, val):
    """Make the move (sub, cost) of roll `roll` on these copies, play the rest of the game by
    learned's choice on the dice of `key`, and return the final score, less the dice's tax if
    `taxed` (reply, val: next_roll_value's scratch)."""
    if sub >= 0:
        cross(ps, bb, tab, 0, sub, cost, roll)
    settle_awards(st, ps, bb, tab)
    tax = 0.0
    for r in range(roll + 1, SOLO_ROLLS + 1):
        if taxed:       # before the dice: the mean of the best one-ply value over all faces
            tax -= next_roll_value(W, row_offset(0, SOLO_ROLLS - r), lay, tab, bb, 0, -1, ps[0, PS_JOKERS], sc, se,
                                   reply, val)
        st[ST_ROLL] = r
        set_dice(st, key, r)
        m = rank_placements(W, 0, st, bb, 0, ps[0, PS_JOKERS], tab, lay, sc, se, subs, costs, rewards, qs)
        b = best_row(qs, m)      # learned's own choice (its decision with top=0)
        if taxed:
            tax += qs[b]
        if subs[b] >= 0:
            cross(ps, bb, tab, 0, subs[b], costs[b], r)
        settle_awards(st, ps, bb, tab)
    finish(ps, bb, tab, 1)
    return ps[0, PS_SCORE] - tax


@njit(cache=True, parallel=True)
def rollout_means(W, tab, seed, first, count, top, rollouts, taxed, out, gaps, scores):
    """Games first..first+count-1 of `seed`, played by learned's choice. out[i, roll, k, h]: the
    mean final score (taxed if `taxed`) of the rollouts of half h (h = 0: even-numbered rollouts, 1: odd) after
    learned's k-th best choice at that roll (k = 0: the one it plays), ABSENT where there is no
    such choice, or no decision worth rolling out (one choice only, or the last roll: nothing
    follows it). gaps[i, roll, k]: how much lower learned's value puts that choice than its own
    (q of choice 0 - q of choice k). scores[i]: the game's own final score."""
    half = rollouts // 2
    for i in prange(count):
        st, ps, bb, _ = new_state()
        st2, ps2, bb2, _ = new_state()      # a rollout's copy of the game
        lay, sc, se, subs, costs, rewards, qs = new_scratch(tab)
        lay2, sc2, se2, subs2, costs2, rewards2, qs2 = new_scratch(tab)
        reply = np.empty(N_GROUPS)
        val = np.empty(EXPECT_SIZE)
        key = start_solo(st, ps, bb, tab, seed, first + i)
        out[i] = ABSENT
        for roll in range(1, SOLO_ROLLS + 1):
            st[ST_ROLL] = roll
            set_dice(st, key, roll)
            m = rank_placements(W, 0, st, bb, 0, ps[0, PS_JOKERS], tab, lay, sc, se, subs, costs, rewards, qs)
            order = np.argsort(-qs[:m], kind="mergesort")    # stable: ties as best_row breaks them
            if roll < SOLO_ROLLS and m > 1:
                for k in range(min(top, m)):
                    j = order[k]
                    gaps[i, roll, k] = qs[order[0]] - qs[j]
                    total0 = 0.0
                    total1 = 0.0
                    for n in range(2 * half):
                        st2[:] = st
                        ps2[:] = ps
                        bb2[:] = bb
                        v = _play_out(W, st2, ps2, bb2, tab, subs[j], costs[j], roll, rollout_key(key, roll, n),
                                      taxed, lay2, sc2, se2, subs2, costs2, rewards2, qs2, reply, val)
                        if n & 1:
                            total1 += v
                        else:
                            total0 += v
                    out[i, roll, k, 0] = total0 / half
                    out[i, roll, k, 1] = total1 / half
            j = order[0]
            if subs[j] >= 0:
                cross(ps, bb, tab, 0, subs[j], costs[j], roll)
            settle_awards(st, ps, bb, tab)
        finish(ps, bb, tab, 1)
        scores[i] = ps[0, PS_SCORE]
