"""sim.experiments.compare: paired comparisons on common random numbers, for a number of games or until
every difference's confidence interval is narrow enough."""
import numpy as np
import pytest

from sim.experiments.compare import compare, format_table
from sim.runs.api import play_chunk
from sim.runs.summary import wilson
from invoking import invoke


def test_compare_win_intervals_stay_within_0_and_1():
    t = compare(["greedy", "heuristic"], players=6, games=7, seed=3, chunk_size=1).table
    for _, r in t.iterrows():
        wins = round(r["win_rate"] * 7)
        assert (r["win_ci_low"], r["win_ci_high"]) == pytest.approx(wilson(wins, 7))
    assert -1 <= t["win_diff_ci_low"][1] <= t["win_diff_ci_high"][1] <= 1


def test_compare_solo_greedy_beats_random():
    r = compare(["greedy", "random"], games=1500, seed=3).table
    assert r["significant"][1] and r["diff"][1] < -5
    assert r["diff"][1] == pytest.approx(r["mean"][1] - r["mean"][0])
    # the same candidate twice: identical dice and choices, zero difference
    same = compare(["greedy", "greedy"], games=300, seed=3).table
    assert same["diff"][1] == 0 and not same["significant"][1]


def test_compare_tables_and_until_ci():
    r = compare(["greedy", "random"], players=3, opponents="greedy", games=600, seed=1)
    t = r.table
    assert r.games == 600 and t["win_significant"][1] and t["win_diff"][1] < 0
    u = compare(["greedy", "random"], until_ci=2.0, max_games=20_000, chunk_size=100, seed=2)
    assert u.table["diff_ci_high"][1] - u.table["diff"][1] < 2.0 and u.games < 20_000
    assert u.stop["target_reached"] and u.stop["stopped_by"] == "until_ci"


def test_compare_against_a_mixed_table_plays_each_opponent_in_its_seat():
    """--opponents once per opponent seat: the candidate sits with those strategies in that order,
    the games a rotated run of the same four plays; once for all seats, copies; another count, refused."""
    from sim.runs.api import lineup
    from sim.experiments.compare import candidate_results
    mixed = compare(["heuristic", "greedy"], players=4, opponents=["greedy", "heuristic", "random"], games=80, seed=5)
    assert mixed.opponents == ["greedy", "heuristic", "random"]
    for i, c in enumerate(["heuristic", "greedy"]):
        scores, _ = candidate_results(lineup([c, "greedy", "heuristic", "random"], players=4), 5, 0, 80, 4,
                                      "standard")
        assert mixed.table["mean"][i] == pytest.approx(scores.mean())
    copies = compare(["heuristic", "greedy"], players=4, opponents=["random"], games=80, seed=5)
    assert copies.opponents == "random" and not copies.table["mean"].equals(mixed.table["mean"])
    r = invoke("compare", "heuristic", "greedy", "-p", "4", "-n", "80", "--seed", "5", "-q",
               "--opponents", "greedy", "--opponents", "heuristic", "--opponents", "random")
    assert r.exit_code == 0, r.output
    assert "rotated through the seats against greedy, heuristic, random;" in r.output.splitlines()[0]
    assert f"{mixed.table['mean'][0]:.2f}" in r.output
    r = invoke("compare", "heuristic", "greedy", "-p", "4", "-n", "80", "--opponents", "greedy",
               "--opponents", "random")
    assert r.exit_code == 2 and r.output == ("Error: 2 opponents for a table of 4: give one strategy for all 3 "
                                             "opponent seats, or one per seat (3)\n")


def test_compare_until_ci_schedule():
    """Batches sized by the predicted need stop near it; the games are those of a fixed-size
    run (game g is the same game in any batch); max_games that stops it first is reported."""
    u = compare(["greedy", "random"], until_ci=0.3, max_games=50_000, seed=4)
    h = u.table["diff_ci_high"][1] - u.table["diff"][1]
    assert h < 0.3 and 1000 < u.games < 5000 and u.stop["widest_half_width"] == pytest.approx(h)
    fixed = compare(["greedy", "random"], games=u.games, seed=4)
    for col in ("mean", "diff", "diff_ci_high"):
        np.testing.assert_allclose(u.table[col], fixed.table[col], rtol=1e-12, err_msg=col)
    assert compare(["greedy", "random"], until_ci=0.3, max_games=50_000, seed=4).table.equals(u.table)
    short = compare(["greedy", "random"], until_ci=0.3, max_games=1500, seed=4)
    assert short.games == 1500 and not short.stop["target_reached"]
    assert short.stop["games_needed"] > 1500 and short.stop["stopped_by"] == "max_games"
    with pytest.raises(ValueError, match="exclude each other"):
        compare(["greedy", "random"], games=100, until_ci=1.0)
    with pytest.raises(ValueError, match="needs it"):
        compare(["greedy", "random"], max_games=100)


def test_measures_of_each_candidates_games():
    from sim.runs.api import lineup
    from sim.runs.measures import aggregate, frame_of_chunk
    r = compare(["greedy", "heuristic"], players=2, games=80, seed=6, measures=True)
    t = r.measures.set_index(["side", "metric", "who"])
    line = lineup(["heuristic", "greedy"], players=2)
    alone = aggregate(frame_of_chunk(play_chunk(6, 0, 80, line, players=2, rotate=True, log_turns=True)))
    alone = alone.set_index(["metric", "who"])
    for key in [("margin", "game"), ("rolls_sd", "game"), ("active_gain", "game"), ("win_share", "seat 1")]:
        assert t.loc[("heuristic", *key), "value"] == pytest.approx(alone.loc[key, "value"]), key
    assert "Measures (95% CI" in format_table(r)


def test_the_command_line_gives_the_measures_in_csv_and_json():
    import json
    args = ["compare", "greedy", "random", "-p", "2", "-n", "30", "--measures"]
    csv = invoke(*args + ["-f", "csv"])
    assert csv.exit_code == 0, csv.output
    rows = csv.stdout.splitlines()
    assert rows[0].startswith("side,metric,who") and any(r.startswith("random,margin,game,30,") for r in rows)
    data = json.loads(invoke(*args + ["-f", "json"]).stdout)
    assert {"score_sd", "margin", "win_share", "active_gain"} <= {r["metric"] for r in data["measures"]}
    assert len(data["rows"]) == 2      # the comparison's own rows stay as they were
