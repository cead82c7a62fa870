"""Who plays each rule set and whether they adapt to it (strategies.adaptation; compare-rules'
Players block, warnings and adaptation check)."""
import ast
import json
from pathlib import Path

import numpy as np
import pytest

from sim.rules import RULEBOOK, parse_rules
from sim.sheets import load_sheet
from sim.runs.api import lineup, play_chunk
from sim.experiments.rulescompare import compare_rules
from sim.state import PS_PASSES, PS_SCORE, PS_WINNER
from strategies import adaptation, store
from strategies.learned import shipped_file
from strategies.registry import resolve
from sim.training.run import train_file
from invoking import invoke

ROOT = Path(__file__).resolve().parents[2]
VARIANT = "star-penalty=3"


@pytest.fixture
def variant_weights(tmp_path, monkeypatch):
    """A store holding (briefly trained) solo weights for VARIANT, warm from the rulebook's."""
    monkeypatch.setenv(store.ENV, str(tmp_path / "store"))
    shipped = Path(str(shipped_file(load_sheet("standard"))))
    return train_file(None, games=512, threads=1, rules=VARIANT, init=shipped, step=(0.1, 0.02))


def test_a_strategy_that_ignores_a_change_is_named():
    r = compare_rules("greedy", "pass-penalty=1", games=50, players=2)
    assert r.played_by == {"rulebook": ["greedy: hand-written; reads no rule's points"],
                           "pass-penalty=1": ["greedy: hand-written; reads no rule's points"]}
    assert r.warnings == ["Warning: greedy does not read pass-penalty: under pass-penalty=1 it decides as under "
                          "rulebook, so its figures are those of a player who ignores the change"]
    assert r.adaptation is not None and r.adaptation.empty     # no weights to swap: nothing measured
    # heuristic reads it; a rule every strategy sees ('!' marks) warns of nobody
    assert compare_rules("heuristic", "pass-penalty=1", games=20, players=2).warnings == []
    assert compare_rules("greedy", "jokers=6", games=20).warnings == []


def test_the_adaptation_check_plays_the_rulebooks_weights_under_the_variant(variant_weights):
    r = compare_rules("learned", VARIANT, games=300, seed=4)
    assert r.played_by["rulebook"] == ["learned: shipped weights for the rulebook, the solo game, 8,000,000 games"]
    mine = r.played_by[VARIANT][0]
    assert mine.startswith(f"learned: weights for {VARIANT}, the solo game, trained 20") and \
        "512 games from learned-standard.npz, yours" in mine and str(variant_weights) in mine
    a = r.adaptation
    score = a[(a["metric"] == "score") & (a["who"] == "all seats")].iloc[0]
    # the adapted side is B's own games; the other the rulebook's weights playing B's rules
    assert score["adapted"] == r.row("score")["mean_b"]
    line = lineup([adaptation.unadapted(resolve("learned"), RULEBOOK)], players=1, rules=VARIANT)
    chunk = play_chunk(4, 0, 300, line, players=1, rules=VARIANT)
    assert score["unadapted"] == pytest.approx(chunk.seats[:, 0, PS_SCORE].mean(), abs=1e-12)
    assert score["gain"] == pytest.approx(score["adapted"] - score["unadapted"], abs=1e-9)
    assert score["gain_ci_low"] <= score["gain"] <= score["gain_ci_high"]
    # the rulebook's weights under the rulebook are not compared with themselves
    assert set(a["rules_b"]) == {VARIANT}
    assert compare_rules("learned", VARIANT, games=50, check_adaptation=False).adaptation is None


def test_at_a_table_of_one_strategy_one_seat_in_turn_plays_the_rulebooks_weights():
    """Swapping every seat would measure another table; one seat in turn (seat -g mod 4 in game g)
    plays the rulebook's weights among the variant's players, set against that seat in B's games."""
    b = "pass-penalty=1"
    r = compare_rules("learned", b, players=4, games=120, seed=3)
    a = r.adaptation.set_index("metric")
    assert set(r.adaptation["who"]) == {"one seat"} and list(a.index) == ["score", "win_rate", "passes"]
    own = lineup(["learned"] * 4, players=4, rules=b)
    swapped = lineup([adaptation.unadapted(resolve("learned"), RULEBOOK)] + ["learned"] * 3, players=4, rules=b)
    seat = (-np.arange(120)) % 4
    theirs = play_chunk(3, 0, 120, swapped, players=4, rotate=True, rules=b).seats[np.arange(120), seat]
    mine = play_chunk(3, 0, 120, own, players=4, rules=b).seats[np.arange(120), seat]
    for metric, column in (("score", PS_SCORE), ("win_rate", PS_WINNER), ("passes", PS_PASSES)):
        assert a.loc[metric, "unadapted"] == pytest.approx(theirs[:, column].mean(), abs=1e-12)
        assert a.loc[metric, "adapted"] == pytest.approx(mine[:, column].mean(), abs=1e-12)
    # the whole table's rows of a line-up of several strategies: the weights player's own seats
    mixed = compare_rules(["learned", "greedy", "greedy", "greedy"], b, games=40, seed=3)
    assert set(mixed.adaptation["who"]) == {"learned"}


def test_a_weights_file_plays_the_rule_set_it_was_trained_for(variant_weights, tmp_path):
    spec = f"learned:weights={variant_weights}"
    r = compare_rules(spec, ["rulebook", VARIANT], games=200, seed=2, check_adaptation=False)
    assert r.played_by["rulebook"][0].startswith(f"{spec}: shipped weights for the rulebook")
    assert r.played_by[VARIANT][0].startswith(f"{spec}: weights for {VARIANT}") and \
        r.played_by[VARIANT][0].endswith(f"file {variant_weights}")
    plain = compare_rules("learned", ["rulebook", VARIANT], games=200, seed=2, check_adaptation=False)
    assert r.table[["mean_a", "mean_b", "diff"]].equals(plain.table[["mean_a", "mean_b", "diff"]])
    with pytest.raises(ValueError, match=rf"was trained under the rules {VARIANT}, which none of the rule sets"):
        compare_rules(spec, ["rulebook", "jokers=6"], games=20)
    # out of compare-rules, a file of other rules is refused, with advice that is not to train the rulebook's
    r = invoke("run", "-s", spec, "-n", 10, "-o", tmp_path / "ds", "-q")
    assert r.exit_code == 2 and "leave weights= out" in r.output and "train --rules rulebook" not in r.output


def test_the_command_prints_players_warnings_and_adaptation(variant_weights):
    r = invoke("compare-rules", VARIANT, "-s", "learned", "-n", 200, "-j", 1)
    assert r.exit_code == 0, r.output
    assert "Players:\n  rulebook: learned: shipped weights for the rulebook" in r.output
    assert f"Adaptation under {VARIANT}:" in r.output and "gain (95% CI)" in r.output
    # a table with weights shipped for the variant: learned beside greedy
    j = invoke("compare-rules", "pass-penalty=1", "-s", "learned", "-s", "greedy", "-s", "greedy", "-s", "greedy",
               "-n", 100, "-j", 1, "-f", "json")
    data = json.loads(j.output)
    assert set(data["played_by"]) == {"rulebook", "pass-penalty=1"} and len(data["played_by"]["pass-penalty=1"]) == 2
    assert data["played_by"]["pass-penalty=1"][0] == ("learned: shipped weights for pass-penalty=1, 4 players, "
                                                      "600,000 games")
    assert any("greedy does not read pass-penalty" in w for w in data["warnings"])
    rows = {(x["who"], x["metric"]) for x in data["adaptation"]}
    assert rows == {("learned", "score"), ("learned", "win_rate"), ("learned", "passes")}


def test_run_and_compare_under_a_variant_say_who_played(variant_weights, tmp_path):
    r = invoke("run", "-s", "learned", "--rules", VARIANT, "-n", 20, "-j", 1, "--out", tmp_path / "r")
    assert r.exit_code == 0, r.output
    block = r.output.split(f"Players under {VARIANT}:\n")[1].splitlines()
    assert block[0].startswith(f"  learned: weights for {VARIANT}, the solo game, trained ") and "yours" in block[0]
    c = invoke("compare", "greedy", "heuristic", "-p", 2, "--rules", "pass-penalty=1", "-n", 20, "-j", 1, "-q")
    assert c.exit_code == 0, c.output
    block = c.output.split("Players under pass-penalty=1:\n")[1].splitlines()
    assert block[0].startswith("  greedy: ") and block[1].startswith("  heuristic: ")
    assert block[2].startswith("Warning: greedy does not read pass-penalty") and len(block) == 3
    rulebook = invoke("compare", "greedy", "heuristic", "-p", 2, "-n", 20, "-j", 1, "-q")
    assert rulebook.exit_code == 0 and "Players under" not in rulebook.output


R_FIELDS = {"R_PASS_PENALTY": "pass_penalty", "R_STAR_PENALTY": "star_penalty", "R_END_COLOURS": "end_colours",
            "R_SOLO_ROLLS": "solo_rolls", "R_FREE_ROLLS": "free_rolls", "R_JOKERS": "jokers", "R_NUMBERS": "joker_six",
            "R_COLOUR_FIRST": "colour_bonus", "R_COLOUR_LATER": "colour_bonus", "col_first": "column_points",
            "col_later": "column_points"}


def _reads(*files) -> set[str]:
    """The Rules fields the code of `files` reads: the R_* indices of tab.rules and the column values."""
    names = set()
    for f in files:
        for node in ast.walk(ast.parse((ROOT / f).read_text())):
            if isinstance(node, ast.Name) and node.id in R_FIELDS:
                names.add(R_FIELDS[node.id])
            elif isinstance(node, ast.Attribute) and node.attr in R_FIELDS:
                names.add(R_FIELDS[node.attr])
    return names


@pytest.mark.parametrize("name, files", [
    ("heuristic", ["strategies/heuristic.py", "strategies/table_features.py"]),
    ("lookahead", ["strategies/lookahead.py", "strategies/heuristic.py", "strategies/table_features.py"]),
    ("greedy", ["sim/players.py"]),
    ("random", ["sim/players.py"]),
])
def test_declared_reads_are_what_the_code_reads(name, files):
    """A declaration the code does not bear out would name the wrong strategies in a warning."""
    declared = resolve(name).strategy.reads_rules
    assert declared | adaptation.SEEN >= _reads(*files)
    assert declared - adaptation.SEEN <= _reads(*files) - adaptation.SEEN


def test_changed_and_ignored():
    a, b = RULEBOOK, parse_rules("pass-penalty=1,jokers=6,end-colours=3")
    assert adaptation.changed(a, b) == ["pass_penalty", "end_colours", "jokers"]
    assert adaptation.ignored(resolve("greedy"), a, b) == ["pass-penalty", "end-colours"]
    assert adaptation.ignored(resolve("learned"), a, b) == []
    assert adaptation.ignored(resolve("heuristic"), a, b) == []


def test_the_games_weights_were_trained_on_and_the_note_when_they_differ(monkeypatch):
    from sim.experiments import rulescompare
    from sim.rules import parse_rules
    from sim.sheets import load_sheet
    from strategies.adaptation import trained_games
    from strategies.registry import resolve
    standard = load_sheet("standard")
    assert trained_games(resolve("learned"), standard, 4, parse_rules("pass-penalty=1")) == 600_000
    assert trained_games(resolve("greedy"), standard, 4, parse_rules("")) is None
    sides = rulescompare.sides_of(["rulebook", "pass-penalty=1"])
    assert rulescompare.training_note([resolve("learned")], sides, 4) == []        # both 600,000
    monkeypatch.setattr(rulescompare, "trained_games",
                        lambda r, sheet, players, rules: 400_000 if rules.text else 600_000)
    note = rulescompare.training_note([resolve("learned")], sides, 4)
    assert note == ["Note: learned's weights were trained on different numbers of games (rulebook: 600,000, "
                    "pass-penalty=1: 400,000): a side trained on fewer may play worse for that alone"]
