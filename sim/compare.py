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

Either a fixed number of games (`games`, default 10,000), or `until_ci`:
play until every score difference's 95% half-width is below `until_ci`
points, at most `max_games` (default 1,000,000). The first check is after
FIRST_CHECK games (fewer if `chunk_size` is under half of it, or `max_games`
is); each further batch is sized by the games the current half-width
predicts (it shrinks as 1/sqrt(games)), aiming 10% past them, and is at
most `chunk_size`.
Game g of a seed is the same game in any batch, so the schedule changes only
where the comparison stops, and the same arguments always give the same
result. Comparison.stop says whether the target or `max_games` stopped it.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numba
import numpy as np
import pandas as pd

from . import api
from .api import DEFAULT_MAX_ROLLS, MAX_SEED, check_chunk, check_int, play_chunk
from .runner import Progress
from .sheets import load_sheet
from .state import MAX_SEATS, PS_SCORE, PS_WINNER
from .summary import mean_ci, wilson


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


DEFAULT_GAMES = 10_000
DEFAULT_MAX_GAMES = 1_000_000
#: With until_ci: games played before the target is first checked.
FIRST_CHECK = 1_000


@dataclass
class Comparison:
    table: pd.DataFrame
    games: int
    players: int
    seed: int
    opponents: str | None
    settings: dict = field(default_factory=dict)
    #: With until_ci: {"until_ci", "max_games", "target_reached", "stopped_by" ("until_ci" or
    #: "max_games"), "widest_half_width" (None if unknown), "games_needed" (estimate if not reached)}.
    stop: dict | None = None
    #: per candidate (rows of table): {score: games}, for the report's score distributions
    hists: list[dict[int, int]] = field(default_factory=list)


def _widest(dscore) -> float:
    """The largest score-difference half-width (nan while one is unknown)."""
    hs = [d.ci()[2] for d in dscore]
    return float("nan") if any(math.isnan(h) for h in hs) else max(hs)


def _games_needed(done: int, widest: float, until_ci: float) -> float:
    """Games at which the half-width `widest` after `done` games would shrink to until_ci."""
    return done * (widest / until_ci) ** 2


def candidate_results(line, seed, first, count, players, sheet, max_rolls=DEFAULT_MAX_ROLLS):
    """(scores, winner flags) of the candidate, seat 0 of lineup `line`, in games first .. first+count-1.

    Solo it plays each game alone; at a table of `players` the seats rotate, so in game g it sits
    in seat (-g) mod players. Raises StrategyError if a strategy made an illegal move.
    """
    chunk = play_chunk(seed, first, count, line, players=players, sheet=sheet, max_rolls=max_rolls,
                       rotate=players > 1)
    check_chunk(chunk)
    seat = (-(first + np.arange(count))) % players
    rows = chunk.seats[np.arange(count), seat]
    return rows[:, PS_SCORE], rows[:, PS_WINNER]


def compare(strategies, players=1, opponents=None, games=None, seed=0, until_ci=None, max_games=None,
            chunk_size=None, sheet="standard", max_rolls=DEFAULT_MAX_ROLLS, threads=None,
            progress=False, checked=True) -> Comparison:
    """Compare the candidates (first = baseline) on common random numbers.

    `games` (default 10,000) and `until_ci` exclude each other; `max_games` (default
    1,000,000) is the limit of `until_ci` and needs it. `checked`: users' strategies are
    compiled with bounds checking.
    """
    strategies = [strategies] if isinstance(strategies, str) else list(strategies)
    if len(strategies) < 2:
        raise ValueError("compare needs at least two strategies")
    players = check_int("players", players, 1, MAX_SEATS)
    seed = check_int("seed", seed, 0, MAX_SEED)
    max_rolls = check_int("max-rolls", max_rolls, 1, 100_000)
    if until_ci is None:
        if max_games is not None:
            raise ValueError("--max-games is the limit of --until-ci and needs it "
                             "(without --until-ci, --games sets the number of games)")
        games = check_int("games", DEFAULT_GAMES if games is None else games, 1, 2**40)
    else:
        if games is not None:
            raise ValueError("--games and --until-ci exclude each other: --until-ci plays until its target "
                             "is reached, at most --max-games games")
        if not until_ci > 0:
            raise ValueError(f"--until-ci must be a positive number of points, got {until_ci}")
        max_games = check_int("max-games", DEFAULT_MAX_GAMES if max_games is None else max_games, 1, 2**40)
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
        lineups = [api.lineup([s], sheet=sheet_obj, players=1, checked=checked) for s in strategies]
    else:
        opponents = opponents or strategies[0]
        lineups = [api.lineup([s] + [opponents] * (players - 1), sheet=sheet_obj, players=players, checked=checked)
                   for s in strategies]
    names = [line.specs[0] for line in lineups]

    numba.set_num_threads(threads)
    score = [_Sums() for _ in names]
    win = [_Sums() for _ in names]
    dscore = [_Sums() for _ in names]
    dwin = [_Sums() for _ in names]
    hists = [Counter() for _ in names]
    limit = max_games if until_ci is not None else games
    first_check = min(FIRST_CHECK, 2 * chunk_size)
    bar = Progress(limit, 0, enabled=progress)
    done = 0
    count = chunk_size if until_ci is None else min(chunk_size, first_check)
    widest = float("nan")
    while done < limit:
        count = min(count, limit - done)
        base_s = base_w = None
        for i, line in enumerate(lineups):
            s, w = candidate_results(line, seed, done, count, players, sheet_obj, max_rolls)
            score[i].add(s)
            hists[i].update(dict(zip(*(a.tolist() for a in np.unique(s, return_counts=True)))))
            win[i].add(w)
            if i == 0:
                base_s, base_w = s, w
            else:
                dscore[i].add(s - base_s)
                dwin[i].add(w - base_w)
        done += count
        bar.update(done)
        if until_ci is None:
            continue
        if done < min(first_check, limit):
            count = min(chunk_size, first_check - done)
            continue
        widest = _widest(dscore[1:])
        if widest < until_ci or done >= limit or math.isnan(widest):
            break  # (nan: under 2 games, only possible at max_games)
        # Aim 10% past the games the current half-width predicts; no batch under a
        # twentieth of the games so far (each one has a fixed cost), none over chunk_size.
        need = _games_needed(done, widest, until_ci) * 1.1
        count = int(min(chunk_size, max(math.ceil(need) - done, 100, done // 20)))
        bar.total = min(limit, max(done + count, math.ceil(need)))   # the progress line's ETA: this estimate
    bar.close()

    rows = []
    for i, name in enumerate(names):
        m, sd, h = score[i].ci()
        row = {"strategy": name, "games": score[i].n, "mean": m, "ci_low": m - h, "ci_high": m + h, "sd": sd}
        if players > 1:
            # a candidate holds one seat a game: its wins are Bernoulli, as summary's Wilson interval takes
            lo, hi = wilson(win[i].s, win[i].n)
            row.update(win_rate=win[i].s / win[i].n, win_ci_low=lo, win_ci_high=hi)
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
                row.update(win_diff=wm, win_diff_ci_low=max(wm - wh, -1.0), win_diff_ci_high=min(wm + wh, 1.0),
                           win_significant=bool(abs(wm) > wh))
        rows.append(row)
    settings = {"players": players, "seed": seed, "sheet": sheet_obj.name, "max_rolls": max_rolls,
                "opponents": opponents, "until_ci": until_ci}
    stop = None
    if until_ci is not None:
        settings["max_games"] = max_games
        reached = bool(widest < until_ci)
        known = not math.isnan(widest)
        stop = {"until_ci": until_ci, "max_games": max_games, "target_reached": reached,
                "stopped_by": "until_ci" if reached else "max_games",
                "widest_half_width": widest if known else None,
                "games_needed": None if reached or not known
                else math.ceil(_games_needed(done, widest, until_ci))}
    return Comparison(pd.DataFrame(rows), done, players, seed, opponents, settings, stop,
                      [dict(sorted(h.items())) for h in hists])


def stop_message(result: Comparison) -> str | None:
    """One line on what ended an until_ci comparison (None without until_ci)."""
    stop = result.stop
    if stop is None:
        return None
    target = f"--until-ci {stop['until_ci']:g}"
    if stop["target_reached"]:
        return (f"Target reached after {result.games:,} games: every score difference's 95% CI half-width "
                f"is below {target} (widest {stop['widest_half_width']:.3g}).")
    if stop["widest_half_width"] is None:
        return (f"Target NOT reached: --max-games {stop['max_games']:,} stopped the comparison before {target} "
                "could be checked (it needs at least 2 games).")
    return (f"Target NOT reached: --max-games {stop['max_games']:,} stopped the comparison with the widest "
            f"score difference's 95% CI half-width at {stop['widest_half_width']:.3g}, above {target}; "
            f"about {stop['games_needed']:,} games would reach it.")


def headline(result: Comparison) -> str:
    return (f"{result.games:,} games of seed {result.seed} per strategy, "
            + ("solo" if result.players == 1 else
               f"{result.players} players, each candidate rotated through the seats against "
               f"{result.players - 1} x {result.opponents}")
            + f"; differences are paired against {result.table['strategy'][0]} (95% CI)")


def display_table(result: Comparison) -> pd.DataFrame:
    """The table as format_table prints it (and the report shows it): one string per cell."""
    t = result.table
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
    return out


def format_table(result: Comparison) -> str:
    text = headline(result) + "\n\n" + display_table(result).to_string(index=False)
    message = stop_message(result)
    return text if message is None else text + "\n\n" + message
