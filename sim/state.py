"""The game state a kernel plays on and a strategy sees: four flat arrays.

A game in progress is held in plain arrays so that kernels allocate nothing
per game and a strategy (any Numba function with ``DECIDE_SIG``) can read all
that a player at the table can see::

    st    int64[ST_SIZE]          the table: roll, seats, dice, awards taken
    ps    int64[MAX_SEATS, PS_SIZE]   per seat: jokers, completions, points
    bb    uint64[MAX_SEATS, BB_SIZE]  per seat bitboards:
              [0:2]            crossed boxes (layout in sim.tables)
              [2:2+NW]         alive: subsets with no box crossed yet
              [2+NW:2+2NW]     touch: subsets meeting column H or a crossed
                               box's neighbour; legal = alive & touch
    cands int64[MAX_CANDS, CAND_SIZE]  the legal choices of this decision:
              (colour die, number die, subset row, jokers it costs)

Dice faces in ``st[ST_DICE:ST_DICE+6]``: three colour dice (0..4 = green,
yellow, blue, red, orange; 5 = colour joker) then three number dice (1..5;
0 = number joker). A die that is not rolled (the solo game rolls 2 + 2) is -1.
Dice are numbered 0..2 within each kind in logs and candidates.

A decision function returns the index of the chosen candidate, or -1 to pass.
"""
import warnings

import numpy as np
from numba import njit, types
from numba.core.errors import NumbaExperimentalFeatureWarning

# Strategies are first-class function values (one compiled, cached game kernel
# for any strategy); Numba flags the feature as experimental on every use.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

from .tables import NW, TablesType

MAX_SEATS = 6
COLOUR_JOKER = 5
NUMBER_JOKER = 0
PASS = -1

# --- st: the table --------------------------------------------------------
ST_PLAYERS = 0        # 1 = solo game
ST_ROLL = 1           # current roll, 1-based, counted over the whole table
ST_ACTIVE = 2         # active seat of this roll
ST_SEAT = 3           # seat deciding now
ST_IS_ACTIVE = 4      # 1 if the deciding seat is the active player
ST_AVAIL = 5          # bitmask of dice the decider may use: bits 0..2 colour, 3..5 number
ST_ACTIVE_CDIE = 6    # active player's choice this roll (-1 = passed / not yet)
ST_ACTIVE_NDIE = 7
ST_ACTIVE_SUB = 8
ST_COLS_TAKEN = 9     # columns someone completed in an earlier roll (first value gone)
ST_COLOURS_TAKEN = 10 # colours likewise
# ST_MAX_ROLLS is a cap, not the length of the game: 30 in solo (the solo game is exactly 30
# rolls), but at a table the 200-roll safety cap, which no real game reaches (a table ends when
# someone completes a second colour: after 30 to 35 rolls with the strong built-ins, 50 with
# `greedy`). `ST_MAX_ROLLS - ST_ROLL` is "rolls left" in solo only; at a table it is ~170 and a
# strategy that trusts it plays as if time never ran out. strategies.kit has solo_rolls_left
# (exact, solo only) and rolls_left_estimate (exact in solo, an estimate at tables).
ST_MAX_ROLLS = 11     # roll cap: 30 in solo, the safety cap at tables (see above)
ST_DICE = 12          # 6 dice faces, see module doc
ST_SIZE = 18

# --- ps: one row per seat -------------------------------------------------
PS_JOKERS = 0         # '!' left
PS_COLS = 1           # bitmask of columns this seat completed
PS_COLOURS = 2        # bitmask of colours this seat completed
PS_COL_POINTS = 3
PS_COLOUR_POINTS = 4
PS_COLS_FIRST = 5     # columns completed with the first value
PS_COLOURS_FIRST = 6
PS_PASSES = 7
PS_FIRST_JOKER_ROLL = 8  # 0 = never used a joker
PS_BOXES = 9          # boxes crossed
PS_STAR_PENALTY = 10  # the star penalty: 2 (the rules' star-penalty) per star box not crossed (set at the end)
PS_SCORE = 11         # set at the end
PS_RANK = 12          # 1 = best; tied seats share a rank (set at the end)
PS_WINNER = 13        # 1 if this seat wins or shares the win (set at the end)
PS_SIZE = 14

# --- bb: one row of bitboards per seat -----------------------------------
BB_CROSSED = 0
BB_ALIVE = 2
BB_TOUCH = 2 + NW
BB_SIZE = 2 + 2 * NW

# --- cands: one row per legal choice -------------------------------------
CAND_CDIE = 0
CAND_NDIE = 1
CAND_SUB = 2
CAND_COST = 3
CAND_SIZE = 4
#: Enough for any roll: at most 9 distinct dice pairs, each at most every subset.
MAX_CANDS = 9 * NW * 64

#: Words of a seat's random stream (the rng a strategy gets: sim.rng).
RNG_WORDS = 4

#: choose(st, ps, bb, cands, n_cands, tables, params, rng) -> candidate index or -1
DECIDE_SIG = types.int64(
    types.int64[:],
    types.int64[:, :],
    types.uint64[:, :],
    types.int64[:, :],
    types.int64,
    TablesType,
    types.float64[:],
    types.uint64[:],
)
DecideFn = types.FunctionType(DECIDE_SIG)
#: Per-seat strategies as passed to the game kernels (padded to MAX_SEATS).
StrategySet = types.UniTuple(DecideFn, MAX_SEATS)


@njit(cache=True)
def seat_slot(seat, game, players, rotate):
    """The strategy slot that plays `seat` in game number `game`: slot `seat`, or with `rotate`
    slot (seat + game) mod players, so that every strategy sits in every seat equally often.

    The one definition of the rotation: the kernels inline it (sim.batch); the host calls its
    Python function, on NumPy arrays too (sim.runs.api, sim.runs.settings)."""
    return (seat + game) % players if rotate else seat


@njit(cache=True)
def new_state():
    """Fresh, zeroed state arrays (st, ps, bb, cands) for one game at a time (from Python or a kernel)."""
    return (
        np.zeros(ST_SIZE, np.int64),
        np.zeros((MAX_SEATS, PS_SIZE), np.int64),
        np.zeros((MAX_SEATS, BB_SIZE), np.uint64),
        np.zeros((MAX_CANDS, CAND_SIZE), np.int64),
    )


@njit(cache=True)
def copy_into(src, dst):
    """dst[i] = src[i] for every i of the 1-D array src (dst as long or longer). Element by
    element, as copy_game and for its reason."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True)
def copy_game(st, ps, bb, st_to, ps_to, bb_to):
    """Copy a game's state (st, ps, bb) into (st_to, ps_to, bb_to), of the same shapes: a position
    to play on from again (the research rollouts). Element by element: an array assigned to a
    slice compiles Numba's shape-mismatch error and its string formatting (seconds of a cold
    start, docs/performance.md)."""
    for i in range(ST_SIZE):
        st_to[i] = st[i]
    for s in range(MAX_SEATS):
        for f in range(PS_SIZE):
            ps_to[s, f] = ps[s, f]
        for w in range(BB_SIZE):
            bb_to[s, w] = bb[s, w]
