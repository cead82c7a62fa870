"""A game played one decision at a time: the turn kernel of sim.engine, stepped from outside.

sim.engine.play plays a whole game in one call, every seat's strategy inside the kernel. Here
some seats decide outside it: a person on the play page, a learning agent, a batched strategy
that decides for many games at once. Their strategy slot has the kind PLAYER_EXTERNAL. `advance`
plays the other seats up to the next decision of an external seat and stops there; the caller
chooses among that seat's legal choices and `commit`s the choice; `advance` goes on. Game g of
root seed s steps through the dice of sim.engine.play's game g, and the built-in seats decide
as there, so a game whose external seats choose what a strategy would is that strategy's game,
move for move (tests/sim/test_step.py).

A game in progress is sim.state's arrays (st, ps, bb; pending and rngs as sim.engine.play's
scratch) and a step row of its own::

    sp int64[SP_SIZE]
        SP_GAME    the game's number (of the root seed)
        SP_KEY     its dice key, sim.rng.game_key (the uint64's bits)
        SP_TURN    who decides next: the position in the roll's order (sim.engine.seat_in_turn:
                   the active seat, then the others); the players' count once all have decided
        SP_AVAIL   the dice the passive seats may use, once the active seat has moved
        SP_SEAT    the external seat deciding now; -1 while none does (the game is over)
        SP_STATE   ONGOING, OVER (scores final, gres filled) or FAILED (a built-in strategy
                   returned an illegal choice or a user's misbehaved: gres[GR_ERROR] says how)

While SP_SEAT is a seat, st says what it may do as a strategy sees it: st[ST_SEAT] is the seat,
st[ST_AVAIL] its dice, st[ST_IS_ACTIVE] whether it is the active one; sim.engine.legal_choices
lists its choices. Nobody's passive move of a roll is applied before every passive seat has
chosen (RULES section 3), so an external passive seat never sees another's move of its roll.

Every game stepped from outside is a row of sim.vector.Rows (the one container of stepped games:
the environments' games, batched strategies', the play page's one game), each row advanced by
this same kernel, compiled once for its one signature (stepper). The set-up and the end of a game
are sim.engine's (begin_game, end_game), as sim.engine.play's.
"""
import numpy as np
from numba import njit, types

from .engine import (
    ALL_DICE, SOLO_DICE, active_move, begin_game, decide, decide_guarded, deciding, empty_seats_check, end_game,
    end_of_roll, log_move, passive_moves, roll_logged, seat_in_turn,
)
from .guard import GuestType
from .players import PLAYER_EXTERNAL, PLAYER_GUARDED
from .tables import TablesType
from .nbinternals import JIT_DISABLED, uncounted
from .state import StrategySet, ST_ACTIVE, ST_AVAIL, ST_IS_ACTIVE, ST_MAX_ROLLS, ST_PLAYERS, ST_ROLL, ST_SEAT

SP_GAME = 0
SP_KEY = 1
SP_TURN = 2
SP_AVAIL = 3
SP_SEAT = 4
SP_STATE = 5
SP_SIZE = 6

ONGOING = 0
OVER = 1
FAILED = 2

@njit(cache=True)
def begin(st, ps, bb, rngs, sp, gres, tab, root, game, players, max_rolls, dice_log):
    """Set up game `game` of root seed `root` for `players` (1: the solo game) at its first roll,
    before anyone decides (sim.engine.begin_game, as sim.engine.play begins it); `advance` then
    finds the first decider."""
    key = begin_game(st, ps, bb, rngs, gres, tab, root, game, players, max_rolls)
    sp[SP_GAME] = game
    sp[SP_KEY] = np.int64(key)
    sp[SP_SEAT] = -1
    sp[SP_STATE] = ONGOING
    _next_roll(st, sp, key, 1, players, dice_log)


@njit(cache=True, inline="always")
def _next_roll(st, sp, key, roll, players, dice_log):
    roll_logged(st, key, roll, players, dice_log)
    sp[SP_TURN] = 0
    sp[SP_AVAIL] = SOLO_DICE if players == 1 else ALL_DICE


@njit(cache=True)
def advance(line, slots, game, logs):
    """Play the seats whose strategy is not external until an external seat is to decide or the
    game is over. Returns the external seat (also sp[SP_SEAT]; st set for its decision), or -1:
    over, or failed (sp[SP_STATE]). The arguments, grouped (ADVANCE_SIG), are sim.engine.play's:

        line   (strats, kinds, params, tab, guest): the line-up, PLAYER_EXTERNAL in kinds for the
               seats decided outside; the tables; sim.guard's room for a user's strategy
        slots  slots[seat]: the seat's strategy slot
        game   (st, ps, bb, cands, pending, rngs, sp, gres): the game's arrays and its step row
        logs   (dice_log, log), 0 rows each for none
    """
    return _advance(line, slots, game, logs, True, True)


@njit(cache=True)
def advance_unwatched(line, slots, game, logs):
    """advance for a line-up without a user's strategy (PLAYER_GUARDED, PLAYER_STRICT): it compiles
    no decide_guarded (nor the guard's comparisons, 2.8 s of a cold start)."""
    return _advance(line, slots, game, logs, True, False)


@njit(cache=True)
def advance_outside(line, slots, game, logs):
    """advance for a line-up whose every seat is decided outside (play's solo game, an agent's
    solo env): it compiles none of the built-in decisions (decide, decide_guarded: two thirds of
    advance's compile). A seat of another kind fails the game."""
    return _advance(line, slots, game, logs, False, False)


@njit(cache=True, inline="always")
def _advance(line, slots, game, logs, builtins, watched):
    # `builtins` and `watched` are constants of each caller: Numba prunes the branches they rule
    # out before typing.
    strats, kinds, params, tab, guest = line
    st, ps, bb, cands, pending, rngs, sp, gres = game
    dice_log, log = logs
    # Uncounted views (sim.nbinternals) of the caller's arrays, as play takes them: every tuple
    # unpacked or built and every inlined call here would otherwise count a reference to each
    # (measured on the vector env: solo 10 % and four players 15 % faster with them).
    st, ps, bb, cands, pending, rngs, sp, gres = uncounted(st), uncounted(ps), uncounted(bb), uncounted(cands), \
        uncounted(pending), uncounted(rngs), uncounted(sp), uncounted(gres)
    kinds, params, slots = uncounted(kinds), uncounted(params), uncounted(slots)
    dice_log, log = uncounted(dice_log), uncounted(log)
    dline, dgame = (strats, kinds, params, tab), (st, ps, bb, cands, rngs, gres)    # as decide takes them
    players = st[ST_PLAYERS]
    key = np.uint64(sp[SP_KEY])
    while sp[SP_STATE] == ONGOING:
        turn = sp[SP_TURN]
        if turn == players:
            roll = st[ST_ROLL]
            passive_moves(ps, bb, tab, pending, players, st[ST_ACTIVE], roll)
            ended = end_of_roll(st, ps, bb, tab)
            if ended or roll >= st[ST_MAX_ROLLS]:
                end_game(st, ps, bb, tab, gres, ended)
                empty_seats_check(ps, bb, kinds, slots, gres, players)
                sp[SP_STATE] = OVER
                break
            _next_roll(st, sp, key, roll + 1, players, dice_log)
            continue
        seat = seat_in_turn(st[ST_ACTIVE], turn)
        avail = (SOLO_DICE if players == 1 else ALL_DICE) if turn == 0 else sp[SP_AVAIL]
        is_active = np.int64(1) if turn == 0 else np.int64(0)
        kind = kinds[slots[seat]]
        if kind == PLAYER_EXTERNAL:
            deciding(st, seat, avail, is_active)
            sp[SP_SEAT] = seat
            return seat
        if builtins:
            if watched and kind >= PLAYER_GUARDED:
                k, cd, nd, sub, cost = decide_guarded(dline, slots, dgame, seat, avail, is_active, log, guest)
            else:
                k, cd, nd, sub, cost = decide(dline, slots, dgame, seat, avail, is_active, log)
        else:
            k, cd, nd, sub, cost = -2, -1, -1, -1, 0
        if k == -2:
            sp[SP_STATE] = FAILED
            break
        _apply(st, ps, bb, tab, pending, sp, seat, cd, nd, sub, cost)
    sp[SP_SEAT] = -1
    return -1


@njit(cache=True, inline="always")
def _apply(st, ps, bb, tab, pending, sp, seat, cd, nd, sub, cost):
    """Seat's move, as sim.engine.play applies it: the active seat's at once (it sets the dice
    the others may use), a passive seat's held until every passive seat has chosen."""
    if sp[SP_TURN] == 0:
        players = st[ST_PLAYERS]
        sp[SP_AVAIL] = active_move(st, ps, bb, tab, seat, cd, nd, sub, cost, st[ST_ROLL],
                                   SOLO_DICE if players == 1 else ALL_DICE)
    else:
        pending[seat, 0] = sub
        pending[seat, 1] = cost
    sp[SP_TURN] += 1


@njit(cache=True)
def commit(game, tab, log, n, move):
    """The deciding external seat's move (cd, nd, sub, cost): dice cd, nd and placement row `sub` for
    `cost` '!', or a pass (sub -1), in `game` (st, ps, bb, pending, sp, gres). The caller has
    checked that it is one of the seat's legal choices (n of them, for the log). Call `advance`
    next."""
    st, ps, bb, pending, sp, gres = game
    st, ps, bb, pending, sp, gres = uncounted(st), uncounted(ps), uncounted(bb), uncounted(pending), uncounted(sp), \
        uncounted(gres)
    log = uncounted(log)
    cd, nd, sub, cost = move
    seat = sp[SP_SEAT]
    log_move(log, gres, st, seat, st[ST_IS_ACTIVE], st[ST_AVAIL], n, cd, nd, sub, cost)
    _apply(st, ps, bb, tab, pending, sp, seat, cd, nd, sub, cost)
    sp[SP_SEAT] = -1


_C1, _C2 = types.int64[::1], types.int64[:, ::1]
#: advance's one signature: strategies typed as function values (as sim.batch.PLAY_SIG), so that
#: one compiled kernel steps any line-up; a user's strategy watched (guest: sim.guard.guest_arrays).
ADVANCE_SIG = types.int64(
    types.Tuple((StrategySet, _C1, types.float64[:, ::1], TablesType, GuestType)), _C1,
    types.Tuple((_C1, _C2, types.uint64[:, ::1], _C2, _C2, types.uint64[:, ::1], _C1, _C1)), types.UniTuple(_C2, 2))


def stepper(outside: bool = False, watched: bool = True):
    """advance (`outside`: advance_outside; not `watched`: advance_unwatched), compiled for
    ADVANCE_SIG on first use (or loaded from the cache), and only for it."""
    fn = advance_outside if outside else advance if watched else advance_unwatched
    if not JIT_DISABLED and not fn.signatures:
        fn.compile(ADVANCE_SIG)
        fn.disable_compile()
    return fn
