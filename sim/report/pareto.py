"""The sweep's figure in a compare-rules report: two measures of every point against each other,
the points labelled and the Pareto front marked (sim.experiments.sweep's ranking)."""
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
