"""The designer's measures in a compare-rules report: the sweep's figure (two measures of every
point against each other, the points labelled and the Pareto front marked; sim.experiments.sweep's
ranking) and the sections of the measures, the completion table and the ranking."""
from __future__ import annotations

import numpy as np

#: The figure's size in inches (the report's figures' own).
SIZE = (7.2, 4.6)


def sweep_figure(ranking, by: str, versus: str):
    """A matplotlib Figure: `by` across, `versus` up, a point per rule set with its label, the
    Pareto front's points joined and filled."""
    from matplotlib.figure import Figure
    fig = Figure(figsize=SIZE, layout="constrained")
    ax = fig.subplots()
    ax.grid(True, color="#ddd", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    x, y = ranking[by].to_numpy(float), ranking[versus].to_numpy(float)
    front = ranking["pareto"].to_numpy(bool)
    ax.scatter(x[~front], y[~front], s=28, color="#999", label="beaten on both by another point", zorder=2)
    ax.scatter(x[front], y[front], s=40, color="#d62728", label="Pareto front", zorder=3)
    order = np.argsort(x[front], kind="stable")
    ax.plot(x[front][order], y[front][order], color="#d62728", linewidth=1, zorder=2)
    for xi, yi, label in zip(x, y, ranking["rules"]):
        ax.annotate(label.replace("$", r"\$"), (xi, yi), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.set_xlabel(by)
    ax.set_ylabel(versus)
    ax.legend(frameon=False, fontsize=8)
    return fig


def caption(by: str, versus: str) -> str:
    return (f"Every rule set of the sweep by its mean {by} (across) and {versus} (up), on the same games; red: the "
            f"Pareto front, the points no other point beats on both (a smaller {by} and a larger {versus}, as ranked).")


def measure_sections(result, html_table) -> list[tuple[str, str]]:
    """(title, HTML) of the measures of each B against A, its completion table and the sweep's
    ranking, where the comparison has them; html_table(columns, left) lays a table out."""
    from ..runs.measures import display
    out = []
    if result.measures is not None:
        for b in result.labels[1:]:
            shown = display(result.measures, b)
            out.append((f"Measures: A = {result.labels[0]}, B = {b}",
                        html_table({c: list(shown[c]) for c in shown.columns}, left=("metric", "who"))))
            done = display(result.measures, b, completion=True)
            if len(done):
                out.append((f"Completion: A = {result.labels[0]}, B = {b}",
                            html_table({c: list(done[c]) for c in done.columns}, left=("colour or column",))))
    if getattr(result, "ranking", None) is not None:
        t = result.ranking
        out.append((f"Ranked by {result.ranked_by[0]}", html_table(
            {c: [f"{v:.3g}" if isinstance(v, float) else str(v) for v in t[c]] for c in t.columns}, left=("rules",))))
    return out
