"""One settings object (sim.runs.settings): validated once, the same messages wherever the settings come
from, and the one rotation of the seats that the kernels play."""
import re

import numba
import numpy as np
import pytest

from sim.runs.api import play_chunk
from sim.runs.settings import MAX_GAMES, MAX_ROLLOUTS, ROLL_CAP, Settings, default_chunk_size
from sim.state import seat_slot


@pytest.mark.parametrize("kwargs, message", [
    (dict(strategies=["greedy"] * 7), "give 1..6 strategies"),
    (dict(strategies=["greedy", "random"], players=3), "2 strategies for 3 players"),
    (dict(players=0), "players must be 1..6"),
    (dict(games=0), "games must be"),
    (dict(seed=-1), "seed must be"),
    (dict(seed=2**64), "seed must be"),
    (dict(max_rolls=0), "max_rolls must be"),
    (dict(threads=0), "threads must be"),
    (dict(chunk_size=0), "chunk_size must be"),
    (dict(sheet="plaid"), "no sheet 'plaid'"),
])
def test_bad_settings_are_one_message(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Settings.of(**kwargs)


def _entry_points():
    """Each API that validates its own arguments, as (call with one bad keyword, the message)."""
    from sim.experiments.tune import tune
    from sim.research import headroom, improvement
    from sim.training.run import train_file
    too_many_threads = numba.config.NUMBA_NUM_THREADS + 1
    return [
        (lambda: tune("heuristic", ["box=0..1"], budget=MAX_GAMES + 1), f"budget must be 1..{MAX_GAMES},"),
        (lambda: tune("heuristic", ["box=0..1"], max_rolls=ROLL_CAP + 1), f"max_rolls must be 1..{ROLL_CAP},"),
        (lambda: tune("heuristic", ["box=0..1"], validate_games=MAX_GAMES + 1),
         f"validate_games must be 0..{MAX_GAMES},"),
        (lambda: tune("heuristic", ["box=0..1"], threads=too_many_threads), "threads must be 1.."),
        (lambda: train_file("w.npz", games=MAX_GAMES + 1), f"games must be 1..{MAX_GAMES},"),
        (lambda: train_file("w.npz", threads=too_many_threads), "threads must be 1.."),
        (lambda: improvement.measure(rollouts=MAX_ROLLOUTS + 2), f"rollouts must be 2..{MAX_ROLLOUTS},"),
        (lambda: improvement.measure(threads=too_many_threads), "threads must be 1.."),
        (lambda: headroom.measure(threads=too_many_threads), "threads must be 1.."),
    ]


def test_every_command_checks_with_the_settings_bounds():
    """tune, train and the research commands check games, rolls, rollouts and threads against the
    bounds sim.runs.settings names, with its messages: one bound, wherever it is checked."""
    for call, message in _entry_points():
        with pytest.raises(ValueError, match=re.escape(message)):
            call()
    threads = numba.config.NUMBA_NUM_THREADS
    with pytest.raises(ValueError, match=re.escape(f"threads must be 1..{threads}, got {threads + 1}")):
        Settings.of(threads=threads + 1)


def test_defaults_and_what_is_stored():
    s = Settings.of(strategies="greedy")
    assert (s.players, s.seed, s.sheet.name, s.rotate, s.checked) == (1, 0, "standard", False, True)
    assert Settings.of(strategies=["greedy", "random"], rotate=True).rotate
    assert not Settings.of(strategies=["greedy"], players=4, rotate=True).rotate   # one strategy: nothing rotates
    assert Settings.of(seed=None).seed >= 0
    s = Settings.of(strategies=["greedy", "random"], games=10, seed=3, rotate=True,
                    chunk_size=default_chunk_size(2, False))
    manifest = {"settings": s.stored()}
    assert Settings.from_manifest(manifest, s.sheet) == s
    with pytest.raises(ValueError, match="the manifest's settings are unusable"):
        Settings.from_manifest({"settings": {"players": 2}}, s.sheet)


@pytest.mark.parametrize("rotate", [False, True])
def test_the_seats_are_those_the_kernels_play(rotate):
    """Settings.seats (replay), the chunk's slots (the datasets) and the kernels' own rotation are
    the one function sim.state.seat_slot."""
    specs = ["greedy", "random", "heuristic"]
    s = Settings.of(strategies=specs, rotate=rotate)
    chunk = play_chunk(1, 5, 7, specs, rotate=rotate, log_turns=True)
    for g in range(7):
        assert [specs[k] for k in chunk.slots[g]] == s.seats(5 + g)
        alone = play_chunk(1, 5 + g, 1, s.seats(5 + g))          # each seat's strategy, not rotated
        assert np.array_equal(alone.seats[0], chunk.seats[g])
    assert seat_slot.py_func(np.arange(3), 7, 3, True).tolist() == [1, 2, 0]
    assert seat_slot(2, 7, 3, True) == 0
