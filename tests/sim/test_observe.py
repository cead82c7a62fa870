"""sim/observe.py: the action encoding, the mask and the observation, against plain Python.

The reference reads sim.engine.legal_choices' candidate table: an action is legal when some
candidate places its row; its cost is the fewest '!' of those candidates, its dice the first
candidate's at that cost (legal_choices' order). Positions are drawn from real games played with
random choices, on every sheet, at 1..6 players, under the rulebook and joker-six, with the
deciding seat's '!' sometimes cut to 0..2 so that costs bind."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from sim import engine, observe
from sim.rules import parse_rules
from sim.runs.game import GameInProgress
from sim.state import (
    BB_CROSSED, CAND_CDIE, CAND_COST, CAND_NDIE, CAND_SUB, PS_COLOURS, PS_COLS, PS_JOKERS, ST_AVAIL,
    ST_COLOURS_TAKEN, ST_COLS_TAKEN, ST_DICE, ST_IS_ACTIVE, ST_ROLL, ST_SEAT,
)
from sim.step import SP_SEAT
from sim.tables import build_tables

SHEETS = ("standard", "blue", "green", "orange", "red", "yellow")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def position(seed, game, players, sheet, rules, steps, jokers):
    """A game with every seat decided here, after `steps` random choices, the deciding seat's '!' cut
    to `jokers` (None: as played); None if the game ended first."""
    g = GameInProgress(seed, game, [None] * players, sheet=sheet, rules=rules)
    rng = np.random.default_rng(seed * 7919 + game)
    for _ in range(steps):
        n = len(g.choices())
        if n == 0 and rng.random() < 0.5:
            break
        g.play(int(rng.integers(-1, n)))
        if g.over:
            return None
    if jokers is not None:
        g.ps[g.seat, PS_JOKERS] = min(jokers, g.ps[g.seat, PS_JOKERS])
        g._n = -1
    return g


def reference(g):
    """row -> (cost, colour die, number die) of the deciding seat's legal actions, from legal_choices."""
    out = {}
    for cd, nd, sub, cost in g.choices():
        if sub not in out or cost < out[sub][0]:
            out[int(sub)] = (int(cost), int(cd), int(nd))
    return out


def encoded(g):
    players = g.players
    tab = build_tables(g.sheet, g.rules)
    k = len(tab.size)
    obs = observe.new_obs(1, players, k)
    observe.observe_rows(g.st[None], g.ps[None], g.bb[None], g.sp[None, SP_SEAT], g.tab, tuple(obs.values()))
    return tab, k, {name: a[0] for name, a in obs.items()}


positions = hs.builds(
    position, seed=hs.integers(0, 2**20), game=hs.integers(0, 1000), players=hs.integers(1, 6),
    sheet=hs.sampled_from(SHEETS), rules=hs.sampled_from(["", "joker-six"]), steps=hs.integers(0, 120),
    jokers=hs.one_of(hs.none(), hs.integers(0, 2))).filter(lambda g: g is not None)


@SETTINGS
@given(positions)
def test_the_mask_is_legal_choices_placements_at_their_fewest_jokers_and_canonical_their_first_dice(g):
    tab, k, obs = encoded(g)
    ref = reference(g)
    mask, cost = obs["action_mask"], obs["action_cost"]
    assert mask[k] == 1 and cost[k] == 0
    assert set(np.flatnonzero(mask[:k]).tolist()) == set(ref)
    assert {a: int(cost[a]) for a in ref} == {a: c for a, (c, _, _) in ref.items()}
    assert not cost[:k][mask[:k] == 0].any()
    actions = np.arange(k + 1, dtype=np.int64)
    for a in actions:
        moves = np.zeros((1, 4), np.int64)
        bad = observe.canonical_rows(g.st[None], g.ps[None], g.bb[None], g.sp[None, SP_SEAT], g.tab,
                                     np.array([a]), moves)
        if a == k:
            assert bad == -1 and moves[0].tolist() == [observe.PASS_DIE, -1, -1, 0]
        elif a in ref:
            c, cd, nd = ref[a]
            assert bad == -1 and moves[0].tolist() == [cd, nd, a, c]
        else:
            assert bad == 0


@SETTINGS
@given(positions)
def test_the_observation_is_the_deciding_seat_s_view_of_the_table(g):
    tab, k, obs = encoded(g)
    seat, players = g.seat, g.players
    scores = g.scores()
    for j in range(players):
        s = (seat + j) % players
        crossed = np.zeros((7, 15), np.int8)
        for w in range(2):
            word = int(g.bb[s, BB_CROSSED + w])
            for b in range(64):
                if word >> b & 1:
                    col, row = divmod(64 * w + b, 8)
                    crossed[row, col] = 1
        assert np.array_equal(obs["crossed"][j], crossed)
        assert obs["jokers"][j] == g.ps[s, PS_JOKERS]
        assert obs["columns"][j].tolist() == [int(g.ps[s, PS_COLS]) >> c & 1 for c in range(15)]
        assert obs["colours"][j].tolist() == [int(g.ps[s, PS_COLOURS]) >> c & 1 for c in range(5)]
        assert obs["score"][j] == scores[s]
    assert obs["columns_taken"].tolist() == [int(g.st[ST_COLS_TAKEN]) >> c & 1 for c in range(15)]
    assert obs["colours_taken"].tolist() == [int(g.st[ST_COLOURS_TAKEN]) >> c & 1 for c in range(5)]
    assert obs["dice"].tolist() == g.st[ST_DICE:ST_DICE + 6].tolist()
    assert obs["available"].tolist() == [int(g.st[ST_AVAIL]) >> d & 1 for d in range(6)]
    assert obs["roll"][0] == g.st[ST_ROLL] and obs["active"][0] == g.st[ST_IS_ACTIVE]
    assert obs["rules"].tolist() == tab.rules.tolist()
    spec = observe.obs_spec(players, k)
    for name, a in obs.items():
        shape, dtype, low, high = spec[name]
        assert a.shape == shape and a.dtype == dtype and low <= a.min() and a.max() <= high, name


def test_a_finished_game_s_observation_has_nothing_to_decide():
    g = GameInProgress(4, 2, [None, "greedy"])
    while not g.over:
        g.play(-1)
    tab, k, obs = encoded(g)
    assert obs["action_mask"].tolist() == [0] * k + [1]
    assert not obs["available"].any() and obs["active"][0] == 0
    assert obs["score"][0] == g.scores()[g.st[ST_SEAT]]


@pytest.mark.parametrize("sheet", SHEETS)
def test_k_is_the_sheet_s_placement_rows(sheet):
    """287..321 by sheet under the rulebook; joker-six adds each colour's block of 6."""
    tab, six = build_tables(sheet), build_tables(sheet, parse_rules("joker-six"))
    assert observe.n_actions(tab) == len(tab.size) + 1
    assert 287 <= len(tab.size) <= 321 and len(six.size) == len(tab.size) + 5
