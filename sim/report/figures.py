"""The reports' figures, drawn with matplotlib from the plain data of sim.report.aggregate (a
dataset), sim.experiments.compare (strategies compared) and sim.experiments.rulescompare (rule sets
compared). Each returns a Figure: its slug (the PNG's name), title, caption and matplotlib figure.

A figure appears only where the data supports it: no seat plot and no game length in solo (one
seat; 30 rolls), the rating bands only in solo. matplotlib is loaded by the first figure drawn,
not by importing this module.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..runs.summary import SOLO_BANDS, band_label


FIGSIZE = (7.2, 4.0)


@dataclass
class Figure:
    """A report's figure: what the page shows of it, and the matplotlib figure."""
    slug: str      # file name of its PNG
    title: str
    caption: str
    fig: object    # matplotlib.figure.Figure


def palette(names):
    """A colour per strategy (or rule set), the same in every figure of a report."""
    from matplotlib import colormaps
    cmap = colormaps["tab10"]
    return {name: cmap(i % 10) for i, name in enumerate(names)}


def short(name: str, width: int = 28) -> str:
    """A strategy spec short enough for a legend (a user's file path can be long), its '$' escaped
    (matplotlib reads text between two as mathematics)."""
    name = name if len(name) <= width else "…" + name[-(width - 1):]
    return name.replace("$", r"\$")


def new_figure(size=FIGSIZE, ncols=1, nrows=1):
    """(figure, axes) in the reports' style: a light grid behind, no top or right spine. A
    matplotlib Figure of its own, not pyplot's: nothing global, nothing left open."""
    from matplotlib.figure import Figure as MatplotlibFigure
    fig = MatplotlibFigure(figsize=size, layout="constrained")
    axes = fig.subplots(nrows, ncols)
    for ax in np.atleast_1d(axes).ravel():
        ax.grid(True, color="#ddd", linewidth=0.6)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    return fig, axes


def percent_axis(ax, axis="y"):
    """Label the axis's shares (0..1) as percentages."""
    from matplotlib.ticker import PercentFormatter
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(PercentFormatter(1.0, decimals=0))


def bar_lengths(y, lo, hi):
    """Error bar lengths; rounding can put a bound a hair inside its estimate (a Wilson bound at 0 %)."""
    y = np.asarray(y, float)
    return [np.maximum(y - np.asarray(lo, float), 0), np.maximum(np.asarray(hi, float) - y, 0)]


def share_steps(ax, x, y, colour, label, mean, linewidth=1.4):
    """One distribution as a share per value: a step line over a light fill, its mean dashed."""
    ax.fill_between(x, y, step="mid", color=colour, alpha=0.15, linewidth=0)
    ax.step(x, y, where="mid", color=colour, linewidth=linewidth, label=label)
    ax.axvline(mean, color=colour, linestyle="--", linewidth=1)


def share_axes(ax, xlabel):
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of games")
    percent_axis(ax)
    ax.legend(frameon=False, fontsize=8)


def fig_scores(names, hists, means, colours) -> Figure:
    fig, ax = new_figure()
    lo = min(min(hists[n]) for n in names)
    hi = max(max(hists[n]) for n in names)
    x = np.arange(lo, hi + 1)
    for name in names:
        h = hists[name]
        total = sum(h.values())
        y = np.array([h.get(int(v), 0) for v in x]) / total
        share_steps(ax, x, y, colours[name], f"{short(name)} (mean {means[name]:.2f})", means[name])
    share_axes(ax, "final score")
    return Figure("scores", "Score distribution", "Share of games ending on each score, per strategy; "
                   "dashed lines mark the means (the summary's mean score).", fig)


#: The score's parts (sim.engine's scoring), how the figures name and colour them, and their sign
#: in the score (the pass penalty, 0 by the rulebook, is the rest of the score).
SCORE_PARTS = (("column_points", "columns", "#4c72b0", 1), ("colour_points", "colours", "#55a868", 1),
               ("jokers_left", "'!' left", "#ff8c00", 1), ("star_penalty", "star penalty", "#c44e52", -1))


def fig_breakdown(names, means, scores, colours) -> Figure:
    fig, ax = new_figure((7.2, 1.5 + 0.55 * len(names)))
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
    ax.set_yticks(y, [short(n) for n in names])
    ax.set_xlabel("points per game (mean)")
    fig.legend(*ax.get_legend_handles_labels(), frameon=False, fontsize=8, ncols=5, loc="outside lower center")
    return Figure("breakdown", "Score breakdown", "Mean points per game from completed columns, completed "
                   "colours and '!' left, less the star penalty (2 per star box not crossed); the diamond is "
                   "the mean score, their sum.", fig)


def fig_seats(players, by_seat, seats, names, colours) -> Figure:
    fig, (ax, ax2) = new_figure((9.6, 4.0), ncols=2)
    x = np.arange(players)
    several = len(names) > 1
    width = 0.5 / max(1, len(names))
    for i, name in enumerate(names):
        rows = sorted((r for r in by_seat if r["strategy"] == name), key=lambda r: r["seat"])
        xs = np.array([r["seat"] for r in rows]) + ((i - (len(names) - 1) / 2) * width if several else 0)
        y = np.array([r["win_rate"] for r in rows])
        err = bar_lengths(y, [r["win_ci_low"] for r in rows], [r["win_ci_high"] for r in rows])
        ax.errorbar(xs, y, yerr=err, fmt="o", color=colours[name], capsize=3, markersize=5,
                    label=short(name), alpha=0.8 if several else 1)
    if several:
        y = np.array([s["win_rate"] for s in seats])
        err = bar_lengths(y, [s["win_ci_low"] for s in seats], [s["win_ci_high"] for s in seats])
        ax.errorbar(x + 0.42, y, yerr=err, fmt="s", color="black", capsize=3, markersize=5, label="all strategies")
        ax.axhline(y.mean(), color="black", linestyle=":", linewidth=1, label="no seat effect")
    ax.set_xticks(x + (0.21 if several else 0), [f"seat {s}" for s in x])
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, None)
    percent_axis(ax)
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
    return Figure("seats", "Win rate and score by seat", "Left: win rate of each strategy in each seat with "
                   "95% CIs (the numbers of `summary --by seat`); seat 0 is the active player of roll 1. "
                   + ("The black squares pool all strategies: each game has one player in every seat, so the "
                      "dotted line, their mean, is what every seat would show without a seat effect. "
                      if several else "")
                   + "Right: mean score by seat over every strategy, and above each seat its mean difference from "
                     "seat 0 in the same games with its 95% CI.", fig)


def fig_lengths(lengths, capped, games) -> Figure:
    fig, ax = new_figure()
    x = np.array(sorted(lengths))
    y = np.array([lengths[k] for k in x]) / games
    ax.bar(x, y, width=0.9, color="#4c72b0")
    mean = float((x * y).sum())
    ax.axvline(mean, color="black", linestyle="--", linewidth=1, label=f"mean {mean:.1f} rolls")
    ax.set_xlabel("rolls per game")
    ax.set_ylabel("share of games")
    percent_axis(ax)
    ax.legend(frameon=False, fontsize=8)
    return Figure("length", "Game length", f"Share of games lasting each number of rolls; {capped / games:.2%} "
                   "of the games were stopped by the roll cap.", fig)


def _cumulative(by_roll: dict[int, float], rolls: int) -> np.ndarray:
    y = np.zeros(rolls + 1)
    for r, v in by_roll.items():
        if 1 <= r <= rolls:
            y[r] += v
    return np.cumsum(y)[1:]


def fig_jokers(data, names, colours) -> Figure:
    fig, ax = new_figure()
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
        ax.plot(x, y, color=colours[name], linewidth=1.6, label=short(name), drawstyle="steps-post")
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
            percent_axis(ax2)
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
        percent_axis(ax)
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
    return Figure("jokers", "Joker timing by roll", caption, fig)


def fig_completions(names, means, colours) -> Figure:
    fig, axes = new_figure((7.2, 1.4 + 0.45 * len(names)), ncols=2)
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
        ax.set_yticks(y, [short(n, 18) for n in names] if ax is axes[0] else [])
        ax.set_xlim(0, max(total.max() * 1.2, 0.5))
    if later:
        from matplotlib.patches import Patch
        fig.legend(handles=[Patch(color="#555", label="first"), Patch(color="#555", alpha=0.4,
                                                                      label="after another player")],
                   frameon=False, fontsize=8, ncols=2, loc="outside lower center")
    return Figure("completions", "Completions", "Mean columns and colours a strategy completes per game"
                   + (", split by whether it was first to complete them (the higher value) or came after "
                      "another player (the lower value)." if later else "."), fig)


def fig_bands(names, bands, colours) -> Figure:
    fig, ax = new_figure((7.2, 4.8))
    labels = [band_label(lo, hi) + f"  ({stars})" for lo, hi, stars, _ in SOLO_BANDS]
    y = np.arange(len(SOLO_BANDS))[::-1]
    height = 0.8 / len(names)
    for i, name in enumerate(names):
        share = [b["share"] for b in bands if b["strategy"] == name]
        ax.barh(y + (len(names) - 1) / 2 * height - i * height, share, height=height, color=colours[name],
                label=short(name))
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel("share of games")
    ax.set_ylabel("score band (stars)")
    percent_axis(ax, "x")
    ax.legend(frameon=False, fontsize=8, loc="lower right")
    return Figure("bands", "Solo rating bands", "Share of games in each of the rulebook's rating bands "
                   "(docs/rules.md, section 8), best on top.", fig)


def dataset_figures(data: dict) -> list[Figure]:
    names = [r["strategy"] for r in data["summary"]]
    colours = palette(names)
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


def fig_loss_by_stage(analysis: dict, colours) -> Figure:
    rows = [r for r in analysis["rows"] if r["seat"] is None]
    stages = [k for k in dict.fromkeys(k for r in rows for k in r["by_stage"])]
    fig, ax = new_figure()
    x = np.arange(len(stages))
    width = 0.8 / max(1, len(rows))
    for i, r in enumerate(rows):
        y = np.array([r["by_stage"].get(k, {}).get("loss_per_game", np.nan) for k in stages], float)
        ci = np.array([r["by_stage"].get(k, {}).get("loss_ci", np.nan) or 0.0 for k in stages], float)
        ax.bar(x + (i - (len(rows) - 1) / 2) * width, y, width=width * 0.95, yerr=ci, capsize=2,
               color=colours.get(r["strategy"], "#777"), label=f"{short(r['strategy'])} "
               f"({r['loss_per_game']:.2f} per game)")
    ax.set_xticks(x, stages, fontsize=8)
    ax.set_ylabel("loss per game (points, 95% CI)")
    ax.legend(frameon=False, fontsize=8)
    how = f"{analysis['rollouts']:,} rollouts" if analysis["rollouts"] else f"{analysis['judge']}'s value"
    return Figure("loss-by-stage", "Where the points are lost", f"Each strategy's loss per game against "
                   f"{analysis['judge']}'s choice (its action value minus that of the choice made, by {how}; "
                   "encore-sim analyse), by stage of the game.", fig)


def fig_score_luck(analysis: dict, colours) -> Figure:
    fig, ax = new_figure()
    for r in analysis["rows"]:
        if r["seat"] is not None or not r.get("score_by_luck"):
            continue
        b = r["score_by_luck"]
        games = np.array(b["games"], float)
        ax.scatter(b["luck"], b["mean_score"], s=6 + 60 * games / games.max(), color=colours.get(r["strategy"], "#777"),
                   alpha=0.8, label=f"{short(r['strategy'])} (luck sd {r['luck_sd']:.1f})")
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("luck of the game (points: its dice's worth beyond their average)")
    ax.set_ylabel("mean score")
    ax.legend(frameon=False, fontsize=8)
    return Figure("score-luck", "Score against luck", "Mean score of the games with each whole point of luck "
                   "(the summed luck of their 30 rolls by learned's value; the bigger the dot, the more games): "
                   "how much of a score was the dice.", fig)


def fig_forest(t, players) -> Figure:
    rows = t.iloc[1:]
    panels = [("diff", "score difference (points)", "{:+.2f}")]
    if players > 1:
        panels.append(("win_diff", "win-rate difference", "{:+.1%}"))
    fig, axes = new_figure((7.2, 1.5 + 0.5 * len(rows)), ncols=len(panels))
    y = np.arange(len(rows))[::-1]
    for ax, (key, label, fmt) in zip(np.atleast_1d(axes), panels):
        d = rows[key].to_numpy(float)
        lo, hi = rows[f"{key}_ci_low"].to_numpy(float), rows[f"{key}_ci_high"].to_numpy(float)
        ax.errorbar(d, y, xerr=bar_lengths(d, lo, hi), fmt="o", color="black", capsize=4)
        for yi, v in zip(y, d):
            ax.annotate(fmt.format(v), (v, yi), xytext=(0, 7), textcoords="offset points", ha="center", fontsize=8)
        ax.axvline(0, color="#c44e52", linewidth=1)
        ax.margins(x=0.12)   # room for the labels at the ends
        ax.set_yticks(y, [short(n, 18) for n in rows["strategy"]] if ax is np.atleast_1d(axes)[0] else [])
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.set_xlabel(label)
        if key == "win_diff":
            percent_axis(ax, "x")
    return Figure("differences", "Paired differences", f"Each candidate's difference from {t['strategy'][0]} "
                   "on the same dice, with its 95% CI; an interval that does not cross the red line at 0 is "
                   "significant.", fig)


#: The differences figure's panels: metric, its axis label. The game's length only where it can
#: change (solo: only solo-rolls changes it; it is drawn then too, when the rule sets' lengths differ).
RULE_PANELS = (("score", "score"), ("rolls", "game length (rolls)"), ("jokers_used", "'!' used"),
               ("columns", "columns completed"), ("colours", "colours completed"), ("passes", "passes"),
               ("star_penalty", "star penalty"), ("boxes", "boxes crossed"))


def _rows_of(t, who: str, metric: str):
    return t[(t["who"] == who) & (t["metric"] == metric)]


def fig_rule_differences(result) -> Figure:
    """Small multiples: per metric, each rule set B's paired difference from A with its 95% CI."""
    t = result.table
    b_labels = result.labels[1:]
    panels = [(m, label) for m, label in RULE_PANELS if not _rows_of(t, "game" if m == "rolls" else "all seats", m).empty]
    cols = 2   # the report's grid cell is a normal figure's width: two panels across
    nrows = -(-len(panels) // cols)
    fig, axes = new_figure((7.2, 0.6 + nrows * (0.8 + 0.4 * len(b_labels))), ncols=cols, nrows=nrows)
    from matplotlib.ticker import MaxNLocator
    axes = np.atleast_1d(axes).ravel()
    colours = palette(result.labels)
    y = np.arange(len(b_labels))[::-1]
    for ax, (metric, label) in zip(axes, panels):
        rows = _rows_of(t, "game" if metric == "rolls" else "all seats", metric).set_index("rules_b").loc[b_labels]
        d = rows["diff"].to_numpy(float)
        err = bar_lengths(d, rows["diff_ci_low"], rows["diff_ci_high"])
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
        ax.set_yticks(y, [short(b, 18) for b in b_labels] if ax in axes[::cols] else [])
        ax.set_title(label, fontsize=10)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    fig.supxlabel(f"B - A per game (mean, 95% CI); A = {short(result.labels[0], 40)}", fontsize=9)
    who = "the mean over every seat" if result.players > 1 else "the player's"
    return Figure("rule-differences", "Paired differences", "Each rule set B's mean difference from A in the same "
                   f"games ({who}; game length per game), with its 95% CI: an interval that does not cross the red "
                   "line at 0 is significant.", fig)


def fig_rule_score_parts(result) -> Figure:
    """Where a rule set's score difference comes from: B - A of each part of the score."""
    t = result.table[result.table["who"] == "all seats"]
    b_labels = result.labels[1:]
    fig, ax = new_figure((7.2, 1.5 + 0.55 * len(b_labels)))
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
    ax.set_yticks(y, [short(b) for b in b_labels])
    ax.set_xlabel("B - A, points per game and seat (mean)")
    fig.legend(*ax.get_legend_handles_labels(), frameon=False, fontsize=8, ncols=6, loc="outside lower center")
    return Figure("score-parts", "Where the score changes", "Each rule set's mean score difference from A (the "
                   "diamond) split into the differences of the score's parts: completed columns and colours, '!' "
                   "left, less the star penalty and the pass penalty.", fig)


def fig_rule_seats(result) -> Figure:
    """Tables: the win rate by seat under each rule set, and each B's paired difference by seat."""
    t = result.table
    players, labels = result.players, result.labels
    colours = palette(labels)
    fig, (ax, ax2) = new_figure((9.6, 4.0), ncols=2)
    x = np.arange(players)
    seat_rows = {s: _rows_of(t, f"seat {s}", "win_rate").set_index("rules_b") for s in x}
    width = 0.6 / len(labels)
    for i, label in enumerate(labels):
        if i == 0:
            y = [seat_rows[s]["mean_a"].iloc[0] for s in x]
        else:
            y = [seat_rows[s].loc[label, "mean_b"] for s in x]
        ax.bar(x + (i - (len(labels) - 1) / 2) * width, y, width=width * 0.95, color=colours[label],
               label=short(label) + (" (A)" if i == 0 else ""))
    ax.axhline(1 / players, color="black", linestyle=":", linewidth=1, label="no seat effect")
    ax.set_xticks(x, [f"seat {s}" for s in x])
    ax.set_ylabel("win rate")
    percent_axis(ax)
    ax.set_title("win rate by seat", fontsize=10)
    b_labels = labels[1:]
    width = 0.6 / len(b_labels)
    for i, b in enumerate(b_labels):
        d = np.array([seat_rows[s].loc[b, "diff"] for s in x])
        lo = np.array([seat_rows[s].loc[b, "diff_ci_low"] for s in x])
        hi = np.array([seat_rows[s].loc[b, "diff_ci_high"] for s in x])
        ax2.errorbar(x + (i - (len(b_labels) - 1) / 2) * width, d, yerr=bar_lengths(d, lo, hi), fmt="o",
                     color=colours[b], capsize=3, markersize=5)
    ax2.axhline(0, color="#c44e52", linewidth=1)
    ax2.set_xticks(x, [f"seat {s}" for s in x])
    ax2.set_ylabel("B - A (95% CI)")
    percent_axis(ax2)
    ax2.set_title("win-rate difference, same games", fontsize=10)
    fig.legend(*ax.get_legend_handles_labels(), frameon=False, fontsize=8, ncols=4, loc="outside lower center")
    return Figure("rule-seats", "Win rate by seat", "Left: each seat's win rate under each rule set (seat 0 is "
                   "the active player of roll 1; a shared win counts for every winner, so the rates can sum past "
                   "100%); the dotted line is what every seat would show without a seat effect. Right: each rule "
                   "set's paired difference from A by seat, with its 95% CI.", fig)


def fig_rule_lengths(result) -> Figure:
    fig, ax = new_figure()
    colours = palette(result.labels)
    first = result.hists[result.labels[0]]["rolls"]
    for i, label in enumerate(result.labels):
        h = result.hists[label]["rolls"]
        x = np.array(sorted(h))
        y = np.array([h[k] for k in x]) / sum(h.values())
        mean = float((x * y).sum())
        same = " = A" if i and h == first else ""   # drawn over A's line: the legend says so
        share_steps(ax, x, y, colours[label], f"{short(label)}{' (A)' if i == 0 else ''} (mean {mean:.1f}){same}",
                    mean, linewidth=2.6 if i == 0 else 1.4)
    share_axes(ax, "rolls per game")
    return Figure("rule-lengths", "Game length", "Share of games lasting each number of rolls under each rule "
                   "set, on the same dice; dashed lines mark the means.", fig)


def rule_figures(result) -> list[Figure]:
    labels = result.labels
    figs = [fig_rule_differences(result), fig_rule_score_parts(result)]
    if result.players > 1:
        figs.append(fig_rule_seats(result))
    lengths = [result.hists[label]["rolls"] for label in labels]
    if any(len(h) > 1 for h in lengths) or any(h != lengths[0] for h in lengths):
        figs.append(fig_rule_lengths(result))
    scores = {label: result.hists[label]["score"] for label in labels}
    means = {label: sum(k * v for k, v in h.items()) / sum(h.values()) for label, h in scores.items()}
    f = fig_scores(labels, scores, means, palette(labels))
    f.caption = ("Share of seats ending on each score under each rule set, on the same dice; dashed lines mark "
                 "the means (the table's mean score of all seats).")
    figs.append(f)
    if getattr(result, "ranking", None) is not None:
        from .pareto import caption, sweep_figure
        by, versus = result.ranked_by
        figs.append(Figure("sweep", f"The sweep: {by} against {versus}", caption(by, versus),
                           sweep_figure(result.ranking, by, versus)))
    return figs
