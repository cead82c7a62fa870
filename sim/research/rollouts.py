"""Rollouts of `learned`'s own solo play after each of its best choices (the kernels of
sim.research.improvement, which explains what they measure).

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
from numba import njit, types

from sim.engine import (
    LOG_AVAIL, LOG_CDIE, LOG_COST, LOG_NDIE, LOG_SUB, active_move, end_of_game, end_of_roll, passive_moves,
    reset, solo_move, start_roll,
)
from sim.nbinternals import as_any, compiled_for
from sim.rng import game_key, mix64
from sim.state import (
    PS_JOKERS, PS_SCORE, ST_AVAIL, ST_IS_ACTIVE, ST_SEAT, copy_game, new_state,
)
from sim.tables import N_GROUPS, TablesType
from sim.threads import over_threads

from strategies.advice import solo_value_of, table_value_of
from strategies.features import EXPECT_SIZE
from strategies.learned import (
    N_ROW_TABLE, best_row, new_scratch, next_roll_value, ranked, ranked_table, row_offset, shared_scratch, solo_row,
    solo_rolls,
)
from strategies.table_features import TC_SIZE, TE_SIZE, stage
from ..training.solo import start_solo

#: Typed as the strategies' own calls type them (sim.nbinternals.as_any: learned's ranking is
#: compiled once, for the strategies' argument types): the seat and "passing" (no placement).
SEAT0 = np.int64(0)
PASSING = np.int64(-1)
#: Apart from the game's dice: a rollout's dice are drawn from keys of their own.
_ROLLOUT_SALT = np.uint64(0x6A09E667F3BCC909)
#: out[..] of a choice that does not exist (fewer than `top` choices at that decision).
ABSENT = -1.0e9


@njit(cache=True, inline="always")
def rollout_key(key, roll, n):
    """The dice key of rollout n from roll `roll` of the game with dice key `key`."""
    return game_key(mix64(key + np.uint64(roll)) ^ _ROLLOUT_SALT, n)


@njit(cache=True)
def play_out(W, game, tab, move, roll, key, taxed, scratch, deep):
    """Make the move (sub, cost) of roll `roll` on the game's copies (st, ps, bb), play the rest
    of the game by learned's choice on the dice of `key`, and return the final score, less the
    dice's tax if `taxed`. scratch: learned's ranking's (learned.new_scratch); deep: (reply, val),
    next_roll_value's."""
    st, ps, bb = game
    sub, cost = move
    reply, val = deep
    # The caller keeps the arrays alive: views typed as learned's ranking is compiled for.
    W, st, bb = as_any(W), as_any(st), as_any(bb)
    shared = shared_scratch(scratch)
    lay, sc, se, subs, costs, _, qs = shared
    solo_move(st, ps, bb, tab, sub, cost, roll)
    tax = 0.0
    rolls = solo_rolls(tab)
    for r in range(roll + 1, rolls + 1):
        if taxed:       # before the dice: the mean of the best one-ply value over all faces
            tax -= next_roll_value(W, row_offset(0, solo_row(rolls - r)), lay, tab, bb, SEAT0, PASSING,
                                   ps[0, PS_JOKERS], sc, se, reply, val)
        start_roll(st, key, r, 1)
        m = ranked(W, 0, st, bb, SEAT0, ps[0, PS_JOKERS], tab, shared)
        b = best_row(qs, m)      # learned's own choice (its decision with top=0)
        if taxed:
            tax += qs[b]
        solo_move(st, ps, bb, tab, subs[b], costs[b], r)
    end_of_game(ps, bb, tab, 1)
    return ps[0, PS_SCORE] - tax


_I1, _F1 = types.int64[::1], types.float64[::1]
#: play_out's signature as judge_solo calls it: through its address (a FunctionType argument),
#: not compiled into the judge, so that an analysis without rollouts compiles none of it (3.6 s of
#: CPU, a sixth of a first `analyse`'s compile). W: learned's weights as loaded (read-only float32);
#: the game (st, ps, bb), the move (sub, cost), learned.new_scratch's arrays, (reply, val).
PLAY_OUT_SIG = types.float64(
    types.Array(types.float32, 1, "C", readonly=True), types.Tuple((_I1, types.int64[:, ::1], types.uint64[:, ::1])),
    TablesType, types.UniTuple(types.int64, 2), types.int64, types.uint64, types.boolean,
    types.Tuple((_I1, _I1, _F1, _I1, _I1, _F1, _F1)), types.UniTuple(_F1, 2))


@njit(cache=True)
def _no_play_out(W, game, tab, move, roll, key, taxed, scratch, deep):
    """What judge_solo calls in place of play_out when there are no rollouts (never called)."""
    return 0.0


def _compiled_play_out(rollouts: int):
    """play_out, or for no rollouts its stand-in, compiled for PLAY_OUT_SIG (or loaded from the cache)."""
    return compiled_for(play_out if rollouts > 0 else _no_play_out, PLAY_OUT_SIG)


# Inlined: compiled apart, this set-up cost a first `analyse` 0.4 s of CPU.
@njit(cache=True, inline="always")
def _rollout_arrays(tab):
    """What a rollout kernel works on: the game (st, ps, bb), a rollout's copy of it, learned's
    ranking's scratch for each, and next_roll_value's (reply, val)."""
    st, ps, bb, _ = new_state()
    st2, ps2, bb2, _ = new_state()
    return ((st, ps, bb), (st2, ps2, bb2), new_scratch(tab), new_scratch(tab),
            (np.empty(N_GROUPS), np.empty(EXPECT_SIZE)))


def rollout_means(W, tab, seed, first, count, top, rollouts, taxed, out, gaps, scores):
    """Games first..first+count-1 of `seed`, played by learned's choice (in the solo game of the
    rules of `tab`: out and gaps have a row per roll, 0..its solo rolls). out[i, roll, k, h]: the
    mean final score (taxed if `taxed`) of the rollouts of half h (h = 0: even-numbered rollouts, 1: odd) after
    learned's k-th best choice at that roll (k = 0: the one it plays), ABSENT where there is no
    such choice, or no decision worth rolling out (one choice only, or the last roll: nothing
    follows it). gaps[i, roll, k]: how much lower learned's value puts that choice than its own
    (q of choice 0 - q of choice k). scores[i]: the game's own final score."""
    over_threads(_rollout_means, count, W, tab, seed, first, top, rollouts, taxed, out, gaps, scores)


@njit(cache=True, nogil=True)
def _rollout_means(lo, hi, W, tab, seed, first, top, rollouts, taxed, out, gaps, scores):
    half = rollouts // 2
    game, copy, scratch, scratch2, deep = _rollout_arrays(tab)
    st, ps, bb = game
    _, _, _, subs, costs, _, qs = scratch
    rolls = solo_rolls(tab)
    for i in range(lo, hi):
        key = start_solo(st, ps, bb, tab, seed, first + i)
        out[i] = ABSENT
        for roll in range(1, rolls + 1):
            start_roll(st, key, roll, 1)
            m = ranked(as_any(W), 0, as_any(st), as_any(bb), SEAT0, ps[0, PS_JOKERS], tab, shared_scratch(scratch))
            order = np.argsort(-qs[:m], kind="mergesort")    # stable: ties as best_row breaks them
            if roll < rolls and m > 1:
                for k in range(min(top, m)):
                    j = order[k]
                    gaps[i, roll, k] = qs[order[0]] - qs[j]
                    total0 = 0.0
                    total1 = 0.0
                    for n in range(2 * half):
                        copy_game(st, ps, bb, *copy)
                        v = play_out(W, copy, tab, (subs[j], costs[j]), roll, rollout_key(key, roll, n), taxed,
                                     scratch2, deep)
                        if n & 1:
                            total1 += v
                        else:
                            total0 += v
                    out[i, roll, k, 0] = total0 / half
                    out[i, roll, k, 1] = total1 / half
            j = order[0]
            solo_move(st, ps, bb, tab, subs[j], costs[j], roll)
        end_of_game(ps, bb, tab, 1)
        scores[i] = ps[0, PS_SCORE]


# --- judging the decisions of played games (sim.research.analyse) -----------------------
#: Per decision of judge_solo / judge_table: out[row, J_*].
J_MADE = 0          # learned's one-ply value of the choice made
J_BEST = 1          # learned's one-ply value of its own choice (the best by that value)
J_LUCK = 2          # the best value the dice allowed minus its mean over the roll's faces (NaN: not judged)
J_ROLLED = 3        # with rollouts: mean over them of (learned's choice - the choice made); NaN if none
J_BEST_SUB = 4      # learned's choice: placement row (-1 pass) and '!' spent
J_BEST_COST = 5
J_SIZE = 6


def judge_solo(W, tab, seed, games, log, rollouts, taxed, out, scores, own=False):
    """Judge the solo games `games` of `seed` (game i's 30 decisions: log[30 i: 30 i + 30],
    sim.engine's LOG_* rows; 30: the solo rolls of the rules of `tab`) by learned's value
    (`own`: learned's own games on those dice instead, log unread, as if played by
    `run -s learned`, whose solo choice is the best of the same ranking):
    out[30 i + roll - 1, J_*]. With `rollouts` > 0,
    wherever the choice made is not learned's, both are followed by that many of learned's
    rollouts on the same dice (rollout_key: the k-th rollout of each choice rolls the same
    dice), taxed for their luck if `taxed`. scores[i]: the game's final score, replayed."""
    over_threads(_judge_solo, len(games), W, tab, seed, games, log, (rollouts, bool(taxed)), out, scores, bool(own),
                 _compiled_play_out(rollouts))


@njit(cache=True, nogil=True)
def _judge_solo(lo, hi, W, tab, seed, games, log, rolled, out, scores, own, play_out_at):
    """judge_solo's games lo..hi-1; rolled: (rollouts, taxed)."""
    rollouts, taxed = rolled
    game, copy, scratch, scratch2, deep = _rollout_arrays(tab)
    st, ps, bb = game
    lay, sc, se, subs, costs, _, qs = scratch
    reply, val = deep
    rolls = solo_rolls(tab)
    for i in range(lo, hi):
        key = start_solo(st, ps, bb, tab, seed, games[i])
        for roll in range(1, rolls + 1):
            row = rolls * i + roll - 1
            jokers = ps[0, PS_JOKERS]
            o = row_offset(0, solo_row(rolls - roll))
            # Before the dice: the mean over all faces of the best one-ply value (as the tax).
            mean = next_roll_value(as_any(W), o, as_any(lay), tab, as_any(bb), SEAT0, PASSING, jokers, sc, se,
                                   reply, val)
            start_roll(st, key, roll, 1)
            m = ranked(as_any(W), 0, as_any(st), as_any(bb), SEAT0, jokers, tab, shared_scratch(scratch))
            b = best_row(qs, m)
            sub, cost = (subs[b], costs[b]) if own else (log[row, LOG_SUB], log[row, LOG_COST])
            out[row, J_MADE] = solo_value_of(W, o, tab, scratch, m, sub, cost, jokers)
            out[row, J_BEST] = qs[b]
            out[row, J_LUCK] = qs[b] - mean
            out[row, J_BEST_SUB] = subs[b]
            out[row, J_BEST_COST] = costs[b]
            out[row, J_ROLLED] = np.nan
            if rollouts > 0:
                if subs[b] == sub and (sub < 0 or costs[b] == cost):
                    out[row, J_ROLLED] = 0.0
                else:
                    # The last roll has nothing after it: one playout each is exact.
                    total = 0.0
                    n_out = rollouts if roll < rolls else 1
                    for n in range(n_out):
                        k = rollout_key(key, roll, n)
                        copy_game(st, ps, bb, *copy)
                        total += play_out_at(W, copy, tab, (subs[b], costs[b]), roll, k, taxed, scratch2, deep)
                        copy_game(st, ps, bb, *copy)
                        total -= play_out_at(W, copy, tab, (sub, cost), roll, k, taxed, scratch2, deep)
                    out[row, J_ROLLED] = total / n_out
            solo_move(st, ps, bb, tab, sub, cost, roll)
        end_of_game(ps, bb, tab, 1)
        scores[i] = ps[0, PS_SCORE]


@njit(cache=True)
def _judge_table_decision(W, tab, game, seat, avail, is_active, move, scratch, table, out, row):
    """Judge seat's decision `move` (sub, cost) with the dice `avail` in the game (st, ps, bb):
    out[row, J_*]; scratch as learned.new_scratch, table (tc, te) as rank_table's."""
    st, ps, bb = game
    sub, cost = move
    tc, te = table
    st[ST_SEAT] = seat
    st[ST_AVAIL] = avail
    st[ST_IS_ACTIVE] = is_active
    jokers = ps[seat, PS_JOKERS]
    _, _, _, subs, costs, _, qs = scratch
    m = ranked_table(as_any(W), 0, as_any(st), as_any(ps), as_any(bb), seat, tab, shared_scratch(scratch), tc, te)
    b = best_row(qs, m)
    made = table_value_of(W, N_ROW_TABLE * stage(st), tab, scratch, tc, te, m, sub, cost, jokers)
    out[row, J_MADE] = made
    out[row, J_BEST] = qs[b]
    out[row, J_LUCK] = np.nan
    out[row, J_ROLLED] = np.nan
    out[row, J_BEST_SUB] = subs[b]
    out[row, J_BEST_COST] = costs[b]


def judge_table(W, tab, seed, games, players, max_rolls, log, log_start, out, scores):
    """Judge the table games `games` of `seed` (game i's decisions: log[log_start[i]:log_start[i+1]],
    in the engine's order: each roll's active seat, then the others) by learned's table value:
    out[row, J_*] (no luck, no rollouts). scores[i, seat]: the final scores, replayed."""
    over_threads(_judge_table, len(games), W, tab, seed, games, players, max_rolls, log, log_start, out, scores)


@njit(cache=True, nogil=True)
def _judge_table(lo, hi, W, tab, seed, games, players, max_rolls, log, log_start, out, scores):
    st, ps, bb, _ = new_state()
    game = (st, ps, bb)
    scratch = new_scratch(tab)
    table = (np.empty(TC_SIZE, np.int64), np.empty(TE_SIZE))
    pending = np.empty((players, 2), np.int64)
    for i in range(lo, hi):
        reset(st, ps, bb, tab, players, max_rolls)
        key = game_key(seed, games[i])
        row = log_start[i]
        roll = 0
        while row < log_start[i + 1]:
            roll += 1
            active = start_roll(st, key, roll, players)
            sub, cost = log[row, LOG_SUB], log[row, LOG_COST]
            _judge_table_decision(W, tab, game, active, log[row, LOG_AVAIL], 1, (sub, cost), scratch, table, out, row)
            active_move(st, ps, bb, tab, active, log[row, LOG_CDIE], log[row, LOG_NDIE], sub, cost, roll, 0)
            row += 1
            for s in range(players):
                if s == active:
                    continue
                sub, cost = log[row, LOG_SUB], log[row, LOG_COST]
                _judge_table_decision(W, tab, game, s, log[row, LOG_AVAIL], 0, (sub, cost), scratch, table, out, row)
                row += 1
                pending[s, 0] = sub
                pending[s, 1] = cost
            passive_moves(ps, bb, tab, pending, players, active, roll)
            end_of_roll(st, ps, bb, tab)
        end_of_game(ps, bb, tab, players)
        for s in range(players):
            scores[i, s] = ps[s, PS_SCORE]
