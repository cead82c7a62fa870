"""The heuristic scores placements incrementally (set_base + delta, dice denial from group
masks); every value must equal the plain definition: the whole-sheet evaluate of the sheet
after the move, the end-of-game bonus and the dice denial computed the slow, obvious way.

Positions are every decision of logged games (solo and tables of 2-6 players, all sheets,
mixed lineups), replayed with the engine; awards taken are drawn at random so that races
and later values are exercised too.
"""
import numpy as np
import pytest

from sim import engine, state
from sim.runs.api import play_chunk
from sim.state import (
    BB_ALIVE, BB_TOUCH, CAND_CDIE, CAND_COST, CAND_NDIE, CAND_SUB, COLOUR_JOKER, NUMBER_JOKER, PS_JOKERS,
    ST_AVAIL, ST_COLOURS_TAKEN, ST_COLS_TAKEN, ST_DICE, ST_IS_ACTIVE, ST_PLAYERS, ST_ROLL, ST_SEAT, new_state,
)
from sim.tables import MAX_NUMBER, N_GROUPS, build_tables, kernel_tables
from strategies import heuristic as H
from strategies import lookahead as L
from strategies.features import legal_count

SEED = 4242
#: The games the fast path's check replays.
FAST_PATH_SEED = 20261201
SHEETS = ["standard", "red", "blue", "green", "orange", "yellow"]
LINEUPS = ["heuristic", "greedy", "random", "lookahead"]
RTOL = 1e-9


def popcount(x):
    return bin(int(x)).count("1")


def legal_rows(bb, seat, n_rows):
    return [k for k in range(n_rows)
            if (int(bb[seat, BB_ALIVE + k // 64]) & int(bb[seat, BB_TOUCH + k // 64])) >> (k % 64) & 1]


def colours_done(tab, lo, hi):
    return sum((int(lo) & int(m0)) == int(m0) and (int(hi) & int(m1)) == int(m1) for m0, m1 in tab.colour_mask)


def reference_weights(st, bb, tab, params, ahead):
    """The weights prepare must produce, straight from the rules of docs/builtins.md."""
    players, seat = int(st[ST_PLAYERS]), int(st[ST_SEAT])
    solo = players == 1
    o = 0 if solo else H.N_WEIGHTS

    def missing_colour(s, k):
        return (popcount(tab.colour_mask[k, 0] & ~bb[s, 0]) + popcount(tab.colour_mask[k, 1] & ~bb[s, 1]))

    def missing_col(s, c):
        return 7 - popcount((int(bb[s, c // 8]) >> (8 * (c % 8))) & 0x7F)

    if solo:
        h = max(30 - int(st[ST_ROLL]), 0)
    else:
        h = params[H.X_HORIZON] * min(sum(sorted(missing_colour(s, k) for k in range(5))[:2]) for s in range(players))
    h = max(h - ahead, 0.0)
    k_col = params[o + H.W_COL_LAM] + params[o + H.W_COL_MU] / (h + 1)
    k_colour = params[o + H.W_COLOUR_LAM] + params[o + H.W_COLOUR_MU] / (h + 1)
    race = 1.0 if solo else params[H.X_RACE]
    colv, colourv = [], []
    for c in range(15):
        first, later = tab.col_first[c], tab.col_later[c]
        if solo:
            v = first
        elif int(st[ST_COLS_TAKEN]) >> c & 1:
            v = later
        elif any(missing_col(s, c) < missing_col(seat, c) for s in range(players) if s != seat):
            v = later + race * (first - later)
        else:
            v = first
        colv.append(params[o + H.W_COL] * v)
    for k in range(5):
        if solo:
            v = 5
        elif int(st[ST_COLOURS_TAKEN]) >> k & 1:
            v = 3
        elif any(missing_colour(s, k) < missing_colour(seat, k) for s in range(players) if s != seat):
            v = 3 + 2 * race
        else:
            v = 5
        colourv.append(params[o + H.W_COLOUR] * v)
    return {
        H.C_H: [h],
        H.C_COLV: colv,
        H.C_COLOURV: colourv,
        H.C_PCOL: [np.exp(-k_col * r) for r in range(8)],
        H.C_QDIST: [np.exp(-k_col * params[o + H.W_COL_DIST] * d) for d in range(15)],
        H.C_PCOLOUR: [np.exp(-k_colour * r) for r in range(22)],
        H.C_PPAIR: [np.exp(0.5 * k_col * params[o + H.W_PAIR] * j) for j in range(8)],
        H.C_STAR: [2 * min(params[o + H.W_STAR] + params[o + H.W_STAR_T] / (h + 1), 1.0)],
        H.C_JOKER: [params[o + H.W_JOKER] + params[o + H.W_JOKER_T] * h / 30],
        H.C_MOB: [params[o + H.W_MOB] * h / 30],
        H.C_COLBOX: [params[o + H.W_COLBOX] * tab.col_first[c] / 7 for c in range(15)],
    }


def reference_denial(st, ps, bb, tab, cd, nd):
    """Mean over opponents of the best (boxes + 2 stars - jokers) left to them, every legal
    placement of every die pair they may still use walked one by one."""
    players, seat, avail = int(st[ST_PLAYERS]), int(st[ST_SEAT]), int(st[ST_AVAIL])
    if cd >= 0:
        avail &= ~(1 << cd) & ~(1 << (3 + nd))
    total = 0.0
    for s in range(players):
        if s == seat:
            continue
        rows = legal_rows(bb, s, len(tab.size))
        top = 0.0
        for a in range(3):
            for b in range(3):
                if not (avail >> a & 1 and avail >> (3 + b) & 1):
                    continue
                cf, nf = int(st[ST_DICE + a]), int(st[ST_DICE + 3 + b])
                cost = (cf == COLOUR_JOKER) + (nf == NUMBER_JOKER)
                if cost > ps[s, PS_JOKERS]:
                    continue
                for k in rows:
                    if cf in (COLOUR_JOKER, tab.colour[k]) and nf in (NUMBER_JOKER, tab.size[k]):
                        top = max(top, tab.size[k] + 2.0 * tab.stars[k] - cost)
        total += top
    return total / (players - 1)


def reference_values(st, ps, bb, cands, n, tab, ktab, params, ctx, um):
    """values[i] of every candidate and values[n] of passing, each from a whole-sheet evaluate."""
    seat, players = int(st[ST_SEAT]), int(st[ST_PLAYERS])
    lo, hi = bb[seat, 0], bb[seat, 1]
    jokers = int(ps[seat, PS_JOKERS])
    deny = players > 1 and st[ST_IS_ACTIVE] == 1 and st[ST_ROLL] > 3 and params[H.X_DENY] != 0
    end = players > 1 and params[H.X_END] != 0 and colours_done(tab, lo, hi) < 2
    values = np.empty(n + 1)
    values[n] = H.evaluate(ctx, um, lo, hi, legal_count(bb, seat), jokers)
    if deny:
        values[n] -= params[H.X_DENY] * reference_denial(st, ps, bb, tab, -1, -1)
    terms = {"end": 0, "deny": 0, "joker": 0}
    for i in range(n):
        sub, cost = int(cands[i, CAND_SUB]), int(cands[i, CAND_COST])
        ps2, bb2 = ps.copy(), bb.copy()
        engine.cross(ps2, bb2, ktab, seat, sub, 0, int(st[ST_ROLL]))
        lo2, hi2 = bb2[seat, 0], bb2[seat, 1]
        v = H.evaluate(ctx, um, lo2, hi2, legal_count(bb2, seat), jokers - cost)
        if end and colours_done(tab, lo2, hi2) >= 2:
            v += H.end_bonus(st, ps, bb, ktab, params, lo2, hi2, jokers - cost)
            terms["end"] += 1
        if deny:
            v -= params[H.X_DENY] * reference_denial(st, ps, bb, tab, int(cands[i, CAND_CDIE]),
                                                     int(cands[i, CAND_NDIE]))
            terms["deny"] += 1
        terms["joker"] += cost > 0
        values[i] = v
    return values, terms


def positions(players, games, sheet, seed):
    """Every decision of `games` logged games: yields (st, ps, bb, cands, n) before each move."""
    lineup = [LINEUPS[(seed + s) % len(LINEUPS)] for s in range(players)]
    ktab = kernel_tables(sheet)
    chunk = play_chunk(seed, 0, games, lineup, players=players, sheet=sheet, rotate=players > 1, log_turns=True)
    rng = np.random.default_rng(seed)
    for g in range(games):
        st, ps, bb, cands = new_state()
        engine.reset(st, ps, bb, ktab, players, 200)
        dice = chunk.dice[chunk.dice_start[g]:chunk.dice_start[g + 1]]
        for row in chunk.log[chunk.log_start[g]:chunk.log_start[g + 1]]:
            roll, seat = int(row[engine.LOG_ROLL]), int(row[engine.LOG_SEAT])
            st[ST_ROLL], st[ST_SEAT], st[ST_AVAIL] = roll, seat, int(row[engine.LOG_AVAIL])
            st[ST_IS_ACTIVE] = int(row[engine.LOG_ACTIVE])
            st[ST_DICE:ST_DICE + 6] = dice[roll - 1]
            # Awards someone took earlier: random, so that later values are exercised.
            st[ST_COLS_TAKEN] = int(rng.integers(0, 1 << 15)) & int(rng.integers(0, 1 << 15))
            st[ST_COLOURS_TAKEN] = int(rng.integers(0, 32)) & int(rng.integers(0, 32))
            n = engine.legal_choices(st, ps, bb, ktab, cands)
            yield st, ps, bb, cands, n
            # Replay the logged move at once (positions need only be reachable, not the exact game).
            if row[engine.LOG_SUB] >= 0:
                engine.cross(ps, bb, ktab, seat, int(row[engine.LOG_SUB]), int(row[engine.LOG_COST]), roll)


def check_positions(players, games, sheet, seed, params):
    tab, ktab = build_tables(sheet), kernel_tables(sheet)
    um = np.empty(H.UM_SIZE, np.uint64)
    H.sheet_masks(ktab, um)
    choose = H.heuristic.fn
    rng = np.zeros(4, np.uint64)
    seen = {"end": 0, "deny": 0, "joker": 0, "decisions": 0}
    for st, ps, bb, cands, n in positions(players, games, sheet, seed):
        ctx = np.zeros(H.CTX_SIZE)
        H.prepare(st, ps, bb, ktab, params, ctx, 0)
        for at, want in reference_weights(st, bb, tab, params, 0).items():
            np.testing.assert_allclose(ctx[at:at + len(want)], want, rtol=1e-12)
        if n == 0:
            continue
        ref, terms = reference_values(st, ps, bb, cands, n, tab, ktab, params, ctx, um)
        for key in terms:
            seen[key] += terms[key]
        seen["decisions"] += 1
        values = np.empty(n + 1)
        H.score_candidates(st, ps, bb, cands, n, ktab, params, ctx, um, values)
        np.testing.assert_allclose(values, ref, rtol=RTOL, atol=RTOL)
        if not H.denial_applies(st, ktab, params):
            best_v, _, _ = H.best_placement(st, ps, bb, ktab, params, ctx, um)
            assert best_v == pytest.approx(ref.max(), rel=RTOL, abs=RTOL)
        # The strategy itself plays a choice of the best value (passing = index n).
        i = choose(st, ps, bb, cands, n, ktab, params, rng)
        assert ref[n if i < 0 else i] == pytest.approx(ref.max(), rel=RTOL, abs=RTOL)
    return seen


def heuristic_params(**overrides):
    params = np.array(list(H.PARAMS.values()))
    for k, v in overrides.items():
        params[list(H.PARAMS).index(k)] = v
    return params


def test_solo_values_match_the_definition():
    for i, sheet in enumerate(SHEETS):
        seen = check_positions(1, 3, sheet, SEED + i, heuristic_params())
        assert seen["decisions"] > 50 and seen["joker"] > 0, (sheet, seen)   # each sheet, not only the last


def test_solo_values_match_with_every_term_on():
    # The multiplayer defaults switch colour pairs off; turn every optional term on in solo too.
    params = heuristic_params(solo_colour_pair=1.3, solo_pair=1.5, solo_single=0.5, solo_mob=0.2)
    check_positions(1, 4, "standard", SEED + 10, params)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_table_values_match_the_definition(players):
    seen = {"end": 0, "deny": 0, "joker": 0, "decisions": 0}
    games = 2 if players <= 4 else 1     # a game of 5 or 6 seats already has 500-700 decisions to check
    for i, sheet in enumerate(SHEETS[:3]):
        params = heuristic_params(multi_colour_pair=0.8) if i == 1 else heuristic_params()
        got = check_positions(players, games, sheet, SEED + 100 * players + i, params)
        for key in seen:
            seen[key] += got[key]
    assert seen["decisions"] > 100 and seen["deny"] > 0 and seen["joker"] > 0
    assert seen["end"] > 0 or players > 4  # endings are common enough at small tables


def test_lookahead_second_moves_match_the_definition():
    """group_best scores every second move against the sheet after the first one."""
    tab, ktab = build_tables("standard"), kernel_tables("standard")
    params = np.array(list(L.PARAMS.values()))
    um = np.empty(H.UM_SIZE, np.uint64)
    H.sheet_masks(ktab, um)
    checked = 0
    for players in (1, 3):
        for st, ps, bb, cands, n in positions(players, 1, "standard", SEED + players):
            if n == 0 or st[ST_ROLL] % 3:
                continue
            seat = int(st[ST_SEAT])
            ctx = np.empty(H.CTX_SIZE)
            H.prepare(st, ps, bb, ktab, params, ctx, 1)
            sub = int(cands[st[ST_ROLL] % n, CAND_SUB])
            out = np.empty(N_GROUPS)
            base = L.group_best(bb, seat, ktab, ctx, um, sub, 3, out)
            ps2, bb2 = ps.copy(), bb.copy()
            engine.cross(ps2, bb2, ktab, seat, sub, 0, 1)
            assert base == pytest.approx(H.evaluate(ctx, um, bb2[seat, 0], bb2[seat, 1], legal_count(bb2, seat), 3),
                                         rel=RTOL)
            ref = np.full(N_GROUPS, L.NEG)
            for k in legal_rows(bb2, seat, len(tab.size)):
                ps3, bb3 = ps2.copy(), bb2.copy()
                engine.cross(ps3, bb3, ktab, seat, k, 0, 1)
                g = MAX_NUMBER * tab.colour[k] + tab.size[k] - 1
                ref[g] = max(ref[g], H.evaluate(ctx, um, bb3[seat, 0], bb3[seat, 1], legal_count(bb3, seat), 3))
            # Replies worse than passing may be left out (NEG): they never count.
            np.testing.assert_allclose(np.maximum(out, base), np.maximum(ref, base), rtol=RTOL, atol=RTOL)
            assert (out[ref > base + 1e-9] > L.NEG).all()
            checked += 1
    assert checked > 10


@pytest.mark.parametrize("players", [1, 4])
def test_heuristic_fast_path_matches_full_scoring(players):
    """Without dice denial, heuristic scores each distinct placement once at its fewest jokers
    (best_placement); its best value must equal the best over every candidate scored in full."""
    ktab = kernel_tables("standard")
    params = np.array(list(H.PARAMS.values()))
    params[list(H.PARAMS).index("deny")] = 0.0
    chunk = play_chunk(FAST_PATH_SEED, 0, 6, ["heuristic"], players=players, log_turns=True)
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
