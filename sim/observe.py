"""A decision as arrays: the action encoding, the action mask and the observation (kernels).

The learning environments (sim.agents.envs) and the batched strategies (a strategy deciding for a
batch of games at once) see a decision through this one encoding.

Actions
-------
The action space is Discrete(K + 1), K = the sheet's placement rows (tab.size.shape[0], sorted by
(colour, size): sim.tables; 287 to 321 by sheet, 5 more under joker-six)::

    a < K    placement row a, at its fewest '!', with the first dice pair in
             sim.engine.legal_choices' order that offers that placement at that cost
             (the dice sim.players.placed finds for placement_code(a, cost))
    a == K   pass (always legal)

`canonical` turns an action into the move (colour die, number die, row, '!'). Two kinds of
legal choice have no action of their own: a costlier joker for the same boxes (a '!' spent for
nothing), and another dice pair of the same cost. Neither changes what the others may do: at the
fewest '!' the faces a placement uses are unique (a colour face, or the colour joker only when no
die shows the colour; a number face likewise), and the dice legal_choices offers are the first of
each face, so the dice left to the passive seats are the same whichever pair of those faces is
taken.

The mask
--------
    action_mask  int8 (K+1,)   1 for the legal actions, pass included
    action_cost  int8 (K+1,)   the '!' a legal action spends; 0 elsewhere

so greedy's key is 4 * tab.size[a] - action_cost[a] over the legal a < K (sim.players.greedy: most
boxes, then fewest '!'; its tie-break, the first candidate in legal_choices' order, is not the
lowest row: sim.players.greedy_pick says which).

The observation
---------------
From the deciding seat's point of view, seats relative: row 0 is the observer, row j the seat
(observer + j) mod P, P the players (1 solo). One decision's arrays, in the order of OBS_KEYS (a
batch has a leading axis of games; `obs` in the kernels is the tuple of these arrays)::

    crossed        int8  (P, 7, 15)  1 where the seat crossed the box (row, column A..O)
    jokers         int8  (P,)        '!' left
    columns        int8  (P, 15)     1 for the columns the seat completed
    colours        int8  (P, 5)      1 for the colours it completed (green, yellow, blue, red, orange)
    columns_taken  int8  (15,)       1 for the columns someone completed in an earlier roll
    colours_taken  int8  (5,)        (their first value is gone)
    score          int16 (P,)        the score if the game ended now (sim.engine.finish's sum)
    dice           int8  (6,)        faces as sim.state: colour dice 0..4 (5 = joker), number
                                     dice 1..5 (0 = joker); -1 not rolled (solo: die 2 of each)
    available      int8  (6,)        1 for the dice the observer may use
    roll           int16 (1,)        the roll, 1-based
    active         int8  (1,)        1 if the observer is the roll's active player
    rules          int16 (R_SIZE,)   the rules' numbers, tab.rules[R_*] (sim.rules)
    action_mask    int8  (K+1,)      as above
    action_cost    int8  (K+1,)

An observation written with no decision to take (a finished game's last look) has no die
available, `active` 0, and pass alone in the mask.

Kernels: `canonical` (one action), `write_mask`, `observe_row` (one decision into row i of the
batch arrays), `observe_rows` and `canonical_rows` (the rows of a batch of sim.step games); the score
is sim.engine.score_now's. Their loops allocate nothing, and they read the tables' fields borrowed
(sim.nbinternals.borrow): a StructRef field read otherwise counts a reference, an atomic add and
subtract, a dozen times a decision.
"""
import numpy as np
from numba import njit

from .engine import score_now
from .moves import dice_word, die_pair, legal_word, next_group, next_row
from .nbinternals import borrow, uncounted
from .players import offered_dice
from .rules import MAX_JOKERS, R_NUMBERS, R_SIZE
from .state import (
    BB_ALIVE, BB_CROSSED, BB_TOUCH, PS_COLOURS, PS_COLS, PS_JOKERS, ST_AVAIL, ST_COLOURS_TAKEN, ST_COLS_TAKEN, ST_DICE, ST_IS_ACTIVE, ST_PLAYERS, ST_ROLL, ST_SEAT,
)
from .tables import MAX_NUMBER, N_COLOURS

N_ROWS = 7
N_COLS = 15

#: The observation's arrays, in the order of the kernels' `obs` tuple.
OBS_KEYS = ("crossed", "jokers", "columns", "colours", "columns_taken", "colours_taken", "score", "dice",
            "available", "roll", "active", "rules", "action_mask", "action_cost")

#: canonical's colour die for a pass, and for an action that is no legal choice.
PASS_DIE = -1
ILLEGAL = -2

_ONE = np.uint64(1)
_LOW_BITS = np.uint64(0x0101010101010101)
_BYTE = np.uint64(0xFF)


def n_actions(tab) -> int:
    """K + 1: the placement rows of the tables (sim.tables.build_tables'), and pass."""
    return int(tab.size.shape[0]) + 1


def obs_spec(players: int, k: int) -> dict:
    """name -> (shape, dtype, low, high) of one decision's observation, for `players` seats and
    K = k placement rows (the bounds every observation of any rules lies in)."""
    p = players
    i16 = np.iinfo(np.int16)
    return {
        "crossed": ((p, N_ROWS, N_COLS), np.int8, 0, 1),
        "jokers": ((p,), np.int8, 0, MAX_JOKERS),
        "columns": ((p, N_COLS), np.int8, 0, 1),
        "colours": ((p, N_COLOURS), np.int8, 0, 1),
        "columns_taken": ((N_COLS,), np.int8, 0, 1),
        "colours_taken": ((N_COLOURS,), np.int8, 0, 1),
        "score": ((p,), np.int16, i16.min, i16.max),
        "dice": ((6,), np.int8, -1, 5),
        "available": ((6,), np.int8, 0, 1),
        "roll": ((1,), np.int16, 0, i16.max),
        "active": ((1,), np.int8, 0, 1),
        "rules": ((R_SIZE,), np.int16, 0, i16.max),
        "action_mask": ((k + 1,), np.int8, 0, 1),
        "action_cost": ((k + 1,), np.int8, 0, 2),
    }


def new_obs(n: int, players: int, k: int) -> dict:
    """Zeroed batch arrays of n observations (leading axis n), by name in the order of OBS_KEYS:
    tuple(d.values()) is the kernels' `obs`."""
    return {name: np.zeros((n, *shape), dtype) for name, (shape, dtype, _, _) in obs_spec(players, k).items()}


@njit(cache=True, inline="always")
def cheapest_groups(st, jokers, numbers):
    """(at0, at1, at2): bitmasks of the (colour, number) groups (g = 6 * colour + number - 1) that the
    deciding seat's dice st[ST_AVAIL] make at fewest 0, 1 and 2 '!', for a seat with `jokers` '!'
    left; `numbers` = tab.rules[R_NUMBERS]. Two dice of one face make the same groups, so the
    available dice serve as well as legal_choices' offered ones."""
    faces = dice_word(st, numbers)
    avail = st[ST_AVAIL]
    at0 = at1 = at2 = 0
    for p in range(9):
        _, _, cost, groups = die_pair(faces, avail, jokers, p)
        if cost == 0:
            at0 |= groups
        elif cost == 1:
            at1 |= groups
        else:
            at2 |= groups
    at1 &= ~at0
    at2 &= ~(at0 | at1)
    return at0, at1, at2


@njit(cache=True, inline="always")
def _clear(mask, cost, k):
    """Pass alone in the mask, no cost. A loop per array, each compiled to a memset: one loop
    writing both stores byte by byte (the two int8 arrays might overlap, for all the compiler knows)."""
    for a in range(k):
        mask[a] = 0
    for a in range(k):
        cost[a] = 0
    mask[k] = 1
    cost[k] = 0


@njit(cache=True, inline="always")
def write_mask(st, ps, bb, tab, mask, cost):
    """The deciding seat's action mask and costs into mask, cost (K+1 each); returns the number of
    legal placements (pass not counted)."""
    k = borrow(tab, "size").shape[0]
    _clear(mask, cost, k)
    seat = st[ST_SEAT]
    at0, at1, at2 = cheapest_groups(st, ps[seat, PS_JOKERS], borrow(tab, "rules")[R_NUMBERS])
    gword, gmask = borrow(tab, "gword"), borrow(tab, "gmask")
    n = 0
    for c in range(3):
        groups = at0 if c == 0 else (at1 if c == 1 else at2)
        while groups:
            g, groups = next_group(groups)
            for half in range(2):
                w, word = legal_word(bb, seat, gword, gmask, g, half)
                while word:
                    sub, word = next_row(w, word)
                    mask[sub] = 1
                    cost[sub] = c
                    n += 1
    return n


@njit(cache=True, inline="always")
def canonical(st, ps, bb, tab, action):
    """The move that `action` stands for, for the deciding seat st[ST_SEAT] with dice st[ST_AVAIL]:
    (colour die, number die, placement row, '!'); (PASS_DIE, -1, -1, 0) for a pass; colour die
    ILLEGAL when the action is none of the seat's legal actions."""
    size = borrow(tab, "size")
    k = size.shape[0]
    if action == k:
        return PASS_DIE, -1, -1, 0
    if action < 0 or action > k:
        return ILLEGAL, -1, -1, 0
    seat = st[ST_SEAT]
    w = action >> 6
    if not ((bb[seat, BB_ALIVE + w] & bb[seat, BB_TOUCH + w]) >> np.uint64(action & 63)) & _ONE:
        return ILLEGAL, -1, -1, 0
    g = MAX_NUMBER * borrow(tab, "colour")[action] + size[action] - 1
    offered = offered_dice(st, st[ST_AVAIL])
    faces = dice_word(st, borrow(tab, "rules")[R_NUMBERS])
    jokers = ps[seat, PS_JOKERS]
    best, best_cd, best_nd = 3, ILLEGAL, -1
    for p in range(9):
        cd, nd, cost, groups = die_pair(faces, offered, jokers, p)
        if (groups >> g) & 1 and cost < best:
            best, best_cd, best_nd = cost, cd, nd
    if best_cd == ILLEGAL:
        return ILLEGAL, -1, -1, 0
    return best_cd, best_nd, action, best


@njit(cache=True, inline="always")
def observe_row(st, ps, bb, tab, seat, deciding, i, obs):
    """Row i of the batch arrays `obs` (the tuple of OBS_KEYS' arrays): the observation of `seat`
    in the game (st, ps, bb); with `deciding`, seat is the one deciding now (st[ST_SEAT]) and the
    mask its legal actions, else there is nothing to decide (no die available, pass alone)."""
    (crossed, jokers, columns, colours, columns_taken, colours_taken, score, dice, available, roll, active, rules,
     mask, cost) = obs
    players = st[ST_PLAYERS]
    for j in range(players):
        s = seat + j
        if s >= players:
            s -= players
        lo, hi = bb[s, BB_CROSSED], bb[s, BB_CROSSED + 1]
        grid = crossed[i, j]
        for r in range(N_ROWS):
            # Row r of every column at once: byte c of these words is box (r, c)'s bit (sim.tables'
            # layout), 0 or 1: the grid's row is the words' bytes (4 times faster than bit by bit).
            a, b = (lo >> np.uint64(r)) & _LOW_BITS, (hi >> np.uint64(r)) & _LOW_BITS
            row = grid[r]
            for c in range(8):
                row[c] = np.int8((a >> np.uint64(8 * c)) & _BYTE)
            for c in range(N_COLS - 8):
                row[8 + c] = np.int8((b >> np.uint64(8 * c)) & _BYTE)
        jokers[i, j] = ps[s, PS_JOKERS]
        done = ps[s, PS_COLS]
        for c in range(N_COLS):
            columns[i, j, c] = (done >> c) & 1
        done = ps[s, PS_COLOURS]
        for c in range(N_COLOURS):
            colours[i, j, c] = (done >> c) & 1
        score[i, j] = score_now(ps, bb, tab, s)
    taken = st[ST_COLS_TAKEN]
    for c in range(N_COLS):
        columns_taken[i, c] = (taken >> c) & 1
    taken = st[ST_COLOURS_TAKEN]
    for c in range(N_COLOURS):
        colours_taken[i, c] = (taken >> c) & 1
    avail = st[ST_AVAIL] if deciding else 0
    for d in range(6):
        dice[i, d] = st[ST_DICE + d]
        available[i, d] = (avail >> d) & 1
    roll[i, 0] = st[ST_ROLL]
    active[i, 0] = st[ST_IS_ACTIVE] if deciding else 0
    numbers = borrow(tab, "rules")
    for r in range(rules.shape[1]):
        rules[i, r] = numbers[r]
    if deciding:
        write_mask(st, ps, bb, tab, mask[i], cost[i])
    else:
        _clear(mask[i], cost[i], borrow(tab, "size").shape[0])


@njit(cache=True, inline="always")
def uncounted_obs(obs):
    """The arrays of `obs` as uncounted views (sim.nbinternals): each inlined call that is handed one
    would otherwise count a reference to it, per decision."""
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13) = obs
    return (uncounted(a0), uncounted(a1), uncounted(a2), uncounted(a3), uncounted(a4), uncounted(a5),
            uncounted(a6), uncounted(a7), uncounted(a8), uncounted(a9), uncounted(a10), uncounted(a11),
            uncounted(a12), uncounted(a13))


@njit(cache=True)
def observe_rows(st, ps, bb, sp_seat, tab, obs):
    """observe_row for every row i of a batch of games (st, ps, bb with a leading game axis):
    the observation of seat sp_seat[i] deciding now, or, where sp_seat[i] < 0 (no decision: the
    game is over), of seat st[i, ST_SEAT], the last to decide, with nothing to decide.
    sp_seat is sim.step's sp[:, SP_SEAT]."""
    st, ps, bb, obs = uncounted(st), uncounted(ps), uncounted(bb), uncounted_obs(obs)
    for i in range(st.shape[0]):
        seat = sp_seat[i]
        observe_row(st[i], ps[i], bb[i], tab, seat if seat >= 0 else st[i, ST_SEAT], seat >= 0, i, obs)


@njit(cache=True)
def canonical_rows(st, ps, bb, sp_seat, tab, actions, moves):
    """canonical for every row i of a batch with a decision (sp_seat[i] >= 0), into moves[i] =
    (colour die, number die, placement row, '!'); rows without a decision get a pass. Returns the
    first row whose action is illegal (moves then written up to it), or -1. sim.vector checks a
    step's actions with it."""
    st, ps, bb = uncounted(st), uncounted(ps), uncounted(bb)
    for i in range(st.shape[0]):
        if sp_seat[i] < 0:
            cd, nd, sub, cost = PASS_DIE, -1, -1, 0
        else:
            cd, nd, sub, cost = canonical(st[i], ps[i], bb[i], tab, actions[i])
            if cd == ILLEGAL:
                return i
        moves[i, 0] = cd
        moves[i, 1] = nd
        moves[i, 2] = sub
        moves[i, 3] = cost
    return -1
