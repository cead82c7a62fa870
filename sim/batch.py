"""Many games in one call, spread over Numba threads.

Game g of a batch is game number ``first + g`` of the root seed: the kernel
derives everything from (root, game number), so the rows are identical for
any thread count or split into batches. Results are written per game into
preallocated arrays and never reduced inside the parallel loop.
"""
import numpy as np
from numba import njit, prange, types

from .engine import GR_SIZE, LOG_SIZE, play
from .state import CAND_SIZE, MAX_CANDS, MAX_SEATS, PS_SIZE, StrategySet, new_state
from .tables import TablesType

#: Games one thread plays between allocations of its scratch arrays.
BLOCK = 64
RNG_WORDS = 4

BATCH_SIG = types.void(
    StrategySet, types.float64[:, :], types.int64[:], types.boolean, TablesType, types.uint64,
    types.int64, types.int64, types.int64, types.int64[:, :], types.int64[:, :, :],
)


@njit(BATCH_SIG, cache=True, parallel=True)
def play_batch(strats, params, slots, rotate, tab, root, first, players, max_rolls, games, seats):
    """Play games first .. first+len(games)-1; games[g] gets gres, seats[g] the ps rows.

    Seat s is played by strategy slot slots[s], or with `rotate` by
    slots[(s + game) % players], so every strategy sits in every seat equally often.
    """
    n = games.shape[0]
    n_blocks = (n + BLOCK - 1) // BLOCK
    for b in prange(n_blocks):
        st = np.zeros(18, np.int64)
        ps = np.zeros((MAX_SEATS, PS_SIZE), np.int64)
        bb = np.zeros((MAX_SEATS, 16), np.uint64)
        cands = np.empty((MAX_CANDS, CAND_SIZE), np.int64)
        pending = np.zeros((MAX_SEATS, 4), np.int64)
        rngs = np.zeros((MAX_SEATS, RNG_WORDS), np.uint64)
        game_slots = np.zeros(MAX_SEATS, np.int64)
        no_dice = np.zeros((0, 6), np.int64)
        no_log = np.zeros((0, LOG_SIZE), np.int64)
        for g in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            number = first + g
            for s in range(players):
                game_slots[s] = slots[(s + number) % players] if rotate else slots[s]
            play(strats, params, game_slots, tab, root, number, players, max_rolls,
                 st, ps, bb, cands, pending, rngs, games[g], no_dice, no_log)
            seats[g, :, :] = ps
