"""The trace: every seat's chances after every roll, replayed from the moves, and its measures."""
import numpy as np
import pandas as pd
import pytest

from sim.runs.api import play_chunk
from sim.runs.dataset import DatasetError, read_manifest
from sim.runs.replay import render
from sim.runs.runner import run
from sim.state import PS_SCORE, PS_WINNER
from sim.runs.trace import chunk_measures, game_trace, has_trace, measures_of, read_trace, trace_dataset, trace_measures


def _traced(tmp_path_factory, name, strategies, players, games, **kw):
    out = tmp_path_factory.mktemp(name) / "ds"
    run(out, games=games, players=players, strategies=strategies, seed=3, chunk_size=games // 2, **kw)
    trace_dataset(out, samples=4)
    return out


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    return _traced(tmp_path_factory, "mirror", ["learned"], 2, 200)


@pytest.fixture(scope="module")
def mismatch(tmp_path_factory):
    return _traced(tmp_path_factory, "mismatch", ["learned", "random"], 2, 200)


def test_the_trace_holds_every_seat_after_every_roll_and_ends_with_the_result(mirror):
    t = read_trace(mirror)
    games = pd.read_parquet(mirror / "games")
    players = pd.read_parquet(mirror / "players")
    assert len(t) == ((games["rolls"] + 1) * 2).sum()
    assert np.allclose(t.groupby(["game", "roll"])["win_prob"].sum(), 1, atol=1e-5)
    last = t.merge(games[["game", "rolls"]], on="game").query("roll == rolls").merge(players, on=["game", "seat"])
    assert (last["points"] == last["score"]).all() and np.allclose(last["expected_score"], last["score"])
    ties = last.groupby("game")["winner"].transform("sum")
    assert np.allclose(last["win_prob"], last["winner"] / ties)
    assert t.loc[t["roll"] == 0, "luck"].isna().all() and t.loc[t["roll"] > 0, "luck"].notna().all()
    assert read_manifest(mirror)["trace"]["games"] == 200


def test_a_game_traced_from_its_moves_alone_is_the_datasets(mirror):
    chunk = play_chunk(3, 7, 1, ["learned"], players=2, log_turns=True)
    rows = game_trace(3, 7, 2, chunk.log, scores=chunk.seats[0, :, PS_SCORE], winners=chunk.seats[0, :, PS_WINNER],
                      samples=4)
    stored = read_trace(mirror).query("game == 7").reset_index(drop=True)
    pd.testing.assert_frame_equal(rows, stored, check_dtype=False)
    # and a chunk's measures are those of the dataset's games
    chunk = play_chunk(3, 0, 100, ["learned"], players=2, log_turns=True)
    pd.testing.assert_frame_equal(chunk_measures(chunk, samples=4), trace_measures(mirror).iloc[:100])


def test_a_run_without_trace_has_none(table_ds):
    assert not has_trace(table_ds)
    with pytest.raises(DatasetError, match="run --trace"):
        read_trace(table_ds)


def test_learned_against_random_is_decided_earlier_with_fewer_lead_changes(mirror, mismatch):
    a, b = (trace_measures(ds).merge(pd.read_parquet(ds / "games")[["game", "rolls"]]) for ds in (mirror, mismatch))
    assert b["lead_changes"].mean() < a["lead_changes"].mean()
    assert (b["decided_roll"] / b["rolls"]).mean() < (a["decided_roll"] / a["rolls"]).mean()
    assert b["drama"].mean() < a["drama"].mean()
    assert set(a.columns) >= {"lead_changes", "drama", "decided_roll", "comebacks", "_luck_margin", "luck@seat 0",
                              "luck@seat 1", "luck_win@seat 0", "_win_margin"}


def test_measures_of_a_made_up_trace():
    # Seat 1 leads, falls to 20%, wins: two lead changes, drama 0.6, a comeback, decided at roll 4.
    win1 = [0.5, 0.6, 0.2, 0.7, 0.95, 1.0]
    t = pd.DataFrame({"game": 0, "roll": np.repeat(np.arange(6), 2), "seat": np.tile([0, 1], 6),
                      "points": np.tile([3, 5], 6), "win_prob": np.ravel([[1 - w, w] for w in win1]),
                      "luck": np.tile([1.0, 2.0], 6), "luck_win": 0.0})
    m = measures_of(t).iloc[0]
    assert m["lead_changes"] == 2 and m["drama"] == pytest.approx(0.6) and m["comebacks"] == 1
    assert m["decided_roll"] == 4 and m["_win_margin"] == 2 and m["_luck_margin"] == pytest.approx(6)


def test_solo_luck_is_analyses(tmp_path):
    from sim.research.analyse import analyse
    out = tmp_path / "solo"
    run(out, games=40, players=1, strategies=["heuristic"], seed=2, chunk_size=20)
    trace_dataset(out)
    mine = trace_measures(out)["luck@seat 0"].mean()
    # Equal but for the trace's float32 columns.
    assert mine == pytest.approx(analyse(out).rows[0]["luck_per_game"], abs=1e-5)


def test_replay_shows_the_chances_after_every_roll(mirror):
    from sim import commands
    r = commands.replay(mirror, game=5)
    text = render(r.log, r.sheet, trace=r.trace)
    assert text.count("\n  chances: seat 0 ") == len(r.log["rolls"])


def test_summary_gives_the_measures_with_intervals(mirror):
    from invoking import invoke

    from sim.runs.trace import trace_summary
    m = trace_measures(mirror)
    t = trace_summary(m).set_index(["metric", "who"])
    assert t.loc[("lead_changes", "game"), "value"] == pytest.approx(m["lead_changes"].mean())
    share = t.loc[("luck_share", "game")]
    assert share["value"] == pytest.approx(m["_luck_margin"].sum() / m["_win_margin"].sum())
    assert (t["ci_low"] < t["value"]).all() and (t["value"] < t["ci_high"]).all()
    assert {"seat 0", "seat 1"} <= set(t.loc["luck"].index)
    out = invoke("summary", str(mirror)).output
    assert "How the games unfolded" in out and "decided_roll" in out


def test_the_designers_measures_join_the_trace_and_take_the_luck_share_over_games(mirror):
    from sim.runs.measures import aggregate, dataset_frame, missing
    frame = dataset_frame(mirror)
    assert "--trace" not in missing(frame)
    t = aggregate(frame).set_index(["metric", "who"])
    m = trace_measures(mirror)
    assert t.loc[("luck_share", "game"), "value"] == pytest.approx(m["_luck_margin"].sum() / m["_win_margin"].sum())
    assert t.loc[("lead_changes", "game"), "value"] == pytest.approx(m["lead_changes"].mean())


def test_compare_rules_pairs_the_traces_measures():
    from sim import commands
    r = commands.compare_rules("rulebook", "end-colours=3", strategy="learned", players=4, games=40,
                               check_adaptation=False, trace=True)
    rows = r.measures.set_index(["side", "metric", "who"])
    for side in ("rulebook", "end-colours=3"):
        assert rows.loc[(side, "lead_changes", "game"), "games"] == 40
    assert "--trace" not in r.not_measured
    # longer games under end-colours=3 are decided later, game by game on the same dice
    assert rows.loc[("end-colours=3", "decided_roll", "game"), "diff"] > 0


def test_compare_pairs_the_traces_measures_and_learned_against_random_is_decided_sooner():
    """compare --trace: each candidate's games (seats rotated) traced and paired. learned against
    random is decided earlier, with fewer lead changes, than learned against learned."""
    from sim import commands
    from invoking import invoke
    r = commands.compare("learned", "random", players=2, opponents="learned", games=40, trace=True)
    rows = r.measures.set_index(["side", "metric", "who"])
    assert "--trace" not in r.not_measured and rows.loc[("learned", "lead_changes", "game"), "games"] == 40
    assert rows.loc[("random", "decided_roll", "game"), "diff"] < 0
    assert rows.loc[("random", "lead_changes", "game"), "diff"] < 0
    csv = invoke("compare", "learned", "random", "-p", "2", "--opponents", "learned", "-n", "40", "--trace",
                 "-f", "csv")
    assert csv.exit_code == 0 and any(line.startswith("random,decided_roll,game,40,") for line in csv.stdout.splitlines())


def test_run_with_trace_writes_it_after_the_games(tmp_path):
    from sim import commands
    said = []
    r = commands.run(tmp_path / "ds", games=30, players=3, strategy="learned", chunk_size=15, trace=True,
                     say=said.append)
    assert has_trace(r.out) and r.manifest["trace"]["games"] == 30 and read_manifest(r.out)["settings"]["trace"]
    assert any("Tracing" in line for line in said)
    assert len(read_trace(r.out)) == 3 * (pd.read_parquet(r.out / "games")["rolls"] + 1).sum()


def test_a_game_not_over_is_traced_to_its_last_whole_roll():
    # The play page's review of a game in progress: its moves so far, the roll being played left out.
    chunk = play_chunk(3, 7, 1, ["learned"], players=2, log_turns=True)
    rows = game_trace(3, 7, 2, chunk.log[:2 * 5 + 1])
    assert rows["roll"].max() == 5 and len(rows) == 2 * 6
    done = game_trace(3, 7, 2, chunk.log, scores=chunk.seats[0, :, PS_SCORE], winners=chunk.seats[0, :, PS_WINNER])
    pd.testing.assert_frame_equal(rows, done[done["roll"] <= 5].reset_index(drop=True))
