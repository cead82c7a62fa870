"""sim.report.figures: each figure where the data supports it, legends that fit."""
import numpy as np

from sim.report.aggregate import collect
from sim.report.figures import bar_lengths, dataset_figures, short
from sim.runs.runner import run


def test_a_long_or_mathematical_name_fits_a_legend():
    assert short("a$b$") == r"a\$b\$"   # matplotlib would read the text between two '$' as mathematics
    long = "/home/someone/strategies/" + "x" * 40 + ".py:choose"
    assert len(short(long)) == 28 and short(long).startswith("…") and short(long).endswith(":choose")
    assert short("greedy") == "greedy"


def test_error_bars_are_never_negative():
    """A bound a hair inside its estimate (rounding) draws no bar rather than a reversed one."""
    lo, hi = bar_lengths([0.0, 0.5], [0.001, 0.4], [0.2, 0.6])
    assert np.allclose(lo, [0.0, 0.1]) and np.allclose(hi, [0.2, 0.1])


def test_the_solo_figures_have_bands_and_no_seats_or_lengths(tmp_path):
    run(tmp_path / "solo", games=40, strategies=["greedy"], seed=2)
    titles = [f.title for f in dataset_figures(collect(tmp_path / "solo"))]
    assert "Solo rating bands" in titles
    assert "Win rate and score by seat" not in titles and "Game length" not in titles
    run(tmp_path / "table", games=40, players=3, strategies=["greedy"], seed=2)
    titles = [f.title for f in dataset_figures(collect(tmp_path / "table"))]
    assert "Win rate and score by seat" in titles and "Solo rating bands" not in titles
