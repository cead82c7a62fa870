"""The designer's measures (sim.runs.measures): each per-game value checked against the tables it
is read from, computed another way, and the aggregation's intervals and pairing."""
import numpy as np
import pandas as pd
import pytest

from sim.rules import parse_rules
from sim.runs.api import play_chunk
from sim.runs.measures import aggregate, dataset_frame, frame_of_chunk, missing, turn_measures
from sim.runs.runner import run
from sim.sheets import COLOURS, load_sheet
from invoking import invoke

TURNS = ["game", "roll", "seat", "active", "passed", "jokers", "cells"]


@pytest.fixture(scope="module")
def table():
    """A logged chunk of three-player tables under a variant that moves every part of the score."""
    return play_chunk(3, 0, 150, ["greedy", "random", "heuristic"], players=3, rotate=True, log_turns=True,
                      rules="pass-penalty=1,star-penalty=3,colour-bonus=6/2")


@pytest.fixture(scope="module")
def frame(table):
    return frame_of_chunk(table)


def test_the_points_of_every_decision_add_up_to_the_final_score(table):
    players = table.to_pandas("players")
    turns = table.to_arrow("turns", TURNS)
    rules, sheet = table.rules, table.sheet
    game = np.sort(players["game"].unique())
    _, points = turn_measures(turns, game, 3, sheet, rules)
    t = turns.select(["game", "seat"]).to_pandas().assign(points=points)
    summed = t.groupby(["game", "seat"])["points"].sum()
    empty = rules.jokers - rules.star_penalty * int(sheet.star.sum())    # an empty sheet's score
    final = players.set_index(["game", "seat"])["score"]
    assert (summed + empty).sort_index().to_numpy() == pytest.approx(final.sort_index().to_numpy())


def test_wins_margin_and_ties_from_the_players_table(table, frame):
    players = table.to_pandas("players")
    shares = frame[[f"win_share@seat {s}" for s in range(3)]].sum(axis=1)
    assert shares.to_numpy() == pytest.approx(np.ones(len(frame)))     # a tie's win is split
    winners = players.groupby("game")["winner"].sum().to_numpy()
    assert frame["ties"].to_numpy().tolist() == (winners > 1).astype(float).tolist()
    rates = frame[[f"win_rate@seat {s}" for s in range(3)]].sum(axis=1).to_numpy()
    assert rates.tolist() == winners.astype(float).tolist()            # a tie counts for each tied seat
    top2 = players.groupby("game")["score"].apply(lambda s: s.nlargest(2).diff().abs().iloc[-1]).to_numpy()
    assert frame["margin"].to_numpy() == pytest.approx(top2)


def test_completion_agrees_with_the_counts_of_the_players_table(table, frame):
    players = table.to_pandas("players").groupby("game").sum()
    colours = frame[[f"completed@{c}" for c in COLOURS]].sum(axis=1) * 3
    assert colours.to_numpy() == pytest.approx((players["colours_first"] + players["colours_later"]).to_numpy())
    columns = frame[[c for c in frame if c.startswith("completed@column")]].sum(axis=1) * 3
    assert columns.to_numpy() == pytest.approx((players["columns_first"] + players["columns_later"]).to_numpy())
    firsts = frame[[f"first@{c}" for c in COLOURS]].sum(axis=1).to_numpy()
    assert firsts == pytest.approx((colours.to_numpy() > 0).astype(float))    # a share of 1 where any


def test_active_gain_counted_from_the_turns(table, frame):
    t = table.to_pandas("turns", ["game", "roll", "active", "cells"])
    t = t[t["roll"] > table.rules.free_rolls].assign(boxes=t["cells"].map(len))
    by = t.groupby(["game", "roll", "active"])["boxes"].mean().unstack()
    expected = (by[True] - by[False]).groupby("game").mean()
    assert frame.set_index("game")["active_gain"].loc[expected.index].to_numpy() == pytest.approx(
        expected.to_numpy())


def test_aggregate_pairs_the_same_games(frame):
    same = aggregate({"A": frame, "B": frame.copy()})
    b = same[same["side"] == "B"]
    assert (b["diff"] == 0).all() and (b["diff_ci_low"] == 0).all() and (b["diff_ci_high"] == 0).all()
    assert not b["significant"].any()
    shifted = frame.assign(rolls=frame["rolls"] + 2)
    t = aggregate({"A": frame, "B": shifted}).set_index(["side", "metric"])
    assert t.loc[("B", "rolls"), "diff"] == 2 and t.loc[("B", "rolls"), "diff_ci_low"] == pytest.approx(2)
    assert t.loc[("B", "rolls_q50"), "diff"] == 2 and t.loc[("B", "rolls_sd"), "diff"] == pytest.approx(0)


def test_statistics_are_those_of_the_games(table, frame):
    players = table.to_pandas("players")
    t = aggregate(frame).set_index(["metric", "who"])
    assert t.loc[("score_sd", "all seats"), "value"] == pytest.approx(players["score"].std(ddof=0))
    assert t.loc[("rolls_sd", "game"), "value"] == pytest.approx(frame["rolls"].std())
    row = t.loc[("rolls_q95", "game")]
    assert row["ci_low"] <= row["value"] <= row["ci_high"]
    shares = [t.loc[("win_share", f"seat {s}"), "value"] for s in range(3)]
    assert t.loc[("seat_gap", "game"), "value"] == pytest.approx(max(shares) - min(shares))


def test_a_dataset_gives_the_frame_of_its_games(tmp_path):
    out = tmp_path / "ds"
    run(out, games=60, players=2, strategies=["greedy", "random"], rotate=True, seed=4, chunk_size=25,
        log_turns=True)
    chunk = play_chunk(4, 0, 60, ["greedy", "random"], players=2, rotate=True, log_turns=True)
    pd.testing.assert_frame_equal(dataset_frame(out), frame_of_chunk(chunk))
    plain = tmp_path / "plain"
    run(plain, games=30, players=2, strategies=["greedy"], seed=4)
    lacking = missing(dataset_frame(plain))
    assert "active_gain" in lacking["--log-turns"] and "drama" in lacking["--trace"]


def test_summary_shows_the_measures_in_every_format(tmp_path):
    import json
    out = tmp_path / "ds"
    run(out, games=40, players=2, strategies=["greedy"], seed=2, log_turns=True)
    text = invoke("summary", str(out), "--measures")
    assert text.exit_code == 0, text.output
    assert "score_sd" in text.stdout and "active_gain" in text.stdout and "Completion:" in text.stdout
    assert "Not measured for the dataset: lead_changes" in text.stdout     # no trace: it says so
    csv = invoke("summary", str(out), "--measures", "-f", "csv")
    rows = csv.stdout.splitlines()
    assert rows[0] == "metric,who,games,value,ci_low,ci_high" and any(r.startswith("seat_gap,game,40,") for r in rows)
    data = json.loads(invoke("summary", str(out), "--measures", "-f", "json").stdout)
    assert {"margin", "ties", "win_share", "completed"} <= {r["metric"] for r in data["measures"]}
    assert "--trace" in data["not_measured"] and "--log-turns" not in data["not_measured"]


def test_the_notebook_summary_carries_the_measures(tmp_path):
    import encore_sim as es
    out = tmp_path / "ds"
    run(out, games=30, players=3, strategies=["greedy"], seed=1)
    df = es.summary(out, measures=True)
    m = df.attrs["measures"].set_index(["metric", "who"])
    assert m.loc[("ties", "game"), "games"] == 30 and "--log-turns" in df.attrs["not_measured"]


def test_the_trace_measures_join_the_frame_when_the_dataset_has_a_trace(tmp_path, monkeypatch):
    """The interface with sim.runs.trace: has_trace(dataset) and trace_measures(dataset), a
    per-game frame keyed by game, whose columns are aggregated as any other."""
    import sys
    import types
    out = tmp_path / "ds"
    run(out, games=20, players=2, strategies=["greedy"], seed=3)
    fake = types.ModuleType("sim.runs.trace")
    fake.has_trace = lambda dataset: True
    fake.trace_measures = lambda dataset: pd.DataFrame({"game": np.arange(20), "lead_changes": np.arange(20) % 3,
                                                        "drama": np.full(20, 0.25)})
    monkeypatch.setitem(sys.modules, "sim.runs.trace", fake)
    import sim.runs
    monkeypatch.setattr(sim.runs, "trace", fake, raising=False)
    frame = dataset_frame(out)
    t = aggregate(frame).set_index("metric")
    assert t.loc["drama", "value"] == 0.25 and t.loc["lead_changes", "value"] == pytest.approx(19 / 20)
    assert "lead_changes" not in missing(frame)["--trace"] and "comebacks" in missing(frame)["--trace"]
