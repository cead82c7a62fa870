"""The trace's figures in a dataset's report: every seat's chance of winning roll by roll, in a
typical game and in the most dramatic one (sim.runs.trace)."""
from __future__ import annotations

import numpy as np

#: The figures' size in inches (the report's figures' own).
SIZE = (7.2, 3.4)


def chosen_games(measures) -> tuple[int, int]:
    """(a typical game, the most dramatic game) of trace_measures' frame: the game whose drama
    and lead changes are nearest their medians, and the game of the largest drama (the first)."""
    d, lc = measures["drama"].to_numpy(float), measures["lead_changes"].to_numpy(float)
    spread = lambda x: max(np.nanstd(x), 1e-9)     # noqa: E731
    far = abs(d - np.nanmedian(d)) / spread(d) + abs(lc - np.nanmedian(lc)) / spread(lc)
    games = measures["game"].to_numpy()
    return int(games[np.nanargmin(far)]), int(games[np.nanargmax(d)])


def chances_figure(rows, names, title: str):
    """A matplotlib Figure of one game's trace rows: each seat's chance of winning after every
    roll (roll 0: before the first), the winner's line heavier."""
    from .figures import new_figure
    fig, ax = new_figure(SIZE)
    last = rows[rows["roll"] == rows["roll"].max()]
    winners = set(last.loc[last["win_prob"] == last["win_prob"].max(), "seat"])
    for seat, r in rows.sort_values("roll").groupby("seat"):
        won = seat in winners
        label = f"seat {seat}: {names[seat]}".replace("$", r"\$") + (" (won)" if won else "")
        ax.plot(r["roll"], 100 * r["win_prob"], linewidth=2.4 if won else 1.2, label=label, zorder=3 if won else 2)
    ax.set_ylim(0, 100)
    ax.set_xlabel("rolls played")
    ax.set_ylabel("chance of winning (%)")
    ax.set_title(title, fontsize=10)
    ax.legend(frameon=False, fontsize=8, ncols=2)
    return fig


WHY = {"trace-typical": "Typical: its drama and lead changes are the nearest to their medians.",
       "trace-dramatic": "The game in which the final winner fell the furthest below the leader."}


def trace_figures(dataset) -> list[tuple[str, str, str, object]]:
    """(slug, title, caption, Figure) of the dataset's trace figures; none for a dataset without
    a trace, or solo (where nobody else can win)."""
    from sim.runs.dataset import read_manifest, read_part
    from sim.runs.trace import has_trace, read_trace, trace_measures
    if not has_trace(dataset):
        return []
    trace = read_trace(dataset)
    if trace["seat"].max() == 0:
        return []
    measures = trace_measures(dataset, trace)
    size = read_manifest(dataset)["settings"]["chunk_size"]
    typical, dramatic = chosen_games(measures)
    out = []
    for slug, game, what in (("trace-typical", typical, "A typical game"),
                             ("trace-dramatic", dramatic, "The most dramatic game")):
        m = measures[measures["game"] == game].iloc[0]
        seats = read_part(dataset, "players", game // size, ["game", "seat", "strategy"]).to_pandas()
        seats = seats[seats["game"] == game]
        names = dict(zip(seats["seat"], seats["strategy"]))
        decided = ("never decided (a shared win)" if np.isnan(m["decided_roll"])
                   else f"decided at roll {int(m['decided_roll'])}")
        title = f"{what}: game {game}"
        caption = (f"Each seat's chance of winning after every roll of game {game} (the win model on learned's "
                   f"values, docs/trace.md): {int(m['lead_changes'])} lead changes, drama "
                   f"{100 * m['drama']:.0f} points, {decided}. {WHY[slug]}")
        out.append((slug, title, caption, chances_figure(trace[trace["game"] == game], names, title)))
    return out
