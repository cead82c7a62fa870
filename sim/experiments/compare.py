"""Paired comparisons of strategies on common random numbers.

Every candidate plays the same game numbers of the same root seed, so the
dice are identical game by game and the difference of two candidates' scores
in one game carries none of the dice's variance.

- Solo: candidate X plays game g alone.
- Tables of N: candidate X sits with N-1 copies of the opponents' strategy,
  or with N-1 opponents of a mixed table (one strategy per opponent seat),
  seats rotated: in game g, X is in seat (-g) mod N, so over N consecutive
  games it sits in every seat once (the opponents keep their order around the
  table after it), and in game g every candidate sits in the same seat with
  the same opponents and dice.

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

from ..runs import api
from ..runs.api import check_chunk, play_chunk
from ..runs.progress import Progress
from ..runs.defaults import COMPARE_CHUNK, COMPARE_GAMES, COMPARE_MAX_GAMES, PLAYERS, SEED, SHEET
from ..errors import SettingError
from ..runs.settings import DEFAULT_MAX_ROLLS, MAX_GAMES, Settings, check_int
from ..state import PS_SCORE, PS_WINNER
from ..runs.summary import mean_ci, wilson
from strategies import labels, resolve


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


DEFAULT_GAMES = COMPARE_GAMES
DEFAULT_MAX_GAMES = COMPARE_MAX_GAMES
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
    #: with measures: sim.runs.measures' aggregate of each candidate's games (its whole table's),
    #: paired against the first's, and what it lacks; None: not asked
    measures: pd.DataFrame | None = None
    not_measured: dict = field(default_factory=dict)


def _widest(dscore) -> float:
    """The largest score-difference half-width (nan while one is unknown)."""
    hs = [d.ci()[2] for d in dscore]
    return float("nan") if any(math.isnan(h) for h in hs) else max(hs)


def _games_needed(done: int, widest: float, until_ci: float) -> float:
    """Games at which the half-width `widest` after `done` games would shrink to until_ci."""
    return done * (widest / until_ci) ** 2


def candidate_results(line, seed, first, count, players, sheet, max_rolls=DEFAULT_MAX_ROLLS, frames=None,
                      trace=False):
    """(scores, winner flags) of the candidate, slot 0 of lineup `line`, in games first .. first+count-1.

    Under the rules `line` was set up for. Solo it plays each game alone; at a table of `players` the
    seats rotate (sim.state.seat_slot),
    so in game g it sits in seat (-g) mod players. Raises StrategyError if a strategy made an
    illegal move. With `frames` (a list), the games are played with their move log and their
    per-game frame of sim.runs.measures appended to it (with `trace`, the trace's measures joined).
    """
    chunk = play_chunk(seed, first, count, line, players=players, sheet=sheet, max_rolls=max_rolls,
                       rotate=players > 1, rules=line.rules,   # the rules the line-up was set up for
                       log_turns=frames is not None)
    check_chunk(chunk)
    if frames is not None:
        from ..runs.measures import frame_of_chunk
        frames.append(frame_of_chunk(chunk, trace=trace))
    rows = chunk.seats[np.arange(count), np.argmax(chunk.slots == 0, axis=1)]
    return rows[:, PS_SCORE], rows[:, PS_WINNER]


def opponent_seats(opponents, players: int, default: str) -> list[str]:
    """The strategies of the N-1 opponent seats at a table of N: `opponents` is one spec for all of
    them, or a list of one (all) or N-1 (one per seat, in order after the candidate); None is
    `default` in every seat. ValueError for another number."""
    given = [default] if opponents is None else [opponents] if isinstance(opponents, str) else list(opponents)
    if len(given) == 1:
        return given * (players - 1)
    if len(given) != players - 1:
        raise ValueError(f"{len(given)} opponents for a table of {players}: give one strategy for all "
                         f"{players - 1} opponent seats, or one per seat ({players - 1})")
    return given


def opponents_text(opponents, players: int) -> str:
    """How a headline names the opponents of a table of `players`: '3 x greedy' (one spec for every
    seat), or a mixed table's 'greedy, heuristic, random' (a list, seat by seat)."""
    return f"{players - 1} x {opponents}" if isinstance(opponents, str) else ", ".join(opponents)


def compare(strategies, players=PLAYERS, opponents=None, games=None, seed=SEED, until_ci=None, max_games=None,
            chunk_size=None, sheet=SHEET, max_rolls=DEFAULT_MAX_ROLLS, threads=None,
            progress=False, checked=True, rules=None, measures=False, trace=False) -> Comparison:
    """Compare the candidates (first = baseline) on common random numbers.

    `games` (default 10,000) and `until_ci` exclude each other; `max_games` (default
    1,000,000) is the limit of `until_ci` and needs it. `opponents` (tables): one spec for every
    opponent seat, or a list of one per opponent seat (a mixed table) [default: the first
    candidate]. `checked`: users' strategies are compiled with bounds checking. `rules`: the rule
    variants every candidate plays under (a sim.rules.Rules or a --rules text; None: the rulebook).
    `measures`: the designer's measures of each candidate's games too (sim.runs.measures); `trace`:
    with them the measures of each game's per-roll trace (sim.runs.trace.chunk_measures).
    """
    strategies = [strategies] if isinstance(strategies, str) else list(strategies)
    if len(strategies) < 2:
        raise ValueError("compare needs at least two strategies")
    s = paired_settings(players, opponents, games, seed, until_ci, max_games, chunk_size, sheet, max_rolls, threads,
                  checked, rules)
    seats = [] if s.players == 1 else opponent_seats(opponents, s.players, strategies[0])
    opponents = None if s.players == 1 else seats[0] if len(set(seats)) == 1 else seats
    lineups = [api.lineup([c] + seats, sheet=s.sheet, players=s.players, checked=s.checked, rules=s.rules)
               for c in strategies]
    numba.set_num_threads(s.threads)
    frames = [[] for _ in lineups] if measures or trace else None
    tally = _play(lineups, s, until_ci, progress, frames, trace)
    settings = {"players": s.players, "seed": s.seed, "sheet": s.sheet.name, "max_rolls": s.max_rolls,
                "opponents": opponents, "until_ci": until_ci}
    if until_ci is not None:
        settings["max_games"] = s.games
    if not s.rules.is_rulebook:   # named only when they are not the rulebook: older outputs stay as they were
        settings["rules"] = s.rules.text
    names = labels([resolve(c, checked=s.checked) for c in strategies])   # told apart across the candidates
    return Comparison(_table(names, tally, s.players), tally.done, s.players, s.seed,
                      opponents, settings, None if until_ci is None else stop_of(tally, until_ci, s.games),
                      [dict(sorted(h.items())) for h in tally.hists], *_measures(names, frames))


def _measures(names, frames) -> tuple:
    """(the measures of each candidate's games paired against the first's, what they lack), or (None, {})."""
    if frames is None:
        return None, {}
    from ..runs.measures import aggregate, missing
    per = {name: pd.concat(f, ignore_index=True) for name, f in zip(names, frames)}
    return aggregate(per), missing(per[names[0]])


def paired_settings(players, opponents, games, seed, until_ci, max_games, chunk_size, sheet, max_rolls, threads,
              checked, rules=None):
    """The comparison's settings (sim.runs.settings.Settings), checked; their `games` are the most it
    plays: `games`, or with `until_ci` `max_games`. The chunk size is the largest batch."""
    if until_ci is None:
        if max_games is not None:
            raise SettingError("{max_games} is the limit of {until_ci} and needs it "
                             "(without {until_ci}, {games} sets the number of games)")
        limit = DEFAULT_GAMES if games is None else games
    else:
        if games is not None:
            raise SettingError("{games} and {until_ci} exclude each other: {until_ci} plays until its target "
                             "is reached, at most {max_games} games")
        if not until_ci > 0:
            raise SettingError(f"{{until_ci}} must be a positive number of points, got {until_ci}")
        limit = check_int("max-games", DEFAULT_MAX_GAMES if max_games is None else max_games, 1, MAX_GAMES)
    s = Settings.of(players=players, games=limit, seed=seed, sheet=sheet, max_rolls=max_rolls, threads=threads,
                    chunk_size=chunk_size, checked=checked, rules=rules)
    if s.players == 1 and opponents is not None:
        raise SettingError("{opponents} needs {players} 2..6 (the solo game has none)")
    if s.chunk_size is None:
        default = COMPARE_CHUNK["solo" if s.players == 1 else "table"]
        s = s.with_(chunk_size=default if until_ci is not None else min(default, s.games))
    return s


@dataclass
class _Tally:
    """Per candidate: score and win sums, paired differences against the first, score counts."""
    score: list
    win: list
    dscore: list
    dwin: list
    hists: list
    done: int = 0
    widest: float = float("nan")   # with until_ci: the widest score difference's half-width

    @classmethod
    def of(cls, n: int) -> _Tally:
        return cls(*([_Sums() for _ in range(n)] for _ in range(4)), [Counter() for _ in range(n)])

    def add(self, results) -> None:
        """One batch: (scores, winner flags) per candidate, the same games for each."""
        base_s, base_w = results[0]
        for i, (s, w) in enumerate(results):
            self.score[i].add(s)
            self.hists[i].update(dict(zip(*(a.tolist() for a in np.unique(s, return_counts=True)))))
            self.win[i].add(w)
            if i > 0:
                self.dscore[i].add(s - base_s)
                self.dwin[i].add(w - base_w)
        self.done += len(base_s)


def _play(lineups, s, until_ci, progress, frames=None, trace=False) -> _Tally:
    """Play the candidates batch by batch (s.games of them, or with until_ci until its target);
    with `frames`, each candidate's per-game frames into its list (with `trace`, the trace's too)."""
    return play_batches(_Tally.of(len(lineups)), s, until_ci, progress, lambda first, count: [
        candidate_results(line, s.seed, first, count, s.players, s.sheet, s.max_rolls,
                          None if frames is None else frames[i], trace) for i, line in enumerate(lineups)])


def play_batches(tally, s, until_ci, progress, batch):
    """tally.add(batch(first, count)) for batches of games first .. first+count-1 until s.games are
    played, or with until_ci until every difference tally.dscore[1:] has a 95% half-width below it
    (batches sized by _next_batch). `tally` has `done`, `widest`, `dscore` and `add`: compare's
    _Tally, or sim.experiments.rulescompare's, which plays rule sets instead of candidates."""
    limit, chunk_size = s.games, s.chunk_size
    first_check = min(FIRST_CHECK, 2 * chunk_size)
    bar = Progress(limit, 0, enabled=progress)
    count = chunk_size if until_ci is None else min(chunk_size, first_check)
    while tally.done < limit:
        count = min(count, limit - tally.done)
        tally.add(batch(tally.done, count))
        bar.update(tally.done)
        if until_ci is None:
            continue
        count = _next_batch(tally, until_ci, limit, chunk_size, first_check, bar)
        if count == 0:
            break
    bar.close()
    return tally


def _next_batch(tally, until_ci, limit, chunk_size, first_check, bar) -> int:
    """With until_ci: the games of the next batch, 0 to stop (tally.widest set once checked)."""
    done = tally.done
    if done < min(first_check, limit):
        return min(chunk_size, first_check - done)
    tally.widest = _widest(tally.dscore[1:])
    if tally.widest < until_ci or done >= limit or math.isnan(tally.widest):
        return 0  # (nan: under 2 games, only possible at max_games)
    # Aim 10% past the games the current half-width predicts; no batch under a
    # twentieth of the games so far (each one has a fixed cost), none over chunk_size.
    need = _games_needed(done, tally.widest, until_ci) * 1.1
    count = int(min(chunk_size, max(math.ceil(need) - done, 100, done // 20)))
    bar.total = min(limit, max(done + count, math.ceil(need)))   # the progress line's ETA: this estimate
    return count


def _table(names, tally: _Tally, players: int) -> pd.DataFrame:
    """A row per candidate: mean score and 95% CI (and win rate at tables), paired differences."""
    rows = []
    for i, name in enumerate(names):
        m, sd, h = tally.score[i].ci()
        row = {"strategy": name, "games": tally.score[i].n, "mean": m, "ci_low": m - h, "ci_high": m + h, "sd": sd}
        if players > 1:
            # a candidate holds one seat a game: its wins are Bernoulli, as summary's Wilson interval takes
            lo, hi = wilson(tally.win[i].s, tally.win[i].n)
            row.update(win_rate=tally.win[i].s / tally.win[i].n, win_ci_low=lo, win_ci_high=hi)
        if i == 0:
            row.update(diff=0.0, diff_ci_low=float("nan"), diff_ci_high=float("nan"), significant=None)
            if players > 1:
                row.update(win_diff=0.0, win_diff_ci_low=float("nan"), win_diff_ci_high=float("nan"),
                           win_significant=None)
        else:
            dm, _, dh = tally.dscore[i].ci()
            row.update(diff=dm, diff_ci_low=dm - dh, diff_ci_high=dm + dh, significant=bool(abs(dm) > dh))
            if players > 1:
                wm, _, wh = tally.dwin[i].ci()
                row.update(win_diff=wm, win_diff_ci_low=max(wm - wh, -1.0), win_diff_ci_high=min(wm + wh, 1.0),
                           win_significant=bool(abs(wm) > wh))
        rows.append(row)
    return pd.DataFrame(rows)


def stop_of(tally: _Tally, until_ci: float, max_games: int) -> dict:
    """Comparison.stop: what ended an until_ci comparison."""
    widest = tally.widest
    reached = bool(widest < until_ci)
    known = not math.isnan(widest)
    return {"until_ci": until_ci, "max_games": max_games, "target_reached": reached,
            "stopped_by": "until_ci" if reached else "max_games",
            "widest_half_width": widest if known else None,
            "games_needed": None if reached or not known else math.ceil(_games_needed(tally.done, widest, until_ci))}


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
               + opponents_text(result.opponents, result.players))
            + _rules_text(result.settings.get("rules"))
            + f"; differences are paired against {result.table['strategy'][0]} (95% CI)")


def _rules_text(text) -> str:
    """What a headline says of the rules: nothing for the rulebook."""
    return f", under the rules {text}" if text else ""


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
    if result.measures is not None:
        from ..runs.measures import format_measures
        text += "\n\n" + format_measures(result.measures, result.not_measured, "the comparison",
                                           how="`compare --trace`")
    message = stop_message(result)
    return text if message is None else text + "\n\n" + message
