"""One settings object (sim.runs.settings): validated once, the same messages wherever the settings come
from, and the one rotation of the seats that the kernels play."""
import numpy as np
import pytest

from sim.runs.api import play_chunk
from sim.runs.settings import Settings, default_chunk_size
from sim.state import seat_slot


@pytest.mark.parametrize("kwargs, message", [
    (dict(strategies=["greedy"] * 7), "give 1..6 strategies"),
    (dict(strategies=["greedy", "random"], players=3), "2 strategies for 3 players"),
    (dict(players=0), "players must be 1..6"),
    (dict(games=0), "games must be"),
    (dict(seed=-1), "seed must be"),
    (dict(seed=2**64), "seed must be"),
    (dict(max_rolls=0), "max-rolls must be"),
    (dict(threads=0), "threads must be"),
    (dict(chunk_size=0), "chunk-size must be"),
    (dict(sheet="plaid"), "no sheet 'plaid'"),
])
def test_bad_settings_are_one_message(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Settings.of(**kwargs)


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
