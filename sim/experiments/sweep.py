"""Sweeps: the points of a range or grid of rule variants ranked by a measure, and their Pareto front.

    r = compare_rules("learned", "jokers=6..12:2,star-penalty=2..4", players=4, measures=True)
    ranked(r, by="rolls", versus="score")      # r with r.ranking: a row per point, by game length

A sweep is a comparison of rule sets (sim.experiments.rulescompare) whose rule sets are the points
of a range (sim.rules.expand_sweep): every point plays the same games, paired against the first,
so a point's difference from the first is what 4 separate comparisons of it with the first give.
The ranking sorts the points by the measure asked for (`by`: a metric of the comparison's table,
such as rolls or score, or one of the designer's measures, such as margin or score_sd), smallest
first unless `descending`; `versus` is a second measure shown beside it, and `pareto` marks the
points no other point beats on both (smaller `by`, larger `versus`, unless told otherwise).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import SettingError
from .rulescompare import ALL, GAME, GAME_METRICS, METRICS


#: The designer's measures a sweep may be ranked by (a value per rule set; sim.runs.measures).
MEASURES = ("score_sd", "margin", "ties", "rolls_sd", "rolls_q05", "rolls_q50", "rolls_q95", "seat_gap",
            "active_gain", "active_gain_points")


def check_by(*metrics) -> None:
    """SettingError before any game is played for a metric no ranking can have."""
    for m in metrics:
        if m not in METRICS and m not in MEASURES:
            raise SettingError(f"{{by}}: cannot rank by {m!r}: give one of {', '.join([*METRICS, *MEASURES])}")


def metric_values(result, metric: str) -> pd.DataFrame:
    """Per rule set (A first): the mean of `metric` and its difference from A with the 95% CI, from
    the comparison's table (the game's or every seat's row) or from its measures."""
    labels = result.labels
    if metric in METRICS:
        who = GAME if metric in (m.name for m in GAME_METRICS) else ALL
        t = result.table[(result.table["metric"] == metric) & (result.table["who"] == who)]
        if len(t) == len(labels) - 1:
            first = {"rules": labels[0], "value": t["mean_a"].iloc[0], "diff": 0.0, "diff_ci_low": 0.0,
                     "diff_ci_high": 0.0, "significant": False}
            rest = pd.DataFrame({"rules": t["rules_b"], "value": t["mean_b"], "diff": t["diff"],
                                 "diff_ci_low": t["diff_ci_low"], "diff_ci_high": t["diff_ci_high"],
                                 "significant": t["significant"]})
            return pd.concat([pd.DataFrame([first]), rest], ignore_index=True)
    m = result.measures
    known = sorted(set(METRICS) | (set() if m is None else set(m["metric"])))
    if m is None or metric not in set(m["metric"]):
        raise SettingError(f"{{by}}: no measure {metric!r} here (measures: {', '.join(known)})")
    rows = m[m["metric"] == metric]
    rows = rows[rows["who"] == rows["who"].iloc[0]]          # the game's or every seat's
    out = pd.DataFrame({"rules": rows["side"], "value": rows["value"], "diff": rows["diff"].fillna(0.0),
                        "diff_ci_low": rows["diff_ci_low"].fillna(0.0),
                        "diff_ci_high": rows["diff_ci_high"].fillna(0.0),
                        "significant": rows["significant"].fillna(False)})
    return out.reset_index(drop=True)


def pareto(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Which points no other point beats on both: x no larger and y no smaller, one of them strictly."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    beaten = ((x[None, :] <= x[:, None]) & (y[None, :] >= y[:, None])
              & ((x[None, :] < x[:, None]) | (y[None, :] > y[:, None]))).any(axis=1)
    return ~beaten


def ranking(result, by: str, versus: str = "score", descending: bool = False,
            versus_descending: bool = False) -> pd.DataFrame:
    """The rule sets ranked by `by` (smallest first; largest with `descending`): rank, rules, its
    value and difference from the first rule set (95% CI), the `versus` measure's value, and
    whether the point is on the Pareto front (better `by` and better `versus`: larger versus
    unless `versus_descending`)."""
    main, other = metric_values(result, by), metric_values(result, versus)
    t = main.merge(other[["rules", "value"]].rename(columns={"value": versus}), on="rules", how="left",
                   suffixes=("", "_versus"))
    if versus == by:
        t[versus] = t["value"]
    sign_x = -1.0 if descending else 1.0
    sign_y = -1.0 if versus_descending else 1.0
    t["pareto"] = pareto(sign_x * t["value"].to_numpy(float), sign_y * t[versus].to_numpy(float))
    t = t.sort_values("value", ascending=not descending, kind="stable").reset_index(drop=True)
    t.insert(0, "rank", np.arange(1, len(t) + 1))
    return t.rename(columns={"value": by})


def ranked(result, by: str, versus: str = "score", descending: bool = False):
    """The comparison with its ranking (result.ranking, .ranked_by, .ranking_text) set."""
    result.ranking = ranking(result, by, versus, descending)
    result.ranked_by = (by, versus)
    result.ranking_text = format_ranking(result.ranking, by, versus, result.labels[0])
    return result


def format_ranking(t: pd.DataFrame, by: str, versus: str, first: str) -> str:
    """The ranking as text: the points in order, each difference paired against the first rule set."""
    from ..runs.measures import PERCENT
    pct = by in PERCENT or METRICS.get(by) is not None and METRICS[by].percent

    def value(v, metric, share):
        return f"{v:.1%}" if share else f"{v:.2f}"
    shown = pd.DataFrame({
        "rank": t["rank"], "rules": t["rules"],
        by: [value(v, by, pct) for v in t[by]],
        f"{by} - first (95% CI)": ["-" if r == first else
                                  f"{d * (100 if pct else 1):+.2f} ({lo * (100 if pct else 1):+.2f}.."
                                  f"{hi * (100 if pct else 1):+.2f})" for r, d, lo, hi in
                                  zip(t["rules"], t["diff"], t["diff_ci_low"], t["diff_ci_high"])],
        versus: [value(v, versus, versus in PERCENT or METRICS.get(versus) is not None and METRICS[versus].percent)
                 for v in t[versus]],
        "Pareto front": ["yes" if p else "" for p in t["pareto"]],
    })
    return (f"Ranked by {by} (first = {first}; Pareto front: no other point has a better {by} and a better "
            f"{versus})\n\n" + shown.to_string(index=False))
