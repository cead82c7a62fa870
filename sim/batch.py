"""Many games in one call, spread over Numba threads.

Game g of a batch is game number ``first + g`` of the root seed: the kernel
derives everything from (root, game number), so the rows are identical for
any thread count or split into batches. Results are written per game into
preallocated arrays and never reduced across threads.

Threads claim blocks of BLOCK games one at a time from a shared counter
(an atomic add) rather than each taking a fixed share: a thread slowed down
by anything else on its core (the runner writing the previous chunk's
Parquet files, another process) then plays fewer blocks instead of keeping
the others waiting at the end. Which thread plays a block changes nothing
in its rows.
"""
import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from .engine import GR_ERR_VALUE, GR_ERROR, play
from .guard import ERR_WRITE_SEEN_LATE, any_copy_written, guest_arrays
from .nbinternals import JIT_DISABLED, compiled_for, python_fallback, uncounted
from .state import BB_SIZE, CAND_SIZE, MAX_CANDS, MAX_SEATS, PS_SIZE, RNG_WORDS, ST_SIZE, StrategySet, seat_slot
from .tables import TablesType, copy_tables
from .threads import on_each_thread

#: Games one thread plays between allocations of its scratch arrays.
BLOCK = 64

_C1, _C2 = types.int64[::1], types.int64[:, ::1]
PLAY_SIG = types.void(
    types.Tuple((StrategySet, _C1, types.float64[:, ::1], TablesType)), _C1, types.uint64, types.int64, types.int64,
    types.int64, types.Tuple((_C1, _C2, types.uint64[:, ::1], _C2, _C2, types.uint64[:, ::1], types.int64[:])),
    types.UniTuple(types.int64[:, :], 2), types.none)
#: sim.engine.play's one signature in a batch (no user strategy: guest None).
PlayFn = types.FunctionType(PLAY_SIG)
#: play_games's arguments (and the watched kernels'), each typed once, as the kernels take them
#: grouped (_grouped): the line-up (strats, kinds, params, tab, slots, rotate), the run (root,
#: first, players, max_rolls) and the results (games, seats, dice_start, dice_log, log_start, log).
BATCH_SIG = types.void(
    types.Tuple((StrategySet, types.int64[:], types.float64[:, :], TablesType, types.int64[:], types.boolean)),
    types.Tuple((types.uint64, types.int64, types.int64, types.int64)),
    types.Tuple((types.int64[:, :], types.int64[:, :, :], types.int64[:], types.int64[:, :], types.int64[:],
                 types.int64[:, :])),
)


def _grouped(strats, kinds, params, slots, rotate, tab, root, first, players, max_rolls, games, seats, dice_start,
             dice_log, log_start, log):
    """play_games's arguments as its kernels take them (BATCH_SIG): (line, run, out)."""
    return ((strats, kinds, params, tab, slots, rotate), (root, first, players, max_rolls),
            (games, seats, dice_start, dice_log, log_start, log))


def _python_fetch_add(counter, delta):
    before = counter[0]
    counter[0] += delta
    return before


@python_fallback(_python_fetch_add)
@intrinsic
def _fetch_add(typingctx, counter, delta):
    """counter[0] += delta atomically; returns the value before (int64 counter array)."""
    if counter != types.int64[::1] or not isinstance(delta, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        step = context.cast(builder, args[1], sig.args[1], types.int64)
        return builder.atomic_rmw("add", ary.data, step, "monotonic")

    return types.int64(counter, delta), codegen


@njit(cache=True, inline="always")
def _scratch():
    """One thread's state arrays: st, ps, bb, cands, pending, rngs, game slots."""
    return (np.zeros(ST_SIZE, np.int64), np.zeros((MAX_SEATS, PS_SIZE), np.int64),
            np.zeros((MAX_SEATS, BB_SIZE), np.uint64), np.empty((MAX_CANDS, CAND_SIZE), np.int64),
            np.zeros((MAX_SEATS, 4), np.int64), np.zeros((MAX_SEATS, RNG_WORDS), np.uint64),
            np.zeros(MAX_SEATS, np.int64))


@njit(cache=True, inline="always")
def _play_block(game_fn, b, line, run, out, scratch, guest):
    """Play the games of block b on one thread's scratch arrays with game_fn (sim.engine.play, or
    its address): line (strats, kinds, params, tab) and the slots' seats (slots, rotate), run
    (root, first, players, max_rolls), out (games, seats, dice_start, dice_log, log_start, log) as
    play_games' arguments; `guest`: None, or sim.guard's room for watching user strategies."""
    strats, kinds, params, tab, slots, rotate = line
    root, first, players, max_rolls = run
    games, seats, dice_start, dice_log, log_start, log = out
    st, ps, bb, cands, pending, rngs, game_slots = scratch
    for g in range(b * BLOCK, min(games.shape[0], (b + 1) * BLOCK)):
        number = first + g
        for s in range(players):
            game_slots[s] = slots[seat_slot(s, number, players, rotate)]
        game_fn((strats, kinds, params, tab), game_slots, root, number, players, max_rolls,
                (st, ps, bb, cands, pending, rngs, games[g]),
                (dice_log[dice_start[g]:dice_start[g + 1]], log[log_start[g]:log_start[g + 1]]), guest)
        # Element by element: an array assigned to a slice compiles Numba's shape-mismatch error,
        # with the string formatting it needs (about 2 s of a cold start, docs/performance.md).
        for s in range(players):
            for f in range(PS_SIZE):
                seats[g, s, f] = ps[s, f]


# No parallel=True: a parallel kernel compiles its loop body apart, with a copy of all it calls,
# optimised again in the body and its wrapper (docs/performance.md, "Compile time"). Each of
# Numba's threads runs the kernel once instead (sim.threads.on_each_thread), claiming blocks of
# BLOCK games from a shared counter (an atomic add) until none is left. nogil: the threads run at
# once, and the runner plays the next chunk on a worker thread while it writes this one.
# Compiled for its one signature on first use (_blocks), not at import: a game of play imports
# this module and plays no batch.
@njit(cache=True, nogil=True)
def _play_blocks(claimed, game_fn, line, run, out):
    """One thread's share of play_games: blocks claimed from `claimed` until none is left, each
    game played by `game_fn` (sim.engine.play, compiled apart); line, run and out as _play_block's."""
    strats, kinds, params, tab, slots, rotate = line
    games, seats, dice_start, dice_log, log_start, log = out
    # Uncounted views (sim.nbinternals) of the caller's arrays: each game's rows are views of them,
    # which would count references (an atomic add and subtract each, per game) where a
    # parallel=True kernel's loop body gets its arrays without counts.
    games, seats, slots = uncounted(games), uncounted(seats), uncounted(slots)
    dice_start, dice_log = uncounted(dice_start), uncounted(dice_log)
    log_start, log = uncounted(log_start), uncounted(log)
    n_blocks = (games.shape[0] + BLOCK - 1) // BLOCK
    b = _fetch_add(claimed, 1)
    if b >= n_blocks:
        return
    scratch = _scratch()
    # Private copies: reference counts of shared arrays would bounce between cores.
    tab_b, params_b, kinds_b = copy_tables(tab), params.copy(), kinds.copy()
    while b < n_blocks:
        _play_block(game_fn, b, (strats, kinds_b, params_b, tab_b, slots, rotate), run,
                    (games, seats, dice_start, dice_log, log_start, log), scratch, None)
        b = _fetch_add(claimed, 1)


@njit(cache=True, nogil=True)
def _play_blocks_watched(claimed, line, run, out):
    """_play_blocks for a lineup with a user's strategy, which is watched (sim.guard).

    kinds[MAX_SEATS + i], if given, is the length of slot i's parameters (the
    rest of its row in params is padding).
    """
    strats, kinds, params, tab, slots, rotate = line
    games, seats, dice_start, dice_log, log_start, log = out
    games, seats, slots = uncounted(games), uncounted(seats), uncounted(slots)
    dice_start, dice_log = uncounted(dice_start), uncounted(dice_log)
    log_start, log = uncounted(log_start), uncounted(log)
    n = games.shape[0]
    n_blocks = (n + BLOCK - 1) // BLOCK
    b = _fetch_add(claimed, 1)
    if b >= n_blocks:
        return
    scratch = _scratch()
    tab_b, params_b, kinds_b = copy_tables(tab), params.copy(), kinds.copy()
    guest = guest_arrays(kinds_b, params_b, tab_b)
    while b < n_blocks:
        _play_block(play, b, (strats, kinds_b, params_b, tab_b, slots, rotate), run,
                    (games, seats, dice_start, dice_log, log_start, log), scratch, guest)
        # The tables and parameters a user's strategy reads are its private copies, and
        # comparing them after every game would cost more than the game: once a block.
        # Every game of the block is marked; sim.runs.api.play_chunk finds the one that wrote.
        wrote = any_copy_written(guest, kinds_b, tab_b, params_b)
        if wrote >= 0:
            for g in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
                if games[g, GR_ERROR] == 0:
                    games[g, GR_ERROR] = ERR_WRITE_SEEN_LATE
                    games[g, GR_ERR_VALUE] = wrote
        b = _fetch_add(claimed, 1)


@njit(cache=True)
def play_alone_watched(line, run, out):
    """Game `first` alone (games and seats have one row), played as watched_batch() plays it;
    returns sim.guard's saved arguments of its last watched decision (its saved ints and
    bitboards: sim.guard.saved_decision), which is the failing one of a game that ended in an error.
    line, run and out as _play_block's."""
    strats, kinds, params, tab, slots, rotate = line
    scratch = _scratch()
    tab_b, params_b, kinds_b = copy_tables(tab), params.copy(), kinds.copy()
    guest = guest_arrays(kinds_b, params_b, tab_b)
    _play_block(play, 0, (strats, kinds_b, params_b, tab_b, slots, rotate), run, out, scratch, guest)
    return guest[0], guest[1]


def play_games(strats, kinds, params, slots, rotate, tab, root, first, players, max_rolls, games, seats,
               dice_start, dice_log, log_start, log):
    """Play games first .. first+len(games)-1 on Numba's threads; games[g] gets gres, seats[g]
    the players' ps rows.

    Seat s is played by strategy slot slots[seat_slot(s, game, players, rotate)] (sim.state):
    with `rotate` every strategy sits in every seat equally often.
    Slot i is strats[i] run as kinds[i] (sim.players.PLAYER_*: the reference
    players inline, others through the function value). A lineup with a user's
    strategy (PLAYER_GUARDED) is played by the function watched_batch() returns, same arguments.

    Game g logs its dice to dice_log[dice_start[g]:dice_start[g+1]] and its
    decisions to log[log_start[g]:log_start[g+1]]; all-zero offsets mean no
    log. The caller sizes the log from a first, unlogged pass: games are
    deterministic, so the second pass plays the same rolls.

    The game (sim.engine.play, compiled for PLAY_SIG on first use) is called through its
    address, not compiled into the kernel: a kernel's compiled code carries a copy of everything
    it calls, which LLVM optimises again. One indirect call per game costs nothing measurable.
    """
    on_each_thread(_blocks(), np.zeros(1, np.int64), compiled_for(play, PLAY_SIG),
                   *_grouped(strats, kinds, params, slots, rotate, tab, root, first, players, max_rolls, games, seats,
                             dice_start, dice_log, log_start, log))


def _blocks():
    """_play_blocks, compiled for play_games's arguments (or loaded from the cache), and only for them."""
    if not JIT_DISABLED and not _play_blocks.signatures:
        _play_blocks.compile(types.void(types.int64[::1], PlayFn, *BATCH_SIG.args))
        _play_blocks.disable_compile()
    return _play_blocks


def _play_batch_watched(*args):
    on_each_thread(_play_blocks_watched, np.zeros(1, np.int64), *_grouped(*args))


def _play_alone_watched(*args):
    return play_alone_watched(*_grouped(*args))


def alone_watched():
    """play_alone_watched, compiled for play_games's arguments on first use (an error's path); it
    takes them as play_games does."""
    if not JIT_DISABLED and not play_alone_watched.signatures:
        play_alone_watched.compile(types.Tuple((types.int64[::1], types.uint64[::1]))(*BATCH_SIG.args))
        play_alone_watched.disable_compile()
    return _play_alone_watched


def watched_batch():
    """play_games for a lineup with a user's strategy (same arguments); its kernel compiled for
    play_games's signature (or loaded from the cache) on first use."""
    if not JIT_DISABLED and not _play_blocks_watched.signatures:
        _play_blocks_watched.compile((types.int64[::1], *BATCH_SIG.args))
        # Only that signature, as play_games's: strategies typed as function values, not each its own type.
        _play_blocks_watched.disable_compile()
    return _play_batch_watched
