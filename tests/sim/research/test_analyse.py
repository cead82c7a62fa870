"""`encore-sim analyse` (sim.research.analyse): every decision judged against learned's choice.

The identity (rollout loss per game = learned's score minus the strategy's, on the same dice),
luck averaging 0, a deliberate blunder
found where it was made, learned's own games losing nothing by its value, and one-line errors for
datasets that cannot be analysed."""
import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest

from sim.runs.api import play_chunk
from sim.state import PS_SCORE
from strategies.learned import MissingWeights
from sim.research.analyse import AnalyseError, STAGES, learned_taxed, analyse, judged
from sim.research.decisions import decisions

import sheetgen
from invoking import invoke

SEED = 3407
# Compiled in each process (cache=False): a cached copy of a user's file is loaded back under the
# module name of the path it was first compiled at, and each test run writes it at another path.
BLUNDER = '''
from numba import njit

from sim.state import ST_ROLL
from strategies.interface import strategy
from strategies.learned import PARAMS, learned, weights_data

_learned = learned.dispatcher


def shipped(sheet, file, players):
    return weights_data(sheet, None, players)


@njit(cache=False)
def _blunder(st, ps, bb, cands, n, tab, params, rng):
    """learned, except that it always passes at roll 10"""
    if st[ST_ROLL] == 10:
        return -1
    return _learned(st, ps, bb, cands, n, tab, params, rng)


blunder = strategy(_blunder, params=dict(PARAMS), data=shipped)
'''


def run(out, *args):
    r = invoke("run", "-o", str(out), "--seed", str(SEED), "-q", "-j", "1", *args)
    assert r.exit_code == 0, r.output
    return out


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("analyse")
    return {
        "heuristic": run(d / "heuristic", "-s", "heuristic", "-n", "80"),
        "learned": run(d / "learned", "-s", "learned", "-n", "30"),
        "table": run(d / "table", "-s", "heuristic", "-s", "learned", "-n", "12"),
        "root": d,
    }


def test_rollout_loss_matches_the_score_gap_and_the_value_alone_is_biased(tmp_path):
    """The performance-difference identity on heuristic's own games: its summed loss by learned's
    true action values has the expectation of learned's score minus its own. Per game, the rolled-out
    loss plus heuristic's score less its luck estimates learned's score from the empty sheet; so
    does learned's own score less its luck. Paired on the game, the first takes out most of the
    noise of heuristic's dice (the loss and that score move against each other); learned's games
    are paired with nothing (their luck's residue is unrelated to heuristic's), so they are
    simply many more, which costs little without rollouts. Checked within 3 standard errors, and
    those under half a point: a judge off by a point a game then fails whatever the dice, as the
    value alone does."""
    # Most of the noise left is heuristic's luck as learned's value misreads it, not the rollouts':
    # per second, more games narrow the interval more than more rollouts (16 instead of 8 took
    # about 1.5 times as long for 12% off its width).
    games, learned_games = 288, 2000
    ds = run(tmp_path / "h", "-s", "heuristic", "-n", str(games))
    a = analyse(ds, rollouts=8, threads=2, mistakes=0, decisions_out=tmp_path / "d.parquet")
    (row,) = a.rows
    assert row["games"] == games and row["decisions"] == games * 30
    t = pq.read_table(tmp_path / "d.parquet").to_pandas().groupby("game")[["loss", "luck"]].sum()
    score = pq.read_table(ds / "players").to_pandas().set_index("game")["score"].sort_index()
    assert score.index.equals(t.index)
    heuristic_taxed = score.to_numpy() - t["luck"].to_numpy()
    j = judged(ds)
    learned_games_taxed = learned_taxed(j.W, j.tab, SEED, 0, learned_games, j.settings.rules)[1]
    # the figures the analysis reports, from the same games
    assert t["loss"].mean() == pytest.approx(row["loss_per_game"], abs=1e-9)
    assert (learned_games_taxed[:games] - heuristic_taxed).mean() == pytest.approx(row["learned_gap_taxed"], abs=1e-9)
    via_loss = t["loss"].to_numpy() + heuristic_taxed
    diff = via_loss.mean() - learned_games_taxed.mean()
    hw = 3 * np.sqrt(via_loss.var(ddof=1) / games + learned_games_taxed.var(ddof=1) / learned_games)
    gap = learned_games_taxed.mean() - heuristic_taxed.mean()
    print(f"loss {row['loss_per_game']:.3f} per game, learned's gap less luck {gap:.3f}: {diff:+.3f} +- {hw:.3f} "
          "(3 standard errors)")
    # hw < 1/2: where |diff| < hw, a judge biased by a point a game is more than hw away from 0
    assert hw < 0.5 and abs(diff) < hw
    assert abs(row["learned_gap"] - row["learned_gap_taxed"]) < row["learned_gap_ci"]
    # by the value alone the loss is biased high: learned's value overrates its own choices
    assert row["value_loss_per_game"] > gap + hw
    # the two measures see the same decisions: where the choices agree both are 0
    assert 0 < row["differ_share"] < 1


def test_luck_averages_zero_and_the_parquet_rows_add_up(data, tmp_path):
    out = tmp_path / "d.parquet"
    r = invoke("analyse", data["heuristic"], "-f", "parquet", "-o", out, "-q", "-j", "1")
    assert r.exit_code == 0, r.output
    t = pq.read_table(out).to_pandas()
    assert len(t) == 80 * 30 and sorted(t["roll"].unique()) == list(range(1, 31))
    per_game = t.groupby("game")["luck"].sum()
    assert abs(per_game.mean()) < 3 * per_game.std() / np.sqrt(len(per_game))
    assert per_game.std() > 1      # the dice do matter
    j = json.loads(invoke("analyse", data["heuristic"], "-f", "json", "-j", "1").output)
    (row,) = j["rows"]
    assert row["loss_per_game"] == pytest.approx(t.groupby("game")["loss"].sum().mean())
    assert row["luck_per_game"] == pytest.approx(per_game.mean())
    # a decision's loss is never negative by the value it is judged by: learned's choice is its best
    assert (t["value_loss"] >= 0).all() and ((t["value_loss"] > 0) == (t["loss"] > 0)).all()
    assert sum(v["loss_per_game"] for v in row["by_stage"].values()) == pytest.approx(row["loss_per_game"])
    m = j["mistakes"][0]
    assert m["loss"] == t["loss"].max() and m["strategy"] == "heuristic"
    top = t.loc[t["loss"].idxmax()]
    assert (m["game"], m["roll"]) == (top["game"], top["roll"])
    assert " ".join(m["chosen"]["cells"]) == top["chosen_cells"] and " ".join(m["best"]["cells"]) == top["best_cells"]


def test_learned_loses_nothing_by_its_value_and_its_improvement_is_measured_on_its_games(data):
    a = analyse(data["learned"], threads=1)
    (row,) = a.rows
    assert row["loss_per_game"] == 0 and row["differ_share"] == 0 and a.mistakes == []
    assert row["learned_gap"] == 0
    # with rollouts: one step of policy improvement over learned, measured on these very games
    from sim.research.improvement import measure
    b = analyse(data["learned"], rollouts=10, top=2, games=4, threads=1)
    direct = measure(games=4, seed=SEED, rollouts=10, top=2, threads=1)
    assert np.array_equal(b.improvement.means, direct.means) and np.array_equal(b.improvement.scores, direct.scores)
    assert "One step of policy improvement over learned" in b.text()


@pytest.mark.parametrize("sheet", ["standard", "green"])
def test_the_judge_plays_learned_s_own_games_as_run_plays_them(data, sheet):
    """The analysis's learned baseline is played by the judge itself (rollouts.judge_solo with
    own=True: learned's choice is the best of the judge's ranking), not by a run of learned: the
    same games, score for score, as `run -s learned` plays on those dice."""
    ds = data["learned"] if sheet == "standard" else run(data["root"] / f"learned-{sheet}", "-s", "learned",
                                                          "-n", "5", "--sheet", sheet)
    j = judged(ds)
    first, n = 1000, 400
    scores, taxed = learned_taxed(j.W, j.tab, SEED, first, n, j.settings.rules)
    played = play_chunk(SEED, first, n, ["learned"], players=1, sheet=sheet).seats[:, 0, PS_SCORE]
    assert np.array_equal(scores, played)
    assert np.isfinite(taxed).all() and not np.array_equal(taxed, scores)


def test_a_deliberate_blunder_is_found_at_its_roll(data):
    f = data["root"] / "blunder.py"
    f.write_text(BLUNDER)
    ds = run(data["root"] / "blunder", "-s", f"{f}:blunder", "-n", "20", "--unchecked")
    out = data["root"] / "blunder.parquet"
    r = invoke("analyse", ds, "-f", "parquet", "-o", out, "-q", "-j", "1", "--unchecked")
    assert r.exit_code == 0, r.output
    t = pq.read_table(out).to_pandas()
    lost = t[t["loss"] > 0]
    assert len(lost) > 10 and (lost["roll"] == 10).all() and lost["chosen_pass"].all()
    a = analyse(ds, threads=1, checked=False)
    (row,) = a.rows
    assert row["by_stage"][STAGES[1]]["loss_per_game"] == pytest.approx(row["loss_per_game"])
    assert row["by_kind"]["pass"]["loss_per_game"] == pytest.approx(row["loss_per_game"])
    assert row["loss_per_game"] > 0.5
    assert all(m["roll"] == 10 and m["chosen"]["pass"] for m in a.mistakes)


def test_tables_are_judged_per_strategy_and_seat(data):
    a = analyse(data["table"], threads=1)
    keys = [(r["strategy"], r["seat"]) for r in a.rows]
    assert keys == [("heuristic", None), ("heuristic", 0), ("heuristic", 1),
                    ("learned", None), ("learned", 0), ("learned", 1)]
    rows = {k: r for k, r in zip(keys, a.rows)}
    h = rows[("heuristic", None)]
    assert h["games"] == 12 and set(h["by_kind"]) >= {"active", "passive"}
    assert h["luck_per_game"] is None
    # learned's table choice is its value's best but for its dice denial: it loses little, heuristic more
    assert rows[("learned", None)]["loss_per_game"] < h["loss_per_game"]
    assert rows[("heuristic", 0)]["games"] + rows[("heuristic", 1)]["games"] == 12
    r = invoke("analyse", data["table"], "-r", "4")
    assert r.exit_code == 2 and r.output.startswith("Error: --rollouts judges solo games only")


def test_one_line_errors(data, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(data["heuristic"], bad)
    part = next((bad / "players").glob("*.parquet"))
    t = pq.read_table(part)
    scores = t["score"].to_numpy().copy()
    scores[3] += 1
    pq.write_table(t.set_column(t.schema.get_field_index("score"), "score", [scores]), part)
    r = invoke("analyse", bad, "-q")
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1
    assert r.output.startswith(f"Error: game 3 of {bad} replays to scores")
    part.write_bytes(b"not parquet")
    r = invoke("analyse", bad, "-q")
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1 and "not a readable Parquet file" in r.output
    for args, message in [((tmp_path / "none",), "no such dataset folder"),
                          ((data["heuristic"], "-s", "greedy"), "strategy 'greedy' did not play in"),
                          ((data["heuristic"], "-r", "3"), "rollouts must be even"),
                          ((data["heuristic"], "-f", "parquet"), "--format parquet writes one row per decision"),
                          ((data["heuristic"], "--top", "1", "-r", "2"), "top must be 2..8")]:
        r = invoke("analyse", *args)
        assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1 and message in r.output, r.output


def test_a_table_sheet_without_weights_says_how_to_train(tmp_path):
    sheet = tmp_path / "mine.txt"
    sheet.write_text(subprocess.run([sys.executable, sheetgen.__file__, "--seed", "5"],
                                    capture_output=True, text=True, check=True).stdout)
    ds = run(tmp_path / "t", "-s", "greedy", "-p", "2", "-n", "2", "--sheet", str(sheet))
    with pytest.raises(MissingWeights, match="encore-sim train --sheet FILE --players 2`, FILE being sheet 'mine'"):
        analyse(ds)
    r = invoke("analyse", ds)
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
    assert "add --train to train them now" in r.output


def test_report_with_the_analysis(data, tmp_path):
    out = tmp_path / "r.html"
    r = invoke("report", str(data["heuristic"]), "--analyse", "-o", str(out), "-q")
    assert r.exit_code == 0, r.output
    page = out.read_text()
    assert 'alt="Where the points are lost"' in page and 'alt="Score against luck"' in page
    blob = page.split('id="report-data">')[1].split("</script>")[0]
    embedded = json.loads(blob)["analysis"]
    assert embedded == json.loads(json.dumps(analyse(data["heuristic"], threads=1).to_dict()))
    (row,) = embedded["rows"]
    assert sum(row["score_by_luck"]["games"]) == 80
    # without rollouts the loss is by the value: no second column repeating it
    headers = re.findall(r"<th[^>]*>(.*?)</th>", page)
    assert "loss per game (95% CI)" in headers and "by the value" not in headers
    # the largest mistakes, each with the command that shows every choice of it
    for m in embedded["mistakes"]:
        assert f">encore-sim analyse {data['heuristic']} --game {m['game']} --roll {m['roll']}</td>" in page


def _shown(text):
    """(rank, value, marks) of each choice line of a decision view, and the loss line's three numbers."""
    rows = [(int(m[1]), float(m[2]), m[3] or "") for m in
            re.finditer(r"^\s+(\d+)\s+(-?\d+\.\d\d)\s+\S.*?(?:<- (.*))?$", text, re.M)]
    loss = re.search(r"^  loss (-?\d+\.\d\d) = (-?\d+\.\d\d) - (-?\d+\.\d\d)", text, re.M)
    return rows, tuple(float(x) for x in loss.groups())


def test_the_decision_view_ranks_every_choice_and_its_loss_is_the_analysis_s(data, tmp_path):
    """`analyse D --game 3 --roll 5`: the choices ranked by value, the one played and learned's
    marked, the loss printed the difference of their values as shown; every decision's loss, from
    Python, is the one the analysis of the whole dataset gives that decision."""
    r = invoke("analyse", data["heuristic"], "--game", 3, "--roll", 5)
    assert r.exit_code == 0, r.output
    rows, (loss, best, made) = _shown(r.output)
    assert len(rows) >= 2 and [v for _, v, _ in rows] == sorted((v for _, v, _ in rows), reverse=True)
    played = [v for _, v, marks in rows if "played" in marks]
    mine = [v for _, v, marks in rows if "learned" in marks]
    assert len(played) == 1 and len(mine) == 1 and mine[0] == rows[0][1]
    assert (best, made) == (mine[0], played[0]) and loss == pytest.approx(best - made, abs=1e-9)
    out = tmp_path / "d.parquet"
    analyse(data["heuristic"], threads=1, games=4, decisions_out=out)
    t = pq.read_table(out).to_pandas().query("game == 3").set_index("roll")
    v = decisions(data["heuristic"], 3)
    assert [d["roll"] for d in v.decisions] == list(range(1, 31))
    for d in v.decisions:
        assert d["loss"] == pytest.approx(t.loc[d["roll"], "value_loss"], abs=1e-9)
        played = next(o for o in d["options"] if o["played"])
        assert " ".join(played["cells"]) == t.loc[d["roll"], "chosen_cells"]
        assert d["ranked"] >= min(len(d["options"]), 10) and d["legal_choices"] == t.loc[d["roll"], "choices"]
    j = json.loads(invoke("analyse", data["heuristic"], "--game", 3, "--roll", 5, "-f", "json").output)
    assert [o["value"] for o in j["decisions"][0]["options"]] == pytest.approx([v for _, v, _ in rows], abs=0.005)


def test_the_decision_view_rolls_out_as_the_analysis_does(data, tmp_path):
    out = tmp_path / "d.parquet"
    analyse(data["heuristic"], threads=1, games=4, rollouts=8, decisions_out=out)
    t = pq.read_table(out).to_pandas().query("game == 2 and loss != 0")
    worst = t.loc[t["value_loss"].idxmax()]
    (d,) = decisions(data["heuristic"], 2, roll=int(worst["roll"]), rollouts=8).decisions
    assert d["loss"] == pytest.approx(worst["loss"], abs=1e-9) and d["value_loss"] == pytest.approx(worst["value_loss"])
    assert all("rolled" in o for o in d["options"])


def test_the_decision_view_at_a_table_and_the_mistakes_that_link_to_it(data):
    a = analyse(data["table"], threads=1, mistakes=3)
    for m in a.mistakes:
        (d,) = decisions(data["table"], m["game"], roll=m["roll"], seat=m["seat"]).decisions
        assert d["strategy"] == m["strategy"] and d["loss"] == pytest.approx(m["loss"])
        link = f"every choice: encore-sim analyse {data['table']} --game {m['game']} --roll {m['roll']} --seat {m['seat']}"
        assert link in a.text()
    v = decisions(data["table"], 5, seat=1)
    assert v.decisions and {d["seat"] for d in v.decisions} == {1}


def test_the_decision_view_s_errors(data):
    for args, message in [(("--roll", 4), "--roll and --seat pick decisions of the game given by --game N"),
                          (("--game", 80), "game must be 0..79, got 80"),
                          (("--game", 3, "--roll", 31), "game 3 of"),
                          (("--game", 3, "--seat", 1), "seat must be 0..0, got 1"),
                          (("--game", 3, "-f", "parquet", "-o", "x.parquet"), "--game shows one game's decisions")]:
        r = invoke("analyse", data["heuristic"], *args)
        assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1 and message in r.output, r.output
