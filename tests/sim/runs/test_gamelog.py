"""A game as plain data (sim.runs.gamelog): the log of a played game agrees with its own result,
roll by roll and seat by seat, and its pieces read as the dataset's columns do."""
import numpy as np
import pytest

from sim.rules import RULEBOOK, parse_rules
from sim.runs.api import chunk_max_rolls, play_chunk
from sim.runs.gamelog import (
    colour_face, describe, game_log, game_result, log_rules, mask_cells, number_face, with_rules,
)
from sim.sheets import load_sheet
from sim.state import COLOUR_JOKER, MAX_SEATS, NUMBER_JOKER, PS_COLS, PS_COLS_FIRST, PS_JOKERS, PS_SCORE, PS_SIZE
from sim.tables import bit_of, to_words


@pytest.fixture(scope="module")
def played():
    sheet = load_sheet("standard")
    chunk = play_chunk(9, 4, 1, ["greedy", "random", "greedy"], sheet=sheet, log_turns=True)
    return chunk, game_log(chunk, sheet, chunk_max_rolls(200, 3, chunk.rules))


def test_each_roll_holds_every_seat_s_move_its_active_seat_first(played):
    chunk, log = played
    assert (log["seed"], log["game"], log["players"], log["strategies"]) == (9, 4, 3, ["greedy", "random", "greedy"])
    assert [r["roll"] for r in log["rolls"]] == list(range(1, len(log["rolls"]) + 1))
    for r in log["rolls"]:
        assert r["active"] == (r["roll"] - 1) % 3 and r["moves"][0]["seat"] == r["active"]
        assert sorted(m["seat"] for m in r["moves"]) == [0, 1, 2]
        assert len(r["dice"]["colour"]) == len(r["dice"]["number"]) == 3


def test_the_moves_add_up_to_the_result(played):
    chunk, log = played
    for s, result in enumerate(log["result"]):
        moves = [m for r in log["rolls"] for m in r["moves"] if m["seat"] == s]
        assert sum(len(m["cells"]) for m in moves) == result["boxes"]
        assert sum(m["jokers"] for m in moves) == result["jokers_used"]
        assert sum(m["pass"] for m in moves) == result["passes"]
        assert result["score"] == chunk.seats[0, s, PS_SCORE]
        assert all(m["number"] == len(m["cells"]) for m in moves if not m["pass"])
    assert set(log["winners"]) == {r["seat"] for r in log["result"] if r["winner"]}
    assert log["capped"] or log["ended_by"]


def test_a_rule_variant_is_named_after_max_rolls_and_read_back():
    log = {"seed": 1, "max_rolls": 200, "rolls": []}
    assert with_rules(log, RULEBOOK) is log and log_rules(log) == RULEBOOK
    variant = parse_rules("joker-six")
    named = with_rules(log, variant)
    assert list(named) == ["seed", "max_rolls", "rules", "rolls"] and log_rules(named) == variant


def test_faces_cells_and_choices_as_the_logs_name_them():
    assert [colour_face(f) for f in (0, 4, COLOUR_JOKER)] == ["green", "orange", "joker"]
    assert [number_face(f) for f in (1, 5, NUMBER_JOKER)] == [1, 5, "joker"]
    assert mask_cells(to_words([bit_of(7, 0), bit_of(14, 6), bit_of(0, 2)])) == ["A3", "H1", "O7"]
    assert describe({"pass": True}) == "pass"
    move = {"pass": False, "colour": "yellow", "number": 3, "cells": ["H7", "I6", "I7"], "jokers": 1}
    assert describe(move) == "yellow 3 -> H7 I6 I7 (1 ! spent)"
    assert describe({**move, "jokers": 0}) == "yellow 3 -> H7 I6 I7"


def test_a_seat_s_result_splits_first_and_later_completions():
    ps = np.zeros((MAX_SEATS, PS_SIZE), np.int64)
    ps[0, PS_COLS], ps[0, PS_COLS_FIRST], ps[0, PS_JOKERS] = 0b1011, 1, 5
    (r,) = game_result(ps, 1, jokers=8)
    assert (r["columns_first"], r["columns_later"], r["jokers_left"], r["jokers_used"]) == (1, 2, 5, 3)
    assert r["first_joker_roll"] is None
