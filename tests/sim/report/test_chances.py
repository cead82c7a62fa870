"""The trace's figures: a typical and the most dramatic game of a traced dataset."""
import pandas as pd

from sim.report.chances import chosen_games, trace_figures
from sim.runs.runner import run
from sim.runs.trace import trace_dataset


def test_the_typical_game_is_near_the_medians_and_the_dramatic_one_has_the_most_drama():
    m = pd.DataFrame({"game": [10, 11, 12, 13, 14], "drama": [0.1, 0.3, 0.35, 0.9, 0.2],
                      "lead_changes": [1, 4, 5, 9, 3]})
    assert chosen_games(m) == (11, 13)


def test_a_traced_dataset_draws_both_games_and_an_untraced_one_none(tmp_path):
    out = tmp_path / "ds"
    run(out, games=30, players=3, strategies=["learned", "greedy", "random"], seed=4, chunk_size=10)
    assert trace_figures(out) == []
    trace_dataset(out, samples=2)
    figs = trace_figures(out)
    assert [f[0] for f in figs] == ["trace-typical", "trace-dramatic"]
    for _, title, caption, fig in figs:
        ax = fig.axes[0]
        assert len(ax.get_lines()) == 3 and "lead changes" in caption and title in ax.get_title()
