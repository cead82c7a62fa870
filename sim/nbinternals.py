"""The Numba internals encore-sim's kernels rely on, in one place: arrays without reference counts.
(The one change to how Numba compiles, a fix of its inliner's copying, is sim/nbinline.py.)

Numba counts a reference (an atomic add, and a subtract when the copy dies) on every array
it copies: each time a function taking it is inlined, each time an array field of the
Tables StructRef is read. In the hot loops of the evaluating strategies (heuristic,
lookahead, learned) those counts cost more than the work (docs/performance.md). The helpers
here hand out arrays with no meminfo, so the compiler has nothing to count:

    stack_f64(n), stack_u64(n), stack_i64(n)   scratch in the calling function's stack frame
    uncounted(a)                               a view of a without its reference count
    borrow(tab, "field")                       tab.field without its reference count
    at(a, i)                                   a[i] without the wraparound of a negative index
    as_any(a)                                  uncounted(a), typed as a strategy's views are

Numba's public extension API (`intrinsic`, the data model's `make_array`) cannot build
them alone; they also use three internals, imported below and nowhere else:
`numba.np.arrayobj.populate_array`, `numba.experimental.structref._Utils` and
`numba.core.cgutils.get_null_value`. pyproject.toml caps numba at the releases tested with
them. Importing this module never fails: if a Numba release renames one of them, compiling
a function that uses the helper needing it raises NumbaInternalsError, naming the internal
and the Numba version. Only the strategies that use these helpers (heuristic, lookahead,
learned, and users' strategies through strategies.kit) fail then; the engine, `random` and
`greedy` do not use them.

Under NUMBA_DISABLE_JIT=1 (`encore-sim --python`: every @njit function is its plain Python
function) an intrinsic cannot run; each helper here, and every other intrinsic of the project
(python_fallback), is then the plain Python code that does what it compiles to. `argsort` sorts
as the compiled np.argsort does in both modes, with Numba's own quicksort in plain Python
(`numba.misc.quicksort`, `numba.np.numpy_support.lt_floats`, imported only then).

A stack array lives as long as the frame of the function whose code it is created in. Create
it in the function that uses it, and hand it down to callees; no function returns one (an
inline="always" function that did would leave its caller an array in a frame that, were the
function ever compiled out of line, is gone). tests/sim/test_nbinternals.py checks both.
"""
import warnings

import numba
import numpy as np
from llvmlite import ir
from numba import errors, types
from numba.extending import intrinsic


#: Numba compiles nothing in this process (NUMBA_DISABLE_JIT=1): the simulator runs as plain Python.
JIT_DISABLED = bool(numba.config.DISABLE_JIT)
if JIT_DISABLED:
    # Integers wrap around silently in compiled code; NumPy's scalars wrap too, with a warning.
    warnings.filterwarnings("ignore", r"overflow encountered in scalar", RuntimeWarning)


def compiled_for(dispatcher, sig):
    """dispatcher, compiled for `sig` once per process (or loaded from the cache), for a caller
    that takes its address (a FunctionType argument) rather than letting Numba compile it at the
    call; as it is under JIT_DISABLED, where the plain Python function is called."""
    if not JIT_DISABLED and sig.args not in dispatcher.overloads:
        dispatcher.compile(sig)
    return dispatcher


def python_fallback(py_func):
    """Decorates an @intrinsic: with JIT_DISABLED the name is `py_func` instead, plain Python
    doing what the intrinsic compiles to (an intrinsic cannot be called from Python)."""
    def wrap(intrinsic_fn):
        return py_func if JIT_DISABLED else intrinsic_fn
    return wrap


class NumbaInternalsError(ImportError):
    """This Numba release lacks an internal that a helper of sim.nbinternals needs."""


_MISSING = {}
try:
    from numba.np.arrayobj import populate_array
except ImportError as e:
    _MISSING["numba.np.arrayobj.populate_array"] = e
try:
    from numba.experimental.structref import _Utils as StructRefUtils
except ImportError as e:
    _MISSING["numba.experimental.structref._Utils"] = e
try:
    from numba.core.cgutils import get_null_value
except ImportError as e:
    _MISSING["numba.core.cgutils.get_null_value"] = e


def _require(helper: str, *internals: str) -> None:
    missing = [name for name in internals if name in _MISSING]
    if missing:
        raise NumbaInternalsError(
            f"{helper} needs {', '.join(missing)}, which numba {numba.__version__} does not have; "
            "install a numba release that pyproject.toml allows")


def _stack_array(dtype, name):
    @python_fallback(lambda n: np.empty(n, np.dtype(str(dtype))))
    @intrinsic
    def stack_array(typingctx, n):
        _require(name, "numba.np.arrayobj.populate_array")
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
    stack_array.__name__ = stack_array.__qualname__ = name
    stack_array.__doc__ = (f"{name}(n): an uninitialised C array of n {dtype} items in the calling function's "
                           "stack frame (n a compile-time constant, e.g. a module-level int); never return it.")
    return stack_array


stack_f64 = _stack_array(types.float64, "stack_f64")
stack_u64 = _stack_array(types.uint64, "stack_u64")
stack_i64 = _stack_array(types.int64, "stack_i64")


@python_fallback(lambda ary: ary)
@intrinsic
def uncounted(typingctx, ary):
    """A view of array `ary` without reference counting (no meminfo), valid while `ary` is.

    A strategy's argument arrays live for the whole decision; handed as such views to
    inlined functions they cost nothing, where each inlined call otherwise counts a
    reference on each array argument (an atomic add, and a subtract when the call ends).
    """
    _require("uncounted", "numba.core.cgutils.get_null_value")
    if not isinstance(ary, types.Array):
        raise errors.TypingError("uncounted takes an array")

    def codegen(context, builder, sig, args):
        view = context.make_array(ary)(context, builder, value=args[0])
        view.meminfo = get_null_value(view.meminfo.type)
        return view._getvalue()
    return ary(ary), codegen


@python_fallback(lambda ary: ary)
@intrinsic
def as_any(typingctx, ary):
    """uncounted(ary) typed as layout 'A' and writable: the type of the views a strategy gets. A
    kernel compiled once and shared (learned's rank_placements, ...) is called with such views by
    the strategies; other callers hand it their arrays through this, or Numba compiles it again
    for C-contiguous or read-only arrays. Only for arrays the callee does not write when they are
    read-only (a strategy's weights). Every layout has the same data model: only the type changes."""
    _require("as_any", "numba.core.cgutils.get_null_value")
    if not isinstance(ary, types.Array):
        raise errors.TypingError("as_any takes an array")
    out = ary.copy(layout="A", readonly=False)

    def codegen(context, builder, sig, args):
        view = context.make_array(ary)(context, builder, value=args[0])
        view.meminfo = get_null_value(view.meminfo.type)
        return view._getvalue()
    return out(ary), codegen


def _python_at(ary, i):
    return ary[i]


@python_fallback(_python_at)
@intrinsic
def at(typingctx, ary, i):
    """ary[i] of a 1-d array for an index known to be in range: no wraparound of negative indices
    and no bounds check (Numba otherwise adds the wraparound: three instructions, and the shape
    held in a register, per read). Emitted in the caller's code as it is, where a function
    (inline="always") of the same read was inlined by Numba at every use: 30 reads of learned's
    successor_value made 30 copies to compile at each place it is inlined."""
    if not isinstance(ary, types.Array) or ary.ndim != 1 or not isinstance(i, types.Integer):
        raise errors.TypingError("at takes a 1-d array and an integer")

    def codegen(context, builder, sig, args):
        from numba.core import cgutils
        from numba.np.arrayobj import load_item
        view = context.make_array(ary)(context, builder, value=args[0])
        index = context.cast(builder, args[1], i, types.intp)
        ptr = cgutils.get_item_pointer2(context, builder, view.data, cgutils.unpack_tuple(builder, view.shape),
                                        cgutils.unpack_tuple(builder, view.strides), ary.layout, [index],
                                        wraparound=False, boundscheck=False)
        return load_item(context, builder, ary, ptr)
    return ary.dtype(ary, i), codegen


@python_fallback(getattr)
@intrinsic
def borrow(typingctx, struct, name):
    """borrow(tab, "mask") is tab.mask without its reference count.

    The borrowed view has no meminfo, so nothing is counted; it is valid while `struct` is
    alive and the field not reassigned, i.e. for the whole decision that received the tables.
    On the plain Tables namedtuple (tests call helpers with it) it is an ordinary field read.
    """
    if not isinstance(name, types.StringLiteral):
        raise errors.TypingError("borrow(struct, \"field\") takes a constant field name")
    field = name.literal_value
    if isinstance(struct, types.BaseNamedTuple):
        if field not in struct.fields:
            raise errors.TypingError(f"{struct} has no field {field!r}")
        index = struct.fields.index(field)

        def codegen_tuple(context, builder, sig, args):
            val = builder.extract_value(args[0], index)
            context.nrt.incref(builder, sig.return_type, val)
            return val
        return struct.types[index](struct, name), codegen_tuple
    _require("borrow", "numba.experimental.structref._Utils", "numba.core.cgutils.get_null_value")
    fty = struct.field_dict.get(field) if isinstance(struct, types.StructRef) else None
    if not isinstance(fty, types.Array):
        raise errors.TypingError(f"{struct} has no array field {field!r}")

    def codegen(context, builder, sig, args):
        data = StructRefUtils(context, builder, sig.args[0]).get_data_struct(args[0])
        ary = context.make_array(fty)(context, builder, value=getattr(data, field))
        ary.meminfo = get_null_value(ary.meminfo.type)
        return ary._getvalue()
    return fty(struct, name), codegen


if JIT_DISABLED:
    from numba.misc.quicksort import make_py_quicksort
    from numba.np.numpy_support import lt_floats

    #: np.argsort as Numba compiles it (below), in plain Python.
    argsort = make_py_quicksort(lt=lt_floats, is_argsort=True, is_np_array=True).run_quicksort
else:
    @numba.njit(cache=True, inline="always")
    def argsort(a):
        """np.argsort(a) of a float array, equal values in the order Numba's own quicksort leaves
        them, in compiled and plain Python code alike (NumPy's quicksort orders them otherwise)."""
        return np.argsort(a)


#: The start of the module name a user's strategy file is loaded under (strategies.registry).
USER_MODULE_PREFIX = "encore_user_"


def key_cache_by(folder_of) -> None:
    """Cache compiled functions where `folder_of(py_file)` says: a folder whose name holds the
    version of everything that function's machine code depends on (sim.numba_cache), or None to
    leave the file to Numba's own locators.

    Numba stamps a cached function with the time and size of its own file only, so a kernel that
    inlines another file's function or freezes its constants would go on running stale code. A
    folder keyed by content cannot go stale, and the stamp is that key too: a fresh clone whose
    files have new times reuses the compiled code. Uses `numba.core.caching._CacheLocator` and
    `CacheImpl._locator_classes` (both in every release pyproject.toml allows); without them the
    cache falls back to Numba's own locators under numba.config.CACHE_DIR.
    """
    try:
        from numba.core.caching import CacheImpl, _CacheLocator
    except ImportError:
        return

    class KeyedLocator(_CacheLocator):
        def __init__(self, py_func, folder):
            self._lineno = py_func.__code__.co_firstlineno
            self._folder = folder
            # Cached code is loaded back by importing its function's module by name. A user's
            # file gets a module name of its own per path (strategies.registry) while its folder
            # is keyed by content: a copy of the file elsewhere must not find the first one's
            # entry, whose module it cannot import.
            module = py_func.__module__ or ""
            self._module = module if module.startswith(USER_MODULE_PREFIX) else ""

        def get_cache_path(self):
            return self._folder

        def get_source_stamp(self):
            return self._folder

        def get_disambiguator(self):
            return f"{self._lineno}-{self._module}" if self._module else str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            folder = folder_of(py_file)
            if folder is None:
                return None
            self = cls(py_func, folder)
            try:
                self.ensure_cache_path()
            except OSError:
                return None
            return self

    CacheImpl._locator_classes = [KeyedLocator] + [
        c for c in CacheImpl._locator_classes if c.__name__ != "KeyedLocator"]
