"""Train the weights of `learned` by TD(lambda) on afterstates, from solo self-play.

    encore-sim train --sheet standard --out W.npz        (sim.training.run.train_file)

Games are played by the engine's own kernels (reset, set_dice, cross,
settle_awards, finish) on the chosen sheet. Every roll the player takes the
placement (or pass) with the best reward + V(afterstate): learned's own one-ply
choice (strategies.learned.rank_placements). Games are played in batches of
BATCH: all games of a batch with the weights as they were at its start, spread
over the threads, then each game's afterstates, in game order, move towards
their lambda-returns (learn_batch). So the weights depend only on the
arguments, never on the thread count.

Step sizes: with temporal coherence (the default) every weight has its own
rate |E| / A, where E sums the errors it was moved by and A their absolute
values: weights whose errors keep one sign keep learning, weights that
oscillate around their value slow down (Beal and Smith's TC learning, as used
for 2048 n-tuple networks). The shared rate --alpha falls linearly to
--alpha-end over the run.

Exploration: the dice alone explore too little (the greedy player keeps to
sheets it has learned to value and passes rather than try others), so every
weight starts optimistic: a sheet is first worth --optimism points per roll to
come. Sheets that were never reached keep that optimistic value and get tried.

V(t = 0) stays 0: after the last roll nothing is left to earn. The dice of
game g come from (seed, g) as in every other run, and nothing else is random.
"""
from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numba import njit

from sim.engine import SOLO_DICE, end_of_game, reset, solo_move, start_roll
from sim.nbinternals import uncounted
from sim.runs.defaults import SHEET, TRAIN_GAMES, TRAIN_SEED, TRAIN_STEP
from sim.rng import game_key
from sim.rules import RULEBOOK, parse_rules
from sim.sheets import load_sheet
from sim.state import PS_JOKERS, PS_SCORE, ST_AVAIL, ST_IS_ACTIVE, ST_SEAT, new_state
from sim.tables import kernel_tables
from sim.threads import over_threads

from strategies.learned import (
    N_ACTIVE, N_FEAT, N_SHEET, N_T, best_row, joker_entry, new_scratch, rank_placements, row_offset, solo_choice,
    solo_row, solo_rolls, sheet_features, uncounted_scratch,
)

#: Games played with the same weights before they learn from them (fixed, so that the weights do
#: not depend on the thread count; small against the millions of a run).
BATCH = 512
#: encore-sim train's default budget (its time: docs/variants.md, "Training time"; more barely
#: helps: docs/strategies.md).
DEFAULT_GAMES = TRAIN_GAMES


@njit(cache=True)
def start_solo(st, ps, bb, tab, seed, game):
    """Set up game `game` of `seed` in the solo game's fresh arrays; returns its dice key."""
    reset(st, ps, bb, tab, 1, solo_rolls(tab))
    st[ST_SEAT] = 0
    st[ST_AVAIL] = SOLO_DICE
    st[ST_IS_ACTIVE] = 1
    return game_key(np.uint64(seed), game)


# Inlined, as sim.research.rollouts' set-up: a function of its own is a compile of its own.
@njit(cache=True, inline="always")
def fresh_arrays(tab, n_active):
    """A training game's arrays: the game (st, ps, bb, fresh from new_state), learned's ranking's
    scratch (learned.new_scratch) and room for an afterstate's n_active feature indices."""
    st, ps, bb, _ = new_state()
    return (st, ps, bb), new_scratch(tab), np.empty(n_active, np.int64)


@njit(cache=True)
def play_one(W, tab, key, game, scratch, idx, record):
    """One game of play_for_learning from the fresh game (st, ps, bb; start_solo) with dice key
    `key`, recorded in record (its rows of feats, gains and values); returns its score. scratch:
    learned.new_scratch's; idx: room for the features. Not inlined: its arguments, which the
    caller keeps alive, are used as uncounted views (sim.nbinternals), as the inlined
    rank_placements would otherwise count a reference to each array at every decision."""
    st, ps, bb = game
    feats, gains, values = record
    W, st, bb, idx = uncounted(W), uncounted(st), uncounted(bb), uncounted(idx)
    scratch = uncounted_scratch(scratch)
    lay, sc, _, subs, costs, rewards, qs = scratch
    for roll in range(1, solo_rolls(tab) + 1):      # the rules' solo game
        start_roll(st, key, roll, 1)
        m = rank_placements(W, 0, st, bb, 0, ps[0, PS_JOKERS], tab, scratch)
        best = best_row(qs, m)
        gains[roll] = rewards[best] - costs[best]
        values[roll] = qs[best] - gains[roll]
        solo_move(st, ps, bb, tab, subs[best], costs[best], roll)
        sheet_features(lay, bb[0, 0], bb[0, 1], sc, idx)
        idx[N_SHEET] = joker_entry(ps[0, PS_JOKERS])
        for f in range(idx.shape[0]):     # not a slice assignment: see sim.state.copy_game
            feats[roll, f] = idx[f]
    end_of_game(ps, bb, tab, 1)
    return ps[0, PS_SCORE]


def play_for_learning(W, tab, seed, first, count, feats, gains, values, scores):
    """Play games first..first+count-1 of `seed` with weights W (read only), over Numba's threads.

    Game i records, for each roll r = 1..30 (the rules' solo rolls), the active features of its afterstate
    (feats[i, r]), the reward of the move that made it (gains[i, r]: points, less the
    '!' it used) and the value the move was chosen by (values[i, r]); scores[i] its score.
    """
    over_threads(_play_for_learning, count, W, tab, seed, first, feats, gains, values, scores)


@njit(cache=True, nogil=True)
def _play_for_learning(lo, hi, W, tab, seed, first, feats, gains, values, scores):
    """play_for_learning's games first+lo..first+hi-1 (rows lo..hi-1)."""
    for i in range(lo, hi):
        game, scratch, idx = fresh_arrays(tab, N_ACTIVE)
        st, ps, bb = game
        key = start_solo(st, ps, bb, tab, seed, first + i)
        scores[i] = play_one(W, tab, key, game, scratch, idx, (feats[i], gains[i], values[i]))


@njit(cache=True)
def learn_batch(W, E, A, feats, gains, values, count, alpha, lam, tc, rolls):
    """Move each afterstate of games 0..count-1 (in order) towards its TD(lambda) return,
    computed backwards from the game's end (the last afterstate is worth 0):

        G_r = gain_{r+1} + (1 - lam) * V(s_{r+1}) + lam * G_{r+1}

    with V(s_{r+1}) as it was when move r+1 was chosen, in games of `rolls` rolls (the rules'),
    each afterstate in the row of its rolls to come (learned.solo_row). Each of the N_ACTIVE entries
    moves by alpha / N_ACTIVE of the error, times its own rate |E| / A with temporal coherence (tc)."""
    a = alpha / N_ACTIVE
    for i in range(count):
        g = 0.0
        for roll in range(rolls - 1, 0, -1):
            g = gains[i, roll + 1] + (1.0 - lam) * values[i, roll + 1] + lam * g
            o = row_offset(0, solo_row(rolls - roll))
            v = 0.0
            for f in range(N_ACTIVE):
                v += W[o + feats[i, roll, f]]
            err = g - v
            for f in range(N_ACTIVE):
                k = o + feats[i, roll, f]
                if tc:
                    rate = abs(E[k]) / A[k] if A[k] > 0.0 else 1.0
                    E[k] += err
                    A[k] += abs(err)
                    W[k] += a * rate * err
                else:
                    W[k] += a * err


def initial_weights(optimism: float) -> np.ndarray:
    """Flat weights with every entry of row t at optimism * t / N_ACTIVE: any sheet starts valued
    at `optimism` points per roll to come, more than most sheets are worth, so the greedy player
    is drawn to what it has not seen yet (optimistic initialisation)."""
    t = np.arange(N_T, dtype=np.float64)[:, None]
    return np.broadcast_to(optimism * t / N_ACTIVE, (N_T, N_FEAT)).ravel().copy()


@dataclass(frozen=True)
class Settings:
    """The training hyper-parameters (the defaults regenerate the shipped weights)."""
    alpha: float = TRAIN_STEP[0]        # shared step size at the start
    alpha_end: float = TRAIN_STEP[1]    # at the end (linear)
    lam: float = 0.7          # TD(lambda): 0 = one-step targets, 1 = Monte Carlo
    optimism: float = 2.0     # initial value of a sheet, points per roll to come
    tc: bool = False          # temporal-coherence rates per weight


def train(sheet=SHEET, games: int = DEFAULT_GAMES, seed: int = TRAIN_SEED, threads: int | None = None,
          settings: Settings = Settings(), progress=None, init=None, rules=RULEBOOK) -> np.ndarray:
    """Weights (float32 (N_T, N_FEAT)) of `learned` for `sheet` after `games` self-play games of
    `seed` under `rules` (a sim.rules.Rules or a --rules text), starting from the weights `init`
    (continuing their training) or, without it, from optimistic flat weights. progress(games
    done, mean score of the last batch), if given, is called after every batch. The result
    depends on the arguments only (not on `threads`)."""
    sheet = load_sheet(sheet)
    rules = parse_rules(rules)
    tab = kernel_tables(sheet, rules)
    rolls = rules.solo_rolls
    if threads is not None:
        numba.set_num_threads(threads)
    W = initial_weights(settings.optimism) if init is None else np.array(init, np.float64).ravel()
    E = np.zeros_like(W)
    A = np.zeros_like(W)
    feats = np.zeros((BATCH, rolls + 1, N_ACTIVE), np.int64)
    gains = np.zeros((BATCH, rolls + 1))
    values = np.zeros((BATCH, rolls + 1))
    scores = np.zeros(BATCH, np.int64)
    done = 0
    while done < games:
        n = min(BATCH, games - done)
        alpha = settings.alpha + (settings.alpha_end - settings.alpha) * done / games
        play_for_learning(W, tab, seed, done, n, feats, gains, values, scores)
        learn_batch(W, E, A, feats, gains, values, n, alpha, settings.lam, settings.tc, rolls)
        done += n
        if progress is not None:
            progress(done, float(scores[:n].mean()))
    return W.reshape(N_T, N_FEAT).astype(np.float32)


@njit(cache=True, nogil=True)
def _play_solo(lo, hi, W, tab, seed, first, top, close, scores):
    """Solo games first+lo..first+hi-1 of `seed` played by `learned`'s own decision
    (learned.solo_choice, with its `top` and `close`) with flat weights W; scores[i] gets each score."""
    for i in range(lo, hi):
        st, ps, bb, _ = new_state()
        scratch = new_scratch(tab)
        key = start_solo(st, ps, bb, tab, seed, first + i)
        for roll in range(1, solo_rolls(tab) + 1):
            start_roll(st, key, roll, 1)
            sub, cost = solo_choice(W, 0, st, ps, bb, tab, top, close, scratch)
            solo_move(st, ps, bb, tab, sub, cost, roll)
        end_of_game(ps, bb, tab, 1)
        scores[i] = ps[0, PS_SCORE]


def evaluate(W, seed: int, first: int, count: int, top: int = 0, sheet=SHEET, close: float = 0.0,
             rules=RULEBOOK) -> np.ndarray:
    """Scores of `learned` with weights W (and `top`, `close`) on solo games first.. of `seed` on
    `sheet` under `rules`."""
    scores = np.zeros(count, np.int64)
    tab = kernel_tables(load_sheet(sheet), parse_rules(rules))
    over_threads(_play_solo, count, np.asarray(W, np.float64).ravel(), tab, seed, first, top, close, scores)
    return scores
