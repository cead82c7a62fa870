"""Keeping a user's strategy from changing the game it plays.

A strategy receives the game as arrays (sim.state), and a Numba function can
write any array it is given. The built-in strategies are the project's own
code, read-only by construction and tested to be (tests/sim/test_guard.py), so the
engine hands them its arrays and checks nothing. A user's strategy
(sim.players.PLAYER_GUARDED) is watched instead:

- st, ps, bb and its candidates (the rows of the seats at the table) are
  saved before each decision and compared after it (about 100 words, plus
  four per candidate). A difference ends the game at once with ERR_WRITE and
  the array's code (WROTE_*), before the engine reads anything: the run stops
  and nothing of the chunk is kept. The rows of empty seats must still be zero
  when the game ends.
- the tables and its parameters are large (about 7,000 words; a strategy's
  data can be 200,000) and the same all run long, so user strategies get
  private copies (per thread), which the engine never reads, compared with
  the engine's after every block of games (sim.batch): a game costs less than
  comparing them. The games of a block where they changed are marked
  ERR_WRITE_SEEN_LATE, and sim.runs.api.play_chunk replays them alone with
  PLAYER_STRICT, which compares everything after every decision, to name the
  game, the roll and the seat.

Lineups with a user's strategy are played by their own kernel
(sim.batch.watched_batch, compiled the first time one plays), so the
built-ins' kernel and its cold start are what they were. Watching costs a
user's strategy about 0.4 µs per decision (docs/performance.md).

Numba does not check array bounds, so a user's strategy indexing out of range
would read or write memory it does not own. It is compiled with Numba's bounds
checking (unless the run says `unchecked`: bounds_checked), and played through
a wrapper (watched) that turns any exception it raises, an IndexError above
all, into RAISED: the game stops with ERR_RAISED. Numba's IndexError says
neither where nor which index, so sim.runs.api replays that game alone to the
failing decision (sim.batch.play_alone_watched, which returns the saved
arguments of it) and calls the strategy's Python function on them: Python's
traceback names the file and the line (where_it_raised).
"""
import builtins
import hashlib
import inspect
import os
import sys
import traceback
import types
import warnings

import numpy as np
from numba import njit, types as nb

from .numba_cache import GAME_PACKAGES, ROOT, cache_folder
from .nbinternals import JIT_DISABLED, USER_MODULE_PREFIX
from .players import PLAYER_GUARDED, PLAYER_STRICT
from .state import BB_SIZE, CAND_SIZE, DECIDE_SIG, MAX_CANDS, MAX_SEATS, PS_SIZE, RNG_WORDS, ST_SIZE
from .suggest import did_you_mean
from .tables import TablesType, copy_tables

# --- gres[GR_ERROR] (sim.engine) -----------------------------------------------
ERR_INDEX = 1            # returned something that is not a candidate index or -1
ERR_WRITE = 2            # wrote to an argument; gres[GR_ERR_VALUE] says which (WROTE_*)
ERR_WRITE_SEEN_LATE = 3  # a write found after its game or block of games: roll not known yet
ERR_RAISED = 4           # raised an exception (an index out of range, with bounds checking)

#: What a watched strategy "returns" when it raised: no candidate index is this low.
RAISED = np.iinfo(np.int64).min

# --- which argument it wrote ----------------------------------------------------
WROTE_ST = 0
WROTE_PS = 1
WROTE_BB = 2
WROTE_CANDS = 3
WROTE_TABLES = 4
WROTE_PARAMS = 5
#: How an error message names each (index: WROTE_*).
WROTE_NAMES = ("st (the table and dice)", "ps (the seats' counters)", "bb (the sheets)",
               "cands (its legal choices)", "tables (the sheet's tables)", "params (its parameters)")


@njit(cache=True)
def param_lengths(kinds, params):
    """Each slot's own parameter count: kinds[MAX_SEATS + slot] when given (sim.runs.api.lineup), else
    the whole row (a caller that passes only the kinds, such as table training)."""
    out = np.full(MAX_SEATS, params.shape[1], np.int64)
    if kinds.shape[0] >= 2 * MAX_SEATS:
        for i in range(MAX_SEATS):
            out[i] = min(kinds[MAX_SEATS + i], params.shape[1])
    return out


# Four objects, not one per array: Numba counts a reference to each object passed into the
# game function, once per game, and a dozen cost the built-ins 10% of their speed although
# they never use them.
_PS_AT = ST_SIZE
_CANDS_AT = _PS_AT + MAX_SEATS * PS_SIZE
_PLEN_AT = _CANDS_AT + MAX_CANDS * CAND_SIZE
_N_AT = _PLEN_AT + MAX_SEATS
_INTS = _N_AT + 1
_RNG_AT = MAX_SEATS * BB_SIZE     # in the saved bitboards' array, after them
_BITS = _RNG_AT + RNG_WORDS


#: guest_arrays' type: what a kernel that may play a user's strategy takes for watching it.
GuestType = nb.Tuple((nb.int64[::1], nb.uint64[::1], nb.float64[:, ::1], TablesType))


@njit(cache=True)
def guest_arrays(kinds, params, tab):
    """One thread's room for guarding user strategies: (saved ints, saved bitboards, parameters, tables).

    The saved ints are st, ps and the candidates as they were before a decision, then each
    slot's parameter count, then the number of candidates; the saved bitboards are bb, then
    the deciding seat's random stream. A guarded slot's parameter row is its own parameters, then zeros
    to the longest guarded row. The tables are one private copy that every guarded slot reads
    (when none is guarded, the engine's: nothing is copied).
    """
    ints, bits, gparams, guarded = _room(kinds, params, param_lengths(kinds, params))
    return ints, bits, gparams, copy_tables(tab) if guarded else tab


@njit(cache=True, inline="always")
def _room(kinds, params, plen):
    """guest_arrays but for the tables, and whether a slot is guarded (the tables are then copied).
    Plain Python too (guest_of)."""
    # Loops rather than slice assignments: they compile in a fraction of the time.
    ints = np.zeros(_INTS, np.int64)
    width = 1   # as in the engine's rows, padded with zeros: no strategy gets an empty row
    guarded = False
    for i in range(MAX_SEATS):
        ints[_PLEN_AT + i] = plen[i]
        if kinds[i] >= PLAYER_GUARDED:
            width = max(width, plen[i])
            guarded = True
    gparams = np.zeros((MAX_SEATS, width))
    for i in range(MAX_SEATS):
        if kinds[i] >= PLAYER_GUARDED:
            for j in range(plen[i]):
                gparams[i, j] = params[i, j]
    return ints, np.zeros(_BITS, np.uint64), gparams, guarded


def user_seated(kinds) -> bool:
    """Whether a slot of the line-up's `kinds` is a user's strategy (PLAYER_GUARDED, PLAYER_STRICT),
    which is watched (decide_guarded); a seat decided outside (PLAYER_EXTERNAL) is not."""
    kinds = np.asarray(kinds)[:MAX_SEATS]
    return bool(((kinds >= PLAYER_GUARDED) & (kinds <= PLAYER_STRICT)).any())


def guest_of(kinds, params, tab):
    """guest_arrays(kinds, params, tab) for a caller in Python. Where no slot is a user's strategy
    it is made here in plain Python, with the engine's tables, which nobody watched reads
    (guest_arrays copies them for a seat decided outside too): a line-up of built-ins and outside
    seats then compiles none of guest_arrays."""
    if user_seated(kinds):
        return guest_arrays(kinds, params, tab)
    plain = getattr(_room, "py_func", _room)
    ints, bits, gparams, _ = plain(kinds, params, getattr(param_lengths, "py_func", param_lengths)(kinds, params))
    return ints, bits, gparams, tab


@njit(cache=True, inline="always")
def _same_1d(a, b, n):
    for i in range(n):
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True)
def _same_array(a, b):
    x, y = a.ravel(), b.ravel()
    return _same_1d(x, y, x.size)


@njit(cache=True)
def same_tables(a, b):
    """True if two KernelTables hold the same values (every field of sim.tables.Tables)."""
    return (_same_array(a.mask, b.mask) and _same_array(a.nb, b.nb) and _same_array(a.colour, b.colour)
            and _same_array(a.size, b.size) and _same_array(a.block, b.block) and _same_array(a.stars, b.stars)
            and _same_array(a.gstart, b.gstart) and _same_array(a.kill, b.kill) and _same_array(a.act, b.act)
            and _same_array(a.all_subsets, b.all_subsets) and _same_array(a.start_touch, b.start_touch)
            and _same_array(a.colour_mask, b.colour_mask) and _same_array(a.block_mask, b.block_mask)
            and _same_array(a.star_mask, b.star_mask) and _same_array(a.board_mask, b.board_mask)
            and _same_array(a.col_first, b.col_first) and _same_array(a.col_later, b.col_later)
            and _same_array(a.box_row, b.box_row) and _same_array(a.gword, b.gword)
            and _same_array(a.gmask, b.gmask) and _same_array(a.act_count, b.act_count)
            and _same_array(a.rules, b.rules))


@njit(cache=True, inline="always")
def _save(flat, at, a, rows):
    for i in range(rows):
        for j in range(a.shape[1]):
            flat[at] = a[i, j]
            at += 1


@njit(cache=True, inline="always")
def _same(flat, at, a, rows):
    for i in range(rows):
        for j in range(a.shape[1]):
            if flat[at] != a[i, j]:
                return False
            at += 1
    return True


assert CAND_SIZE == 4, "_save_cands and _same_cands are written out for four columns"


# The candidates are most of what is saved and compared (4 words each, 20-60 of them): written
# out per row, without an early exit, the loops take half the time of _save and _same's.
@njit(cache=True, inline="always")
def _save_cands(flat, at, cands, n):
    for i in range(n):
        flat[at + 4 * i] = cands[i, 0]
        flat[at + 4 * i + 1] = cands[i, 1]
        flat[at + 4 * i + 2] = cands[i, 2]
        flat[at + 4 * i + 3] = cands[i, 3]


@njit(cache=True, inline="always")
def _same_cands(flat, at, cands, n):
    diff = 0
    for i in range(n):
        diff |= ((flat[at + 4 * i] ^ cands[i, 0]) | (flat[at + 4 * i + 1] ^ cands[i, 1])
                 | (flat[at + 4 * i + 2] ^ cands[i, 2]) | (flat[at + 4 * i + 3] ^ cands[i, 3]))
    return diff == 0


@njit(cache=True, inline="always")
def _zero_rows(a, first):
    for i in range(first, a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] != 0:
                return False
    return True


@njit(cache=True, inline="always")
def empty_seats_written(ps, bb, players):
    """WROTE_PS or WROTE_BB if a row of an empty seat is not zero (as the game started), else -1."""
    if not _zero_rows(ps, players):
        return WROTE_PS
    if not _zero_rows(bb, players):
        return WROTE_BB
    return -1


@njit(cache=True)
def copies_written(guest, slot, tab, params):
    """WROTE_TABLES or WROTE_PARAMS if the private copies slot reads differ from the engine's, else -1."""
    ints, _, gparams, gtab = guest
    if not same_tables(gtab, tab):
        return WROTE_TABLES
    row, n = gparams[slot], ints[_PLEN_AT + slot]
    if not _same_1d(row, params[slot], n):
        return WROTE_PARAMS
    for i in range(n, row.shape[0]):
        if row[i] != 0.0:
            return WROTE_PARAMS
    return -1


@njit(cache=True)
def any_copy_written(guest, kinds, tab, params):
    """copies_written for the first guarded slot whose copies differ, or -1 (run after a block of games)."""
    for slot in range(MAX_SEATS):
        if kinds[slot] >= PLAYER_GUARDED:
            wrote = copies_written(guest, slot, tab, params)
            if wrote >= 0:
                return wrote
    return -1


@njit(cache=True, inline="always")
def guarded_call(fn, kind, slot, players, shown, tab, params, guest):
    """(the strategy's answer, WROTE_* of the first argument it changed, or -1).

    shown is what the strategy is shown of the game, (st, ps, bb, cands, n, rng): st, ps, bb and
    the candidates (the rows of the seats at the table) are saved before and compared after: a
    change ends the game before the engine reads anything, so a write never reaches a result.
    The tables and parameters it gets are its private copies (guest's), tab and params the
    originals they are checked against.
    """
    st, ps, bb, cands, n, rng = shown
    ints, bits, gparams, gtab = guest
    for i in range(st.shape[0]):
        ints[i] = st[i]
    _save(ints, _PS_AT, ps, players)
    _save(bits, 0, bb, players)
    _save_cands(ints, _CANDS_AT, cands, n)
    ints[_N_AT] = n
    for i in range(rng.shape[0]):   # what a strategy that raises drew from (sim.runs.api replays it)
        bits[_RNG_AT + i] = rng[i]
    k = fn(st, ps, bb, cands, n, gtab, gparams[slot], rng)
    if not _same_1d(ints, st, st.shape[0]):
        return k, WROTE_ST
    if not _same(ints, _PS_AT, ps, players):
        return k, WROTE_PS
    if not _same(bits, 0, bb, players):
        return k, WROTE_BB
    if not _same_cands(ints, _CANDS_AT, cands, n):
        return k, WROTE_CANDS
    if kind == PLAYER_STRICT:
        wrote = empty_seats_written(ps, bb, players)
        return k, wrote if wrote >= 0 else copies_written(guest, slot, tab, params)
    return k, -1


# --- bounds checking and exceptions ----------------------------------------------

def _cache_folder_of(py_func) -> str | None:
    try:
        return cache_folder(inspect.getfile(py_func))
    except TypeError:   # a function with no file (typed at a prompt)
        return None


def _renamed(py_func, qualname: str, globals_=None):
    """A copy of py_func under another qualified name: Numba caches a function under its file and
    qualified name (and its bytecode), and compile options are not part of that key, so a twin
    compiled with other options needs a name of its own."""
    f = types.FunctionType(py_func.__code__, py_func.__globals__ if globals_ is None else globals_,
                           py_func.__name__, py_func.__defaults__, py_func.__closure__)
    f.__qualname__, f.__module__, f.__doc__ = qualname, py_func.__module__, py_func.__doc__
    f.__kwdefaults__ = py_func.__kwdefaults__
    return f


def bounds_checked(dispatcher):
    """A user's decision function compiled again, as its author declared it but with Numba's
    bounds checking: an index out of range raises IndexError instead of reaching other memory.
    (Functions it calls are checked where they are inlined into it, or declared so themselves.)
    Cached on disk beside the function's own compiled code, when its file can key it."""
    if JIT_DISABLED:   # a plain Python function: Python checks every index
        return dispatcher
    py_func = dispatcher.py_func
    twin = _renamed(py_func, py_func.__qualname__ + "__boundscheck")
    options = {k: v for k, v in dispatcher.targetoptions.items() if k != "nopython"}
    options["boundscheck"] = True
    return njit(cache=_cache_folder_of(twin) is not None, **options)(twin)


#: watched(): the wrapper of each user function, and the function each wrapper plays.
_WRAPPERS: dict = {}
_PLAYS: dict = {}


#: What _watching calls: each copy of it that watched() makes has globals of its own, holding its strategy.
_strategy = None


def _watching(st, ps, bb, cands, n, tab, params, rng):
    """The body of every watched() wrapper."""
    try:
        return _strategy(st, ps, bb, cands, n, tab, params, rng)
    except Exception:   # noqa: BLE001 (Numba catches no narrower class)
        return RAISED


def watched(fn):
    """The decision function a user's strategy `fn` (a dispatcher) is played through: it returns
    what fn returns, or RAISED if fn raised an exception.

    Numba calls a function value through a C wrapper that prints an exception it raises and
    returns garbage, so the run would go on with a made-up move: this wrapper calls fn
    directly, where Numba can catch the exception (it cannot say which one).

    Each wrapper is a copy of _watching whose global `_strategy` is fn, named after the version of
    fn's file (its compile-cache folder, sim.numba_cache) and fn itself, so that it is compiled
    once per version of the strategy and loaded from the cache in later processes."""
    if fn not in _WRAPPERS:
        if JIT_DISABLED:
            wrapper = _plain_decision(fn)
        else:
            folder = _cache_folder_of(fn.py_func)
            key = hashlib.sha256(repr((folder, fn.py_func.__qualname__, fn.py_func.__code__.co_firstlineno,
                                       sorted(fn.targetoptions.items()))).encode()).hexdigest()[:16]
            decision = _renamed(_watching, f"watched_{key}",
                                {"_strategy": fn, "RAISED": RAISED, "__builtins__": builtins, "__name__": __name__})
            wrapper = njit(cache=folder is not None)(decision)
            wrapper.compile(DECIDE_SIG)
            wrapper.disable_compile()
        _WRAPPERS[fn] = wrapper
        _PLAYS[wrapper] = fn
    return _WRAPPERS[fn]


def users_function(py_func):
    """The Python function of a user's strategy that compiling `py_func` compiles: the strategy a
    watched() wrapper plays, or py_func itself if it comes from a user's file (a bounds-checked
    twin keeps its file and name); None for the project's own functions."""
    module = getattr(py_func, "__module__", None) or ""
    played = py_func.__globals__.get("_strategy") if py_func is not None and module == __name__ else None
    return getattr(played, "py_func", None) or (py_func if module.startswith(USER_MODULE_PREFIX) else None)


def _plain_decision(fn):
    """watched() in plain Python (NUMBA_DISABLE_JIT), where no signature turns what fn returns
    into an int64: a return that is not an integer counts as raising (where_it_raised names it)."""
    def decision(st, ps, bb, cands, n, tab, params, rng):
        try:
            k = fn(st, ps, bb, cands, n, tab, params, rng)
        except Exception:   # noqa: BLE001 (as compiled)
            return RAISED
        return k if isinstance(k, (int, np.integer)) else RAISED
    return decision


def played_by(wrapper):
    """The user's function a watched() wrapper plays (None for any other function)."""
    return _PLAYS.get(wrapper)


def saved_decision(ints, bits, players):
    """The arguments of the last watched decision of a game, as guarded_call saved them before
    the call (the guest arrays that sim.batch.play_alone_watched returns): st, ps, bb, cands, n, rng."""
    st = ints[:ST_SIZE].copy()
    ps = np.zeros((MAX_SEATS, PS_SIZE), np.int64)
    ps[:players] = ints[_PS_AT:_PS_AT + players * PS_SIZE].reshape(players, PS_SIZE)
    bb = np.zeros((MAX_SEATS, BB_SIZE), np.uint64)
    bb[:players] = bits[:players * BB_SIZE].reshape(players, BB_SIZE)
    n = int(ints[_N_AT])
    cands = np.zeros((MAX_CANDS, CAND_SIZE), np.int64)
    cands[:n] = ints[_CANDS_AT:_CANDS_AT + n * CAND_SIZE].reshape(n, CAND_SIZE)
    return st, ps, bb, cands, n, bits[_RNG_AT:_RNG_AT + RNG_WORDS].copy()


def shown_path(path: str) -> str:
    """A file as an error message names it: relative to the working folder when inside it."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def _library(frame) -> bool:
    """Whether a frame is in the project's own modules (sim, strategies), not a user's strategy
    (loaded from its file as encore_user_*, strategies.registry) or its helpers."""
    name = frame.f_globals.get("__name__")
    if name is not None:
        return name.split(".")[0] in GAME_PACKAGES
    # The line of a compiled function, which Numba adds to the traceback of its exception, names
    # the file the function was compiled from. The cache is keyed by content (sim.numba_cache),
    # so that may be another copy of the project (a moved clone, the installed wheel): matched by
    # the module's path inside the project, not the whole path.
    return frame.f_code.co_filename.endswith(_library_files())


def _library_files() -> tuple[str, ...]:
    """The project's modules loaded now, as path endings inside the project: "/strategies/kit.py"."""
    return tuple(os.sep + os.path.relpath(module.__file__, ROOT) for m, module in list(sys.modules.items())
                 if m.split(".")[0] in GAME_PACKAGES and getattr(module, "__file__", None))


def _line(tb, frame) -> int:
    """The line `frame` of traceback `tb` was at."""
    return next(line for f, line in traceback.walk_tb(tb) if f is frame)


def exception_text(e: Exception) -> str:
    """An exception's message: a compiled function's raise with values (`raise ValueError("got
    colour", c)`) has them as several arguments, read as one line."""
    return " ".join(map(str, e.args)) if len(e.args) > 1 else str(e)


def misspelt_hint(e: Exception, namespace: dict) -> str:
    """": did you mean X?" for an AttributeError or NameError whose name is close to one that
    exists (the attributes of the object, the names of the strategy's module and builtins)."""
    name = getattr(e, "name", None)
    if not name:
        return ""
    if isinstance(e, AttributeError) and getattr(e, "obj", None) is not None:
        return did_you_mean(name, [n for n in dir(e.obj) if not n.startswith("_")])
    if isinstance(e, NameError):
        return did_you_mean(name, [*namespace, *dir(builtins)])
    return ""


def where_it_raised(fn, args) -> str:
    """What a strategy's decision function did wrong, with the file and line, found by calling
    its Python function (fn.py_func) on the arguments (saved_decision) of the decision at which
    the compiled one raised: "indexed out of range at cheat.py line 7".

    Python checks every index, as Numba with bounds checking does, so it raises at the same
    line; its traceback's last frame outside NumPy and Numba is the strategy's own code (or a
    helper of it). Should Python not raise (a helper compiled without bounds checks, arithmetic
    that differs), the line is unknown and the message says so."""
    try:
        # NumPy's scalars divide by zero with a warning where Numba raises ZeroDivisionError:
        # made an error here too. Overflow wraps around in both.
        with warnings.catch_warnings(), np.errstate(divide="raise", over="ignore", under="ignore", invalid="ignore"):
            warnings.simplefilter("ignore")
            k = getattr(fn, "py_func", fn)(*args)
    except Exception as e:   # noqa: BLE001 (whatever it raises is what it did wrong)
        # The strategy's own frames: not NumPy's or Numba's, nor the project's (the kit raising
        # on a bad argument, under NUMBA_DISABLE_JIT: the call that gave it is the user's line).
        frames = [f for f, _ in traceback.walk_tb(e.__traceback__)
                  if f.f_code.co_filename != __file__ and not _library(f)
                  and not any(part in f.f_code.co_filename
                              for part in (os.sep + "numpy" + os.sep, os.sep + "numba" + os.sep))]
        where = f" at {shown_path(frames[-1].f_code.co_filename)} line {_line(e.__traceback__, frames[-1])}" \
            if frames else ""
        if isinstance(e, IndexError):
            return f"indexed out of range{where}"
        if isinstance(e, (ZeroDivisionError, FloatingPointError)):
            return f"divided by zero{where}"
        text = exception_text(e) + misspelt_hint(e, frames[-1].f_globals if frames else {})
        return f"raised {type(e).__name__}{f' ({text})' if text else ''}{where}"
    if JIT_DISABLED and not isinstance(k, (int, np.integer)):   # see _plain_decision
        return f"returned {k} ({type(k).__name__}), not a choice index (an integer) or -1"
    return "raised an exception (an index out of range?) that its Python code does not raise, so its line is unknown"
