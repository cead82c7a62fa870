"""Reports: a dataset's settings, summary and figures in one self-contained HTML file.

    report(dataset, out=None, fmt="html", figures_dir=None, progress=False) -> Report
    compare_report(result, out, fmt="html", figures_dir=None) -> Report

The figures are drawn with matplotlib and embedded as SVG data URIs in <img>
tags: vector graphics, no script, nothing loaded from the network, and each
SVG in its own document, so the ids matplotlib gives clip paths and glyphs in
one figure cannot capture another's. fmt="png" also writes every figure as a
PNG into figures_dir, for slides.

The numbers come from sim.runs.summary: the summary table is summarise()'s, the
score distributions are its per-strategy histograms, and the figures'
aggregates are folded from the very batches summarise() reads (its
each_batch hook), chunk by chunk, so memory does not grow with the dataset.
Only the turns table, when the run logged it, is read in a second pass.

A figure appears only where the data supports it: no seat plot and no game
length in solo (one seat; 30 rolls), the rating bands only in solo.
The data behind the tables and figures is embedded as JSON
(<script type="application/json" id="report-data">), for scripts and tests.

Every file is written atomically, and only after the whole dataset was read:
a damaged dataset raises DatasetError and leaves no report behind.
"""
from __future__ import annotations

import base64
import html
import io
import json
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow.compute as pc

from ..errors import SettingError
from ..runs.dataset import (
    DatasetError,
    as_numpy,
    atomic_write_bytes,
    done_chunks,
    is_url,
    iter_part,
    json_safe,
    open_store,
    read_manifest,
    read_part,
)
from ..runs.gamelog import describe
from ..runs.progress import Progress
from ..runs.summary import (
    BATCH_ROWS,
    SOLO_BANDS,
    Summary,
    Sums,
    accumulate,
    band_columns,
    band_label,
    default_by_seat,
    headline,
    summarise,
    summary_rows,
    table_columns,
    wilson,
    Z95,
)

FORMATS = ("html", "png")
#: players columns the figures read besides summarise's
FIGURE_COLUMNS = ["column_points", "colour_points", "jokers_left", "star_penalty", "columns_first", "columns_later",
                  "colours_first", "colours_later", "first_joker_roll"]
#: summed per strategy (first_joker_roll is counted by roll instead)
SUMMED = FIGURE_COLUMNS[:-1]
FIGSIZE = (7.2, 4.0)


@dataclass
class Report:
    html: Path
    figures: list[str]                               # figure titles, in order
    pngs: list[Path] = field(default_factory=list)   # with fmt="png"


@dataclass
class _Figure:
    slug: str      # file name of its PNG
    title: str
    caption: str
    fig: object    # matplotlib.figure.Figure


# --- aggregation ------------------------------------------------------------------

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


# --- figures ------------------------------------------------------------------------

def _colours(names):
    from matplotlib import colormaps
    cmap = colormaps["tab10"]
    return {name: cmap(i % 10) for i, name in enumerate(names)}


def _short(name: str, width: int = 28) -> str:
    """A strategy spec short enough for a legend (a user's file path can be long), its '$' escaped
    (matplotlib reads text between two as mathematics)."""
    name = name if len(name) <= width else "…" + name[-(width - 1):]
    return name.replace("$", r"\$")


def _figure(size=FIGSIZE, ncols=1, nrows=1):
    from matplotlib.figure import Figure
    fig = Figure(figsize=size, layout="constrained")
    axes = fig.subplots(nrows, ncols)
    for ax in np.atleast_1d(axes).ravel():
        ax.grid(True, color="#ddd", linewidth=0.6)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    return fig, axes


def _percent(ax, axis="y"):
    from matplotlib.ticker import PercentFormatter
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(PercentFormatter(1.0, decimals=0))


def _bar_lengths(y, lo, hi):
    """Error bar lengths; rounding can put a bound a hair inside its estimate (a Wilson bound at 0 %)."""
    y = np.asarray(y, float)
    return [np.maximum(y - np.asarray(lo, float), 0), np.maximum(np.asarray(hi, float) - y, 0)]


def fig_scores(names, hists, means, colours) -> _Figure:
    fig, ax = _figure()
    lo = min(min(hists[n]) for n in names)
    hi = max(max(hists[n]) for n in names)
    x = np.arange(lo, hi + 1)
    for name in names:
        h = hists[name]
        total = sum(h.values())
        y = np.array([h.get(int(v), 0) for v in x]) / total
        c = colours[name]
        ax.fill_between(x, y, step="mid", color=c, alpha=0.15, linewidth=0)
        ax.step(x, y, where="mid", color=c, linewidth=1.4, label=f"{_short(name)} (mean {means[name]:.2f})")
        ax.axvline(means[name], color=c, linestyle="--", linewidth=1)
    ax.set_xlabel("final score")
    ax.set_ylabel("share of games")
    _percent(ax)
    ax.legend(frameon=False, fontsize=8)
    return _Figure("scores", "Score distribution", "Share of games ending on each score, per strategy; "
                   "dashed lines mark the means (the summary's mean score).", fig)


#: The score's parts (sim.engine's scoring), how the figures name and colour them, and their sign
#: in the score (the pass penalty, 0 by the rulebook, is the rest of the score).
SCORE_PARTS = (("column_points", "columns", "#4c72b0", 1), ("colour_points", "colours", "#55a868", 1),
               ("jokers_left", "'!' left", "#ff8c00", 1), ("star_penalty", "star penalty", "#c44e52", -1))


def fig_breakdown(names, means, scores, colours) -> _Figure:
    fig, ax = _figure((7.2, 1.5 + 0.55 * len(names)))
    y = np.arange(len(names))[::-1]
    left = np.zeros(len(names))
    for key, label, colour, sign in SCORE_PARTS:
        v = np.array([means[n][key] for n in names])
        if sign > 0:
            ax.barh(y, v, left=left, color=colour, label=label, height=0.6, edgecolor="white", linewidth=0.8)
            left += v
        else:
            ax.barh(y, -v, color=colour, label=label, height=0.6, edgecolor="white", linewidth=0.8)
    ax.scatter([scores[n] for n in names], y, marker="D", color="black", zorder=3, s=22, label="mean score")
    for yi, n in zip(y, names):
        ax.annotate(f"{scores[n]:.2f}", (max(left.max(), 0), yi), xytext=(6, 0), textcoords="offset points",
                    va="center", fontsize=8)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, [_short(n) for n in names])
    ax.set_xlabel("points per game (mean)")
    fig.legend(*ax.get_legend_handles_labels(), frameon=False, fontsize=8, ncols=5, loc="outside lower center")
    return _Figure("breakdown", "Score breakdown", "Mean points per game from completed columns, completed "
                   "colours and '!' left, less the star penalty (2 per star box not crossed); the diamond is "
                   "the mean score, their sum.", fig)


def fig_seats(players, by_seat, seats, names, colours) -> _Figure:
    fig, (ax, ax2) = _figure((9.6, 4.0), ncols=2)
    x = np.arange(players)
    several = len(names) > 1
    width = 0.5 / max(1, len(names))
    for i, name in enumerate(names):
        rows = sorted((r for r in by_seat if r["strategy"] == name), key=lambda r: r["seat"])
        xs = np.array([r["seat"] for r in rows]) + ((i - (len(names) - 1) / 2) * width if several else 0)
        y = np.array([r["win_rate"] for r in rows])
        err = _bar_lengths(y, [r["win_ci_low"] for r in rows], [r["win_ci_high"] for r in rows])
        ax.errorbar(xs, y, yerr=err, fmt="o", color=colours[name], capsize=3, markersize=5,
                    label=_short(name), alpha=0.8 if several else 1)
    if several:
        y = np.array([s["win_rate"] for s in seats])
        err = _bar_lengths(y, [s["win_ci_low"] for s in seats], [s["win_ci_high"] for s in seats])
        ax.errorbar(x + 0.42, y, yerr=err, fmt="s", color="black", capsize=3, markersize=5, label="all strategies")
        ax.axhline(y.mean(), color="black", linestyle=":", linewidth=1, label="no seat effect")
    ax.set_xticks(x + (0.21 if several else 0), [f"seat {s}" for s in x])
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, None)
    _percent(ax)
    ax.set_title("win rate", fontsize=10)
    # Mean score by seat (every strategy), each seat's paired difference from seat 0 written above it.
    y = np.array([s["mean_score"] for s in seats])
    ci = np.array([s["score_ci"] for s in seats])
    ax2.errorbar(x, y, yerr=ci, fmt="s", color="black", capsize=3, markersize=5)
    for s in seats[1:]:
        ax2.annotate(f"{s['diff_seat0']:+.2f}\n±{s['diff_seat0_ci']:.2f}",
                     (s["seat"], s["mean_score"] + s["score_ci"]), xytext=(0, 4), textcoords="offset points",
                     ha="center", va="bottom", fontsize=7.5)
    ax2.margins(y=0.35)
    ax2.set_xticks(x, [f"seat {s}" for s in x])
    ax2.set_ylabel("mean score (95% CI)")
    ax2.set_title("mean score; above: - seat 0's, same games", fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: labels[i] == "no seat effect")   # the guide line last
    fig.legend([handles[i] for i in order], [labels[i] for i in order], frameon=False, fontsize=8, ncols=4,
               loc="outside lower center")
    return _Figure("seats", "Win rate and score by seat", "Left: win rate of each strategy in each seat with "
                   "95% CIs (the numbers of `summary --by seat`); seat 0 is the active player of roll 1. "
                   + ("The black squares pool all strategies: each game has one player in every seat, so the "
                      "dotted line, their mean, is what every seat would show without a seat effect. "
                      if several else "")
                   + "Right: mean score by seat over every strategy, and above each seat its mean difference from "
                     "seat 0 in the same games with its 95% CI.", fig)


def fig_lengths(lengths, capped, games) -> _Figure:
    fig, ax = _figure()
    x = np.array(sorted(lengths))
    y = np.array([lengths[k] for k in x]) / games
    ax.bar(x, y, width=0.9, color="#4c72b0")
    mean = float((x * y).sum())
    ax.axvline(mean, color="black", linestyle="--", linewidth=1, label=f"mean {mean:.1f} rolls")
    ax.set_xlabel("rolls per game")
    ax.set_ylabel("share of games")
    _percent(ax)
    ax.legend(frameon=False, fontsize=8)
    return _Figure("length", "Game length", f"Share of games lasting each number of rolls; {capped / games:.2%} "
                   "of the games were stopped by the roll cap.", fig)


def _cumulative(by_roll: dict[int, float], rolls: int) -> np.ndarray:
    y = np.zeros(rolls + 1)
    for r, v in by_roll.items():
        if 1 <= r <= rolls:
            y[r] += v
    return np.cumsum(y)[1:]


def fig_jokers(data, names, colours) -> _Figure:
    fig, ax = _figure()
    n = {r["strategy"]: r["seat_games"] for r in data["summary"]}
    turns = data["joker_source"] == "turns"
    source = data["jokers_by_roll"] if turns else data["first_joker"]
    last = max((r for name in names for r in source[name] if r > 0), default=1)
    if data["lengths"]:
        # the long tail of rare long games would squash the picture
        total, seen = sum(data["lengths"].values()), 0
        for r in sorted(data["lengths"]):
            seen += data["lengths"][r]
            if seen >= 0.999 * total:
                last = min(last, r)
                break
    x = np.arange(1, last + 1)
    for name in names:
        y = _cumulative(source[name], last) / n[name]
        ax.plot(x, y, color=colours[name], linewidth=1.6, label=_short(name), drawstyle="steps-post")
    won = data.get("first_joker_winners")
    ax2 = None
    if won:
        # Winners against the rest, by the first '!' (every table dataset has it): did spending early pay?
        ax2 = ax.twinx() if turns else ax
        for who, style in (("winners", "-"), ("the rest", "--")):
            total = sum(won[who].values())
            if total:
                y = _cumulative(won[who], last) / total
                ax2.plot(x, y, color="black", linestyle=style, linewidth=1.2, drawstyle="steps-post",
                         label=f"{who}, all strategies" + (" (first '!', right axis)" if turns else ""))
        if turns:
            ax2.set_ylim(0, 1.02)
            _percent(ax2)
            ax2.set_ylabel("share that used a '!'")
    ax.set_xlabel("roll")
    ax.set_xlim(0.5, last + 0.5)
    if turns:
        ax.set_ylabel("'!' used so far (mean per game)")
        ax.set_ylim(0, 8.2)
        caption = ("Mean number of '!' (of 8) a strategy has used by the end of each roll, from the turns "
                   "table; the last value is the summary's jokers used column.")
    else:
        ax.set_ylabel("share that used a '!'")
        ax.set_ylim(0, 1.02)
        _percent(ax)
        caption = ("Share of games in which a strategy has used its first '!' by each roll "
                   "(first_joker_roll; run with --log-turns for every '!' by roll).")
    if won:
        caption += (" In black, every strategy's seats split by the game's result: the winners' first '!' "
                    "(solid) against the other seats' (dashed).")
    handles, labels = ax.get_legend_handles_labels()
    if ax2 is not None and ax2 is not ax:
        h2, l2 = ax2.get_legend_handles_labels()
        handles, labels = handles + h2, labels + l2
    fig.legend(handles, labels, frameon=False, fontsize=8, ncols=3, loc="outside lower center")
    return _Figure("jokers", "Joker timing by roll", caption, fig)


def fig_completions(names, means, colours) -> _Figure:
    fig, axes = _figure((7.2, 1.4 + 0.45 * len(names)), ncols=2)
    y = np.arange(len(names))[::-1]
    later = any(means[n]["columns_later"] or means[n]["colours_later"] for n in names)
    for ax, what in zip(axes, ("columns", "colours")):
        first = np.array([means[n][f"{what}_first"] for n in names])
        ax.barh(y, first, color=[colours[n] for n in names], height=0.6)
        total = first
        if later:
            second = np.array([means[n][f"{what}_later"] for n in names])
            ax.barh(y, second, left=first, color=[colours[n] for n in names], alpha=0.4, height=0.6)
            total = first + second
        for yi, v in zip(y, total):
            ax.annotate(f"{v:.2f}", (v, yi), xytext=(4, 0), textcoords="offset points", va="center", fontsize=8)
        ax.set_title(f"{what} completed per game", fontsize=10)
        ax.set_yticks(y, [_short(n, 18) for n in names] if ax is axes[0] else [])
        ax.set_xlim(0, max(total.max() * 1.2, 0.5))
    if later:
        from matplotlib.patches import Patch
        fig.legend(handles=[Patch(color="#555", label="first"), Patch(color="#555", alpha=0.4,
                                                                      label="after another player")],
                   frameon=False, fontsize=8, ncols=2, loc="outside lower center")
    return _Figure("completions", "Completions", "Mean columns and colours a strategy completes per game"
                   + (", split by whether it was first to complete them (the higher value) or came after "
                      "another player (the lower value)." if later else "."), fig)


def fig_bands(names, bands, colours) -> _Figure:
    fig, ax = _figure((7.2, 4.8))
    labels = [band_label(lo, hi) + f"  ({stars})" for lo, hi, stars, _ in SOLO_BANDS]
    y = np.arange(len(SOLO_BANDS))[::-1]
    height = 0.8 / len(names)
    for i, name in enumerate(names):
        share = [b["share"] for b in bands if b["strategy"] == name]
        ax.barh(y + (len(names) - 1) / 2 * height - i * height, share, height=height, color=colours[name],
                label=_short(name))
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel("share of games")
    ax.set_ylabel("score band (stars)")
    _percent(ax, "x")
    ax.legend(frameon=False, fontsize=8, loc="lower right")
    return _Figure("bands", "Solo rating bands", "Share of games in each of the rulebook's rating bands "
                   "(docs/rules.md, section 8), best on top.", fig)


def dataset_figures(data: dict) -> list[_Figure]:
    names = [r["strategy"] for r in data["summary"]]
    colours = _colours(names)
    scores = {r["strategy"]: r["mean"] for r in data["summary"]}
    figs = [fig_scores(names, data["hists"], scores, colours), fig_breakdown(names, data["means"], scores, colours)]
    if data["players"] > 1:
        figs.append(fig_seats(data["players"], data["summary_by_seat"], data["seats"], names, colours))
    if len(data["lengths"]) > 1:
        figs.append(fig_lengths(data["lengths"], data["capped"], data["games"]))
    figs.append(fig_jokers(data, names, colours))
    figs.append(fig_completions(names, data["means"], colours))
    if data["bands"] is not None:
        figs.append(fig_bands(names, data["bands"], colours))
    return figs


def fig_loss_by_stage(analysis: dict, colours) -> _Figure:
    rows = [r for r in analysis["rows"] if r["seat"] is None]
    stages = [k for k in dict.fromkeys(k for r in rows for k in r["by_stage"])]
    fig, ax = _figure()
    x = np.arange(len(stages))
    width = 0.8 / max(1, len(rows))
    for i, r in enumerate(rows):
        y = np.array([r["by_stage"].get(k, {}).get("loss_per_game", np.nan) for k in stages], float)
        ci = np.array([r["by_stage"].get(k, {}).get("loss_ci", np.nan) or 0.0 for k in stages], float)
        ax.bar(x + (i - (len(rows) - 1) / 2) * width, y, width=width * 0.95, yerr=ci, capsize=2,
               color=colours.get(r["strategy"], "#777"), label=f"{_short(r['strategy'])} "
               f"({r['loss_per_game']:.2f} per game)")
    ax.set_xticks(x, stages, fontsize=8)
    ax.set_ylabel("loss per game (points, 95% CI)")
    ax.legend(frameon=False, fontsize=8)
    how = f"{analysis['rollouts']:,} rollouts" if analysis["rollouts"] else f"{analysis['judge']}'s value"
    return _Figure("loss-by-stage", "Where the points are lost", f"Each strategy's loss per game against "
                   f"{analysis['judge']}'s choice (its action value minus that of the choice made, by {how}; "
                   "encore-sim analyse), by stage of the game.", fig)


def fig_score_luck(analysis: dict, colours) -> _Figure:
    fig, ax = _figure()
    for r in analysis["rows"]:
        if r["seat"] is not None or not r.get("score_by_luck"):
            continue
        b = r["score_by_luck"]
        games = np.array(b["games"], float)
        ax.scatter(b["luck"], b["mean_score"], s=6 + 60 * games / games.max(), color=colours.get(r["strategy"], "#777"),
                   alpha=0.8, label=f"{_short(r['strategy'])} (luck sd {r['luck_sd']:.1f})")
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("luck of the game (points: its dice's worth beyond their average)")
    ax.set_ylabel("mean score")
    ax.legend(frameon=False, fontsize=8)
    return _Figure("score-luck", "Score against luck", "Mean score of the games with each whole point of luck "
                   "(the summed luck of their 30 rolls by learned's value; the bigger the dot, the more games): "
                   "how much of a score was the dice.", fig)


def analysis_table(analysis: dict) -> dict[str, list]:
    # Without rollouts the loss is by the value: a column "by the value" would repeat it.
    by_value = "by the value" if analysis["rollouts"] else None
    cols = {"strategy": [], "seat": [], "games": [], "loss per game (95% CI)": [], by_value: [],
            "loss per decision": [], "differs from learned": [], "luck per game (sd)": []}
    cols.pop(None, None)
    for r in analysis["rows"]:
        cols["strategy"].append(r["strategy"])
        cols["seat"].append("all" if r["seat"] is None else r["seat"])
        cols["games"].append(f"{r['games']:,}")
        cols["loss per game (95% CI)"].append(f"{r['loss_per_game']:.2f} ± {r['loss_ci'] or 0:.2f}")
        if by_value:
            cols[by_value].append(f"{r['value_loss_per_game']:.2f}")
        cols["loss per decision"].append(f"{r['loss_per_decision']:.3f}")
        cols["differs from learned"].append(f"{r['differ_share']:.1%}")
        cols["luck per game (sd)"].append("" if r["luck_per_game"] is None else
                                          f"{r['luck_per_game']:+.2f} ({r['luck_sd']:.1f})")
    return cols


def mistakes_table(analysis: dict) -> dict[str, list]:
    """The largest mistakes, each with the command that shows every choice of that decision."""
    cols = {"game": [], "roll": [], "seat": [], "strategy": [], "loss": [], "played": [], "learned": [],
            "every choice ranked": []}
    for m in analysis["mistakes"]:
        for k in ("game", "roll", "seat", "strategy"):
            cols[k].append(m[k])
        cols["loss"].append(f"{m['loss']:.2f}")
        cols["played"].append(describe(m["chosen"]))
        cols["learned"].append(describe(m["best"]))
        seat = f" --seat {m['seat']}" if analysis["players"] > 1 else ""
        cols["every choice ranked"].append(
            f"encore-sim analyse {analysis['dataset']} --game {m['game']} --roll {m['roll']}{seat}")
    return cols


def fig_forest(t, players) -> _Figure:
    rows = t.iloc[1:]
    panels = [("diff", "score difference (points)", "{:+.2f}")]
    if players > 1:
        panels.append(("win_diff", "win-rate difference", "{:+.1%}"))
    fig, axes = _figure((7.2, 1.5 + 0.5 * len(rows)), ncols=len(panels))
    y = np.arange(len(rows))[::-1]
    for ax, (key, label, fmt) in zip(np.atleast_1d(axes), panels):
        d = rows[key].to_numpy(float)
        lo, hi = rows[f"{key}_ci_low"].to_numpy(float), rows[f"{key}_ci_high"].to_numpy(float)
        ax.errorbar(d, y, xerr=_bar_lengths(d, lo, hi), fmt="o", color="black", capsize=4)
        for yi, v in zip(y, d):
            ax.annotate(fmt.format(v), (v, yi), xytext=(0, 7), textcoords="offset points", ha="center", fontsize=8)
        ax.axvline(0, color="#c44e52", linewidth=1)
        ax.margins(x=0.12)   # room for the labels at the ends
        ax.set_yticks(y, [_short(n, 18) for n in rows["strategy"]] if ax is np.atleast_1d(axes)[0] else [])
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.set_xlabel(label)
        if key == "win_diff":
            _percent(ax, "x")
    return _Figure("differences", "Paired differences", f"Each candidate's difference from {t['strategy'][0]} "
                   "on the same dice, with its 95% CI; an interval that does not cross the red line at 0 is "
                   "significant.", fig)


# --- HTML -----------------------------------------------------------------------------

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 1500px; padding: 0 1.5em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; font-size: 0.88em; margin: 0.5em 0; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #e3e3e3; text-align: right; white-space: nowrap; }
th { background: #f4f4f4; } td.l, th.l { text-align: left; white-space: normal; }
tbody th { font-weight: 600; vertical-align: top; } summary { cursor: pointer; color: #555; }
.scroll { overflow-x: auto; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 1.5em; }
figure { margin: 0; } figure img { width: 100%; height: auto; display: block; }
figcaption { font-size: 0.85em; color: #444; } figcaption b { color: #222; }
code { font-size: 0.9em; }
"""


def _e(x) -> str:
    return html.escape(str(x))


def html_table(columns: dict[str, list], left=("strategy",)) -> str:
    heads = "".join(f'<th class="{"l" if c in left else ""}">{_e(c)}</th>' for c in columns)
    rows = []
    for cells in zip(*columns.values()):
        rows.append("<tr>" + "".join(f'<td class="{"l" if c in left else ""}">{_e(v)}</td>'
                                     for c, v in zip(columns, cells)) + "</tr>")
    return f'<div class="scroll"><table><thead><tr>{heads}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def _pairs_table(pairs) -> str:
    """A two-column table of (name, value); a value given as _Html is not escaped."""
    rows = "".join(f'<tr><th class="l">{_e(k)}</th><td class="l">{v if isinstance(v, _Html) else _e(v)}</td></tr>'
                   for k, v in pairs)
    return f'<div class="scroll"><table><tbody>{rows}</tbody></table></div>'


class _Html(str):
    """Markup made here, from escaped parts."""


def _svg_uri(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=150, metadata={"Software": None})
    return buf.getvalue()


def _page(title: str, subtitle: str, tables: list[tuple[str, str]], figs: list[_Figure], settings: str,
          data: dict) -> bytes:
    """The page: tables, figures, then the settings (a reference, read last)."""
    import matplotlib
    with matplotlib.rc_context({"svg.hashsalt": "encore-sim"}):   # the same file for the same data
        images = [_svg_uri(f.fig) for f in figs]
    body = [f"<h1>{_e(title)}</h1>", f'<p class="sub">{_e(subtitle)}</p>']
    for heading, content in tables:
        body.append(f"<h2>{_e(heading)}</h2>{content}")
    if figs:
        body.append('<h2>Figures</h2><div class="figures">')
        for f, uri in zip(figs, images):
            body.append(f'<figure id="fig-{f.slug}"><img src="{uri}" alt="{_e(f.title)}">'
                        f"<figcaption><b>{_e(f.title)}.</b> {_code(_e(f.caption))}</figcaption></figure>")
        body.append("</div>")
    body.append(f"<h2>Settings</h2>{settings}")
    # "</" would end the script element early
    blob = json.dumps(json_safe(data), allow_nan=False).replace("</", "<\\/")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(title)}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body)
            + f'\n<script type="application/json" id="report-data">{blob}</script>\n</body></html>\n').encode()


def _code(html: str) -> str:
    """Markdown's `code` spans of a caption (commands, options) as <code>: not as backticks."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html)


def _settings(data: dict) -> list[tuple[str, str]]:
    m = data["manifest"]
    st = m.get("settings") or {}
    pairs = [("dataset", data["dataset"]), ("status", m.get("status")),
             ("games", f"{data['games']:,} summarised of {st.get('games', 0):,}"),
             ("players", "solo" if st.get("players") == 1 else st.get("players")),
             ("strategies", ", ".join(st.get("strategies") or [])),
             ("seats rotated", "yes" if st.get("rotate") else "no"), ("seed", st.get("seed")),
             ("sheet", st.get("sheet")), ("rules", data.get("rules", "rulebook")),
             *([("roll cap", st.get("max_rolls"))] if st.get("players") != 1 else []),   # solo: always 30 rolls
             ("turns logged", "yes" if st.get("log_turns") else "no"), ("chunk size", f"{st.get('chunk_size', 0):,}")]
    for info in m.get("strategies") or []:
        if isinstance(info, dict):
            value = _e(info.get("description") or "")
            if info.get("file"):
                value += f"<br>file {_e(info['file'])} (sha256 {_e(info.get('sha256'))})"
            params = info.get("params") or {}
            if params:   # dozens for the built-ins: folded (<details> needs no script)
                value += (f"<details><summary>{len(params)} parameters</summary>"
                          + _e(", ".join(f"{k}={v:g}" for k, v in params.items())) + "</details>")
            pairs.append((f"strategy {info.get('spec')}", _Html(value)))
    for key in ("command", "started", "finished", "threads", "git_revision"):
        if m.get(key) is not None:
            pairs.append((key.replace("_", " "), m[key]))
    versions = m.get("versions") or {}
    if versions:
        pairs.append(("versions", ", ".join(f"{k} {v}" for k, v in versions.items())))
    return [(k, v if isinstance(v, _Html) else str(v)) for k, v in pairs]


# --- writing -------------------------------------------------------------------------

def check_output(out, fmt: str = "html", figures_dir=None) -> Path | None:
    """Refuse bad output paths before any work is done (returns figures_dir as a Path)."""
    out = Path(out)
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if out.is_dir():
        raise ValueError(f"{out} is a folder: give the report's file name (e.g. {out / 'report.html'})")
    if not out.parent.is_dir():
        raise ValueError(f"cannot write {out}: folder {out.parent} does not exist")
    if fmt == "png":
        if figures_dir is None:
            raise SettingError("{format} png needs {out}, the folder for the PNG files")
        figures_dir = Path(figures_dir)
        if figures_dir.exists() and not figures_dir.is_dir():
            raise ValueError(f"{figures_dir} is not a folder")
    elif figures_dir is not None:
        raise SettingError("{out} is the folder of {format} png's figures: give {format} png too")
    return figures_dir


def _write(out: Path, page: bytes, figs: list[_Figure], figures_dir: Path | None) -> list[Path]:
    pngs = []
    if figures_dir is not None:
        images = [(figures_dir / f"{i + 1:02d}-{f.slug}.png", _png(f.fig)) for i, f in enumerate(figs)]
        figures_dir.mkdir(parents=True, exist_ok=True)
        for path, data in images:
            atomic_write_bytes(path, data)
            pngs.append(path)
    atomic_write_bytes(out, page)
    return pngs


def default_output(dataset) -> Path:
    """DATASET.html beside the dataset folder (a report inside it would be a file `run --force` refuses)."""
    if is_url(dataset):
        raise SettingError("give the report's file ({out}) for a dataset at a URL")
    path = Path(dataset)
    if path.name in ("", ".", ".."):   # `report .` from inside the dataset: beside it all the same
        path = path.resolve()
    return path.parent / f"{path.name}.html"


def report(dataset, out=None, fmt: str = "html", figures_dir=None, progress: bool = False,
           batch_size: int = BATCH_ROWS, analysis: dict | None = None) -> Report:
    """Write the HTML report of a dataset to `out` (default DATASET.html); fmt="png" also writes
    each figure as a PNG into figures_dir. `analysis`: the dataset's analysis as plain data
    (sim.research.analyse.Analysis.to_dict(), which `report --analyse` makes), shown too.
    Raises DatasetError (a ValueError) for a damaged or missing dataset, before writing anything."""
    out = Path(out) if out is not None else default_output(dataset)
    figures_dir = check_output(out, fmt, figures_dir)
    data = collect(dataset, batch_size=batch_size, progress=progress)
    figs = dataset_figures(data)
    from .chances import trace_figures    # a traced dataset's chances, roll by roll
    figs += [_Figure(*f) for f in trace_figures(dataset)]
    sections = [("Summary", html_table(data["table"]))]
    if analysis is not None:
        data["analysis"] = analysis
        colours = _colours([r["strategy"] for r in data["summary"]])
        figs.append(fig_loss_by_stage(analysis, colours))
        if analysis["players"] == 1:
            figs.append(fig_score_luck(analysis, colours))
        how = f"{analysis['rollouts']:,} rollouts" if analysis["rollouts"] else f"{analysis['judge']}'s value"
        sections.append((f"Analysis: loss against {analysis['judge']}'s choice (by {how}) and luck",
                         html_table(analysis_table(analysis))))
        if analysis["mistakes"]:
            sections.append(("Largest mistakes", html_table(mistakes_table(analysis))))
    if data["band_table"] is not None:
        rated = "" if data.get("rules", "rulebook") == "rulebook" else "; made for the rulebook's scores"
        sections.append((f"Solo rating bands (docs/rules.md, section 8{rated})",
                         html_table(data["band_table"], left=("rating",))))
    page = _page(f"encore-sim report: {data['dataset']}", data["headline"], sections, figs,
                 _pairs_table(_settings(data)), data)
    pngs = _write(out, page, figs, figures_dir)
    return Report(out, [f.title for f in figs], pngs)


def compare_report(result, out, fmt: str = "html", figures_dir=None) -> Report:
    """Write the HTML report of a sim.experiments.compare.Comparison: its table, the paired differences
    as a forest plot and the candidates' score distributions."""
    from ..experiments.compare import display_table, headline, stop_message
    out = Path(out)
    figures_dir = check_output(out, fmt, figures_dir)
    t = result.table
    names = list(t["strategy"])
    colours = _colours(names)
    figs = [fig_forest(t, result.players)]
    if result.hists:
        figs.append(fig_scores(names, dict(zip(names, result.hists)), dict(zip(names, t["mean"])), colours))
        figs[1].caption = ("Share of games ending on each score, per candidate, all on the same dice; dashed "
                           "lines mark the means.")
    shown = display_table(result)
    message = stop_message(result)
    settings = [("strategies", ", ".join(names)), ("games per strategy", f"{result.games:,}"),
                *((k.replace("_", " "), str(v)) for k, v in result.settings.items() if v is not None)]
    sections = [("Comparison", html_table({c: list(shown[c]) for c in shown.columns})
                 + (f"<p>{_e(message)}</p>" if message else ""))]
    data = {"games": result.games, "settings": result.settings, "stop": result.stop,
            "table": result.table.to_dict(orient="records"), "display": {c: list(shown[c]) for c in shown.columns},
            "hists": dict(zip(names, result.hists))}
    page = _page("encore-sim comparison", headline(result), sections, figs, _pairs_table(settings), data)
    pngs = _write(out, page, figs, figures_dir)
    return Report(out, [f.title for f in figs], pngs)


# --- rule sets compared (encore-sim compare-rules) ---------------------------------------

#: The differences figure's panels: metric, its axis label. The game's length only where it can
#: change (solo: only solo-rolls changes it; it is drawn then too, when the rule sets' lengths differ).
RULE_PANELS = (("score", "score"), ("rolls", "game length (rolls)"), ("jokers_used", "'!' used"),
               ("columns", "columns completed"), ("colours", "colours completed"), ("passes", "passes"),
               ("star_penalty", "star penalty"), ("boxes", "boxes crossed"))


def _rows_of(t, who: str, metric: str):
    return t[(t["who"] == who) & (t["metric"] == metric)]


def fig_rule_differences(result) -> _Figure:
    """Small multiples: per metric, each rule set B's paired difference from A with its 95% CI."""
    t = result.table
    b_labels = result.labels[1:]
    panels = [(m, label) for m, label in RULE_PANELS if not _rows_of(t, "game" if m == "rolls" else "all seats", m).empty]
    cols = 2   # the report's grid cell is a normal figure's width: two panels across
    nrows = -(-len(panels) // cols)
    fig, axes = _figure((7.2, 0.6 + nrows * (0.8 + 0.4 * len(b_labels))), ncols=cols, nrows=nrows)
    from matplotlib.ticker import MaxNLocator
    axes = np.atleast_1d(axes).ravel()
    colours = _colours(result.labels)
    y = np.arange(len(b_labels))[::-1]
    for ax, (metric, label) in zip(axes, panels):
        rows = _rows_of(t, "game" if metric == "rolls" else "all seats", metric).set_index("rules_b").loc[b_labels]
        d = rows["diff"].to_numpy(float)
        err = _bar_lengths(d, rows["diff_ci_low"], rows["diff_ci_high"])
        for yi, di, lo, hi, b in zip(y, d, err[0], err[1], b_labels):
            ax.errorbar([di], [yi], xerr=[[lo], [hi]], fmt="o", color=colours[b], capsize=4)
            ax.annotate(f"{di:+.2f}", (di, yi), xytext=(0, 7), textcoords="offset points", ha="center", fontsize=8)
        ax.axvline(0, color="#c44e52", linewidth=1)
        ax.margins(x=0.2)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=3))   # narrow panels: few labels, none overlapping
        ax.tick_params(axis="x", labelsize=8)
        if not (np.abs(rows[["diff_ci_low", "diff_ci_high"]].to_numpy(float)) > 1e-9).any():
            ax.set_xlim(-1, 1)   # no difference at all (greedy under a rule it does not read): no zoom on 0
        ax.set_ylim(-0.7, len(b_labels) - 0.3)
        ax.set_yticks(y, [_short(b, 18) for b in b_labels] if ax in axes[::cols] else [])
        ax.set_title(label, fontsize=10)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    fig.supxlabel(f"B - A per game (mean, 95% CI); A = {_short(result.labels[0], 40)}", fontsize=9)
    who = "the mean over every seat" if result.players > 1 else "the player's"
    return _Figure("rule-differences", "Paired differences", "Each rule set B's mean difference from A in the same "
                   f"games ({who}; game length per game), with its 95% CI: an interval that does not cross the red "
                   "line at 0 is significant.", fig)


def fig_rule_score_parts(result) -> _Figure:
    """Where a rule set's score difference comes from: B - A of each part of the score."""
    t = result.table[result.table["who"] == "all seats"]
    b_labels = result.labels[1:]
    fig, ax = _figure((7.2, 1.5 + 0.55 * len(b_labels)))
    y = np.arange(len(b_labels))[::-1]
    diff = {m: t[t["metric"] == m].set_index("rules_b").loc[b_labels, "diff"].to_numpy(float)
            for m in ("score",) + tuple(p[0] for p in SCORE_PARTS)}
    # The rest of the score's difference is the pass penalty's (score = the parts - pass penalty x
    # passes): a residual, exact up to rounding, so the bars always add up to the diamond.
    parts = [(diff[m] * sign, label, colour) for m, label, colour, sign in SCORE_PARTS]
    parts.append((diff["score"] - sum(p[0] for p in parts), "pass penalty", "#8172b2"))
    pos, neg = np.zeros(len(y)), np.zeros(len(y))
    for v, label, colour in parts:
        left = np.where(v >= 0, pos, neg)
        ax.barh(y, v, left=left, color=colour, label=label, height=0.6, edgecolor="white", linewidth=0.8)
        pos += np.maximum(v, 0)
        neg += np.minimum(v, 0)
    ax.scatter(diff["score"], y, marker="D", color="black", zorder=3, s=22, label="score")
    for yi, v, end in zip(y, diff["score"], pos):
        ax.annotate(f"{v:+.2f}", (max(end, v), yi), xytext=(8, 0), textcoords="offset points",
                    va="center", fontsize=8)
    ax.axvline(0, color="black", linewidth=0.8)
    lo, hi = min(neg.min(), diff["score"].min(), 0), max(pos.max(), diff["score"].max(), 0)
    ax.set_xlim(lo - 0.04 * (hi - lo or 1), hi + 0.14 * (hi - lo or 1))   # room for the labels on the right
    ax.set_yticks(y, [_short(b) for b in b_labels])
    ax.set_xlabel("B - A, points per game and seat (mean)")
    fig.legend(*ax.get_legend_handles_labels(), frameon=False, fontsize=8, ncols=6, loc="outside lower center")
    return _Figure("score-parts", "Where the score changes", "Each rule set's mean score difference from A (the "
                   "diamond) split into the differences of the score's parts: completed columns and colours, '!' "
                   "left, less the star penalty and the pass penalty.", fig)


def fig_rule_seats(result) -> _Figure:
    """Tables: the win rate by seat under each rule set, and each B's paired difference by seat."""
    t = result.table
    players, labels = result.players, result.labels
    colours = _colours(labels)
    fig, (ax, ax2) = _figure((9.6, 4.0), ncols=2)
    x = np.arange(players)
    seat_rows = {s: _rows_of(t, f"seat {s}", "win_rate").set_index("rules_b") for s in x}
    width = 0.6 / len(labels)
    for i, label in enumerate(labels):
        if i == 0:
            y = [seat_rows[s]["mean_a"].iloc[0] for s in x]
        else:
            y = [seat_rows[s].loc[label, "mean_b"] for s in x]
        ax.bar(x + (i - (len(labels) - 1) / 2) * width, y, width=width * 0.95, color=colours[label],
               label=_short(label) + (" (A)" if i == 0 else ""))
    ax.axhline(1 / players, color="black", linestyle=":", linewidth=1, label="no seat effect")
    ax.set_xticks(x, [f"seat {s}" for s in x])
    ax.set_ylabel("win rate")
    _percent(ax)
    ax.set_title("win rate by seat", fontsize=10)
    b_labels = labels[1:]
    width = 0.6 / len(b_labels)
    for i, b in enumerate(b_labels):
        d = np.array([seat_rows[s].loc[b, "diff"] for s in x])
        lo = np.array([seat_rows[s].loc[b, "diff_ci_low"] for s in x])
        hi = np.array([seat_rows[s].loc[b, "diff_ci_high"] for s in x])
        ax2.errorbar(x + (i - (len(b_labels) - 1) / 2) * width, d, yerr=_bar_lengths(d, lo, hi), fmt="o",
                     color=colours[b], capsize=3, markersize=5)
    ax2.axhline(0, color="#c44e52", linewidth=1)
    ax2.set_xticks(x, [f"seat {s}" for s in x])
    ax2.set_ylabel("B - A (95% CI)")
    _percent(ax2)
    ax2.set_title("win-rate difference, same games", fontsize=10)
    fig.legend(*ax.get_legend_handles_labels(), frameon=False, fontsize=8, ncols=4, loc="outside lower center")
    return _Figure("rule-seats", "Win rate by seat", "Left: each seat's win rate under each rule set (seat 0 is "
                   "the active player of roll 1; a shared win counts for every winner, so the rates can sum past "
                   "100%); the dotted line is what every seat would show without a seat effect. Right: each rule "
                   "set's paired difference from A by seat, with its 95% CI.", fig)


def fig_rule_lengths(result) -> _Figure:
    fig, ax = _figure()
    colours = _colours(result.labels)
    first = result.hists[result.labels[0]]["rolls"]
    for i, label in enumerate(result.labels):
        h = result.hists[label]["rolls"]
        x = np.array(sorted(h))
        y = np.array([h[k] for k in x]) / sum(h.values())
        mean = float((x * y).sum())
        same = " = A" if i and h == first else ""   # drawn over A's line: the legend says so
        ax.step(x, y, where="mid", color=colours[label], linewidth=2.6 if i == 0 else 1.4,
                label=f"{_short(label)}{' (A)' if i == 0 else ''} (mean {mean:.1f}){same}")
        ax.fill_between(x, y, step="mid", color=colours[label], alpha=0.15, linewidth=0)
        ax.axvline(mean, color=colours[label], linestyle="--", linewidth=1)
    ax.set_xlabel("rolls per game")
    ax.set_ylabel("share of games")
    _percent(ax)
    ax.legend(frameon=False, fontsize=8)
    return _Figure("rule-lengths", "Game length", "Share of games lasting each number of rolls under each rule "
                   "set, on the same dice; dashed lines mark the means.", fig)


def rule_figures(result) -> list[_Figure]:
    labels = result.labels
    figs = [fig_rule_differences(result), fig_rule_score_parts(result)]
    if result.players > 1:
        figs.append(fig_rule_seats(result))
    lengths = [result.hists[label]["rolls"] for label in labels]
    if any(len(h) > 1 for h in lengths) or any(h != lengths[0] for h in lengths):
        figs.append(fig_rule_lengths(result))
    scores = {label: result.hists[label]["score"] for label in labels}
    means = {label: sum(k * v for k, v in h.items()) / sum(h.values()) for label, h in scores.items()}
    f = fig_scores(labels, scores, means, _colours(labels))
    f.caption = ("Share of seats ending on each score under each rule set, on the same dice; dashed lines mark "
                 "the means (the table's mean score of all seats).")
    figs.append(f)
    return figs


def rules_report(result, out, fmt: str = "html", figures_dir=None) -> Report:
    """Write the HTML report of a sim.experiments.rulescompare.RulesComparison: its table (a section per
    rule set B), the paired differences drawn, where the score's difference comes from, the win
    rate by seat (tables), the game length and the score distributions under each rule set."""
    from ..experiments.rulescompare import display_table, headline, stop_message
    out = Path(out)
    figures_dir = check_output(out, fmt, figures_dir)
    figs = rule_figures(result)
    shown = display_table(result)
    a = result.labels[0]
    sections = []
    for b in result.labels[1:]:
        block = shown[shown["rules B"] == b].drop(columns="rules B").rename(columns={"A": a, "B": b})
        sections.append((f"A = {a}, B = {b}", html_table({c: list(block[c]) for c in block.columns},
                                                          left=("who", "metric"))))
    message = stop_message(result)
    if message:
        sections[-1] = (sections[-1][0], sections[-1][1] + f"<p>{_e(message)}</p>")
    st = result.settings
    settings = [("rule sets", ", ".join(f"{x} ({'A' if i == 0 else 'B'})" for i, x in enumerate(result.labels))),
                ("strategies", ", ".join(result.strategies)), ("players", "solo" if result.players == 1 else result.players),
                ("games per rule set", f"{result.games:,}"),
                *((k.replace("_", " "), str(v)) for k, v in st.items()
                  if v is not None and k not in ("strategies", "players", "rules"))]
    data = {"games": result.games, "settings": st, "stop": result.stop, "rules": result.labels,
            "table": result.table.to_dict(orient="records"), "display": {c: list(shown[c]) for c in shown.columns},
            "hists": result.hists}
    page = _page("encore-sim rule sets compared", headline(result), sections, figs, _pairs_table(settings), data)
    pngs = _write(out, page, figs, figures_dir)
    return Report(out, [f.title for f in figs], pngs)
