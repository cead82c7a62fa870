"""A dataset's report, gathered: everything its page shows, as plain data, read in one pass.

    collect(dataset, batch_size=BATCH_ROWS, progress=False) -> dict

The numbers come from sim.runs.summary: the summary table is summarise()'s, the score
distributions are its per-strategy histograms, and the figures' aggregates are folded from the
very batches summarise() reads (its each_batch hook), chunk by chunk, so memory does not grow with
the dataset. Only the turns table, when the run logged it, is read in a second pass. A damaged
dataset raises DatasetError.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict

import numpy as np
import pyarrow.compute as pc

from ..runs.dataset import DatasetError, as_numpy, done_chunks, iter_part, open_store, read_manifest, read_part
from ..runs.progress import Progress
from ..runs.summary import (
    BATCH_ROWS,
    Summary,
    Sums,
    accumulate,
    band_columns,
    default_by_seat,
    headline,
    summarise,
    summary_rows,
    table_columns,
    wilson,
    Z95,
)


#: players columns the figures read besides summarise's
FIGURE_COLUMNS = ["column_points", "colour_points", "jokers_left", "star_penalty", "columns_first", "columns_later",
                  "colours_first", "colours_later", "first_joker_roll"]


#: summed per strategy (first_joker_roll is counted by roll instead)
SUMMED = FIGURE_COLUMNS[:-1]


def _group_sums(keys: np.ndarray, weights=None):
    """(distinct keys, count or sum of weights per key)."""
    u, inv = np.unique(keys, return_inverse=True)
    return u, np.bincount(inv.ravel(), weights=weights, minlength=len(u))


class _Folds:
    """The figures' aggregates, folded batch by batch (summarise's each_batch hook).

    Per strategy: sums of SUMMED columns and a count of first-joker rolls (0 = never).
    Per seat: wins and games (every game has each seat once, so the pooled seat win rate
    is a plain proportion over games). Per game length: games (a game is counted at its seat 0).
    """

    def __init__(self, store, players: int, bar: Progress):
        self.store, self.players, self.bar = store, players, bar
        self.sums = defaultdict(lambda: np.zeros(len(SUMMED)))
        self.first_joker = defaultdict(Counter)
        self.lengths = Counter()
        self.capped = 0
        self.seat_wins = np.zeros(players)
        self.seat_games = np.zeros(players)
        # per seat: sums of the score and of its square, and of (score - seat 0's score in the game) and its square
        self.seat_score = np.zeros((4, players))
        # first '!' by roll of the games' winners and of the other seats (at tables)
        self.first_joker_won = [Counter(), Counter()]
        self.by_seat = defaultdict(Sums)   # summarise(by_seat=True)'s sums, in the same pass
        self.games = 0

    def __call__(self, batch, rolls, capped) -> None:
        if self.players > 1:
            accumulate(self.by_seat, batch, rolls, capped, True)
        strategy = batch.column("strategy").dictionary_encode()
        names = strategy.dictionary.to_pylist()
        code = as_numpy(strategy.indices).astype(np.int64)
        groups, group = np.unique(code, return_inverse=True)
        for i, col in enumerate(SUMMED):
            sums = np.bincount(group.ravel(), weights=as_numpy(batch.column(col)), minlength=len(groups))
            for c, v in zip(groups.tolist(), sums.tolist()):
                self.sums[names[c]][i] += v
        first = as_numpy(pc.fill_null(batch.column("first_joker_roll"), 0)).astype(np.int64)
        u, n = _group_sums(code * 65_536 + first)
        for k, v in zip(u.tolist(), n.tolist()):
            self.first_joker[names[k // 65_536]][k % 65_536] += v
        seat = as_numpy(batch.column("seat")).astype(np.int64)
        if seat.max() >= self.players:
            raise DatasetError(f"{self.store}: a players row of seat {seat.max()}, in a dataset of {self.players} "
                               "players")
        winner = as_numpy(batch.column("winner")).astype(np.int64)
        self.seat_wins += np.bincount(seat, weights=winner, minlength=self.players)
        self.seat_games += np.bincount(seat, minlength=self.players)
        if self.players > 1:
            score = as_numpy(batch.column("score")).astype(np.float64)
            game = as_numpy(batch.column("game"))
            order = np.lexsort((seat, game))
            if len(order) % self.players == 0 and (seat[order].reshape(-1, self.players) ==
                                                   np.arange(self.players)).all():
                by_game = score[order].reshape(-1, self.players)
                diff = by_game - by_game[:, :1]
                self.seat_score += [by_game.sum(0), (by_game ** 2).sum(0), diff.sum(0), (diff ** 2).sum(0)]
            else:
                raise DatasetError(f"{self.store}: a batch of the players table without every seat of its games")
            for won in (0, 1):
                u, n = _group_sums(first[winner == won])
                self.first_joker_won[won].update(dict(zip(u.tolist(), n.tolist())))
        opening = seat == 0
        u, n = _group_sums(rolls[opening].astype(np.int64))
        self.lengths.update(dict(zip(u.tolist(), n.tolist())))
        self.capped += int(np.count_nonzero(capped[opening]))
        self.games += int(np.count_nonzero(opening))
        self.bar.update(self.games)


def _turn_jokers(store, chunks, players: int, batch_size: int, bar: Progress) -> dict[str, Counter]:
    """Per strategy: '!' used in each roll, summed over the turns table, chunk by chunk.

    The turns table names seats, not strategies: each chunk's (game, seat) -> strategy
    comes from its players table (a chunk's players fit in memory: a run holds them there).
    """
    out = defaultdict(Counter)
    games = 0
    for c in chunks:
        p = read_part(store, "players", c, ["game", "seat", "strategy"])
        strategy = p.column("strategy").combine_chunks().dictionary_encode()
        names = strategy.dictionary.to_pylist()
        game = as_numpy(p.column("game").combine_chunks())
        seat = as_numpy(p.column("seat").combine_chunks()).astype(np.int64)
        first = int(game.min())
        lookup = np.full((int(game.max()) - first + 1) * players, -1, np.int64)
        lookup[(game - first) * players + seat] = as_numpy(strategy.indices)
        for batch in iter_part(store, "turns", c, ["game", "roll", "seat", "jokers"], batch_size):
            jokers = as_numpy(batch.column("jokers"))
            used = jokers > 0
            if not used.any():
                continue
            g = as_numpy(batch.column("game"))[used]
            s = as_numpy(batch.column("seat"))[used].astype(np.int64)
            inside = (g >= first) & (g - first < len(lookup) // players) & (s < players)
            code = lookup[np.where(inside, (g - first) * players + s, 0)]
            if not inside.all() or (code < 0).any():
                raise DatasetError(f"{store.path(f'turns/part-{c:06d}.parquet')}: rows of seats missing from "
                                   "the players table")
            u, n = _group_sums(code * 65_536 + as_numpy(batch.column("roll"))[used],
                               jokers[used].astype(np.float64))
            for k, v in zip(u.tolist(), n.tolist()):
                out[names[k // 65_536]][k % 65_536] += v
        games += len(game) // players
        bar.update(games)
    return out


def collect(dataset, batch_size: int = BATCH_ROWS, progress: bool = False) -> dict:
    """Everything a dataset's report shows, as plain data (what the report embeds as JSON)."""
    store = open_store(dataset)
    manifest = read_manifest(store)
    st = manifest.get("settings") or {}
    players = int(st.get("players") or 0)
    if not 1 <= players <= 6:
        raise DatasetError(f"{store}: the manifest names no valid number of players")
    bar = Progress(int(manifest.get("games_done") or st.get("games") or 0), enabled=progress)
    folds = _Folds(store, players, bar)
    summary = summarise(store, batch_size=batch_size, columns=FIGURE_COLUMNS, each_batch=folds)
    bar.close()
    by_seat = summary_rows(folds.by_seat, True, players) if players > 1 else None
    jokers = None
    if st.get("log_turns"):
        bar = Progress(summary.games, enabled=progress, unit="games' turns")
        jokers = _turn_jokers(store, sorted(done_chunks(store)), players, batch_size, bar)
        bar.close()
    names = [r["strategy"] for r in summary.rows]
    n = {r["strategy"]: r["seat_games"] for r in summary.rows}
    means = {name: dict(zip(SUMMED, (folds.sums[name] / n[name]).tolist())) for name in names}
    seats = None
    if players > 1:
        seats = []
        for s in range(players):
            lo, hi = wilson(folds.seat_wins[s], folds.seat_games[s])
            n, (total, sq, diff, diff_sq) = folds.seat_games[s], folds.seat_score[:, s]
            mean, d = total / n, diff / n
            sd = math.sqrt(max(sq - n * mean * mean, 0.0) / (n - 1)) if n > 1 else math.nan
            d_sd = math.sqrt(max(diff_sq - n * d * d, 0.0) / (n - 1)) if n > 1 else math.nan
            seats.append({"seat": s, "games": int(n), "win_rate": folds.seat_wins[s] / n, "win_ci_low": lo,
                          "win_ci_high": hi, "mean_score": mean, "score_ci": Z95 * sd / math.sqrt(n),
                          "diff_seat0": d, "diff_seat0_ci": Z95 * d_sd / math.sqrt(n)})
    rules = summary.rules
    return {
        "dataset": str(dataset),
        # a variant's games are not the rulebook's: say so where the reader starts
        "headline": headline(summary) + ("" if rules.is_rulebook else f", rules {rules.text}"),
        "rules": rules.label,
        "manifest": manifest,
        "games": summary.games,
        "players": players,
        "summary": summary.rows,
        "summary_by_seat": by_seat,
        "bands": summary.band_rows,
        # the table `encore-sim summary` prints: per seat when one strategy holds every seat
        "table": table_columns(Summary(by_seat, None, manifest) if default_by_seat(manifest) else summary),
        "band_table": band_columns(summary),
        "hists": {key[0]: {int(k): v for k, v in h.items()} for key, h in summary.hists.items()},
        "means": means,
        "seats": seats,
        "lengths": {int(k): v for k, v in sorted(folds.lengths.items())},
        "capped": folds.capped,
        "joker_source": "turns" if jokers is not None else "first_joker_roll",
        "jokers_by_roll": None if jokers is None else {name: {int(k): v for k, v in sorted(jokers[name].items())}
                                                        for name in names},
        "first_joker": {name: {int(k): v for k, v in sorted(folds.first_joker[name].items())} for name in names},
        "first_joker_winners": None if players == 1 else
        {who: {int(k): v for k, v in sorted(folds.first_joker_won[won].items())}
         for who, won in (("winners", 1), ("the rest", 0))},
    }
