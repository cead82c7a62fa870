"""Bit tricks for uint64 bitboards, lowered straight to LLVM intrinsics.

Numba has no working ``popcount``/``ctz`` for uint64 (``np.bitwise_count`` and
``int.bit_count`` fail to type), and a hand-written loop only becomes ``popcnt``
when LLVM happens to recognise the idiom. These intrinsics always emit the
hardware instruction where the CPU has one.
"""
import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from .nbinternals import python_fallback

ONE = np.uint64(1)
ZERO = np.uint64(0)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_WORD = (1 << 64) - 1


def _word(x) -> int:
    """x's 64 bits as a Python int (a negative int64 as its two's complement, as LLVM sees it)."""
    return int(x) & _WORD


@python_fallback(lambda x: _word(x).bit_count())
@intrinsic
def _ctpop(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@python_fallback(lambda x: (_word(x) & -_word(x)).bit_length() - 1)
@intrinsic
def _cttz(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        # is_zero_undef=True: callers never pass 0 (they loop while x != 0).
        return builder.cttz(args[0], context.get_constant(types.boolean, True))

    return x(x), codegen


@njit(cache=True)
def popcount(x):
    return np.int64(_ctpop(x))


@njit(cache=True)
def ctz(x):
    """Index of the lowest set bit; undefined for 0."""
    return np.int64(_cttz(x))


@njit(cache=True)
def range_mask(lo, hi):
    """Bits lo..hi-1 of a 64-bit word (0 <= lo <= hi <= 64)."""
    if hi - lo >= 64:
        return ALL
    return ((ONE << np.uint64(hi - lo)) - ONE) << np.uint64(lo)
