"""Every game's randomness derives from (root seed, game index) alone."""
import json
import os
import subprocess
import sys

import numba
import numpy as np
import pytest

from sim.runs import api as sim
from sim.runs.api import play_chunk
from sim.state import PS_SCORE

LINEUPS = [["greedy"], ["random", "greedy", "random"], ["greedy", "random", "greedy", "random", "greedy"]]


def _same_chunk(a, b):
    assert np.array_equal(a.games, b.games)
    assert np.array_equal(a.seats, b.seats)
    assert np.array_equal(a.slots, b.slots)


def _on_two_threads(specs, tmp_path):
    """(games, seats, slots) of the chunk played on two Numba threads. set_num_threads cannot go
    beyond the process's pool, NUMBA_NUM_THREADS (its cores by default): on a one-core machine a
    fresh process with a pool of two plays it (Numba runs two threads on one core)."""
    if numba.config.NUMBA_NUM_THREADS >= 2:
        numba.set_num_threads(2)
        chunk = play_chunk(11, 0, 300, specs, rotate=True)
        return chunk.games, chunk.seats, chunk.slots
    out = tmp_path / "two.npz"
    code = ("import numba, numpy as np; from sim.runs.api import play_chunk; numba.set_num_threads(2); "
            "assert numba.get_num_threads() == 2; "
            f"c = play_chunk(11, 0, 300, {specs!r}, rotate=True); "
            f"np.savez({str(out)!r}, games=c.games, seats=c.seats, slots=c.slots)")
    subprocess.run([sys.executable, "-c", code], env={**os.environ, "NUMBA_NUM_THREADS": "2"}, check=True)
    with np.load(out) as z:
        return z["games"], z["seats"], z["slots"]


@pytest.mark.parametrize("specs", LINEUPS)
def test_thread_count_does_not_change_games(specs, tmp_path):
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = play_chunk(11, 0, 300, specs, rotate=True)
        two = _on_two_threads(specs, tmp_path)
    finally:
        numba.set_num_threads(before)
    for a, b in zip((one.games, one.seats, one.slots), two):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("specs", LINEUPS)
def test_chunking_does_not_change_games(specs):
    whole = play_chunk(5, 100, 200, specs, rotate=True)
    parts = [play_chunk(5, 100 + a, b - a, specs, rotate=True) for a, b in ((0, 37), (37, 38), (38, 200))]
    assert np.array_equal(whole.games, np.concatenate([p.games for p in parts]))
    assert np.array_equal(whole.seats, np.concatenate([p.seats for p in parts]))


def test_game_log_equals_batch_row():
    chunk = play_chunk(3, 0, 20, ["greedy", "random"])
    for g in (0, 7, 19):
        log = sim.play_game(3, g, ["greedy", "random"])
        assert [r["score"] for r in log["result"]] == list(chunk.seats[g, :, PS_SCORE])
        assert len(log["rolls"]) == chunk.games[g, 0]


def test_same_log_in_a_fresh_process():
    code = "import json; from sim.runs.api import play_game; print(json.dumps(play_game(2026, 41, ['random', 'greedy', 'random'], sheet='blue')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == sim.play_game(2026, 41, ["random", "greedy", "random"], sheet="blue")


def test_different_games_and_seeds_differ():
    a = sim.play_game(1, 0, ["random", "random"])
    b = sim.play_game(1, 1, ["random", "random"])
    c = sim.play_game(2, 0, ["random", "random"])
    assert a["rolls"][0]["dice"] != b["rolls"][0]["dice"] or a["rolls"][1]["dice"] != b["rolls"][1]["dice"]
    assert a["rolls"] != c["rolls"]


def test_dice_do_not_depend_on_strategies():
    """Common random numbers: the same seed and game give the same dice to any players."""
    a = sim.play_game(9, 4, ["greedy"])
    b = sim.play_game(9, 4, ["random"])
    assert [r["dice"] for r in a["rolls"]] == [r["dice"] for r in b["rolls"]]
