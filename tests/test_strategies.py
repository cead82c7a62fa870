"""Built-in strategies: legal play (checked by the independent checker), parameters, the
documented example, and the exactness of lookahead's incremental evaluation."""
import re
from pathlib import Path

import numpy as np
import pytest

from sim.runs import api as sim
from sim import engine, players, state
from sim.runs.api import play_chunk, player_kind
from sim.state import BB_ALIVE, BB_TOUCH, PS_SCORE, ST_ROLL, ST_SEAT, new_state
from sim.tables import MAX_NUMBER, N_GROUPS, build_tables, kernel_tables
from strategies import REGISTRY, resolve, strategy
from strategies import heuristic as H
from strategies import lookahead as L
from strategies.features import legal_count

try:  # works both with and without a tests/__init__.py
    from .checker import check_game_log
except ImportError:
    from checker import check_game_log

SEED = 20261201
BUILTINS = ["random", "greedy", "heuristic", "lookahead"]
SHEETS = ["standard", "red", "blue", "green", "orange", "yellow"]
DOC = Path(__file__).resolve().parents[1] / "docs" / "strategies.md"


def test_registry_has_the_builtins():
    for name in BUILTINS:
        assert name in REGISTRY
        assert REGISTRY[name].description


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_plays_only_legal_moves(name):
    # 40 solo games and 40 table games of 2..6 players per strategy, on every sheet,
    # other seats mixing the built-ins.
    for i in range(40):
        sheet = SHEETS[i % len(SHEETS)]
        log = sim.play_game(SEED, i, [name], sheet=sheet)
        check_game_log(log, sheet)
        players = 2 + i % 5
        lineup = [name] + [BUILTINS[(i + s) % len(BUILTINS)] for s in range(1, players)]
        log = sim.play_game(SEED, 1000 + i, lineup, sheet=sheet)
        check_game_log(log, sheet)


def test_param_override_changes_play_and_unknown_params_raise():
    base = play_chunk(SEED, 0, 200, ["heuristic"], players=1).seats[:, 0, PS_SCORE]
    same = play_chunk(SEED, 0, 200, ["heuristic:solo_joker=1.65"], players=1).seats[:, 0, PS_SCORE]
    other = play_chunk(SEED, 0, 200, ["heuristic:solo_joker=0,solo_col=0.2"], players=1).seats[:, 0, PS_SCORE]
    assert np.array_equal(base, same)          # 1.65 is the default
    assert not np.array_equal(base, other)
    assert resolve("heuristic:solo_joker=0").params[list(H.PARAMS).index("solo_joker")] == 0.0
    for spec in ("heuristic:nope=1", "lookahead:joker=1", "greedy:x=2"):
        with pytest.raises(ValueError, match="no parameter"):
            resolve(spec)
    assert resolve("heuristic:").spec == "heuristic"


def test_lookahead_shares_the_heuristic_parameters():
    assert list(L.PARAMS)[:len(H.PARAMS)] == list(H.PARAMS)
    assert list(L.PARAMS.values())[:len(H.PARAMS)] == list(H.PARAMS.values())


def test_lookahead_incremental_evaluation_is_exact():
    """group_best scores second moves incrementally; it must equal evaluate on the full sheet."""
    tab, ktab = build_tables("standard"), kernel_tables("standard")
    params = np.array(list(L.PARAMS.values()))
    st, ps, bb, _ = new_state()
    engine.reset(st, ps, bb, ktab, 1, 30)
    rng = np.random.default_rng(3)
    um = np.empty(H.UM_SIZE, np.uint64)
    H.sheet_masks(tab, um)

    def legal(bbx):
        return [k for k in range(len(tab.size))
                if (int(bbx[0, BB_ALIVE + k // 64]) & int(bbx[0, BB_TOUCH + k // 64])) >> (k % 64) & 1]

    for step in range(20):
        st[ST_ROLL], st[ST_SEAT] = step + 1, 0
        ctx = np.empty(H.CTX_SIZE)
        H.prepare(st, ps, bb, ktab, params, ctx, 1)
        moves = legal(bb)
        if not moves:
            break
        sub = moves[rng.integers(len(moves))]
        out = np.empty(N_GROUPS)
        base = L.group_best(bb, 0, ktab, ctx, um, sub, 5, out)
        ps2, bb2 = ps.copy(), bb.copy()
        engine.cross(ps2, bb2, ktab, 0, sub, 0, 1)
        assert base == pytest.approx(H.evaluate(ctx, um, bb2[0, 0], bb2[0, 1], legal_count(bb2, 0), 5))
        ref = np.full(N_GROUPS, L.NEG)
        for k in legal(bb2):
            ps3, bb3 = ps2.copy(), bb2.copy()
            engine.cross(ps3, bb3, ktab, 0, k, 0, 1)
            g = MAX_NUMBER * tab.colour[k] + tab.size[k] - 1
            ref[g] = max(ref[g], H.evaluate(ctx, um, bb3[0, 0], bb3[0, 1], legal_count(bb3, 0), 5))
        # Replies worse than passing (base) may be left at NEG: they never count.
        np.testing.assert_allclose(np.maximum(out, base), np.maximum(ref, base), rtol=0, atol=1e-9)
        engine.cross(ps, bb, ktab, 0, sub, 0, 1)


def test_documented_example_runs(tmp_path):
    """The guide's first example file in docs/strategies.md has no bit operation, loads as a user
    strategy and plays legal games."""
    text = DOC.read_text()
    code = re.search(r"<!-- docs-check: file rule_of_thumb.py -->\n```python\n(.*?)```", text, re.S).group(1)
    assert not re.search(r"<<|>>|[&|^~]|popcount|0x|\bBB_|\bCAND_|\bST_|\bPS_", code), code
    path = tmp_path / "rule_of_thumb.py"
    path.write_text(code)
    r = resolve(f"{path}:choose:near_h=3")
    assert list(r.params) == [3.0, 4.0, 5.0]
    log = sim.play_game(SEED, 0, [f"{path}:choose"])
    check_game_log(log, "standard")
    chunk = play_chunk(SEED, 0, 50, [f"{path}:choose", "greedy"], rotate=True)
    assert not chunk.games[:, engine.GR_ERROR].any()


@pytest.mark.parametrize("players", [1, 4])
def test_heuristic_fast_path_matches_full_scoring(players):
    """Without dice denial, heuristic scores each distinct placement once at its fewest jokers
    (best_placement); its best value must equal the best over every candidate scored in full."""
    ktab = kernel_tables("standard")
    params = np.array(list(H.PARAMS.values()))
    params[list(H.PARAMS).index("deny")] = 0.0
    chunk = play_chunk(SEED, 0, 6, ["heuristic"], players=players, log_turns=True)
    um = np.empty(H.UM_SIZE, np.uint64)
    H.sheet_masks(ktab, um)
    checked = 0
    for g in range(6):
        st, ps, bb, cands = new_state()
        engine.reset(st, ps, bb, ktab, players, 200)
        st[:] = 0
        st[0] = players
        dice = chunk.dice[chunk.dice_start[g]:chunk.dice_start[g + 1]]
        log = chunk.log[chunk.log_start[g]:chunk.log_start[g + 1]]
        for row in log:
            roll, seat, avail = int(row[engine.LOG_ROLL]), int(row[engine.LOG_SEAT]), int(row[engine.LOG_AVAIL])
            st[ST_ROLL], st[ST_SEAT] = roll, seat
            st[state.ST_AVAIL] = avail
            st[state.ST_IS_ACTIVE] = int(row[engine.LOG_ACTIVE])
            st[state.ST_DICE:state.ST_DICE + 6] = dice[roll - 1]
            n = engine.legal_choices(st, ps, bb, ktab, cands)
            if n:
                ctx = np.empty(H.CTX_SIZE)
                H.prepare(st, ps, bb, ktab, params, ctx, 0)
                values = np.empty(n + 1)
                H.score_candidates(st, ps, bb, cands, n, ktab, params, ctx, um, values)
                best_v, sub, cost = H.best_placement(st, ps, bb, ktab, params, ctx, um)
                assert best_v == pytest.approx(values.max(), abs=1e-9)
                checked += 1
            # Replay the logged move (immediately: the states need only be legal, not the exact game).
            if row[engine.LOG_SUB] >= 0:
                engine.cross(ps, bb, ktab, seat, int(row[engine.LOG_SUB]), int(row[engine.LOG_COST]), roll)
    assert checked > 50


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
