"""The game state's arrays (sim.state): their shapes, the seat rotation, and copies of a game.
Run as plain Python (the kernels inline these)."""
import numpy as np
import pytest

from sim.state import (
    BB_SIZE, CAND_SIZE, MAX_CANDS, MAX_SEATS, PS_SIZE, ST_DICE, ST_SIZE, copy_game, copy_into, new_state, seat_slot,
)

seat_slot, new_state, copy_game, copy_into = (f.py_func for f in (seat_slot, new_state, copy_game, copy_into))


@pytest.mark.parametrize("players", range(1, MAX_SEATS + 1))
def test_rotated_every_strategy_sits_in_every_seat_equally_often(players):
    games = 3 * players
    seen = np.zeros((players, players), int)
    for g in range(games):
        slots = [seat_slot(s, g, players, True) for s in range(players)]
        assert sorted(slots) == list(range(players))        # each game: one seat per strategy
        for s, slot in enumerate(slots):
            seen[s, slot] += 1
    assert (seen == 3).all()
    assert all(seat_slot(s, g, players, False) == s for s in range(players) for g in range(games))


def test_a_new_state_is_zeroed_arrays_of_the_documented_shapes():
    st, ps, bb, cands = new_state()
    assert [(a.shape, a.dtype) for a in (st, ps, bb, cands)] == [
        ((ST_SIZE,), np.int64), ((MAX_SEATS, PS_SIZE), np.int64), ((MAX_SEATS, BB_SIZE), np.uint64),
        ((MAX_CANDS, CAND_SIZE), np.int64)]
    assert not any(a.any() for a in (st, ps, bb))
    assert ST_DICE + 6 == ST_SIZE     # the dice are the table's last six fields


def test_a_copied_game_is_equal_and_apart():
    rng = np.random.default_rng(1)
    st, ps, bb, _ = new_state()
    st[:], ps[:] = rng.integers(0, 99, st.shape), rng.integers(0, 99, ps.shape)
    bb[:] = rng.integers(0, 2**63, bb.shape, dtype=np.uint64)
    to = new_state()[:3]
    copy_game(st, ps, bb, *to)
    assert all(np.array_equal(a, b) for a, b in zip((st, ps, bb), to))
    to[0][0] += 1
    assert st[0] != to[0][0]
    longer = np.full(ST_SIZE + 3, -1, np.int64)
    copy_into(st, longer)
    assert np.array_equal(longer[:ST_SIZE], st) and (longer[ST_SIZE:] == -1).all()
