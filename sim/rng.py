"""Counter-based randomness: every draw is a pure function of (root seed, game, ...).

The dice of roll r of game g depend on (root seed, g, r) only: not on the
thread, the chunk, the strategies or how many draws a strategy made. So two
strategies compared on the same seed see the same dice (common random
numbers), and game g can be replayed alone.

The mixer is SplitMix64's finaliser (Steele, Lea & Flood, 2014), used as a
hash of a counter. A die takes 32 bits by multiply-shift, so its bias is
below 2**-29 per face.
"""
import numpy as np
from numba import njit

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_SIX = np.uint64(6)
_SEAT_SALT = np.uint64(0xD1B54A32D192ED03)


@njit(cache=True)
def mix64(z):
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def game_key(root, game):
    """The key every draw of one game derives from."""
    return mix64(root ^ mix64(np.uint64(game) * GAMMA + GAMMA))


@njit(cache=True)
def die(key, roll, i):
    """Raw face 0..5 of die i (0..5) in roll `roll` of the game with this key.

    Two dice share one 64-bit draw, 32 bits each. The engine maps raw faces
    to colours, numbers and jokers.
    """
    w = mix64(key + np.uint64(3 * roll + (i >> 1)) * GAMMA)
    half = (w >> _S32) if i & 1 else (w & _LOW32)
    return np.int64((half * _SIX) >> _S32)


@njit(cache=True)
def seat_stream(key, seat):
    """Initial state of a seat's private stream (for strategies that randomise)."""
    return mix64(key ^ (_SEAT_SALT * np.uint64(seat + 1)))


@njit(cache=True, inline="always")
def next_u64(state):
    """Next 64 random bits of a stream held in state[0] (SplitMix64)."""
    state[0] += GAMMA
    return mix64(state[0])


@njit(cache=True, inline="always")
def below(state, n):
    """Uniform integer in [0, n) for 0 < n < 2**32 (bias below n / 2**32)."""
    return np.int64(((next_u64(state) >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True, inline="always")
def uniform(state):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
