"""A game replayed and printed (sim.runs.replay): from its settings or its dataset, the same game
whose scores the dataset stores, drawn roll by roll in text sheets under its own rules."""
import re

import pytest

from sim.rules import RULEBOOK, parse_rules
from sim.runs.replay import check_stored, draw_sheet, from_dataset, game_of, legend, render, score_table
from sim.runs.runner import run
from sim.runs.settings import Settings
from sim.sheets import load_sheet, parse_cell


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("replay") / "ds"
    run(out, games=12, players=3, strategies=["greedy", "random", "greedy"], rotate=True, seed=8, chunk_size=6,
        rules="pass-penalty=1")
    return out


def test_a_dataset_s_game_is_replayed_with_the_scores_it_stores(dataset):
    log, sheet, stored = from_dataset(dataset, 7)
    assert sheet.name == "standard" and log["game"] == 7 and log["rules"] == "pass-penalty=1"
    assert [r["score"] for r in log["result"]] == [r["score"] for r in stored]
    assert check_stored(log, stored) is None and check_stored(log, None) is None
    s = Settings.of(strategies=["greedy", "random", "greedy"], seed=8, rotate=True, rules="pass-penalty=1")
    assert game_of(s, 7) == log
    # rotated: game 7's seats are the strategies moved on by 7 places
    assert log["strategies"] == s.seats(7) == ["random", "greedy", "greedy"]
    with pytest.raises(ValueError, match="game must be 0..11, got 12"):
        from_dataset(dataset, 12)


def test_scores_that_differ_from_the_stored_ones_are_named():
    log = {"result": [{"seat": 0, "score": 10}, {"seat": 1, "score": 3}]}
    assert check_stored(log, [{"seat": 0, "score": 10}, {"seat": 1, "score": 4}]) == (
        "replayed scores [(0, 10), (1, 3)] differ from the dataset's [(0, 10), (1, 4)]")


def test_a_sheet_is_drawn_with_its_crossed_boxes_and_the_rules_values():
    sheet = load_sheet("standard")
    crossed = {parse_cell("H1"), parse_cell("A7")}
    lines = draw_sheet(sheet, crossed)
    assert lines[0].split() == [*"ABCDEFG", "H<", *"IJKLMNO"]
    rows = lines[1:8]
    boxes = [re.findall(r".{4}", row[5:].ljust(60)) for row in rows]
    assert boxes[0][7].startswith("[") and boxes[6][0].startswith("[")
    assert sum(b.startswith("[") for row in boxes for b in row) == 2
    assert lines[8].split()[:2] == ["5/3", "3/2"]
    stars = sum(row.count("*") for row in rows)
    assert stars == int(sheet.star.sum())
    variant = parse_rules("star-penalty=3")
    assert "-3 unless crossed" in legend(variant) and "-2 unless crossed" in legend(RULEBOOK)


def test_a_rendered_game_shows_every_roll_and_the_final_scores(dataset):
    log, sheet, _ = from_dataset(dataset, 2)
    text = render(log, sheet)
    assert text.startswith("Game 2 of seed 8: 3 players, sheet standard, rules pass-penalty=1")
    assert [int(n) for n in re.findall(r"^Roll (\d+)", text, re.M)] == [r["roll"] for r in log["rolls"]]
    assert "pass penalty (1 per pass)" in text
    table = score_table(log["result"], log["strategies"], parse_rules("pass-penalty=1"))
    assert text.rstrip().endswith("\n".join("  " + line for line in table))
    assert len(render(log, sheet, every_roll=True)) > len(text)
