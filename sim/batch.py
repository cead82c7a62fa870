"""Many games in one call, spread over Numba threads.

Game g of a batch is game number ``first + g`` of the root seed: the kernel
derives everything from (root, game number), so the rows are identical for
any thread count or split into batches. Results are written per game into
preallocated arrays and never reduced inside the parallel loop.

Threads claim blocks of BLOCK games one at a time from a shared counter
(an atomic add) rather than each taking a fixed share: a thread slowed down
by anything else on its core (the runner writing the previous chunk's
Parquet files, another process) then plays fewer blocks instead of keeping
the others waiting at the end. Which thread plays a block changes nothing
in its rows.
"""
import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

from .engine import GR_ERR_VALUE, GR_ERROR, play
from .guard import ERR_WRITE_SEEN_LATE, any_copy_written, guest_arrays
from .players import PLAYER_GUARDED
from .state import BB_SIZE, CAND_SIZE, MAX_CANDS, MAX_SEATS, PS_SIZE, ST_SIZE, StrategySet
from .tables import TablesType, copy_tables

#: Games one thread plays between allocations of its scratch arrays.
BLOCK = 64
RNG_WORDS = 4

BATCH_SIG = types.void(
    StrategySet, types.int64[:], types.float64[:, :], types.int64[:], types.boolean, TablesType, types.uint64,
    types.int64, types.int64, types.int64, types.int64[:, :], types.int64[:, :, :],
    types.int64[:], types.int64[:, :], types.int64[:], types.int64[:, :],
)


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


# nogil: the runner plays the next chunk on a worker thread while it writes this one.
@njit(BATCH_SIG, cache=True, parallel=True, nogil=True)
def play_batch(strats, kinds, params, slots, rotate, tab, root, first, players, max_rolls, games, seats,
               dice_start, dice_log, log_start, log):
    """Play games first .. first+len(games)-1; games[g] gets gres, seats[g] the players' ps rows.

    Seat s is played by strategy slot slots[s], or with `rotate` by
    slots[(s + game) % players], so every strategy sits in every seat equally often.
    Slot i is strats[i] run as kinds[i] (sim.players.PLAYER_*: the reference
    players inline, others through the function value, a user's on copies of the
    game: sim.guard); kinds[MAX_SEATS + i], if given, is the length of slot i's
    parameters (the rest of its row in params is padding).

    Game g logs its dice to dice_log[dice_start[g]:dice_start[g+1]] and its
    decisions to log[log_start[g]:log_start[g+1]]; all-zero offsets mean no
    log. The caller sizes the log from a first, unlogged pass: games are
    deterministic, so the second pass plays the same rolls.
    """
    n = games.shape[0]
    n_blocks = (n + BLOCK - 1) // BLOCK
    claimed = np.zeros(1, np.int64)   # blocks handed out so far
    # prange only puts the threads to work: the first iteration a thread runs claims
    # blocks until none is left, and its later iterations find nothing to claim.
    # (numba.get_num_threads() inside the kernel would stop it from caching.)
    for _ in prange(n_blocks):
        b = _fetch_add(claimed, 1)
        if b >= n_blocks:
            continue
        st = np.zeros(ST_SIZE, np.int64)
        ps = np.zeros((MAX_SEATS, PS_SIZE), np.int64)
        bb = np.zeros((MAX_SEATS, BB_SIZE), np.uint64)
        cands = np.empty((MAX_CANDS, CAND_SIZE), np.int64)
        pending = np.zeros((MAX_SEATS, 4), np.int64)
        rngs = np.zeros((MAX_SEATS, RNG_WORDS), np.uint64)
        game_slots = np.zeros(MAX_SEATS, np.int64)
        # Private copies: reference counts of shared arrays would bounce between cores.
        tab_b = copy_tables(tab)
        params_b = params.copy()
        kinds_b = kinds.copy()
        guest = guest_arrays(kinds_b, params_b, tab_b)
        guarded = False
        for i in range(MAX_SEATS):
            guarded |= kinds_b[i] >= PLAYER_GUARDED
        while b < n_blocks:
            for g in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
                number = first + g
                for s in range(players):
                    game_slots[s] = slots[(s + number) % players] if rotate else slots[s]
                play(strats, kinds_b, params_b, game_slots, tab_b, root, number, players, max_rolls,
                     st, ps, bb, cands, pending, rngs, games[g],
                     dice_log[dice_start[g]:dice_start[g + 1]], log[log_start[g]:log_start[g + 1]], guest)
                seats[g, :, :] = ps[:players]
            if guarded:
                # The tables and parameters a user's strategy reads are its private copies, and
                # comparing them after every game would cost more than the game: once a block.
                # Every game of the block is marked; sim.api.play_chunk finds the one that wrote.
                wrote = any_copy_written(guest, kinds_b, tab_b, params_b)
                if wrote >= 0:
                    for g in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
                        if games[g, GR_ERROR] == 0:
                            games[g, GR_ERROR] = ERR_WRITE_SEEN_LATE
                            games[g, GR_ERR_VALUE] = wrote
            b = _fetch_add(claimed, 1)
