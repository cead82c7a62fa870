"""The commands that read a dataset (sim.commands.datasets): the summary's rows, and the settings
analyse and report refuse before any work, in one line naming them."""
import pytest

from sim.commands.datasets import analyse, report, summary
from sim.errors import SettingError
from sim.runs.runner import run


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    root = tmp_path_factory.mktemp("datasets")
    run(root / "alone", games=20, players=2, strategies=["greedy"], seed=1)
    run(root / "mixed", games=20, players=2, strategies=["greedy", "random"], seed=1, rotate=True)
    return root


def test_a_summary_s_rows_per_seat_where_one_strategy_holds_every_seat(datasets):
    alone = summary(datasets / "alone")
    assert [(r["strategy"], r["seat"]) for r in alone.rows] == [("greedy", 0), ("greedy", 1)]
    mixed = summary(datasets / "mixed")
    assert sorted(r["strategy"] for r in mixed.rows) == ["greedy", "random"]
    assert all(r.get("seat") is None for r in mixed.rows)
    assert len(summary(datasets / "mixed", by="seat").rows) == 4
    assert [r["strategy"] for r in summary(datasets / "alone", by="strategy").rows] == ["greedy"]


@pytest.mark.parametrize("call, text", [
    (lambda d: summary(d / "alone", by="table"), "{by} must be 'strategy' or 'seat', got 'table'"),
    (lambda d: summary(d / "alone", rules="joker-six"), "{rules} joker-six contradicts the dataset"),
    (lambda d: analyse(d / "alone", roll=3), "{roll} and {seat} pick decisions of the game given by {game} N"),
    (lambda d: analyse(d / "alone", game=1, decisions_out=d / "x.parquet"), "{game} shows one game's decisions"),
    (lambda d: report(d / "alone", format="pdf"), "{format} must be one of html, png, got 'pdf'"),
    (lambda d: report(d / "alone", format="png"), "{format} png needs {figures}"),
    (lambda d: report(d / "alone", format="html", figures=d / "f"), "{figures} writes PNG files"),
], ids=["summary-by", "summary-rules", "analyse-roll", "analyse-game-out", "report-format", "report-png",
        "report-html-figures"])
def test_bad_settings_are_refused_in_one_line_naming_them(datasets, call, text):
    with pytest.raises(SettingError) as e:
        call(datasets)
    assert e.value.text.startswith(text) and "\n" not in e.value.text


def test_a_decisions_file_that_cannot_be_written_is_refused_before_the_analysis(datasets):
    with pytest.raises(ValueError, match="is a folder: give a file name"):
        analyse(datasets / "alone", decisions_out=datasets)
