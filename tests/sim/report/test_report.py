"""encore-sim report: its numbers against summary, compare and pandas; bad datasets; a real browser."""
import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest

from browser import FIGURES_JS, blank
from sim.experiments.compare import compare, format_table
from sim.report.report import compare_report, report
from sim.runs.runner import run
from sim.runs.summary import summarise
from invoking import invoke
from report_page import page, same


@pytest.fixture(scope="module")
def turns_ds(tmp_path_factory):
    """Three players, two strategies (random in two seats), turns logged."""
    out = tmp_path_factory.mktemp("turns") / "ds"
    run(out, games=300, players=3, strategies=["greedy", "random", "random"], seed=5, chunk_size=120, log_turns=True)
    return out


@pytest.fixture(scope="module")
def plain_ds(tmp_path_factory):
    out = tmp_path_factory.mktemp("plain") / "ds"
    run(out, games=500, players=4, strategies=["greedy"], seed=6, chunk_size=200)
    return out


@pytest.fixture(scope="module")
def solo_ds(tmp_path_factory):
    out = tmp_path_factory.mktemp("solo") / "ds"
    run(out, games=600, players=1, strategies=["greedy"], seed=7, chunk_size=250)
    return out


@pytest.fixture(scope="module")
def reports(turns_ds, plain_ds, solo_ds, tmp_path_factory):
    folder = tmp_path_factory.mktemp("reports")
    return {name: (ds, report(ds, folder / f"{name}.html"))
            for name, ds in (("turns", turns_ds), ("plain", plain_ds), ("solo", solo_ds))}


@pytest.mark.parametrize("name", ["turns", "solo"])
def test_the_designers_measures_are_summary_s(reports, name):
    """The page's measures and completion tables are `summary --measures`' (sim.runs.measures),
    cell for cell; a dataset without its move log says which measures it lacks."""
    from sim.runs.measures import aggregate, dataset_frame, display
    ds, r = reports[name]
    p = page(r.html)
    table = aggregate(dataset_frame(ds))
    for want in (display(table), display(table, completion=True)):
        if want.empty:       # no move log: no completion table
            continue
        shown = next(t for t in p.tables if t[0] == list(want.columns))
        assert shown[1:] == [list(map(str, row)) for row in want.itertuples(index=False)]
    assert ("run --log-turns" in r.html.read_text()) == (name == "solo")


@pytest.mark.parametrize("name", ["turns", "plain", "solo"])
def test_numbers_equal_summary(reports, name):
    ds, r = reports[name]
    p = page(r.html)
    s = summarise(ds)
    assert same(p.data["summary"], s.rows)
    assert same(p.data["bands"], s.band_rows)
    if s.manifest["settings"]["players"] > 1:
        assert same(p.data["summary_by_seat"], summarise(ds, by_seat=True).rows)
    # the table shown is the one `encore-sim summary` prints, cell for cell
    printed = invoke("summary", str(ds)).stdout.splitlines()
    shown = next(t for t in p.tables if t[0][0] == "strategy")
    assert [" ".join(row).split() for row in shown] == [line.split() for line in printed[2:2 + len(shown)]]
    assert printed[0] in r.html.read_text()


@pytest.mark.parametrize("name", ["turns", "plain", "solo"])
def test_figure_data_against_pandas(reports, name):
    ds, r = reports[name]
    data = page(r.html).data
    players = pd.read_parquet(ds / "players")
    games = pd.read_parquet(ds / "games")
    for strategy, rows in players.groupby("strategy"):
        counts = rows["score"].value_counts().sort_index()
        assert data["hists"][strategy] == {str(k): int(v) for k, v in counts.items()}
        for col in ("column_points", "colour_points", "jokers_left", "star_penalty", "columns_first",
                    "colours_later"):
            assert data["means"][strategy][col] == pytest.approx(rows[col].mean(), rel=1e-12)
        first = rows["first_joker_roll"].fillna(0).astype(int).value_counts().sort_index()
        assert data["first_joker"][strategy] == {str(k): int(v) for k, v in first.items()}
    assert data["lengths"] == {str(k): int(v) for k, v in games["rolls"].value_counts().sort_index().items()}
    assert data["capped"] == games["capped"].sum()
    if data["players"] > 1:
        by_seat = players.groupby("seat")["winner"].mean()
        assert [s["win_rate"] for s in data["seats"]] == pytest.approx(by_seat.to_list(), rel=1e-12)
        scores = players.pivot(index="game", columns="seat", values="score")
        assert [s["mean_score"] for s in data["seats"]] == pytest.approx(scores.mean().to_list(), rel=1e-12)
        diff = scores.sub(scores[0], axis=0)
        assert [s["diff_seat0"] for s in data["seats"]] == pytest.approx(diff.mean().to_list(), abs=1e-12)
        half = 1.959963984540054 * diff.std() / np.sqrt(len(diff))
        assert [s["diff_seat0_ci"] for s in data["seats"]][1:] == pytest.approx(half.to_list()[1:], rel=1e-9)
        first = players["first_joker_roll"].fillna(0).astype(int)
        for who, won in (("winners", True), ("the rest", False)):
            want = first[players["winner"] == won].value_counts().sort_index()
            assert data["first_joker_winners"][who] == {str(k): int(v) for k, v in want.items()}
    if name == "turns":
        turns = pd.read_parquet(ds / "turns", columns=["game", "roll", "seat", "jokers"])
        t = turns.merge(players[["game", "seat", "strategy"]], on=["game", "seat"])
        for strategy, rows in t[t["jokers"] > 0].groupby("strategy"):
            want = rows.groupby("roll")["jokers"].sum()
            assert data["jokers_by_roll"][strategy] == {str(k): float(v) for k, v in want.items()}
            # every '!' a seat used is in the turns table: the curve ends at the summary's jokers
            mean = next(s["jokers_used"] for s in data["summary"] if s["strategy"] == strategy)
            assert want.sum() / (players["strategy"] == strategy).sum() == pytest.approx(mean)
        assert data["joker_source"] == "turns"
    else:
        assert data["joker_source"] == "first_joker_roll" and data["jokers_by_roll"] is None


def test_small_batches_cut_games_apart_and_change_nothing(reports):
    """Row batches of 7 split the chunks (and the turns) at other places: the same numbers."""
    from sim.report.report import collect
    ds, r = reports["turns"]
    assert same(page(r.html).data, {**collect(ds, batch_size=7), "dataset": str(ds)})


def test_figures_where_the_data_supports_them(reports):
    turns, plain, solo = (reports[n][1].figures for n in ("turns", "plain", "solo"))
    assert len(turns) >= 6 and len(plain) >= 6
    assert "Win rate and score by seat" in turns and "Game length" in turns and "Joker timing by roll" in turns
    assert "Solo rating bands" in solo
    assert "Win rate and score by seat" not in solo and "Game length" not in solo and "Solo rating bands" not in turns
    for name, (_, r) in reports.items():
        text = r.html.read_text()
        assert text.count('<img src="data:image/svg+xml;base64,') == len(r.figures), name
        # self-contained: nothing fetched from anywhere
        assert not re.search(r"""(src|href)=["']?(https?:|//)""", text), name


def test_captions_show_code_as_code_and_a_solo_report_has_no_roll_cap(reports):
    for name, (_, r) in reports.items():
        text = r.html.read_text()
        captions = re.findall(r"<figcaption>(.*?)</figcaption>", text, re.S)
        assert captions and not any("`" in c for c in captions), name
        settings = {row[0]: row[1:] for row in page(r.html).tables[-1] if row}
        assert ("roll cap" in settings) == (name != "solo"), name   # a solo game is always 30 rolls
    assert "<code>summary --by seat</code>" in reports["turns"][1].html.read_text()


def test_png_format_and_cli(turns_ds, tmp_path):
    from PIL import Image
    r = invoke("report", str(turns_ds), "-o", str(tmp_path / "r.html"), "--figures", str(tmp_path / "figs"))
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0].startswith(f"Report: {tmp_path / 'r.html'}")
    pngs = sorted((tmp_path / "figs").iterdir())
    assert len(pngs) == (tmp_path / "r.html").read_text().count("<figure") >= 6
    for f in pngs:
        with Image.open(f) as im:
            assert im.format == "PNG" and im.width > 500
    # default output: DATASET.html beside the dataset folder
    r = invoke("report", str(turns_ds), "-q")
    assert r.exit_code == 0 and turns_ds.with_name("ds.html").is_file()


def _damage(ds, tmp_path, how):
    bad = tmp_path / "bad"
    shutil.copytree(ds, bad)
    if how == "truncated":
        part = bad / "players" / "part-000001.parquet"
        part.write_bytes(part.read_bytes()[:100])
    elif how == "no turns":
        (bad / "turns" / "part-000002.parquet").unlink()
    elif how == "no manifest":
        (bad / "manifest.json").unlink()
    elif how == "missing":
        shutil.rmtree(bad)
    return bad


@pytest.mark.parametrize("how, message", [("truncated", "part-000001.parquet: not a readable Parquet file"),
                                          ("no turns", "part-000002.parquet: missing"),
                                          ("no manifest", "not an encore-sim dataset"),
                                          ("missing", "no such dataset folder")])
def test_bad_dataset_one_line_exit_2_no_file(turns_ds, tmp_path, how, message):
    bad = _damage(turns_ds, tmp_path, how)
    before = sorted(tmp_path.rglob("*"))
    r = invoke("report", str(bad), "-o", str(tmp_path / "r.html"), "-f", "png", "--figures", str(tmp_path / "figs"))
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert sorted(tmp_path.rglob("*")) == before   # no report, no figures, no temporary file


@pytest.mark.parametrize("args, message", [(["-o", "{tmp}/nofolder/r.html"], "does not exist"),
                                           (["-o", "{tmp}"], "is a directory"),
                                           (["-f", "png"], "--format png needs --figures, the folder"),
                                           (["--figures", "{tmp}/figs", "-f", "html"], "cannot be combined")])
def test_bad_output_one_line_exit_2(turns_ds, tmp_path, args, message):
    r = invoke("report", str(turns_ds), *(a.format(tmp=tmp_path) for a in args))
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def comparison(tmp_path_factory):
    out = tmp_path_factory.mktemp("compare") / "c.html"
    result = compare(["greedy", "random"], players=2, games=400, seed=3)
    return result, compare_report(result, out)


def test_compare_report_numbers(comparison):
    result, r = comparison
    p = page(r.html)
    assert same(p.data["table"], result.table.to_dict(orient="records"))
    shown = next(t for t in p.tables if t[0][0] == "strategy")
    printed = format_table(result).splitlines()
    assert printed[0] in r.html.read_text()
    assert [" ".join(row).split() for row in shown] == [line.split() for line in printed[2:2 + len(shown)]]
    # the score distributions are the candidates' scores: they count the games and give the means
    for h, mean in zip(p.data["hists"].values(), result.table["mean"]):
        n = sum(h.values())
        assert n == result.games
        assert sum(int(k) * v for k, v in h.items()) / n == pytest.approx(mean, rel=1e-12)
    assert r.figures == ["Paired differences", "Score distribution"]


def test_compare_cli_report(tmp_path):
    r = invoke("compare", "greedy", "random", "--games", "200", "--format", "csv", "--report", str(tmp_path / "c.html"))
    assert r.exit_code == 0, r.output
    assert pd.read_csv(pd.io.common.StringIO(r.stdout))["strategy"].to_list() == ["greedy", "random"]
    assert r.stderr == f"Report: {tmp_path / 'c.html'}\n"
    assert page(tmp_path / "c.html").data["games"] == 200
    r = invoke("compare", "greedy", "random", "--games", "200", "--report", str(tmp_path / "no" / "c.html"))
    assert r.exit_code == 2 and "does not exist" in r.stderr and not (tmp_path / "no").exists()


# --- the browser -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def designer_reports(tmp_path_factory):
    """The designer's pages: a traced dataset's report (the chances of a typical and of the most
    dramatic game) and a sweep's compare-rules report (its measures, ranking and Pareto figure)."""
    from sim.runs.trace import trace_dataset
    folder = tmp_path_factory.mktemp("designer")
    ds = folder / "traced"
    run(ds, games=30, players=3, strategies=["learned", "greedy", "random"], seed=4, chunk_size=10)
    trace_dataset(ds, samples=2)
    traced = report(ds, folder / "traced.html")
    assert [t.split(":")[0] for t in traced.figures[-2:]] == ["A typical game", "The most dramatic game"], traced.figures
    sweep = folder / "sweep.html"
    r = invoke("compare-rules", "jokers=7..9", "-p", "2", "-n", "40", "--by", "rolls", "--measures",
               "--no-check-adaptation", "--report", sweep, "-q")
    assert r.exit_code == 0, r.output
    assert "The sweep: rolls against score" in sweep.read_text()
    return [(traced.html, len(traced.figures)), (sweep, None)]


def test_every_figure_renders_in_a_real_browser(chromium, reports, comparison, designer_reports, tmp_path):
    b = chromium
    # the checks can fail: a page with a broken figure, a console error and a network load
    bad = tmp_path / "bad.html"
    bad.write_text('<figure><img src="data:image/svg+xml;base64,AAAA"></figure>'
                   '<img src="http://127.0.0.1:9/x.png"><script>console.error("boom")</script>')
    b.open(bad.as_uri())
    assert "console: boom" in b.errors()
    assert "http://127.0.0.1:9/x.png" in b.requests()
    assert [f["ok"] for f in b.evaluate(FIGURES_JS)] == [False]
    pages = [(r.html, len(r.figures)) for r in (reports["turns"][1], reports["solo"][1], comparison[1])]
    pages += designer_reports
    for html, count in pages:
        b.open(html.as_uri())
        assert b.errors() == [], html
        assert [u for u in b.requests() if not u.startswith("data:")] == [html.as_uri()]
        figures = b.evaluate(FIGURES_JS)
        assert figures and len(figures) == (count or len(figures)), html
        for f in figures:
            assert f["ok"] and f["shown"] > 100, f
            clip = {k: f[k] for k in ("x", "y", "width", "height")}
            assert not blank(b.screenshot(clip)), f
        assert not blank(b.screenshot())
