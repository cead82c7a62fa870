"""Paired comparisons of strategies on common random numbers.

Every candidate plays the same game numbers of the same root seed, so the
dice are identical game by game and the difference of two candidates' scores
in one game carries none of the dice's variance.

- Solo: candidate X plays game g alone.
- Tables of N: candidate X sits with N-1 copies of the opponents' strategy,
  seats rotated: in game g, X is in seat (-g) mod N, so over N consecutive
  games it sits in every seat once, and in game g every candidate sits in the
  same seat with the same opponents and dice.

Reported: per candidate the mean score (and win rate at tables), and its
paired difference against the first candidate with a 95% t interval; a
difference is significant when the interval excludes 0.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np
import pandas as pd

from . import api
from .api import DEFAULT_MAX_ROLLS, MAX_SEED, check_chunk, check_int, play_chunk
from .runner import Progress
from .sheets import load_sheet
from .state import MAX_SEATS, PS_SCORE, PS_WINNER
from .summary import mean_ci


@dataclass
class _Sums:
    n: int = 0
    s: float = 0.0
    ss: float = 0.0

    def add(self, x: np.ndarray) -> None:
        x = x.astype(np.float64)
        self.n += len(x)
        self.s += float(x.sum())
        self.ss += float((x * x).sum())

    def ci(self):
        return mean_ci(self.n, self.s, self.ss)


@dataclass
class Comparison:
    table: pd.DataFrame
    games: int
    players: int
    seed: int
    opponents: str | None
    settings: dict = field(default_factory=dict)


def compare(strategies, players=1, opponents=None, games=10_000, seed=0, until_ci=None, max_games=1_000_000,
            chunk_size=None, sheet="standard", max_rolls=DEFAULT_MAX_ROLLS, threads=None,
            progress=False) -> Comparison:
    """Compare the candidates (first = baseline) on common random numbers."""
    strategies = [strategies] if isinstance(strategies, str) else list(strategies)
    if len(strategies) < 2:
        raise ValueError("compare needs at least two strategies")
    players = check_int("players", players, 1, MAX_SEATS)
    seed = check_int("seed", seed, 0, MAX_SEED)
    games = check_int("games", games, 1, 2**40)
    max_rolls = check_int("max-rolls", max_rolls, 1, 100_000)
    if until_ci is not None:
        if not until_ci > 0:
            raise ValueError(f"--until-ci must be a positive number of points, got {until_ci}")
        max_games = check_int("max-games", max_games, 1, 2**40)
    if chunk_size is None:
        chunk_size = 20_000 if players == 1 else 5_000
        if until_ci is None:
            chunk_size = min(chunk_size, games)
    chunk_size = check_int("chunk-size", chunk_size, 1, 10_000_000)
    max_threads = numba.config.NUMBA_NUM_THREADS
    threads = max_threads if threads is None else check_int("threads", threads, 1, max_threads)
    sheet_obj = load_sheet(sheet)
    if players == 1:
        if opponents is not None:
            raise ValueError("--opponents needs --players 2..6 (the solo game has none)")
        lineups = [api.lineup([s]) for s in strategies]
    else:
        opponents = opponents or strategies[0]
        lineups = [api.lineup([s] + [opponents] * (players - 1)) for s in strategies]
    names = [line.specs[0] for line in lineups]

    numba.set_num_threads(threads)
    score = [_Sums() for _ in names]
    win = [_Sums() for _ in names]
    dscore = [_Sums() for _ in names]
    dwin = [_Sums() for _ in names]
    limit = max_games if until_ci is not None else games
    bar = Progress(limit, 0, enabled=progress)
    done = 0
    while done < limit:
        count = min(chunk_size, limit - done)
        base_s = base_w = None
        for i, line in enumerate(lineups):
            chunk = play_chunk(seed, done, count, line, players=players, sheet=sheet_obj,
                               max_rolls=max_rolls, rotate=players > 1)
            check_chunk(chunk)
            seat = (-(done + np.arange(count))) % players
            rows = chunk.seats[np.arange(count), seat]
            s, w = rows[:, PS_SCORE], rows[:, PS_WINNER]
            score[i].add(s)
            win[i].add(w)
            if i == 0:
                base_s, base_w = s, w
            else:
                dscore[i].add(s - base_s)
                dwin[i].add(w - base_w)
        done += count
        bar.update(done)
        enough = until_ci is not None and done >= 2 * min(chunk_size, 1000)
        if enough and all(d.ci()[2] < until_ci for d in dscore[1:]):
            break
    bar.close()

    rows = []
    for i, name in enumerate(names):
        m, sd, h = score[i].ci()
        row = {"strategy": name, "games": score[i].n, "mean": m, "ci_low": m - h, "ci_high": m + h, "sd": sd}
        if players > 1:
            wm, _, wh = win[i].ci()
            row.update(win_rate=wm, win_ci_low=wm - wh, win_ci_high=wm + wh)
        if i == 0:
            row.update(diff=0.0, diff_ci_low=float("nan"), diff_ci_high=float("nan"), significant=None)
            if players > 1:
                row.update(win_diff=0.0, win_diff_ci_low=float("nan"), win_diff_ci_high=float("nan"),
                           win_significant=None)
        else:
            dm, _, dh = dscore[i].ci()
            row.update(diff=dm, diff_ci_low=dm - dh, diff_ci_high=dm + dh, significant=bool(abs(dm) > dh))
            if players > 1:
                wm, _, wh = dwin[i].ci()
                row.update(win_diff=wm, win_diff_ci_low=wm - wh, win_diff_ci_high=wm + wh,
                           win_significant=bool(abs(wm) > wh))
        rows.append(row)
    settings = {"players": players, "seed": seed, "sheet": sheet_obj.name, "max_rolls": max_rolls,
                "opponents": opponents, "until_ci": until_ci}
    return Comparison(pd.DataFrame(rows), done, players, seed, opponents, settings)


def format_table(result: Comparison) -> str:
    t = result.table
    head = (f"{result.games:,} games of seed {result.seed} per strategy, "
            + ("solo" if result.players == 1 else
               f"{result.players} players, each candidate rotated through the seats against "
               f"{result.players - 1} x {result.opponents}")
            + f"; differences are paired against {t['strategy'][0]} (95% CI)")
    out = pd.DataFrame({"strategy": t["strategy"]})
    out["mean score (95% CI)"] = [f"{m:.2f} ({lo:.2f}..{hi:.2f})" for m, lo, hi in zip(t["mean"], t["ci_low"], t["ci_high"])]
    out["difference (95% CI)"] = ["baseline" if i == 0 else f"{d:+.2f} ({lo:+.2f}..{hi:+.2f})"
                                  for i, (d, lo, hi) in enumerate(zip(t["diff"], t["diff_ci_low"], t["diff_ci_high"]))]
    out["significant"] = ["" if s is None else ("yes" if s else "no") for s in t["significant"]]
    if result.players > 1:
        out["win rate"] = t["win_rate"].map("{:.1%}".format)
        out["win-rate difference (95% CI)"] = [
            "baseline" if i == 0 else f"{d:+.1%} ({lo:+.1%}..{hi:+.1%})"
            for i, (d, lo, hi) in enumerate(zip(t["win_diff"], t["win_diff_ci_low"], t["win_diff_ci_high"]))]
        out["win significant"] = ["" if s is None else ("yes" if s else "no") for s in t["win_significant"]]
    return head + "\n\n" + out.to_string(index=False)
