"""The built-in strategies under rule variants (issue 46): each reads the rules it plays under
where they matter, `learned` plays weights trained for the run's rules (found by the rules its
weights file records) and says in one line how to train them where it has none, and the kit tells
a strategy the rules in force."""
import numpy as np
import pytest

from sim import engine
from sim.rng import game_key
from sim.rules import RULEBOOK, parse_rules
from sim.runs.api import play_chunk
from sim.sheets import load_sheet
from sim.state import CAND_COST, CAND_SUB, PASS, PS_JOKERS, PS_SCORE, ST_AVAIL, ST_IS_ACTIVE, ST_ROLL, ST_SEAT, new_state
from sim.tables import build_tables, kernel_tables
from strategies import heuristic as H
from strategies import kit
from strategies import learned as L

SHEET = load_sheet("standard")
PARAMS = np.array(list(H.PARAMS.values()))


def _solo_positions(rules, games, seed, pick=H.heuristic.fn):
    """(st, ps, bb, cands, n) before every decision of `games` solo games under `rules`, played by
    `pick` (heuristic); copies, so that each position outlives the game."""
    ktab = kernel_tables(SHEET, parse_rules(rules))
    rng = np.zeros(4, np.uint64)
    out = []
    for g in range(games):
        st, ps, bb, cands = new_state()
        engine.reset(st, ps, bb, ktab, 1, 0)
        st[ST_SEAT], st[ST_AVAIL], st[ST_IS_ACTIVE] = 0, engine.SOLO_DICE, 1
        key = np.uint64(game_key(np.uint64(seed), np.int64(g)))
        for roll in range(1, parse_rules(rules).solo_rolls + 1):
            engine.start_roll(st, key, roll, 1)
            n = engine.legal_choices(st, ps, bb, ktab, cands)
            out.append(tuple(a.copy() for a in (st, ps, bb, cands)) + (n,))
            i = pick(st, ps, bb, cands, n, ktab, PARAMS, rng)
            sub, cost = (-1, 0) if i == PASS else (int(cands[i, CAND_SUB]), int(cands[i, CAND_COST]))
            engine.solo_move(st, ps, bb, ktab, sub, cost, roll)
    return out


POSITIONS = _solo_positions("", 30, 4646)


def test_heuristic_values_a_pass_lower_by_the_pass_penalty_and_nothing_else():
    """Its value of passing drops by exactly the penalty, every other choice's stays; so it plays
    what it played under the rulebook wherever it did not pass, and passes less."""
    tabs = {p: kernel_tables(SHEET, parse_rules(f"pass-penalty={p}")) for p in (1, 100)}
    base_tab = kernel_tables(SHEET)
    um = np.empty(H.UM_SIZE, np.uint64)
    H.sheet_masks(base_tab, um)
    rng = np.zeros(4, np.uint64)
    flipped = passed = 0
    for st, ps, bb, cands, n in POSITIONS:
        if n == 0:
            continue
        values = {}
        for p, tab in ((0, base_tab), *tabs.items()):
            ctx = np.zeros(H.CTX_SIZE)
            H.prepare(st, ps, bb, tab, PARAMS, ctx, H.NOW)
            v = np.empty(n + 1)
            H.score_candidates(st, ps, bb, cands, n, tab, PARAMS, ctx, um, v)
            values[p] = v
        for p in tabs:
            assert np.array_equal(values[p][:n], values[0][:n])
            assert values[p][n] == pytest.approx(values[0][n] - p, abs=1e-9)
        rulebook = H.heuristic.fn(st, ps, bb, cands, n, base_tab, PARAMS, rng)
        one = H.heuristic.fn(st, ps, bb, cands, n, tabs[1], PARAMS, rng)
        dear = H.heuristic.fn(st, ps, bb, cands, n, tabs[100], PARAMS, rng)
        if rulebook != PASS:
            assert one == rulebook and dear == rulebook
        else:
            passed += 1
            flipped += one != PASS
            assert dear != PASS
    assert passed > 5 and flipped > 0, (passed, flipped)


def test_learned_rewards_a_pass_by_minus_the_pass_penalty():
    W = L.weights_array(SHEET)
    base_tab, tab = kernel_tables(SHEET), kernel_tables(SHEET, parse_rules("pass-penalty=2"))
    for st, ps, bb, cands, n in POSITIONS[::7]:
        rows = []
        for t in (base_tab, tab):
            scratch = L.new_scratch(t)
            m = L.rank_placements(W, 0, st, bb, 0, ps[0, PS_JOKERS], t, scratch)
            rows.append((scratch[3][:m].copy(), scratch[5][:m].copy(), scratch[6][:m].copy()))
        (subs0, rew0, q0), (subs1, rew1, q1) = rows
        assert np.array_equal(subs0, subs1) and subs0[0] == -1
        assert rew1[0] == -2.0 and q1[0] == pytest.approx(q0[0] - 2.0, abs=1e-9)
        assert np.array_equal(rew1[1:], rew0[1:]) and np.array_equal(q1[1:], q0[1:])


def test_under_solo_rolls_20_the_horizons_read_20():
    rules = parse_rules("solo-rolls=20")
    tab, base_tab = kernel_tables(SHEET, rules), kernel_tables(SHEET)
    assert kit.solo_rolls(tab) == 20
    W = L.weights_array(SHEET)
    positions = _solo_positions("solo-rolls=20", 2, 77)
    assert len(positions) == 40
    for st, ps, bb, cands, n in positions:
        roll = int(st[ST_ROLL])
        ctx = np.zeros(H.CTX_SIZE)
        H.prepare(st, ps, bb, tab, PARAMS, ctx, H.NOW)
        assert ctx[H.C_H] == 20 - roll                       # heuristic (and lookahead, which prepares alike)
        assert kit.solo_rolls_left(st) == 20 - roll
        assert kit.rolls_left_estimate(st, bb, tab) == 20 - roll
        # learned reads the weights row of 20 - roll rolls to come: the rulebook's at roll + 10.
        got = L.new_scratch(tab)
        m = L.rank_placements(W, 0, st, bb, 0, ps[0, PS_JOKERS], tab, got)
        st30 = st.copy()
        st30[ST_ROLL] = roll + 10
        want = L.new_scratch(base_tab)
        assert L.rank_placements(W, 0, st30, bb, 0, ps[0, PS_JOKERS], base_tab, want) == m
        assert np.array_equal(got[6][:m], want[6][:m])
    # A game longer than the weights' 30 rows values its early rolls by the last row (t = 29).
    st, ps, bb, cands, n = positions[0]
    long_tab = kernel_tables(SHEET, parse_rules("solo-rolls=45"))
    a, b = L.new_scratch(long_tab), L.new_scratch(base_tab)
    st1 = st.copy()
    st1[ST_ROLL] = 1
    m = L.rank_placements(W, 0, st, bb, 0, ps[0, PS_JOKERS], long_tab, a)
    assert L.rank_placements(W, 0, st1, bb, 0, ps[0, PS_JOKERS], base_tab, b) == m
    assert np.array_equal(a[6][:m], b[6][:m])
    assert play_chunk(3, 0, 20, ["heuristic"], players=1, rules=rules).games.shape[0] == 20


def test_the_kit_tells_the_rules_in_force_and_scores_by_them():
    rules = parse_rules("joker-six,pass-penalty=2,star-penalty=3,end-colours=4,solo-rolls=25,free-rolls=5,jokers=11,"
                        "colour-bonus=8/4")
    tab = kernel_tables(SHEET, rules)
    assert (kit.pass_penalty(tab), kit.star_penalty(tab), kit.solo_rolls(tab), kit.free_rolls(tab),
            kit.start_jokers(tab), kit.end_colours(tab), kit.colour_bonus(tab), kit.max_number(tab)) == \
        (2, 3, 25, 5, 11, 4, (8, 4), 6)
    base = kernel_tables(SHEET)
    assert (kit.pass_penalty(base), kit.star_penalty(base), kit.solo_rolls(base), kit.start_jokers(base),
            kit.colour_bonus(base), kit.max_number(base)) == (0, 2, 30, 8, (5, 3), 5)
    st, ps, bb, cands = new_state()
    engine.reset(st, ps, bb, tab, 1, 0)
    assert kit.colour_points(st, kit.RED, tab) == 8 and kit.colour_points(st, kit.RED) == 5
    assert kit.jokers_left(ps, 0) == 11
    # score_now is the engine's score under the rules' penalties, at the end of heuristic's games.
    key_rules = "pass-penalty=2,star-penalty=3"
    tab = kernel_tables(SHEET, parse_rules(key_rules))
    for st, ps, bb, cands, n in _solo_positions(key_rules, 3, 5)[29::30]:
        ps, bb = ps.copy(), bb.copy()
        i = H.heuristic.fn(st, ps, bb, cands, n, tab, PARAMS, np.zeros(4, np.uint64))
        if i == PASS:
            engine.solo_move(st, ps, bb, tab, -1, 0, 30)
        else:
            engine.solo_move(st, ps, bb, tab, int(cands[i, CAND_SUB]), int(cands[i, CAND_COST]), 30)
        now = kit.score_now(ps, bb, tab, 0)
        engine.end_of_game(ps, bb, tab, 1)
        assert now == ps[0, PS_SCORE]


def test_learned_without_weights_for_the_rules_says_how_to_train_them():
    for players, rules in ((1, "star-penalty=3"), (3, "pass-penalty=4")):
        with pytest.raises(L.WeightsError) as e:
            play_chunk(0, 0, 2, ["learned"] * players, players=players, rules=rules)
        text = str(e.value)
        command = f"encore-sim train --rules {rules}" + ("" if players == 1 else f" --players {players}")
        assert "\n" not in text and f"train them with `{command}`" in text, text
    # What the solo game does not depend on, it does not need weights of its own for.
    assert L.weights_rules("end-colours=3,free-rolls=5,star-penalty=3", 1) == parse_rules("star-penalty=3")
    assert L.weights_rules("solo-rolls=20", 4) == RULEBOOK
    assert L.shipped_name("standard", 1, "end-colours=3") == "learned-standard.npz"
    assert L.shipped_name("standard", 4, "pass-penalty=1,solo-rolls=12") == "learned-standard-4p-pass-penalty-1.npz"
    assert play_chunk(0, 0, 5, ["learned"], players=1, rules="end-colours=3").games.shape[0] == 5


def test_weights_recorded_with_rules_are_matched(tmp_path):
    W = L.read_weights(L.shipped_file(SHEET), SHEET, 1)
    mine = tmp_path / "w.npz"
    L.save_weights(mine, W, SHEET, 0, 0, 1, rules="star-penalty=3,end-colours=3")
    assert str(np.load(mine)["rules"]) == "star-penalty=3"          # what the solo game depends on
    assert L.weights_array(SHEET, mine, 1, "star-penalty=3").size == W.size
    chunk = play_chunk(0, 0, 5, [f"learned:weights={mine}"], players=1, rules="star-penalty=3")
    assert chunk.games.shape[0] == 5
    with pytest.raises(L.WeightsError, match="trained under the rules star-penalty=3, not under rulebook"):
        play_chunk(0, 0, 5, [f"learned:weights={mine}"], players=1)
    with pytest.raises(L.WeightsError, match="trained under the rules rulebook, not under pass-penalty=1: play it "
                                             "under its own rules, or leave weights= out"):
        L.weights_array(SHEET, L.shipped_file(SHEET), 1, "pass-penalty=1")


def test_training_under_joker_six_records_its_rules_and_its_weights_play_them(tmp_path):
    from sim.training.run import train_file
    out = tmp_path / "six.npz"
    train_file(out, games=1024, threads=1, rules="joker-six")
    assert str(np.load(out)["rules"]) == "joker-six"
    chunk = play_chunk(0, 0, 30, [f"learned:weights={out}"], players=1, rules="joker-six", log_turns=True)
    assert np.isfinite(chunk.seats[:, 0, PS_SCORE]).all()
    with pytest.raises(L.WeightsError, match="joker-six"):
        play_chunk(0, 0, 2, [f"learned:weights={out}"], players=1)


def test_learned_features_stay_in_their_tables_under_the_variants():
    # 6-box placements (joker-six) may span six columns: the layout keeps every box of each.
    tab = kernel_tables(SHEET, parse_rules("joker-six"))
    lay = L.sheet_layout(tab)
    six = 0
    py = build_tables(SHEET, parse_rules("joker-six"))
    for sub in range(len(py.size)):
        p = int(lay[L.LAY_PCOL + sub])
        n_cols, boxes = (p >> L.P_NCOLS) & 7, p >> L.P_COLBOXES
        assert sum(bin((boxes >> (7 * j)) & 0x7F).count("1") for j in range(n_cols)) == py.size[sub]
        six += py.size[sub] == 6
    assert six > 0
    # More '!' than the weights' 9 entries (jokers=N > 8) read the last entry, never the next row's.
    assert L.joker_entry(12) == L.joker_entry(8) == L.F_JOKER + 8 and L.joker_entry(3) == L.F_JOKER + 3


def test_the_bound_searches_the_rules_solo_game(tmp_path):
    """encore-sim bound's entry point takes the rules: the clairvoyant lines and learned's games are
    of the rules' length, with learned's weights for them."""
    from sim.research.headroom import measure
    short = tmp_path / "short.npz"
    L.save_weights(short, L.read_weights(L.shipped_file(SHEET), SHEET, 1), SHEET, 0, 0, 1, rules="solo-rolls=20")
    h = measure(games=3, beam=8, weights=short, threads=1, rules="solo-rolls=20")
    assert h.lines.shape == (3, 20, 2) and h.rules == "solo-rolls=20"
    assert "bound (all 20 rolls known)" in h.report() and "rules solo-rolls=20" in h.report()
    with pytest.raises(L.WeightsError, match="solo-rolls=20"):
        measure(games=1, beam=2, weights=short, threads=1)
