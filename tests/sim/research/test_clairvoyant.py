"""The clairvoyant bound (sim.research.clairvoyant, sim.research.headroom): its lines are legal and
score what it says, it beats `learned` on the same dice, and it does not depend on threads."""
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from sim import engine
from sim.runs.api import play_chunk
from sim.rng import game_key
from sim.sheets import load_sheet
from sim.state import (
    CAND_COST, CAND_SUB, MAX_CANDS, PS_COL_POINTS, PS_COLOUR_POINTS, PS_JOKERS, PS_SCORE, PS_STAR_PENALTY,
    ST_AVAIL, ST_DICE, ST_IS_ACTIVE, ST_ROLL, ST_SEAT, new_state,
)
from sim.tables import kernel_tables
from sim.research import clairvoyant as C
from sim.research.headroom import measure
from strategies.learned import weights_array
from invoking import invoke

ROOT = Path(__file__).resolve().parents[3]
SEED = 20261203
GAMES = 20
BEAM = 64
SHEET = load_sheet("standard")
TAB = kernel_tables(SHEET)
W = weights_array(SHEET)


@pytest.fixture(scope="module")
def searched():
    return C.search_games(W, TAB, SEED, 0, GAMES, BEAM)


@pytest.fixture(scope="module")
def learned():
    return play_chunk(SEED, 0, GAMES, ["learned"], players=1, log_turns=True)


def replay(game, line, dice):
    """Play `line` on game `game` of SEED with the engine's kernels, checking that the dice are
    `dice` (one row per roll) and every move is one of the engine's legal choices; the final ps row."""
    st, ps, bb, _ = new_state()
    cands = np.zeros((MAX_CANDS, 4), np.int64)
    engine.reset(st, ps, bb, TAB, 1, engine.SOLO_ROLLS)
    key = np.uint64(game_key(np.uint64(SEED), game))   # a Python int would be typed int64
    st[ST_SEAT], st[ST_AVAIL], st[ST_IS_ACTIVE] = 0, engine.SOLO_DICE, 1
    for roll in range(1, engine.SOLO_ROLLS + 1):
        st[ST_ROLL] = roll
        engine.set_dice(st, key, roll)
        assert np.array_equal(st[ST_DICE:ST_DICE + 6], dice[roll - 1])
        n = engine.legal_choices(st, ps, bb, TAB, cands)
        sub, cost = line[roll - 1]
        if sub >= 0:
            legal = {(int(s), int(c)) for s, c in cands[:n, [CAND_SUB, CAND_COST]]}
            assert (sub, cost) in legal, f"game {game}, roll {roll}: ({sub}, {cost}) is not a legal choice"
        else:
            assert cost == 0
        engine.solo_move(st, ps, bb, TAB, sub, cost, roll)     # a pass counted, as the game counts it
    engine.end_of_game(ps, bb, TAB, 1)
    return ps[0]


def test_best_lines_are_legal_and_score_the_bound(searched, learned):
    ends, lines, guide_scores = searched
    for g in range(GAMES):
        # The dice learned saw in game g (its log), and the engine's score of the line.
        dice = learned.dice[learned.dice_start[g]:learned.dice_start[g + 1]]
        assert np.array_equal(replay(g, lines[g], dice), ends[g])
    assert np.array_equal(ends[:, PS_SCORE], guide_scores.max(axis=1))


def test_bound_beats_learned_on_the_same_dice(searched, learned):
    ends = searched[0]
    scores = learned.seats[:, 0, PS_SCORE]
    # Every line learned plays is open to a clairvoyant player; the beam keeps a better one.
    assert (ends[:, PS_SCORE] >= scores).all()
    assert ends[:, PS_SCORE].mean() > scores.mean() + 5


def test_a_wider_beam_finds_more():
    narrow = C.search_games(W, TAB, SEED, 0, GAMES, 4)[0][:, PS_SCORE]
    wide = C.search_games(W, TAB, SEED, 0, GAMES, BEAM)[0][:, PS_SCORE]
    assert wide.mean() > narrow.mean()


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="one Numba thread only")
def test_independent_of_threads_and_chunks(searched):
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = C.search_games(W, TAB, SEED, 0, GAMES, BEAM)
        numba.set_num_threads(2)
        part = C.search_games(W, TAB, SEED, 7, 5, BEAM)
    finally:
        numba.set_num_threads(before)
    for a, b in zip(one, searched):
        assert np.array_equal(a, b)
    for a, b in zip(part, searched):
        assert np.array_equal(a, b[7:12])


def test_report_breakdown_adds_up_to_the_score():
    h = measure(games=6, seed=SEED, beam=16, threads=1)
    for ends in (h.bound_ends, h.learned_ends):
        parts = ends[:, PS_COL_POINTS] + ends[:, PS_COLOUR_POINTS] + ends[:, PS_JOKERS] - ends[:, PS_STAR_PENALTY]
        assert np.array_equal(parts, ends[:, PS_SCORE])
    rows = {name: (b, lrn) for name, b, lrn in h.breakdown()}
    assert rows["score"] == (h.bound.mean(), h.learned.mean())
    text = h.report()
    assert f"{h.bound.mean():6.2f}" in text and f"{h.learned.mean():6.2f}" in text
    r, _ = h.ratio()
    assert f"{100 * r:6.1f}%" in text


def test_cli_one_line_errors():
    r = invoke("bound", "--beam", "0")
    assert r.exit_code == 2 and r.output.strip() == "Error: --beam must be 1..65536, got 0"
    r = invoke("bound", "--games", "2", "--weights", "missing.npz")
    assert r.exit_code == 2 and r.output.strip() == "Error: weights file missing.npz does not exist"


def test_bound_command_prints_the_bound_and_learneds_share():
    """`encore-sim bound` (the module itself has no entry point since the layering)."""
    r = subprocess.run([sys.executable, "-m", "cli", "bound", "--games", "2", "--beam", "4", "-q"],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "bound (all 30 rolls known)" in r.stdout and "learned / bound" in r.stdout
