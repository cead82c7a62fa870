"""`recorded` (strategies.recorded): a seat that plays a file's moves plays the game they were
taken from; a moves file that cannot be played is refused in one line."""
import json

import numpy as np
import pytest

from sim.rules import RULEBOOK
from sim.runs.api import chunk_max_rolls, play_chunk
from sim.runs.gamelog import game_log
from sim.sheets import load_sheet
from sim.state import PS_SCORE
from sim.tables import build_tables
from strategies.recorded import (
    FORMAT, VERSION, MovesError, moves_data, placement_row, placement_rows, player_of, read_moves, write_moves,
)

SHEET = load_sheet("standard")


def seat_moves(log, seat):
    keys = ("colour_die", "number_die", "cells", "jokers")
    return [{"pass": True} if m["pass"] else {k: m[k] for k in keys}
            for r in log["rolls"] for m in r["moves"] if m["seat"] == seat]


def test_a_recorded_seat_plays_the_game_its_moves_came_from(tmp_path):
    specs = ["heuristic", "random", "greedy"]
    chunk = play_chunk(21, 6, 1, specs, sheet=SHEET, log_turns=True)
    log = game_log(chunk, SHEET, chunk_max_rolls(200, 3, chunk.rules))
    write_moves(tmp_path / "moves.json", "ada", seat_moves(log, 0))
    assert player_of(tmp_path / "moves.json") == "ada"
    again = play_chunk(21, 6, 1, [f"recorded:moves={tmp_path / 'moves.json'}"] + specs[1:], sheet=SHEET, log_turns=True)
    assert np.array_equal(again.seats[0, :, PS_SCORE], chunk.seats[0, :, PS_SCORE])
    assert np.array_equal(again.log, chunk.log)


def test_moves_data_are_the_moves_placement_rows(tmp_path):
    rows = placement_rows(build_tables(SHEET))
    sub = placement_row(rows, ["H6", "H7"])
    moves = [{"pass": True}, {"colour_die": 1, "number_die": 2, "cells": ["H6", "H7"], "jokers": 1}]
    write_moves(tmp_path / "m.json", "you", moves)
    data = moves_data(SHEET, tmp_path / "m.json", 1, RULEBOOK)
    assert data.tolist() == [2, -1, -1, -1, 0, 1, 2, sub, 1]
    with pytest.raises(MovesError, match="H6 H5 is no placement of this sheet"):
        placement_row(rows, ["H6", "H5"], "where")
    with pytest.raises(MovesError, match="recorded:moves=FILE"):
        moves_data(SHEET, None, 1, RULEBOOK)


@pytest.mark.parametrize("content, message", [
    ("not json", "is not a moves file of `recorded` \\(JSONDecodeError"),
    ({"format": "other", "version": VERSION, "player": "x", "moves": []}, "is not a moves file of `recorded`"),
    ({"format": FORMAT, "version": VERSION, "player": " ", "moves": []}, "'player' must name the player"),
    ({"format": FORMAT, "version": VERSION, "player": "x", "moves": {}}, "'moves' must be a list"),
    ({"format": FORMAT, "version": VERSION, "player": "x", "moves": [3]}, "roll 1: a move is"),
    ({"format": FORMAT, "version": VERSION, "player": "x", "moves": [{"pass": True}, {"colour_die": 3}]},
     "roll 2: 'colour_die' must be an integer 0..2, got 3"),
    ({"format": FORMAT, "version": VERSION, "player": "x",
      "moves": [{"colour_die": 0, "number_die": 0, "jokers": 0, "cells": []}]}, "'cells' must list the boxes"),
])
def test_a_moves_file_that_cannot_be_played_is_refused_in_one_line(tmp_path, content, message):
    path = tmp_path / "m.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    with pytest.raises(MovesError, match=message) as e:
        read_moves(path)
    assert "\n" not in str(e.value) and player_of(path) is None


def test_a_missing_file_and_a_bad_move_written_leave_nothing(tmp_path):
    with pytest.raises(MovesError, match="does not exist"):
        read_moves(tmp_path / "none.json")
    with pytest.raises(MovesError, match="move of roll 1: 'jokers'"):
        write_moves(tmp_path / "m.json", "x", [{"colour_die": 0, "number_die": 0, "cells": ["H1"], "jokers": 5}])
    assert list(tmp_path.iterdir()) == []
