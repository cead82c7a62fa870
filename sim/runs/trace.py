"""Every seat's chances after every roll: the trace of a game, and the measures built on it.

    trace_dataset("results/run-X")          # run --trace: the dataset's `trace` table, replayed
    read_trace("results/run-X")             # that table as a DataFrame
    trace_measures("results/run-X")         # one row per game: lead changes, drama, luck, ...
    game_trace(seed, game, players, log)    # one game's rows, from its moves (the play page's review)

The games are replayed from their seeds and moves (the engine's move log, sim.engine LOG_*) by
the turn kernel, in a pass of their own: a run without --trace plays as before. After each roll
(and at roll 0, before the first) every seat gets its points now (its score if the game ended
then), learned's value of its sheet, and each seat's distance to the game's end; the win model
(sim.runs.winmodel) turns these into its expected final score and chance of winning. At the
last roll the chances are the result: 1 to the winner (1/k to each of k tied winners), the
expected scores the final scores.

Luck, per roll and seat, as `analyse` measures it solo and GNU Backgammon per roll: learned's
best one-ply value of the choices the roll's dice allowed the seat, minus the mean of that best
over the dice the roll could have shown. Solo the mean is exact over the 1,296 faces (analyse's
own luck, to the last bit); at a table it is over TRACE_LUCK_SAMPLES sample rolls of the same
position (drawn from keys of their own, so the trace depends on the game only), the passive seats
valued with the dice learned's own choice for the active seat would leave them (all six in the
free rolls): mean 0 whatever came before. In points; in win probability, the change the seat's
luck in points would make to its chance before the roll, all else the same.

The trace table's columns (sim.runs.schema.TRACE):

    game, roll, seat     roll 0 is before the first roll
    points               the seat's score if the game ended after this roll
    expected_score       its expected final score
    expected_margin      its expected final score minus the best opponent's (learned's table value
                         + points now; NaN solo)
    win_prob             its chance of winning (1 solo)
    luck, luck_win       the roll's luck for it, in points and in win probability (null at roll 0;
                         luck_win NaN solo)

trace_measures' columns, one row per game (solo: the game and its luck), as sim.runs.measures'
per-game frames (a column `metric@who` is one seat's; those starting with `_` are ingredients):

    game
    lead_changes         how often the seat most likely to win changed from one roll to the next
                         (from the first roll on)
    drama                the most the final winner's chance fell below the leader's (0 to 1)
    decided_roll         the roll from which the winner's chance stayed above 90% to the end
                         (NaN if it never did: a tie shares the win)
    comebacks            1 if the winner's chance fell below COMEBACK of a fair share (25% at 2
                         players, 1 / (2 n) at n) at some roll, else 0
    _luck_margin         the winner's summed luck minus the runner-up's
    _win_margin          the winner's final score minus the runner-up's: over games, the luck
                         share is the sum of the first over the sum of the second (trace_summary;
                         sim.runs.measures' luck_share)
    luck@seat N          seat N's luck summed over the game, in points
    luck_win@seat N      and in win probability (tables)
"""
from __future__ import annotations

from dataclasses import dataclass

import json

import numpy as np
import pyarrow as pa
from numba import njit

from ..engine import (
    ALL_DICE, LOG_CDIE, LOG_COST, LOG_NDIE, LOG_SEAT, LOG_SUB, SOLO_DICE, active_move, end_of_roll, passive_moves,
    reset, solo_move, start_roll,
)
from ..nbinternals import as_any
from ..rng import game_key, mix64
from ..rules import R_END_COLOURS, R_FREE_ROLLS, RULEBOOK, parse_rules
from ..sheets import N_COLS, load_sheet
from ..state import (
    MAX_SEATS, NUMBER_JOKER, PS_JOKERS, PS_SCORE, PS_WINNER, ST_AVAIL, ST_DICE, ST_IS_ACTIVE, ST_ROLL, ST_SEAT, new_state,
)
from ..tables import N_GROUPS, kernel_tables
from ..threads import over_threads
from strategies.features import EXPECT_SIZE
from strategies import store
from strategies.learned import (
    N_ACTIVE, N_FEAT, N_ROW_TABLE, N_SHEET, SC_COUNT, best_row, joker_entry, new_scratch, next_roll_value, ranked,
    ranked_table, row_offset, shared_scratch, sheet_features, solo_row, solo_rolls, solo_sheet_value, weights_array,
    weights_file, weights_rules,
)
from strategies.table_features import (
    T_ACTIVE, TC_SIZE, TE_SIZE, colour_empty, fewest_sum, points_now, stage, table_context, table_features,
)

from .dataset import atomic_write_bytes
from .defaults import SHEET, TRACE_FIT_GAMES, TRACE_FIT_SEED, TRACE_LUCK_SAMPLES
from .summary import Z95
from . import winmodel

#: Per trace row (a game's roll, 0 = before the first, and a seat): T_*.
T_POINTS = 0        # points now: what the seat would score if the game ended after this roll
T_VALUE = 1         # learned's value of the seat's sheet after this roll
T_LUCK = 2          # the roll's luck in points (NaN at roll 0)
T_END = 3           # boxes the seat must still cross to end the game (its end colours)
T_SIZE = 4
#: Apart from the game's dice (and the research rollouts'): the sample rolls a table's luck is measured against.
_LUCK_SALT = np.uint64(0x3C6EF372FE94F82B)
_SEAT0 = np.int64(0)
_PASSING = np.int64(-1)


@njit(cache=True)
def table_value(W, st, ps, bb, tab, s, lay, sc, tc, idx):
    """learned's table value of seat s's sheet as the roll st[ST_ROLL] left it: its estimate of
    the points s will still gain minus the best opponent's final score (the afterstate value
    sim training learns)."""
    o = N_ROW_TABLE * stage(st)
    sheet_features(lay, bb[s, 0], bb[s, 1], sc, idx)
    idx[N_SHEET] = joker_entry(ps[s, PS_JOKERS])
    table_context(st, ps, bb, tab, s, tc)
    table_features(tc, sc[SC_COUNT:SC_COUNT + N_COLS], idx, N_ACTIVE)
    v = 0.0
    for f in range(N_ACTIVE):
        v += W[o + idx[f]]
    for f in range(N_ACTIVE, N_ACTIVE + T_ACTIVE):
        v += W[o + N_FEAT + idx[f]]
    return v


@njit(cache=True)
def _dice_of(st, tab, sub, cost):
    """The dice (colour die, number die) a choice of placement `sub` at its fewest '!' takes."""
    colour = tab.colour[sub]
    number = tab.size[sub]
    cd = -1
    nd = -1
    for i in range(3):
        if cd < 0 and st[ST_DICE + i] == colour:
            cd = i
        if nd < 0 and st[ST_DICE + 3 + i] == number:
            nd = i
    if cd < 0:
        for i in range(3):
            if cd < 0 and st[ST_DICE + i] == 5:
                cd = i
    if nd < 0:
        for i in range(3):
            if nd < 0 and st[ST_DICE + 3 + i] == NUMBER_JOKER:
                nd = i
    return max(cd, 0), max(nd, 0)


@njit(cache=True)
def roll_bests(W, game, tab, players, active, scratch, table, out):
    """out[s]: learned's best one-ply table value of seat s's choice with the dice of the game's
    st (game: st, ps, bb), before any move of the roll: the active seat from all six, each passive
    seat from those learned's own choice for the active seat would leave it (all six in the free
    rolls or when it would pass). scratch: learned.new_scratch's; table: (tc, te), rank_table's."""
    st, ps, bb = game
    tc, te = table
    _, _, _, subs, costs, _, qs = scratch
    shared = shared_scratch(scratch)
    free = st[ST_ROLL] <= tab.rules[R_FREE_ROLLS]
    st[ST_AVAIL] = ALL_DICE
    st[ST_SEAT] = active
    st[ST_IS_ACTIVE] = 1
    m = ranked_table(as_any(W), 0, as_any(st), as_any(ps), as_any(bb), active, tab, shared, tc, te)
    b = best_row(qs, m)
    out[active] = qs[b]
    left = ALL_DICE
    if not free and subs[b] >= 0:
        cd, nd = _dice_of(st, tab, subs[b], costs[b])
        left = ALL_DICE & ~(1 << cd) & ~(1 << (3 + nd))
    st[ST_IS_ACTIVE] = 0
    for s in range(players):
        if s == active:
            continue
        st[ST_AVAIL] = left
        st[ST_SEAT] = s
        m = ranked_table(as_any(W), 0, as_any(st), as_any(ps), as_any(bb), s, tab, shared, tc, te)
        out[s] = qs[best_row(qs, m)]


def trace_games(W, tab, seed, games, players, log, log_start, samples, out):
    """out[row, seat, T_*] for the games `games` of `seed` replayed from their decisions (log rows
    log_start[i]..log_start[i + 1] of game i, the engine's order): rows log_start[i] // players + i
    .. : roll 0 (before the first) to the last."""
    over_threads(_trace_games, len(games), W, tab, np.uint64(seed), games, players, log, log_start, samples, out)


@njit(cache=True, nogil=True)
def _trace_games(lo, hi, W, tab, seed, games, players, log, log_start, samples, out):
    st, ps, bb, _ = new_state()
    scratch = new_scratch(tab)
    lay, sc, se, _, _, _, qs = scratch
    tc = np.empty(TC_SIZE, np.int64)
    table = (tc, np.empty(TE_SIZE))
    idx = np.empty(N_ACTIVE + T_ACTIVE, np.int64)
    pending = np.zeros((MAX_SEATS, 2), np.int64)
    reply = np.empty(N_GROUPS)
    val = np.empty(EXPECT_SIZE)
    best = np.empty(MAX_SEATS)
    empty = np.empty(5, np.int64)
    mean = np.empty(MAX_SEATS)
    solo = players == 1
    rolls_solo = solo_rolls(tab)
    rolls_cap = 1 << 20
    for i in range(lo, hi):
        reset(st, ps, bb, tab, players, rolls_cap)   # the log, not a cap, says when the game ended
        key = game_key(seed, games[i])
        row = log_start[i]
        rolls = (log_start[i + 1] - log_start[i]) // players
        at = log_start[i] // players + i
        st[ST_ROLL] = 1             # roll 0 is valued as the first roll's stage
        for s in range(players):
            out[at, s, T_POINTS] = points_now(ps, bb, tab, s)
            out[at, s, T_END] = 0
            if solo:
                # The weights' rows end at 29 rolls to come (after a move): before the first roll
                # the sheet is valued by that row.
                out[at, s, T_VALUE] = solo_sheet_value(W, lay, bb[s, 0], bb[s, 1], rolls_solo, ps[s, PS_JOKERS])
            else:
                out[at, s, T_VALUE] = table_value(W, st, ps, bb, tab, s, lay, sc, tc, idx)
                colour_empty(bb, tab, s, empty)
                out[at, s, T_END] = fewest_sum(empty, 0, -1, 0, tab.rules[R_END_COLOURS])
            out[at, s, T_LUCK] = np.nan
        for roll in range(1, rolls + 1):
            at += 1
            if solo:
                jokers = ps[0, PS_JOKERS]
                o = row_offset(0, solo_row(rolls_solo - roll))
                mean[0] = next_roll_value(as_any(W), o, as_any(lay), tab, as_any(bb), _SEAT0, _PASSING, jokers, sc,
                                          se, reply, val)
                start_roll(st, key, roll, 1)
                st[ST_AVAIL] = SOLO_DICE
                m = ranked(as_any(W), 0, as_any(st), as_any(bb), _SEAT0, jokers, tab, shared_scratch(scratch))
                out[at, 0, T_LUCK] = qs[best_row(qs, m)] - mean[0]
                solo_move(st, ps, bb, tab, log[row, LOG_SUB], log[row, LOG_COST], roll)
                row += 1
                out[at, 0, T_POINTS] = points_now(ps, bb, tab, 0)
                out[at, 0, T_VALUE] = solo_sheet_value(W, lay, bb[0, 0], bb[0, 1], rolls_solo - roll, ps[0, PS_JOKERS])
                continue
            active = (roll - 1) % players
            if samples > 0:
                for s in range(players):
                    mean[s] = 0.0
                skey = mix64(key + np.uint64(roll)) ^ _LUCK_SALT
                for k in range(samples):
                    start_roll(st, game_key(skey, k), roll, players)
                    roll_bests(W, (st, ps, bb), tab, players, active, scratch, table, best)
                    for s in range(players):
                        mean[s] += best[s]
            start_roll(st, key, roll, players)
            if samples > 0:
                roll_bests(W, (st, ps, bb), tab, players, active, scratch, table, best)
                for s in range(players):
                    out[at, s, T_LUCK] = best[s] - mean[s] / samples
            else:
                for s in range(players):
                    out[at, s, T_LUCK] = np.nan
            active_move(st, ps, bb, tab, active, log[row, LOG_CDIE], log[row, LOG_NDIE], log[row, LOG_SUB],
                        log[row, LOG_COST], roll, 0)
            row += 1
            for s in range(players):
                if s == active:
                    continue
                seat = log[row, LOG_SEAT]
                pending[seat, 0] = log[row, LOG_SUB]
                pending[seat, 1] = log[row, LOG_COST]
                row += 1
            passive_moves(ps, bb, tab, pending, players, active, roll)
            end_of_roll(st, ps, bb, tab)
            for s in range(players):
                out[at, s, T_POINTS] = points_now(ps, bb, tab, s)
                out[at, s, T_VALUE] = table_value(W, st, ps, bb, tab, s, lay, sc, tc, idx)
                colour_empty(bb, tab, s, empty)
                out[at, s, T_END] = fewest_sum(empty, 0, -1, 0, tab.rules[R_END_COLOURS])


# --- from a chunk's moves to the trace's rows ------------------------------------------------------

#: A point of value either side: the slope of a seat's chance in its value, for luck in win probability.
_STEP = 0.5
#: A comeback: the winner's chance fell below this share of a fair one (1/players) at some roll.
COMEBACK = 0.5
#: The game is decided from the roll after which the winner's chance stays above this.
DECIDED = 0.9


@dataclass
class TraceArrays:
    """The kernel's figures of a chunk's games, a row per game and roll (0 .. its last), and seat:
    points, value, luck, end (rows, seats); game_index (rows,) the game's index in the chunk, roll,
    last (the game's last roll)."""
    game_index: np.ndarray
    roll: np.ndarray
    last: np.ndarray
    points: np.ndarray
    value: np.ndarray
    luck: np.ndarray
    end: np.ndarray


def trace_arrays(seed, games, players, log, log_start, sheet, rules, samples: int, W=None) -> TraceArrays:
    """The kernel's figures of games `games` of `seed` (numbers; game i's decisions are
    log[log_start[i]:log_start[i + 1]]) on `sheet` under `rules`, with learned's weights for them
    (or W), luck against `samples` sample rolls at a table."""
    sheet = load_sheet(sheet)
    rules = parse_rules(rules)
    if W is None:
        W = weights_array(sheet, None, players, rules)
    games = np.asarray(games, np.int64)
    log_start = np.asarray(log_start, np.int64)
    rolls = (log_start[1:] - log_start[:-1]) // players
    rows = int(rolls.sum()) + len(games)
    out = np.zeros((rows, players, T_SIZE))
    trace_games(W, kernel_tables(sheet, rules), seed, games, players, log, log_start, samples, out)
    index = np.repeat(np.arange(len(games)), rolls + 1)
    start = np.concatenate(([0], np.cumsum(rolls + 1)))[:-1]
    roll = np.arange(rows) - start[index]
    return TraceArrays(index, roll, roll == rolls[index], out[:, :, T_POINTS], out[:, :, T_VALUE],
                       out[:, :, T_LUCK], out[:, :, T_END])


def trace_chunk_arrays(chunk, sheet, rules, samples: int = TRACE_LUCK_SAMPLES) -> TraceArrays:
    """trace_arrays of a chunk played with its move log (play_chunk(..., log_turns=True))."""
    players = chunk.seats.shape[1]
    return trace_arrays(chunk.seed, np.arange(chunk.first, chunk.first + len(chunk.games)), players, chunk.log,
                        chunk.log_start, sheet, rules, samples)


@dataclass
class Trace:
    """A trace's columns (rows, seats) with the model applied: see the module's docstring."""
    game: np.ndarray        # (rows,) game numbers
    roll: np.ndarray
    points: np.ndarray
    expected_score: np.ndarray
    expected_margin: np.ndarray
    win_prob: np.ndarray
    luck: np.ndarray
    luck_win: np.ndarray


def apply_model(a: TraceArrays, games, scores, winners, model) -> Trace:
    """The trace of arrays `a` (games: the numbers of its games, scores and winners (games,
    seats): their final scores and PS_WINNER flags) with `model` (None solo)."""
    games = np.asarray(games)
    players = a.points.shape[1]
    final = np.asarray(scores, float)[a.game_index]
    won = np.asarray(winners, float)[a.game_index]
    share = won / np.maximum(won.sum(axis=1, keepdims=True), 1)
    luck = a.luck.copy()
    luck[a.roll == 0] = np.nan
    if model is None:
        expected = a.points + a.value
        margin = np.full_like(expected, np.nan)
        win = np.ones_like(expected)
        luck_win = np.full_like(expected, np.nan)
    else:
        expected = model.expected_score(a.points, a.value, a.end)
        margin = a.points + a.value
        win = model.win_prob(a.points, a.value, a.end, a.roll)
        # The luck in points times what a point of value was worth to the seat's chance before the
        # roll: mean 0 as the luck is (the chance's curve would bias a shifted chance upwards).
        before = np.maximum(np.arange(len(a.roll)) - 1, 0)
        luck_win = np.full_like(expected, np.nan)
        for s in range(players):
            slope = 0.0
            for step in (-_STEP, _STEP):
                shifted = a.value[before].copy()
                shifted[:, s] += step
                slope = slope + np.sign(step) * model.win_prob(a.points[before], shifted, a.end[before],
                                                               a.roll[before])[:, s]
            luck_win[:, s] = slope / (2 * _STEP) * luck[:, s]
        luck_win[a.roll == 0] = np.nan
        best_other = np.stack([np.delete(final, s, axis=1).max(axis=1) for s in range(players)], axis=1)
        margin[a.last] = (final - best_other)[a.last]
        win[a.last] = share[a.last]
    expected[a.last] = final[a.last]
    return Trace(games[a.game_index], a.roll, a.points, expected, margin, win, luck, luck_win)


def trace_table(t: Trace) -> pa.Table:
    """The rows of the dataset's trace table (sim.runs.schema.TRACE): a row per game, roll and seat."""
    from .schema import TRACE
    rows, players = t.points.shape

    def f32(x):
        x = np.asarray(x, np.float32).reshape(-1)
        return pa.array(x, pa.float32(), mask=np.isnan(x))
    luck = t.luck.reshape(-1)
    columns = {
        "game": pa.array(np.repeat(t.game, players).astype(np.int64)),
        "roll": pa.array(np.repeat(t.roll, players).astype(np.int16)),
        "seat": pa.array(np.tile(np.arange(players), rows).astype(np.int8)),
        "points": pa.array(t.points.reshape(-1).astype(np.int16)),
        "expected_score": pa.array(t.expected_score.reshape(-1).astype(np.float32)),
        "expected_margin": pa.array(t.expected_margin.reshape(-1).astype(np.float32)),
        "win_prob": pa.array(t.win_prob.reshape(-1).astype(np.float32)),
        "luck": f32(luck),
        "luck_win": pa.array(t.luck_win.reshape(-1).astype(np.float32)),
    }
    return pa.Table.from_arrays(list(columns.values()), schema=TRACE)


def chunk_trace(chunk, sheet, rules, samples: int = TRACE_LUCK_SAMPLES, model=False) -> Trace:
    """The trace of a chunk played with its move log; `model`: the win model (False: the one for
    learned's weights of the chunk's sheet, players and rules, fitted if none is kept)."""
    players = chunk.seats.shape[1]
    if model is False:
        model = model_for(sheet, players, rules)
    a = trace_chunk_arrays(chunk, sheet, rules, samples)
    return apply_model(a, np.arange(chunk.first, chunk.first + len(chunk.games)), chunk.seats[:, :, PS_SCORE],
                       chunk.seats[:, :, PS_WINNER], model)


def game_trace(seed, game, players, log, sheet=SHEET, rules=RULEBOOK, scores=None, winners=None,
               samples: int = 0, model=False):
    """One game's per-roll chances from its moves (the engine's LOG_* rows of game `game` of
    `seed`, in the order played): a DataFrame of the trace table's columns. A game not over yet
    (scores None) has no final row: its chances are the model's after the last roll given."""
    import pandas as pd
    log = np.asarray(log, np.int64)
    rules = parse_rules(rules)
    if model is False:
        model = model_for(sheet, players, rules)
    a = trace_arrays(seed, [game], players, log, [0, len(log)], sheet, rules, samples)
    over = scores is not None
    if not over:
        a.last[:] = False
        scores = np.zeros((1, players))
        winners = np.ones((1, players))
    t = apply_model(a, [game], np.reshape(scores, (1, players)), np.reshape(winners, (1, players)), model)
    return trace_table(t).to_pandas()


# --- a dataset's trace ------------------------------------------------------------------------------

def _replayed(dataset, checked: bool = True):
    """(store, manifest, settings, line-up) of a dataset whose games are replayed."""
    from .api import lineup
    from .dataset import open_store, read_manifest
    from .manifest import check_files, manifest_files, manifest_sheet
    from .settings import Settings
    store = open_store(dataset)
    manifest = read_manifest(store)
    s = Settings.from_manifest(manifest, manifest_sheet(manifest), checked)
    check_files(manifest)
    line = lineup(list(s.strategies), [manifest_files(manifest).get(x) for x in s.strategies], s.sheet, s.players,
                  checked, rules=s.rules)
    return store, manifest, s, line


def trace_dataset(dataset, samples: int = TRACE_LUCK_SAMPLES, checked: bool = True, progress=None,
                  say=None) -> dict:
    """Write the trace table of the dataset's finished chunks (trace/part-CCCCCC.parquet, one per
    chunk, as its other tables), replaying each chunk's games with their moves; record it in the
    manifest ("trace": the luck samples and the win model's fit) and return that record.
    MissingWeights if learned has no weights for the dataset's sheet, players and rules.
    progress(games done), if given, after each chunk; say(line) announces a win model's fit."""
    from .api import check_chunk, play_chunk
    from .dataset import DatasetError, done_chunks, part_name, write_json
    store, manifest, s, line = _replayed(dataset, checked)
    model = model_for(s.sheet, s.players, s.rules, say=say)
    store.makedirs("trace")
    done = 0
    for c in sorted(done_chunks(store)):
        first = c * s.chunk_size
        count = min(s.chunk_size, s.games - first)
        chunk = play_chunk(s.seed, first, count, line, players=s.players, sheet=s.sheet, max_rolls=s.max_rolls,
                           rotate=s.rotate, log_turns=True, rules=s.rules)
        check_chunk(chunk)
        stored = _stored_scores(store, c, first, count, s.players)
        if not np.array_equal(stored, chunk.seats[:, :, PS_SCORE]):
            raise DatasetError(f"{store}: chunk {c}'s games replay to other scores than it stores: its strategies "
                               "or the simulator changed since the run")
        t = chunk_trace(chunk, s.sheet, s.rules, samples, model)
        store.write_table(f"trace/{part_name(c)}", trace_table(t))
        done += count
        if progress is not None:
            progress(done)
    record = {"games": done, "luck_samples": samples if s.players > 1 else None,
              "model": None if model is None else {"games": model.games, "seed": model.seed}}
    manifest["trace"] = record
    # What a reader of the settings (sim.runs.measures) looks for; a resumed run's new chunks are
    # untraced, and its settings are written afresh without it.
    manifest.setdefault("settings", {})["trace"] = True
    write_json(store, manifest)
    return record


def _stored_scores(store, c, first, count, players) -> np.ndarray:
    from .dataset import as_numpy, read_part
    p = read_part(store, "players", c, ["game", "seat", "score"])
    game = as_numpy(p.column("game").combine_chunks()).astype(np.int64) - first
    seat = as_numpy(p.column("seat").combine_chunks()).astype(np.int64)
    out = np.full((count, players), -10**6, np.int64)
    out[game, seat] = as_numpy(p.column("score").combine_chunks())
    return out


def has_trace(dataset) -> bool:
    """True if every finished chunk of the dataset has its trace (run --trace, or trace_dataset)."""
    from .dataset import done_chunks, open_store, part_name
    store = open_store(dataset)
    done = done_chunks(store)
    return bool(done) and all(store.is_file(f"trace/{part_name(c)}") for c in done)


def read_trace(dataset):
    """The dataset's trace table as a DataFrame (DatasetError if it has none: run --trace)."""
    import pandas as pd
    from .dataset import DatasetError, done_chunks, open_store, read_part
    store = open_store(dataset)
    if not has_trace(store):
        raise DatasetError(f"{store} has no trace: play it with run --trace, or trace it with "
                           "sim.runs.trace.trace_dataset")
    return pd.concat([read_part(store, "trace", c).to_pandas() for c in sorted(done_chunks(store))],
                     ignore_index=True)


def trace_measures(dataset, trace=None):
    """One row per game of the measures built on the trace (the module's docstring defines them),
    from the dataset's trace table (or the DataFrame `trace` of its rows)."""
    t = read_trace(dataset) if trace is None else trace
    return measures_of(t)


def chunk_measures(chunk, samples: int = TRACE_LUCK_SAMPLES):
    """trace_measures of a chunk played with its move log (play_chunk(..., log_turns=True)): the
    per-game frame compare and compare-rules join to theirs (sim.runs.measures.frame_of_chunk)."""
    t = chunk_trace(chunk, chunk.sheet, chunk.rules, samples)
    return measures_of(trace_table(t).to_pandas())


def measures_of(t):
    """trace_measures of a trace's rows (a DataFrame of the trace table's columns)."""
    import pandas as pd
    t = t.sort_values(["game", "roll", "seat"], kind="stable")
    players = int(t["seat"].max()) + 1
    games = t["game"].to_numpy()[::players]
    roll = t["roll"].to_numpy()[::players]
    win = t["win_prob"].to_numpy(float).reshape(-1, players)
    luck = t["luck"].to_numpy(float).reshape(-1, players)
    luck_win = t["luck_win"].to_numpy(float).reshape(-1, players)
    points = t["points"].to_numpy(float).reshape(-1, players)
    starts = np.flatnonzero(np.r_[True, games[1:] != games[:-1]])
    ends = np.r_[starts[1:], len(games)]
    rows = []
    for a, b in zip(starts, ends):
        w, last = win[a:b], b - 1
        final = points[last]
        row = {"game": int(games[a])}
        luck_sum = np.nansum(luck[a:b], axis=0)
        if players > 1:
            winner = int(np.argmax(w[-1]))      # of tied winners, the first seat
            order = np.argsort(-final, kind="stable")
            second = int(order[1]) if order[0] == winner else int(order[0])
            leader = np.argmax(w, axis=1)
            above = w[:, winner] > DECIDED
            low = np.flatnonzero(~above[:-1])
            decided = (0 if low.size == 0 else int(low[-1]) + 1) if above[-1] else None
            margin = final[winner] - final[second]
            lucky = luck_sum[winner] - luck_sum[second]
            # From the first roll on: before it the seats differ only by their order.
            row.update(lead_changes=float((leader[2:] != leader[1:-1]).sum()),
                       drama=float((w[:-1].max(axis=1) - w[:-1, winner]).max()),
                       decided_roll=np.nan if decided is None else float(roll[a + decided]),
                       comebacks=float(w[:-1, winner].min() < COMEBACK / players),
                       _luck_margin=float(lucky), _win_margin=float(margin))
        for s in range(players):
            row[f"luck@seat {s}"] = float(luck_sum[s])
        if players > 1:
            for s in range(players):
                row[f"luck_win@seat {s}"] = float(np.nansum(luck_win[a:b, s]))
        rows.append(row)
    return pd.DataFrame(rows)


def dataset_game_trace(dataset, game: int):
    """The trace rows of game `game` of a traced dataset (a DataFrame), or None without a trace."""
    from .dataset import done_chunks, open_store, part_name, read_manifest, read_part
    import pyarrow.compute as pc
    store = open_store(dataset)
    size = (read_manifest(store).get("settings") or {}).get("chunk_size") or 1
    c = game // size
    if c not in done_chunks(store) or not store.is_file(f"trace/{part_name(c)}"):
        return None
    t = read_part(store, "trace", c)
    return t.filter(pc.equal(t["game"], game)).to_pandas()


def settings_game_trace(s, game: int, files=None, samples: int = TRACE_LUCK_SAMPLES):
    """The trace rows of game `game` of a run with settings `s` (sim.runs.settings.Settings),
    played again with its moves logged."""
    from .api import check_chunk, lineup, play_chunk
    specs = s.seats(game)
    line = lineup(specs, [(files or {}).get(x) for x in specs], s.sheet, s.players, s.checked, rules=s.rules)
    chunk = play_chunk(s.seed, game, 1, line, players=s.players, sheet=s.sheet, max_rolls=s.max_rolls,
                       rules=s.rules, log_turns=True)
    check_chunk(chunk)
    return trace_table(chunk_trace(chunk, s.sheet, s.rules, samples)).to_pandas()


def roll_line(rows, label: str | None = None) -> str:
    """One roll's trace as a line of text: each seat's chance of winning, expected score and luck
    (solo: the expected score and luck), after `label` (default: "chances:", solo "trace:")."""
    rows = rows.sort_values("seat")
    solo = len(rows) == 1
    parts = []
    for r in rows.itertuples():
        luck = "" if r.luck != r.luck else f", luck {r.luck:+.1f}"
        parts.append((f"expected score {r.expected_score:.1f}" if solo else
                      f"seat {r.seat} {100 * r.win_prob:.0f}% ({r.expected_score:.1f}{luck})"))
        if solo:
            parts[-1] += luck
    return f"  {label or ('trace:' if solo else 'chances:')} " + "; ".join(parts)


# --- the win model: fitted on learned's games, kept, checked -----------------------------------------

def fit_model(sheet=SHEET, players: int = 4, rules=RULEBOOK, games: int = TRACE_FIT_GAMES,
              seed: int = TRACE_FIT_SEED) -> winmodel.WinModel:
    """The model of `sheet`, `players` and `rules`, fitted on `games` games of learned's self-play
    on `seed`'s dice (learned's weights for them: shipped or in the store)."""
    from .api import play_chunk
    sheet = load_sheet(sheet)
    rules = parse_rules(rules)
    W = weights_array(sheet, None, players, rules)
    chunk = play_chunk(seed, 0, games, ["learned"], players=players, sheet=sheet, log_turns=True, rules=rules)
    a = trace_chunk_arrays(chunk, sheet, rules, samples=0)
    keep = ~a.last
    win = chunk.seats[:, :, PS_WINNER].astype(float)
    share = win / win.sum(axis=1, keepdims=True)
    final = chunk.seats[:, :, PS_SCORE].astype(float)
    g = a.game_index[keep]
    m = winmodel.fit_rows(a.points[keep], a.value[keep], a.end[keep], a.roll[keep], share[g], final[g], players)
    return winmodel.WinModel(players, m.win, m.score, games, seed, winmodel.digest(W))


def model_for(sheet, players: int, rules=RULEBOOK, fit_missing: bool = True, games: int = TRACE_FIT_GAMES,
              say=None) -> winmodel.WinModel | None:
    """The model for learned's weights of `sheet`, `players`, `rules`: shipped (for the shipped
    weights), else kept in the weights store beside the weights (fitted on first use when
    `fit_missing`, and again when the weights changed; say(line) announces it); None at 1 player
    (no fit needed) or when there is none and `fit_missing` is false. MissingWeights if learned
    has no weights for them."""
    if players == 1:
        return None
    sheet = load_sheet(sheet)
    rules = weights_rules(parse_rules(rules), players)
    found = weights_file(sheet, players, rules)
    digest = winmodel.digest(weights_array(sheet, None, players, rules))
    if found is not None and found[1] == "shipped":
        d = winmodel.shipped().get(winmodel.key(sheet, players, rules))
        if d is not None and d.get("weights") == digest:
            return winmodel.WinModel.from_dict(d)
    path = winmodel.stored_path(sheet, players, rules)
    if path.is_file():
        try:
            m = winmodel.WinModel.from_dict(json.loads(path.read_text()))
            if m.weights == digest:
                return m
        except (ValueError, KeyError, TypeError):
            pass
    if not fit_missing:
        return None
    if say is not None:
        say(f"Fitting the win model of the trace for {players} players on sheet {sheet.name!r}"
            + ("" if rules.is_rulebook else f" under {rules.text}") + f" on {games:,} games of learned "
            "(a minute or two; kept in the weights store) ...")
    store.writable()
    kept = fit_model(sheet, players, rules, games).to_dict()
    atomic_write_bytes(path, (json.dumps(kept) + "\n").encode())
    return winmodel.WinModel.from_dict(kept)      # as it is kept: the same chances now and later


def calibration(sheet=SHEET, players: int = 4, rules=RULEBOOK, games: int = 2000,
                seed: int = winmodel.CALIBRATION_SEED, model=None):
    """Each decile of the predicted chances of winning (every seat after every roll but the last
    of `games` games of learned's self-play on `seed`'s dice), with the mean predicted and the
    observed win rate (a tie's share to each tied winner), in percent: a DataFrame with columns
    decile, rows, predicted, observed, and ci: the observed rate's 95% half-width (the rows of one
    game are not independent: by the games, as a ratio's delta method)."""
    import pandas as pd
    from .api import play_chunk
    sheet = load_sheet(sheet)
    rules = parse_rules(rules)
    model = model_for(sheet, players, rules) if model is None else model
    chunk = play_chunk(seed, 0, games, ["learned"], players=players, sheet=sheet, log_turns=True, rules=rules)
    a = trace_chunk_arrays(chunk, sheet, rules, samples=0)
    keep = ~a.last
    win = chunk.seats[:, :, PS_WINNER].astype(float)
    share = (win / win.sum(axis=1, keepdims=True))[a.game_index[keep]].ravel()
    p = model.win_prob(a.points[keep], a.value[keep], a.end[keep], a.roll[keep]).ravel()
    game = np.repeat(a.game_index[keep], players)
    d = np.minimum((p * 10).astype(int), 9)
    rows = []
    for k in range(10):
        sel = d == k
        n = int(sel.sum())
        row = {"decile": f"{10 * k}-{10 * k + 10}%", "rows": n, "predicted": np.nan, "observed": np.nan,
               "ci": np.nan}
        if n:
            y = np.bincount(game[sel], share[sel], minlength=games)
            c = np.bincount(game[sel], minlength=games).astype(float)
            r = y.sum() / n
            used = c > 0
            g = int(used.sum())
            var = g / max(g - 1, 1) * ((y - r * c)[used] ** 2).sum() / n ** 2
            row.update(predicted=100 * p[sel].mean(), observed=100 * r, ci=100 * Z95 * np.sqrt(var))
        rows.append(row)
    return pd.DataFrame(rows)


def trace_summary(measures):
    """trace_measures' frame aggregated over its games: a DataFrame with a row per measure (metric,
    who, games, value and its 95% interval ci_low..ci_high): the mean over games with a t interval,
    the luck share as the sum of the winners' luck margins over the sum of their margins (its
    interval by the delta method over games)."""
    import pandas as pd
    from scipy import stats
    rows = []

    def add(metric, who, x):
        x = np.asarray(x, float)
        x = x[~np.isnan(x)]
        n = len(x)
        m = x.mean() if n else np.nan
        hw = stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
        rows.append({"metric": metric, "who": who, "games": n, "value": m, "ci_low": m - hw, "ci_high": m + hw})
    for name in ("lead_changes", "drama", "decided_roll", "comebacks"):
        if name in measures:
            add(name, "game", measures[name])
    if "_win_margin" in measures:
        lm, wm = measures["_luck_margin"].to_numpy(float), measures["_win_margin"].to_numpy(float)
        n = len(wm)
        r = lm.sum() / wm.sum() if wm.sum() > 0 else np.nan
        hw = Z95 * np.sqrt(((lm - r * wm) ** 2).sum() / max(n - 1, 1) / n) / (wm.sum() / n) if n > 1 else np.nan
        rows.append({"metric": "luck_share", "who": "game", "games": n, "value": r, "ci_low": r - hw,
                     "ci_high": r + hw})
    for col in measures.columns:
        metric, at, who = col.partition("@")
        if at and metric in ("luck", "luck_win"):
            add(metric, who, measures[col])
    return pd.DataFrame(rows)


def summary_text(table) -> str:
    """trace_summary's table as the lines `summary` prints under its own."""
    out = ["How the games unfolded (the trace; docs/trace.md), mean per game [95% interval]:"]
    for r in table.itertuples():
        pct = r.metric in ("drama", "comebacks", "luck_share", "luck_win")
        f = (lambda v: f"{100 * v:.1f}%") if pct else (lambda v: f"{v:.2f}")
        who = "" if r.who == "game" else f" {r.who}"
        out.append(f"  {r.metric + who:<22} {f(r.value):>8}  [{f(r.ci_low)}, {f(r.ci_high)}]")
    return "\n".join(out)
