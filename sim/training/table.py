"""Train `learned`'s table value by TD(lambda) on self-play and mixed tables of 2-6 players.

    encore-sim train --players 4 --sheet standard --out W.npz     (the Python API: train_table())

The value of a seat's sheet after a roll estimates the points it will still gain minus the
final score of the best opponent, so a move is worth its points now plus that value: the
decision maximises the final margin over the best opponent, the objective that wins games,
not its own score. Features: the seat's sheet (strategies.learned) and what it sees of the
table (strategies.table_features), in the weights row of the game's stage.

Games are played by the engine itself (sim.batch.play_games, the very kernel of every run),
with the move log on; each batch is half self-play (learned in every seat) and half one
`learned` against built-ins (heuristic, then lookahead, alternately), the learner rotated
through the seats, so that it does not overfit to itself. The logs are replayed through the
engine's kernels to the afterstates of every roll (replay_features), and each learner seat's
afterstates, game after game in order, move towards their lambda-returns (learn_table). The
weights depend on the arguments only, not on the thread count.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sim.batch import play_games
from sim.engine import GR_ROLLS, GR_SIZE, LOG_COST, LOG_SEAT, LOG_SIZE, LOG_SUB, end_of_roll, play_move, reset
from sim.runs.defaults import SHEET, TRAIN_SEED, TRAIN_STEP, TRAIN_TABLE_GAMES
from sim.rules import RULEBOOK, parse_rules
from sim.sheets import load_sheet
from sim.state import MAX_SEATS, PS_JOKERS, PS_SIZE, PS_WINNER, ST_ROLL
from sim.tables import kernel_tables
from sim.threads import over_threads
from sim.training.solo import fresh_arrays

from strategies.learned import (
    DATA_LAY, DATA_W, N_ACTIVE, N_FEAT, N_ROW_TABLE, N_SHEET, SC_COUNT, joker_entry, layout_words, pack,
    sheet_features,
)
from strategies.table_features import N_STAGES, T_ACTIVE, TC_SIZE, points_now, stage, table_context, table_features

#: Features of an afterstate at a table: the sheet's and the table's.
N_TACTIVE = N_ACTIVE + T_ACTIVE
#: Games of one batch (half self-play, half against built-ins).
BATCH = 256
#: Training games are capped at this many rolls (natural games end far sooner).
MAX_ROLLS = 120
#: The built-ins the learner meets, batch after batch.
OPPONENTS = ("heuristic", "lookahead")
#: encore-sim train --players N's default budget, the shipped weights' own (docs/strategies.md;
#: its time: docs/variants.md, "Training time"). At 4 players a quarter of it (150,000 games from
#: nothing) gave a user's sheet 44% of the wins against three `lookahead`, short of the 45% promised.
DEFAULT_GAMES = TRAIN_TABLE_GAMES


def replay_features(tab, players, count, rolls, log, learner, feats, gains, finals):
    """Replay each game's log (rolls[i] rolls, log rows i*MAX_ROLLS*players ..) through the
    engine's kernels; for every roll r and seat s: gains[i, r, s] the points now it gained in
    the roll, and for learner seats feats[i, r, s] the absolute weight indices of its afterstate
    (row of the roll's stage). finals[i, s]: the final scores. Games 0..count-1 over Numba's threads."""
    over_threads(_replay_games, count, tab, players, rolls, log, learner, feats, gains, finals)


@njit(cache=True, nogil=True)
def _replay_games(lo, hi, tab, players, rolls, log, learner, feats, gains, finals):
    """replay_features of games lo..hi-1."""
    for i in range(lo, hi):
        (st, ps, bb), (lay, sc, _, _, _, _, _), idx = fresh_arrays(tab, N_TACTIVE)
        tc = np.empty(TC_SIZE, np.int64)
        before = np.empty(MAX_SEATS, np.int64)
        reset(st, ps, bb, tab, players, MAX_ROLLS)
        for s in range(players):
            before[s] = points_now(ps, bb, tab, s)
        row = i * MAX_ROLLS * players
        for r in range(1, rolls[i] + 1):
            st[ST_ROLL] = r
            for _ in range(players):          # the active player's move, then the passive ones
                play_move(ps, bb, tab, log[row, LOG_SEAT], log[row, LOG_SUB], log[row, LOG_COST], r)
                row += 1
            end_of_roll(st, ps, bb, tab)
            o = N_ROW_TABLE * stage(st)
            for s in range(players):
                now = points_now(ps, bb, tab, s)
                gains[i, r, s] = now - before[s]
                before[s] = now
                if not learner[i, s]:
                    continue
                sheet_features(lay, bb[s, 0], bb[s, 1], sc, idx)
                idx[N_SHEET] = joker_entry(ps[s, PS_JOKERS])
                table_context(st, ps, bb, tab, s, tc)
                table_features(tc, sc[SC_COUNT:SC_COUNT + 15], idx, N_ACTIVE)
                for f in range(N_ACTIVE):
                    feats[i, r, s, f] = o + idx[f]
                for f in range(N_ACTIVE, N_TACTIVE):
                    feats[i, r, s, f] = o + N_FEAT + idx[f]
        for s in range(players):
            finals[i, s] = points_now(ps, bb, tab, s)


@njit(cache=True)
def learn_table(W, feats, gains, finals, rolls, learner, count, players, alpha, lam):
    """TD(lambda) for each learner seat of games 0..count-1, in order: its afterstate after roll
    r moves towards G_r = gain_{r+1} + (1 - lam) V(s_{r+1}) + lam G_{r+1}, where after the last
    roll G = - the best opponent's final score (so V + points now estimates the final margin)."""
    a = alpha / N_TACTIVE
    for i in range(count):
        for s in range(players):
            if not learner[i, s]:
                continue
            best = -1000
            for q in range(players):
                if q != s:
                    best = max(best, finals[i, q])
            g = -float(best)
            v_next = 0.0
            for r in range(rolls[i], 0, -1):
                if r < rolls[i]:
                    g = gains[i, r + 1, s] + (1.0 - lam) * v_next + lam * g
                v = 0.0
                for f in range(N_TACTIVE):
                    v += W[feats[i, r, s, f]]
                err = a * (g - v)
                for f in range(N_TACTIVE):
                    W[feats[i, r, s, f]] += err
                v_next = v + err * N_TACTIVE


def train_table(lineup, sheet=SHEET, players: int = 4, games: int | None = None, seed: int = TRAIN_SEED,
                alpha: float = TRAIN_STEP[0], alpha_end: float = TRAIN_STEP[1], lam: float = 0.7, progress=None,
                init=None, rules=RULEBOOK) -> np.ndarray:
    """Table weights (float32 (N_STAGES, N_ROW_TABLE)) of `learned` for `players` on `sheet`
    after `games` training games of `seed`; progress(done, the learner's win rate against the
    built-ins in the last batch, None for a batch of self-play alone). `lineup` is (functions, kinds, parameters) for play_games with
    learned in slot 0 and the OPPONENTS after it (sim.training.run.table_lineup); the weights
    start at `init` (continuing their training) or at 0, and each batch is played with those
    learnt so far. Every game is played under `rules` (a sim.rules.Rules or a --rules text), the
    built-ins reading them as in any run."""
    sheet = load_sheet(sheet)
    rules = parse_rules(rules)
    tab = kernel_tables(sheet, rules)
    games = DEFAULT_GAMES[players] if games is None else games
    fns, kinds, params = lineup
    W = np.zeros(N_STAGES * N_ROW_TABLE) if init is None else np.array(init, np.float64).ravel()
    params[0, DATA_LAY:DATA_W] = layout_words(sheet, rules)
    half = BATCH // 2
    n_log = BATCH * MAX_ROLLS
    dice = np.zeros((n_log, 6), np.int64)
    log = np.zeros((n_log * players, LOG_SIZE), np.int64)
    dice_start = np.arange(BATCH + 1, dtype=np.int64) * MAX_ROLLS
    log_start = dice_start * players
    res = np.zeros((BATCH, GR_SIZE), np.int64)
    seats = np.zeros((BATCH, players, PS_SIZE), np.int64)
    learner = np.zeros((BATCH, players), np.bool_)
    feats = np.zeros((BATCH, MAX_ROLLS + 1, players, N_TACTIVE), np.int64)
    gains = np.zeros((BATCH, MAX_ROLLS + 1, players), np.int64)
    finals = np.zeros((BATCH, players), np.int64)
    done = 0
    batch = 0
    while done < games:
        n = min(BATCH, games - done)
        alpha_now = alpha + (alpha_end - alpha) * done / games
        # First part: self-play (every seat slot 0); second: the learner (slot 0) rotated against
        # one of the OPPONENTS in every other seat.
        n_self = min(half, n)
        opp = 1 + batch % len(OPPONENTS)
        params[0, DATA_W:] = pack(W)     # the learner plays the weights learnt so far
        learner[:] = False
        wins = 0
        for part, (first, count) in enumerate(((done, n_self), (done + n_self, n - n_self))):
            if count == 0:
                continue
            at = 0 if part == 0 else n_self
            rows = slice(at, at + count)
            slots = np.zeros(MAX_SEATS, np.int64) if part == 0 else np.array([0] + [opp] * (MAX_SEATS - 1))
            play_games(fns, kinds, params, slots, part == 1, tab, np.uint64(seed), first, players, MAX_ROLLS,
                       res[rows], seats[rows], dice_start[:count + 1], dice, log_start[:count + 1], log)
            if part == 0:
                learner[rows] = True
            else:
                # Seat s plays slot (s + game number) % players: the learner is where that is 0.
                at_seat = (-(first + np.arange(count))) % players
                learner[at + np.arange(count), at_seat] = True
                wins = int(seats[at + np.arange(count), at_seat, PS_WINNER].sum())
            # Each part's log starts at row 0: replay it before the next part is played.
            replay_features(tab, players, count, res[rows, GR_ROLLS], log, learner[rows], feats[rows], gains[rows],
                            finals[rows])
        learn_table(W, feats, gains, finals, res[:n, GR_ROLLS], learner, n, players, alpha_now, lam)
        done += n
        batch += 1
        if progress is not None:   # a last batch short enough to be all self-play has no win rate
            progress(done, wins / (n - n_self) if n > n_self else None)
    return W.reshape(N_STAGES, N_ROW_TABLE).astype(np.float32)
