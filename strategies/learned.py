"""`learned`: a player driven by a learned afterstate value (an n-tuple table sum).

Solo, the value of the sheet after a move, with t rolls still to come and j '!'
left, is a sum of table entries, one per feature, each table indexed by t:

    V(sheet, t, j) = sum over the 80 active features f of W[o + f]     (V = 0 at t = 0)

where o = row_offset(base, t) is where row t starts in the flat weights W[base:].
Features, one row of W (N_FEAT entries per t, t = 0..29):

    offset      size          indexed by                                   active
    F_COLMASK   15 x 128      column c, its 7 crossed boxes as a bit mask     15
    F_COLDIST   15 x 8 x 8    column c, crossed count, columns the crossed    15
                              area must still grow to reach c (0..7)
    F_ADJ       14 x 8 x 8    columns c, c+1: both crossed counts             14
    F_BLOCK     30 x 64       block b, its crossed boxes as a bit mask        30
                              (bit i = the block's i-th box in bit order)
    F_COLOUR    5 x 22 x 7    colour k, its empty boxes, its unfinished        5
                              blocks
    F_JOKER     9             '!' left (more than 8 share the last entry)      1

Column masks see stars and single boxes, column distances see reach (columns A
and O pay 5 but start 7 columns away from H), block masks see which dice a
colour still needs. Block features follow the block order of the sheet's
tables, so weights are trained per sheet (encore-sim train; the shipped ones
in strategies/data/, one file per built-in sheet).

A move is chosen by one-ply search over the distinct placements the dice
allow (and passing): reward now + V(afterstate), where the reward is the
column and colour points the move completes, +2 per star it crosses (every
star starts at -2) and -1 per '!' it uses (each kept '!' scores 1). The sum
of rewards over a game is the score + 30 - 8, so V estimates the points still
to come. sim.training.solo learns W by TD(lambda) on self-play, from optimistic
starting weights.

Under rule variants (sim.rules; the kernels read them from tab.rules) the same holds with the
rules' numbers: a crossed star gains the star penalty, a completed colour the colour bonus, a
pass costs the pass penalty (its reward), and t counts the rules' solo rolls (a game longer than
30 rolls values t >= 29 by the last row). Weights are trained under the rules they play
(weights_rules: the part of the rules that changes the game the weights are for); the weights
file records them, and `learned` finds weights for the run's rules by that record.

With `top` >= 1 the `top` best placements are also looked at one roll deeper:
the next roll's value is averaged exactly over its 1296 dice faces (best reply
per colour and number, jokers charged, passing allowed); with `close` > 0 only
those within `close` points of the best one-ply value, as the search pays
almost only at close calls.

At a table (2-6 players) the value is of another kind: the points still to
come minus the best opponent's final score, from the sheet's features and what
the player sees of the table (strategies.table_features), in rows of
N_ROW_TABLE per stage of the game; sim.training.table learns it.

The weights are not compiled in: they follow the strategy's parameters and the
sheet's layout in `params`, float32 packed two to a float64 word (Strategy.data:
weights_data picks them for the run's sheet and number of players, or reads the
file of learned:weights=FILE).

The code is in a module per job: strategies.learned_value (the features, the value and the
ranking of every choice by it), strategies.learned_decisions (the solo and the table decision)
and strategies.learned_weights (the weights files, shipped, stored or yours). This module is the
strategy itself, and the one to import: it gives every public name of the three.
"""
import dataclasses

import numpy as np
from numba import njit

from sim.players import placement_code, placement_of
from sim.rules import Rules
from sim.state import PASS, ST_PLAYERS

from sim.nbinternals import stack_f64, stack_i64, uncounted

from .features import candidate_of
from .interface import strategy
from .learned_value import LAY_SIZE, ROWS, SC_SIZE, SE_SIZE
from .learned_decisions import DENY, decide_table, solo_choice
from .learned_weights import weights_data

# Every public name of the three modules, from here as before they were split: users, the training
# and the research import them from strategies.learned.
from .learned_value import *  # noqa: F401,F403
from .learned_decisions import *  # noqa: F401,F403
from .learned_weights import *  # noqa: F401,F403


PARAMS = {"top": 0.0, "deny": DENY, "close": 0.0}
N_PARAMS = len(PARAMS)
#: Where each parameter stands in the parameters row (the order of PARAMS).
P_TOP, P_DENY, P_CLOSE = (list(PARAMS).index(name) for name in ("top", "deny", "close"))
#: The parameters row: PARAMS, then from DATA_LAY the sheet's layout (LAY_SIZE int64 words, made
#: once per run rather than at every decision: that cost 6% of the solo speed), then from
#: DATA_W the weights (float32, two to a word).
DATA_LAY = N_PARAMS
DATA_W = DATA_LAY + LAY_SIZE


@njit(cache=True, inline="always")
def _weights(params):
    """The packed weights (see pack) and the sheet's layout, as uncounted views of params."""
    return uncounted(params[DATA_W:].view(np.float32)), uncounted(params[DATA_LAY:DATA_W].view(np.int64))


# The solo and the table decision are compiled apart, each once: a function holding both (as
# _choose and _place_solo each did, inlined) made every run compile both twice (docs/performance.md,
# "Compile time"). The scratch lives on each one's stack (sim.nbinternals): nothing is allocated
# per decision.
@njit(cache=True)
def _place_solo(st, ps, bb, cands, n, tab, params, rng):
    """learned's solo decision as sim.players.placement_code (Strategy.solo_placer): the engine
    then need not list the candidates, about 0.15 of the 1.1 µs a solo decision took."""
    W, lay = _weights(params)
    st, ps, bb = uncounted(st), uncounted(ps), uncounted(bb)
    # The scratch (as new_scratch's) made here, in this frame: a stack array is never returned.
    scratch = (lay, stack_i64(SC_SIZE), stack_f64(SE_SIZE), stack_i64(ROWS), stack_i64(ROWS), stack_f64(ROWS),
               stack_f64(ROWS))
    sub, cost = solo_choice(W, 0, st, ps, bb, tab, int(params[P_TOP]), params[P_CLOSE], scratch)
    return placement_code(sub, cost)


@njit(cache=True)
def _decide_at_table(st, ps, bb, cands, n, tab, params, rng):
    """learned's decision at a table of 2-6: a row of cands[:n] (decide_table); Strategy.table_decider."""
    if n == 0:
        return PASS
    st, ps, bb, cands, params = uncounted(st), uncounted(ps), uncounted(bb), uncounted(cands), uncounted(params)
    W, lay = _weights(params)
    scratch = (lay, stack_i64(SC_SIZE), stack_f64(SE_SIZE), stack_i64(ROWS), stack_i64(ROWS), stack_f64(ROWS),
               stack_f64(ROWS))
    return decide_table(W, 0, st, ps, bb, cands, n, tab, params[P_DENY], scratch)


def _choose(st, ps, bb, cands, n, tab, params, rng):
    """Learned afterstate value: solo, or at a table with what it sees of the other sheets."""
    if n == 0:
        return PASS
    # Uncounted views (sim.nbinternals): the callee would count a reference on each array.
    st, ps, bb, cands = uncounted(st), uncounted(ps), uncounted(bb), uncounted(cands)
    params, rng = uncounted(params), uncounted(rng)
    if st[ST_PLAYERS] != 1:
        return _decide_at_table(st, ps, bb, cands, n, tab, params, rng)
    code = _place_solo(st, ps, bb, cands, n, tab, params, rng)
    if code == PASS:
        return PASS
    sub, cost = placement_of(code)
    return candidate_of(cands, n, sub, cost)


# Every rule: its weights are trained under the rules it plays (training on demand where none ship).
learned = strategy(_choose, name="learned", params=PARAMS, data=weights_data, file_param="weights",
                   reads_rules=frozenset(f.name for f in dataclasses.fields(Rules)),
                   description="one-ply search on an afterstate value learned by TD(lambda) self-play "
                               "(encore-sim train): solo per sheet, and at 2-6 player tables with the race")
learned = dataclasses.replace(learned, solo_placer=_place_solo, table_decider=_decide_at_table)
