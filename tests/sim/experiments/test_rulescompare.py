"""compare-rules: rule sets on the same dice, paired (sim.experiments.rulescompare, its report and command).

greedy reads no rule: under a variant that only scores differently it plays every game move for
move as under the rulebook, so what the variant changes is known exactly, game by game."""
import json

import numpy as np
import pandas as pd
import pytest

import encore_sim as es
from sim.runs.api import play_chunk
from sim.report.report import rules_report
from sim.experiments.rulescompare import GAME_METRICS, SEAT_METRICS, compare_rules, format_table, rule_sets
from sim.rules import RULEBOOK, parse_rules
from invoking import invoke

UNCHANGED = ("rolls", "capped", "jokers_used", "columns", "colours", "passes", "star_penalty", "column_points",
             "jokers_left", "boxes")
ALL = "all seats"


def _zero(row) -> bool:
    """A difference of exactly 0 in every game: its mean and both ends of its interval are 0."""
    return row["diff"] == 0 and row["diff_ci_low"] == 0 and row["diff_ci_high"] == 0 and not row["significant"]


@pytest.fixture(scope="module")
def penalty():
    return compare_rules("greedy", "pass-penalty=1", games=300, players=4, seed=11, threads=1)


@pytest.fixture(scope="module")
def mixed():
    """Two strategies at a table of 3 (one holds two seats), seats rotated, two rule sets B."""
    return compare_rules(["heuristic", "greedy", "greedy"], ["rulebook", "end-colours=3", "colour-bonus=6/2"],
                         games=240, seed=5)


def test_same_dice_a_variant_greedy_does_not_read_changes_only_what_it_scores(mixed):
    t = compare_rules("greedy", ["colour-bonus=7/1"], games=200, players=3, seed=2)
    for metric in UNCHANGED:
        assert _zero(t.row(metric)), metric
    score, colours = t.row("score"), t.row("colour_points")
    # every game's score difference is its colour points' difference: the same mean and interval
    assert score["diff"] == colours["diff"] and score["diff_ci_low"] == colours["diff_ci_low"]
    assert score["diff_ci_high"] == colours["diff_ci_high"] and score["diff"] != 0
    assert t.rules == [RULEBOOK, parse_rules("colour-bonus=7/1")]   # one rule set: against the rulebook


def test_pass_penalty_lowers_each_game_by_its_passes(penalty):
    score, passes = penalty.row("score"), penalty.row("passes")
    assert score["diff"] == -passes["mean_a"] == -passes["mean_b"] and score["diff"] < 0
    assert _zero(passes)
    for metric in UNCHANGED:
        assert _zero(penalty.row(metric)), metric
    for seat in range(4):
        row = penalty.row("score", f"seat {seat}")
        assert row["mean_b"] - row["mean_a"] == pytest.approx(row["diff"], abs=1e-12)
    # the interval is the t interval of the games' passes (their mean over the four seats)
    chunk = play_chunk(11, 0, 300, ["greedy"], players=4)
    per_game = chunk.to_pandas("players").groupby("game")["passes"].mean()
    assert score["diff_sd"] == pytest.approx(per_game.std(ddof=1), rel=1e-12)
    from scipy import stats
    half = stats.t.ppf(0.975, 299) * per_game.std(ddof=1) / np.sqrt(300)
    assert score["diff_ci_high"] - score["diff"] == pytest.approx(half, rel=1e-9)
    seats = chunk.to_pandas("players").groupby("seat")["passes"].mean()
    assert [-penalty.row("score", f"seat {s}")["diff"] for s in range(4)] == pytest.approx(list(seats), abs=1e-12)


def test_the_means_are_the_games_of_play_chunk_under_each_rule_set(mixed):
    """Every mean against the players and games tables of the same games, read with pandas."""
    for i, rules in enumerate(mixed.rules):
        chunk = play_chunk(5, 0, 240, ["heuristic", "greedy", "greedy"], rotate=True, rules=rules)
        p, g = chunk.to_pandas("players"), chunk.to_pandas("games")
        p["columns"] = p["columns_first"] + p["columns_later"]
        p["colours"] = p["colours_first"] + p["colours_later"]
        p["win_rate"] = p["winner"].astype(float)
        want = {("game", "rolls"): g["rolls"].mean(), ("game", "capped"): g["capped"].mean()}
        for m in SEAT_METRICS:
            if m.name != "win_rate":
                want[(ALL, m.name)] = p[m.name].mean()
            for who, rows in [*p.groupby("strategy"), *((f"seat {s}", r) for s, r in p.groupby("seat"))]:
                if who.startswith("seat") and m.name not in ("score", "win_rate"):
                    continue
                want[(who, m.name)] = rows[m.name].mean()
        for b in mixed.labels[1:]:
            t = mixed.table[mixed.table["rules_b"] == b]
            got = dict(zip(zip(t["who"], t["metric"]), t["mean_a" if i == 0 else "mean_b"]))
            if i and b != rules.label:
                continue
            assert set(got) == set(want)
            for key, value in want.items():
                assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-12), (rules.label, key)
    assert mixed.strategies == ["heuristic", "greedy", "greedy"] and mixed.settings["rotate"]


def test_end_colours_lengthens_a_table_s_games(mixed):
    rolls = mixed.row("rolls", rules="end-colours=3")
    assert rolls["diff_ci_low"] > 0 and rolls["significant"] and rolls["mean_b"] > rolls["mean_a"]
    assert mixed.row("colours", rules="end-colours=3")["diff_ci_low"] > 0
    lengths = mixed.hists
    assert sum(lengths["rulebook"]["rolls"].values()) == 240 == sum(lengths["end-colours=3"]["rolls"].values())
    assert sum(lengths["rulebook"]["score"].values()) == 240 * 3


def test_solo_rolls_and_the_solo_table(penalty):
    t = compare_rules("greedy", "solo-rolls=20", games=100, seed=4)
    assert t.players == 1
    rolls = t.row("rolls")
    assert (rolls["mean_a"], rolls["mean_b"], rolls["diff"], rolls["diff_ci_low"], rolls["diff_ci_high"]) == \
        (30, 20, -10, -10, -10)
    assert set(t.table["who"]) == {"game", ALL}   # no seats, no strategies: one of each
    assert "win_rate" not in set(t.table["metric"]) and "capped" not in set(t.table["metric"])
    assert len(t.table) == len(GAME_METRICS) - 1 + len(SEAT_METRICS) - 1
    # tables: the game's, every seat's means, then each seat's score and win rate
    assert list(penalty.table["who"].drop_duplicates()) == ["game", ALL] + [f"seat {s}" for s in range(4)]


def test_rule_sets_and_bad_input():
    assert rule_sets("pass-penalty=1") == [RULEBOOK, parse_rules("pass-penalty=1")]
    assert rule_sets(["joker-six", "rulebook"]) == [parse_rules("joker-six"), RULEBOOK]   # the first is A
    for bad, message in ((["rulebook"], "a rule set other than the rulebook"),
                         ("", "a rule set other than the rulebook"),
                         (["pass-penalty=1", "rulebook", " pass-penalty = 1"], "'pass-penalty=1' is given twice"),
                         (["rulebook", "pass-penalty"], "needs a value"),
                         (["rulebook", "penalty=1"], "unknown rule variant 'penalty'")):
        with pytest.raises(ValueError, match=message):
            rule_sets(bad)
    with pytest.raises(ValueError, match="games and until_ci exclude each other"):
        compare_rules("greedy", "pass-penalty=1", games=10, until_ci=1)
    with pytest.raises(ValueError, match="2 strategies for 3 players"):
        compare_rules(["greedy", "random"], "pass-penalty=1", games=10, players=3)


def test_until_ci_stops_as_compare_does():
    t = compare_rules("greedy", "star-penalty=3", until_ci=5.0, chunk_size=50, seed=1)
    assert t.games == 100 and t.stop["target_reached"] and t.stop["stopped_by"] == "until_ci"
    assert format_table(t).endswith("(widest {:.3g}).".format(t.stop["widest_half_width"]))
    t = compare_rules("greedy", "star-penalty=3", until_ci=0.001, max_games=60, seed=1)
    assert t.games == 60 and not t.stop["target_reached"]


def test_format_table(penalty):
    lines = format_table(penalty).splitlines()
    assert lines[0].startswith("300 games of seed 11 under each rule set, on the same dice (4 players, greedy in "
                               "every seat)")
    at = lines.index("A = rulebook, B = pass-penalty=1")
    assert lines[2:at - 1] == ["Players:", "  rulebook: greedy: hand-written; reads no rule's points",
                               "  pass-penalty=1: greedy: hand-written; reads no rule's points",
                               "Warning: greedy does not read pass-penalty: under pass-penalty=1 it decides as under "
                               "rulebook, so its figures are those of a player who ignores the change"]
    assert lines[at + 2].split() == ["who", "metric", "rulebook", "pass-penalty=1", "B", "-", "A", "(95%", "CI)",
                                     "significant"]
    score = next(line for line in lines if line.split()[:3] == ["all", "seats", "score"])
    s = penalty.row("score")
    assert score.split()[3:] == [f"{s['mean_a']:.2f}", f"{s['mean_b']:.2f}", f"{s['diff']:+.2f}",
                                 f"({s['diff_ci_low']:+.2f}..{s['diff_ci_high']:+.2f})", "yes"]
    win = next(line for line in lines if line.split()[:3] == ["seat", "0", "win"])
    assert win.split()[-1] in ("yes", "no") and win.split()[-2] == "pts" and "%" in win


# --- the command and the report -------------------------------------------------------------

def test_cli_table_json_csv(tmp_path, penalty):
    r = invoke("compare-rules", "pass-penalty=1", "-s", "greedy", "-p", 4, "-n", 300, "--seed", 11, "-j", 1)
    assert r.exit_code == 0, r.output
    assert r.stdout.rstrip("\n") == format_table(penalty) and r.stderr == ""   # no progress in a pipe
    r = invoke("compare-rules", "rulebook", "pass-penalty=1", "-p", 4, "-n", 300, "--seed", 11, "-f", "json")
    data = json.loads(r.stdout)
    assert data["rules"] == ["rulebook", "pass-penalty=1"] and data["games"] == 300 and data["stop"] is None
    pd.testing.assert_frame_equal(pd.DataFrame(data["rows"]), penalty.table, check_dtype=False)
    r = invoke("compare-rules", "pass-penalty=1", "-p", 4, "-n", 300, "--seed", 11, "-f", "csv")
    assert r.stdout.startswith("# Players under rulebook: greedy: hand-written")
    csv = pd.read_csv(pd.io.common.StringIO(r.stdout), comment="#")
    assert (csv.pop("part") == "rules").all()
    pd.testing.assert_frame_equal(csv, penalty.table, check_dtype=False)


@pytest.mark.parametrize("args, message", [
    (["foo=1"], "Invalid value for 'RULES...': unknown rule variant 'foo' (variants: joker-six, pass-penalty=N"),
    (["rulebook"], "compare-rules needs a rule set other than the rulebook"),
    (["pass-penalty=1", "pass-penalty=1"], "is given twice"),
    (["jokers=99"], "jokers must be 0..30, got 99"),
    (["pass-penalty=1", "-s", "heuristc"], "unknown strategy 'heuristc': did you mean heuristic?"),
    (["pass-penalty=1", "-n", 10, "--until-ci", 1], "--games and --until-ci exclude each other"),
    (["pass-penalty=1", "-p", 7], "players must be 1..6, got 7"),
    (["pass-penalty=1", "--report", "{tmp}/no/r.html"], "does not exist"),
])
def test_cli_bad_input_one_line_exit_2(tmp_path, args, message):
    r = invoke("compare-rules", *(str(a).format(tmp=tmp_path) for a in args))
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("Error: "), r.stderr
    assert message in r.stderr, r.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_report_draws_the_differences(tmp_path, mixed):
    from report_page import page, same
    r = rules_report(mixed, tmp_path / "r.html")
    assert r.figures == ["Paired differences", "Where the score changes", "Win rate by seat", "Game length",
                         "Score distribution"]
    text = r.html.read_text()
    for slug in ("rule-differences", "score-parts", "rule-seats", "rule-lengths", "scores"):
        assert f'<figure id="fig-{slug}"><img src="data:image/svg+xml;base64,' in text
    p = page(r.html)
    assert same(p.data["table"], mixed.table.to_dict(orient="records"))
    assert p.data["rules"] == ["rulebook", "end-colours=3", "colour-bonus=6/2"]
    # a section per rule set B, the rows format_table prints
    printed = format_table(mixed).splitlines()
    for b in ("end-colours=3", "colour-bonus=6/2"):
        assert f"<h2>A = rulebook, B = {b}</h2>" in text
    shown = [t for t in p.tables if t[0][:2] == ["who", "metric"]]
    assert len(shown) == 2
    start = printed.index("A = rulebook, B = end-colours=3") + 3
    assert [" ".join(row).split() for row in shown[0][1:]] == [line.split() for line in printed[start:start + len(shown[0]) - 1]]
    # solo, one rule set B: no seats figure; the game length only where it changes
    solo = compare_rules("greedy", "star-penalty=3", games=50)
    assert rules_report(solo, tmp_path / "s.html").figures == ["Paired differences", "Where the score changes",
                                                               "Score distribution"]
    pngs = rules_report(solo, tmp_path / "p.html", "png", tmp_path / "png").pngs
    assert [p.name for p in pngs] == ["01-rule-differences.png", "02-score-parts.png", "03-scores.png"]


def test_cli_report_and_the_notebook_function(tmp_path, penalty):
    r = invoke("compare-rules", "pass-penalty=1", "-p", 4, "-n", 300, "--seed", 11, "-f", "csv",
               "--report", tmp_path / "r.html")
    # stdout is the csv alone; the warning that greedy ignores the penalty goes to stderr
    assert r.exit_code == 0 and r.stderr == ("Warning: greedy does not read pass-penalty: under pass-penalty=1 it "
                                             "decides as under rulebook, so its figures are those of a player who "
                                             f"ignores the change\nReport: {tmp_path / 'r.html'}\n"), r.output
    assert "Win rate by seat" in (tmp_path / "r.html").read_text()
    df = es.compare_rules("pass-penalty=1", strategy="greedy", players=4, games=300, seed=11)
    pd.testing.assert_frame_equal(df, penalty.table)
    assert df.attrs["rules"] == ["rulebook", "pass-penalty=1"] and df.attrs["headline"].startswith("300 games")


def test_every_figure_renders_in_a_real_browser(chromium, mixed, tmp_path):
    from browser import FIGURES_JS, blank
    r = rules_report(mixed, tmp_path / "r.html")
    chromium.open(r.html.as_uri())
    assert chromium.errors() == []
    assert [u for u in chromium.requests() if not u.startswith("data:")] == [r.html.as_uri()]
    figures = chromium.evaluate(FIGURES_JS)
    assert len(figures) == len(r.figures)
    for f in figures:
        assert f["ok"] and f["shown"] > 100, f
        assert not blank(chromium.screenshot({k: f[k] for k in ("x", "y", "width", "height")})), f


def test_measures_of_each_rule_set_paired_on_the_same_games():
    from sim.runs.measures import aggregate, frame_of_chunk
    r = compare_rules("greedy", ["rulebook", "joker-six"], games=120, players=2, seed=9, measures=True,
                      skill=("random", "greedy"), check_adaptation=False)
    t = r.measures.set_index(["side", "metric", "who"])
    # the measures of joker-six's games are those of the same games played apart, paired against A's
    frames = {rules: frame_of_chunk(play_chunk(9, 0, 120, ["greedy"], players=2, rotate=True, log_turns=True,
                                               rules=rules)) for rules in ("rulebook", "joker-six")}
    alone = aggregate(frames).set_index(["side", "metric", "who"])
    for key in [("joker-six", "rolls", "game"), ("joker-six", "margin", "game"),
                ("joker-six", "active_gain", "game"), ("joker-six", "completed", "column F")]:
        assert t.loc[key, "diff"] == pytest.approx(alone.loc[key, "diff"]), key
    assert t.loc[("joker-six", "rolls", "game"), "diff"] == pytest.approx(r.row("rolls")["diff"])
    step = t.loc[("rulebook", "skill_step", "greedy>random")]
    assert step["ci_low"] > 0
    assert "drama" in r.not_measured["--trace"]
    text = format_table(r)
    assert "Measures (95% CI" in text and "Completion:" in text and "skill_step" in text


def test_measures_in_csv_and_json():
    args = ["compare-rules", "rulebook", "jokers=6", "-p", "2", "-n", "60", "--measures", "--no-check-adaptation"]
    csv = invoke(*args + ["-f", "csv"])
    assert csv.exit_code == 0, csv.output
    lines = [line for line in csv.stdout.splitlines() if not line.startswith("# Players under")]
    assert lines[0].startswith("side,metric,who,games,value,ci_low,ci_high,diff")
    assert any(line.startswith("jokers=6,score_sd,") for line in lines)
    out = invoke(*args + ["-f", "json"])
    data = json.loads(out.stdout)
    metrics = {row["metric"] for row in data["measures"]}
    assert {"score_sd", "margin", "ties", "rolls_sd", "rolls_q95", "seat_gap", "active_gain", "win_share"} <= metrics


def test_two_sheets_play_the_same_dice(tmp_path):
    from sim.sheets import load_sheet
    mine = tmp_path / "mine.txt"
    mine.write_text(load_sheet("red").text + "\n")
    r = compare_rules("greedy", ["rulebook", f"sheet={mine},joker-six"], games=60, players=2, seed=4,
                      check_adaptation=False, measures=True)
    assert r.labels == ["sheet=standard", "sheet=mine,joker-six"] and r.settings["sheets"] == ["standard", "mine"]
    chunks = [play_chunk(4, 0, 60, ["greedy"], players=2, rotate=True, log_turns=True, sheet=sheet, rules=rules)
              for sheet, rules in (("standard", None), (str(mine), "joker-six"))]
    # each side is its own sheet's games ...
    assert r.row("rolls")["mean_b"] == chunks[1].to_pandas("games")["rolls"].mean()
    assert r.row("score")["mean_a"] == chunks[0].to_pandas("players")["score"].mean()
    # ... on the same dice: every roll both games played was the same roll
    dice = [c.to_pandas("turns", ["game", "roll", "colour_dice", "number_dice"]).drop_duplicates(["game", "roll"])
            for c in chunks]
    both = dice[0].merge(dice[1], on=["game", "roll"])
    assert len(both) > 1000
    assert (both["number_dice_x"].map(list) == both["number_dice_y"].map(list)).all()
    assert (both["colour_dice_x"].map(list) == both["colour_dice_y"].map(list)).all()
    assert r.measures["side"].unique().tolist() == r.labels


def test_csv_and_json_say_who_played_and_whether_they_adapted():
    args = ["compare-rules", "rulebook", "pass-penalty=1", "-s", "learned", "-p", "4", "-n", "40"]
    r = invoke(*args, "-f", "csv")
    assert r.exit_code == 0, r.output
    comments = [line for line in r.stdout.splitlines() if line.startswith("#")]
    assert comments == ["# Players under rulebook: learned: shipped weights for the rulebook, 4 players, 600,000 games",
                        "# Players under pass-penalty=1: learned: shipped weights for pass-penalty=1, 4 players, "
                        "600,000 games"]
    csv = pd.read_csv(pd.io.common.StringIO(r.stdout), comment="#")
    adapted = csv[csv["part"] == "adaptation"]
    assert set(adapted["metric"]) == {"score", "win_rate", "passes"} and (adapted["who"] == "one seat").all()
    data = json.loads(invoke(*args, "-f", "json").stdout)
    assert data["played_by"]["pass-penalty=1"][0].startswith("learned: shipped weights for pass-penalty=1")
    assert {row["metric"] for row in data["adaptation"]} == {"score", "win_rate", "passes"}


def test_a_variant_that_cannot_act_says_so():
    r = compare_rules("greedy", "solo-rolls=25", games=20, players=4, check_adaptation=False)
    assert r.warnings == ["Notice: solo-rolls=25 cannot act in this game: it sets the solo game's rolls, and this is "
                          "a game of 4 players"]
    solo = compare_rules("greedy", "end-colours=1", games=20, check_adaptation=False)
    assert solo.warnings[0].startswith("Notice: end-colours=1 cannot act in this game: it ends a table's game")
    assert _zero(solo.row("score"))
