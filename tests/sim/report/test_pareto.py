"""The sweep's figure (sim.report.pareto) in compare-rules' report."""
import pandas as pd

from sim.report.pareto import sweep_figure
from invoking import invoke


def test_the_figure_labels_every_point_and_marks_the_front():
    t = pd.DataFrame({"rules": ["a", "b", "c"], "rolls": [40.0, 45.0, 50.0], "score": [10.0, 12.0, 11.0],
                      "pareto": [True, True, False]})
    fig = sweep_figure(t, "rolls", "score")
    ax = fig.axes[0]
    assert [x.get_text() for x in ax.texts] == ["a", "b", "c"]
    assert ax.get_xlabel() == "rolls" and ax.get_ylabel() == "score"
    front = [c for c in ax.collections if c.get_label() == "Pareto front"][0]
    assert front.get_offsets().tolist() == [[40.0, 10.0], [45.0, 12.0]]


def test_compare_rules_report_draws_the_sweep(tmp_path):
    out = tmp_path / "sweep.html"
    r = invoke("compare-rules", "jokers=7..9", "-p", "2", "-n", "40", "--by", "rolls",
               "--no-check-adaptation", "--report", str(out), "-q")
    assert r.exit_code == 0, r.output
    assert "Ranked by rolls" in r.stdout and "The sweep: rolls against score" in out.read_text()
    measured = tmp_path / "measured.html"
    r = invoke("compare-rules", "rulebook", "jokers=7", "-p", "2", "-n", "40", "--measures",
               "--no-check-adaptation", "--report", str(measured), "-q")
    page = measured.read_text()
    assert r.exit_code == 0 and "Measures: A = rulebook, B = jokers=7" in page and "Completion: A = rulebook" in page
    assert "score_sd" in page and "column O" in page
