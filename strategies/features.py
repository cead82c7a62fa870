"""Small Numba helpers shared by the evaluating strategies (heuristic, lookahead).

Everything works on the bitboard layout of sim.tables (two uint64 words, one
byte per column, bit 8*col + row) and never modifies the state arrays.
"""
import numpy as np
from llvmlite import ir
from numba import errors, njit, types
from numba.core import cgutils
from numba.experimental.structref import _Utils
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

from sim.bits import popcount
from sim.state import COLOUR_JOKER, NUMBER_JOKER, ST_DICE

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_BYTE = np.uint64(0xFF)
_U1 = np.uint64(1)
_U8 = np.uint64(8)
_U56 = np.uint64(56)

#: Columns A..O; H is the start column.
N_COLS = 15
H_COL = 7


def _stack_array(dtype):
    """An intrinsic f(n) -> uninitialised C array of n `dtype` items in the calling function's
    stack frame (n a compile-time constant, e.g. a module-level int)."""
    @intrinsic
    def stack_array(typingctx, n):
        if not isinstance(n, types.IntegerLiteral):
            raise errors.RequireLiteralValue("the size of a stack array must be a constant")
        size = n.literal_value
        arrty = types.Array(dtype, 1, "C")

        def codegen(context, builder, sig, args):
            lty = context.get_data_type(dtype)
            intp = context.get_value_type(types.intp)
            with builder.goto_entry_block():          # a static alloca: reserved once per frame
                data = builder.alloca(lty, size=ir.Constant(intp, size))
            ary = context.make_array(arrty)(context, builder)
            itemsize = ir.Constant(intp, context.get_abi_sizeof(lty))
            populate_array(ary, data=data, shape=[ir.Constant(intp, size)], strides=[itemsize],
                           itemsize=itemsize, meminfo=None)
            return ary._getvalue()
        return arrty(n), codegen
    return stack_array


# Scratch arrays of a decision on the stack instead of the heap. Besides the allocation
# (~100 ns), a heap array costs an atomic reference count wherever Numba copies it, e.g.
# each time a function taking it is inlined (heuristic.delta: ~850 times a solo game);
# a stack array has no meminfo, so the compiler drops those counts altogether.
# The array lives as long as the frame of the function the call is compiled into:
# call these only in the function that uses the array, or in an inline="always" helper
# of it, never in one that returns the array to a caller it is not inlined into.
stack_f64 = _stack_array(types.float64)
stack_u64 = _stack_array(types.uint64)
stack_i64 = _stack_array(types.int64)


@intrinsic
def uncounted(typingctx, ary):
    """A view of array `ary` without reference counting (no meminfo), valid while `ary` is.

    A strategy's argument arrays live for the whole decision; handed as such views to
    inlined functions they cost nothing, where each inlined call otherwise counts a
    reference on each array argument (an atomic add, and a subtract when the call ends).
    """
    if not isinstance(ary, types.Array):
        raise errors.TypingError("uncounted takes an array")

    def codegen(context, builder, sig, args):
        view = context.make_array(ary)(context, builder, value=args[0])
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        return view._getvalue()
    return ary(ary), codegen


@intrinsic
def borrow(typingctx, struct, name):
    """borrow(tab, "mask") is tab.mask without its reference count.

    Reading an array field of a StructRef (the Tables) counts a reference on the array
    (an atomic add, and a subtract when it dies): ~10 ns, paid per access. The borrowed
    view has no meminfo, so nothing is counted; it is valid while `struct` is alive and
    the field not reassigned, i.e. for the whole decision that received the tables.
    """
    if not isinstance(name, types.StringLiteral):
        raise errors.TypingError("borrow(struct, \"field\") takes a constant field name")
    field = name.literal_value
    if isinstance(struct, types.BaseNamedTuple):
        # The plain Tables namedtuple (tests call helpers with it): an ordinary counted field.
        index = struct.fields.index(field)

        def codegen_tuple(context, builder, sig, args):
            val = builder.extract_value(args[0], index)
            context.nrt.incref(builder, sig.return_type, val)
            return val
        return struct.types[index](struct, name), codegen_tuple
    fty = struct.field_dict.get(field) if isinstance(struct, types.StructRef) else None
    if not isinstance(fty, types.Array):
        raise errors.TypingError(f"{struct} has no array field {field!r}")

    def codegen(context, builder, sig, args):
        data = _Utils(context, builder, sig.args[0]).get_data_struct(args[0])
        ary = context.make_array(fty)(context, builder, value=getattr(data, field))
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        return ary._getvalue()
    return fty(struct, name), codegen


@njit(types.uint64(types.uint64), cache=True, inline="always")
def byte_counts(x):
    """Popcount of every byte of x, each in its own byte (SWAR)."""
    x = x - ((x >> _U1) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    return (x + (x >> np.uint64(4))) & _M4


@njit(cache=True, inline="always")
def stacked_pairs(um, lo, hi):
    """Boxes (lo, hi words) that are empty with an empty box of their colour right below.

    um[2k], um[2k+1] are colour k's masks; one move can fill both boxes of such a pair.
    """
    p0 = np.uint64(0)
    p1 = np.uint64(0)
    for k in range(5):
        u0 = um[2 * k] & ~lo
        u1 = um[2 * k + 1] & ~hi
        p0 |= u0 & (u0 >> _U1)
        p1 |= u1 & (u1 >> _U1)
    return p0, p1


@njit(types.void(types.uint64, types.uint64, types.int64[:]), cache=True)
def column_counts(lo, hi, out):
    """out[c] = crossed boxes of column c (0..7), c = 0..14."""
    a = byte_counts(lo)
    b = byte_counts(hi)
    for c in range(8):
        out[c] = np.int64((a >> np.uint64(8 * c)) & _BYTE)
    for c in range(7):
        out[8 + c] = np.int64((b >> np.uint64(8 * c)) & _BYTE)


@njit(types.UniTuple(types.uint64, 2)(types.uint64, types.uint64, types.uint64, types.uint64),
      cache=True, inline="always")
def neighbours(lo, hi, m0, m1):
    """Boxes orthogonally next to a box of (lo, hi), inside board mask (m0, m1); may include (lo, hi)."""
    a = (lo << _U1) | (lo >> _U1) | (lo << _U8) | (lo >> _U8) | (hi << _U56)
    b = (hi << _U1) | (hi >> _U1) | (hi << _U8) | (hi >> _U8) | (lo >> _U56)
    return a & m0, b & m1


@njit(cache=True)
def isolated_boxes(lo, hi, colour_mask, board_mask):
    """Empty boxes with no empty box of their colour next to them.

    Such a box can only be filled by a move of exactly 1 (a '1' or a number
    joker of its colour), so every new one makes completing its column and
    colour harder.
    """
    m0, m1 = board_mask[0], board_mask[1]
    total = 0
    for k in range(colour_mask.shape[0]):
        u0 = colour_mask[k, 0] & ~lo
        u1 = colour_mask[k, 1] & ~hi
        n0, n1 = neighbours(u0, u1, m0, m1)
        total += popcount(u0 & ~n0) + popcount(u1 & ~n1)
    return total


@njit(cache=True, inline="always")
def legal_count_after(bb, row, kill, act, sub):
    """Legal placements (any colour and number) open to seat `row` after it plays subset `sub`."""
    total = 0
    nw = kill.shape[1]
    for w in range(nw):
        total += popcount(bb[row, 2 + w] & ~kill[sub, w] & (bb[row, 2 + nw + w] | act[sub, w]))
    return total


@njit(types.int64(types.uint64[:, :], types.int64), cache=True)
def legal_count(bb, row):
    """Legal placements (any colour and number) open to seat `row` now."""
    total = 0
    nw = (bb.shape[1] - 2) // 2
    for w in range(nw):
        total += popcount(bb[row, 2 + w] & bb[row, 2 + nw + w])
    return total


@njit(types.int64(types.int64), cache=True, inline="always")
def column_span(colmask):
    """Packed (L, R): the leftmost and rightmost column with a crossed box, H always included."""
    m = colmask | (1 << H_COL)
    lo = 0
    while not (m >> lo) & 1:
        lo += 1
    hi = N_COLS - 1
    while not (m >> hi) & 1:
        hi -= 1
    return lo * 16 + hi


#: face_cost of a colour or number no die shows: more jokers than a sheet starts with.
NO_FACE = 9


@njit(cache=True, inline="always")
def face_cost(faces, joker, i):
    """Jokers a placement spends on face i of one kind of die, from dice_faces' mask and
    joker flag of that kind: 0 if a die shows i, 1 if only the joker does, else NO_FACE."""
    return 0 if (faces >> i) & 1 else (1 if joker else NO_FACE)


@njit(cache=True, inline="always")
def dice_faces(st, avail):
    """What the dice in `avail` show: bitmasks of the real colours (bit c) and numbers (bit n),
    and whether a colour joker and a number joker show. A placement of colour c and number n
    then costs face_cost(cols, cj, c) + face_cost(nums, nj, n) jokers."""
    cols = 0
    nums = 0
    cj = False
    nj = False
    for d in range(3):
        if (avail >> d) & 1:
            f = st[ST_DICE + d]
            if f == COLOUR_JOKER:
                cj = True
            elif f >= 0:
                cols |= 1 << f
        if (avail >> (3 + d)) & 1:
            f = st[ST_DICE + 3 + d]
            if f == NUMBER_JOKER:
                nj = True
            elif f > 0:
                nums |= 1 << f
    return cols, nums, cj, nj


@njit(cache=True, inline="always")
def crossed_span(a, b):
    """(left, right): the columns the crossed area spans, from the byte-wise column counts
    a (columns A..H) and b (I..O) of byte_counts; H always counts, as the area grows from it."""
    left = 7
    right = 7
    for c in range(7):
        if (a >> np.uint64(8 * c)) & _BYTE:
            left = c
            break
    for c in range(6, -1, -1):
        if (b >> np.uint64(8 * c)) & _BYTE:
            right = 8 + c
            break
    return left, right
