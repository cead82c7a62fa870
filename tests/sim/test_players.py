"""sim.players: random and greedy, which the game loop runs inline, play as when called; greedy_pick
and placed agree with legal_choices at every decision."""
import numpy as np
import pytest

from sim import engine, players, state
from sim.runs.api import play_chunk, player_kind
from sim.state import ST_ROLL, ST_SEAT, new_state
from sim.tables import build_tables, kernel_tables
from strategies import REGISTRY, strategy

SEED = 20261201
SHEETS = ["standard", "red", "blue", "green", "orange", "yellow"]


@pytest.mark.parametrize("name", ["random", "greedy"])
def test_inline_reference_players_play_as_when_called(name):
    """The game loop runs random and greedy inline (sim.players); the same function called
    through a function value on copies of the game, as any user strategy is, must play exactly
    the same games."""
    fn = REGISTRY[name].dispatcher
    called = strategy(fn.py_func, name=f"{name}-called")   # a new dispatcher: a user's, PLAYER_GUARDED
    assert player_kind(fn) != players.PLAYER_CALL and player_kind(called.fn) == players.PLAYER_GUARDED
    for n_players in (1, 3, 6):
        for lineup in ([name], ([name, "heuristic"] * 3)[:n_players]):
            via_call = [called if s == name else s for s in lineup]
            a = play_chunk(SEED, 7, 150, lineup, players=n_players, rotate=True, log_turns=True)
            b = play_chunk(SEED, 7, 150, via_call, players=n_players, rotate=True, log_turns=True)
            for field in ("games", "seats", "dice", "log"):
                assert np.array_equal(getattr(a, field), getattr(b, field)), (lineup, field)


def _replayed_decisions():
    """Every decision of random and heuristic games (1-4 players, 8 games per sheet, every sheet),
    replayed from their logs: (sheet, st, ps, bb, kernel tables, cands, n) with cands[:n] the legal
    choices. Moves are applied at once (the states need only be legal, not the exact game)."""
    for i, sheet in enumerate(SHEETS):
        ktab = kernel_tables(sheet)
        n_players = 1 + i % 4
        chunk = play_chunk(SEED, 50 * i, 8, (["random", "heuristic"] * 2)[:n_players], players=n_players,
                           sheet=sheet, log_turns=True, rotate=n_players > 1)
        for g in range(8):
            st, ps, bb, cands = new_state()
            engine.reset(st, ps, bb, ktab, n_players, 200)
            dice = chunk.dice[chunk.dice_start[g]:chunk.dice_start[g + 1]]
            for row in chunk.log[chunk.log_start[g]:chunk.log_start[g + 1]]:
                roll, seat = int(row[engine.LOG_ROLL]), int(row[engine.LOG_SEAT])
                st[ST_ROLL], st[ST_SEAT] = roll, seat
                st[state.ST_AVAIL] = int(row[engine.LOG_AVAIL])
                st[state.ST_DICE:state.ST_DICE + 6] = dice[roll - 1]
                n = engine.legal_choices(st, ps, bb, ktab, cands)
                yield sheet, st, ps, bb, ktab, cands, n
                if row[engine.LOG_SUB] >= 0:
                    engine.cross(ps, bb, ktab, seat, int(row[engine.LOG_SUB]), int(row[engine.LOG_COST]), roll)


def test_greedy_pick_matches_greedy_over_legal_choices():
    """greedy_pick (no candidate table) against legal_choices + greedy, at every decision of
    random and heuristic games on every sheet: the same count, index and move."""
    checked = 0
    for _, st, ps, bb, ktab, cands, n in _replayed_decisions():
        k = players.greedy(st, ps, bb, cands, n, ktab, np.zeros(1), np.zeros(4, np.uint64))
        move = (-1, -1, -1, 0) if k < 0 else tuple(int(x) for x in cands[k])
        assert players.greedy_pick(st, ps, bb, ktab) == (n, k) + move
        checked += 1
    assert checked > 1000


def test_a_named_placement_is_played_as_the_first_candidate_row_offering_it():
    """players.placed (PLAYER_PLACE: a strategy names its placement, the engine finds the dice)
    against legal_choices at every decision of random and heuristic games on every sheet: each
    (placement, '!') the candidates offer is played with the dice of the first row offering it;
    any other placement, any other '!' count and any out-of-range code is refused; -1 passes."""
    rng = np.random.default_rng(SEED)
    checked = refused = 0
    rows_of = {sheet: len(build_tables(sheet).size) for sheet in SHEETS}
    for sheet, st, ps, bb, ktab, cands, n in _replayed_decisions():
        first = {}
        for row in cands[:n]:
            cd, nd, sub, cost = (int(x) for x in row)
            first.setdefault((sub, cost), (cd, nd))
        for (sub, cost), (cd, nd) in first.items():
            assert players.placed(st, ps, bb, ktab, players.placement_code(sub, cost)) == (0, cd, nd, sub, cost)
            checked += 1
        assert players.placed(st, ps, bb, ktab, players.placement_code(-1, 0)) == (state.PASS, -1, -1, -1, 0)
        rows = rows_of[sheet]
        for sub, cost in zip(rng.integers(0, rows, 12), rng.integers(0, 4, 12)):
            if (int(sub), int(cost)) not in first:
                assert players.placed(st, ps, bb, ktab, players.placement_code(int(sub), int(cost)))[0] == -2
                refused += 1
        for code in (-2, 4 * rows, 4 * rows + 1, 2**40):
            assert players.placed(st, ps, bb, ktab, code)[0] == -2
    assert checked > 5000 and refused > 5000
