"""Games played by batched strategies: many games stepped together, one Python call per batch.

A batched strategy (strategies.interface.batched) is a plain Python function of a batch of
observations (sim.observe's arrays, a leading axis of games) that returns one action per game.
sim.runs.api.play_chunk plays a line-up holding one here, and so does everything that plays
through it: run, compare, tune, analyse, replay.

    rows      B games in progress at once (sim.step's arrays with a leading row axis)
    loop      _step_rows: each row that decided takes its action (sim.observe.canonical, then
              sim.step.commit), and every row's built-in seats play (sim.step.advance) up to the
              next decision of a batched seat; a finished game's results are kept, and its row
              takes the next game number
              _observe_rows: the deciding rows' observations, packed at the top of the batch
              arrays, grouped by the batched slot that decides
              the function of each group, once, on views of its rows

Game g is game g of the root seed whatever row plays it and whatever else is in its batch: the
kernels derive everything from (seed, g), and a batched strategy decides each row from that row
alone (its contract). So the results are those of any batch size and thread count, and a
batched function that takes the choices a built-in strategy takes plays that strategy's games
exactly (tests/test_batched.py). The observation arrays are allocated once and reused: a
function that keeps what it is shown copies it.
"""
from __future__ import annotations

import traceback
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from numba import njit, types
from numba.experimental import structref

from .. import engine, observe, step
from ..nbinternals import JIT_DISABLED, uncounted
from ..players import PLAYER_GUARDED, PLAYER_STRICT
from ..state import (
    BB_SIZE, CAND_SIZE, MAX_CANDS, MAX_SEATS, PS_SIZE, RNG_WORDS, ST_ROLL, ST_SIZE, StrategySet, seat_slot,
)
from ..tables import TablesType, build_tables
from ..threads import over_threads

#: Games in progress at once: enough that a batched function's Python overhead is paid once per
#: few hundred decisions, and small enough that the observations stay in the caches.
BATCH = 512
#: ... when the move log is kept: each row then holds room for a whole game's log.
LOGGED_BATCH = 256

#: No setup hook: the function is called without a second argument.
_NO_DATA = object()


@dataclass(frozen=True)
class BatchedSlot:
    """A line-up's batched strategy as its games call it: the function, what its setup returned
    (for the line-up's sheet, players and rules), and the names of its parameters (their values
    are the line-up's params row of the slot: tune changes them there)."""
    fn: object
    data: object
    names: tuple[str, ...]

    def __call__(self, obs: dict, params: np.ndarray):
        kwargs = dict(zip(self.names, params[:len(self.names)].tolist()))
        return self.fn(obs, **kwargs) if self.data is _NO_DATA else self.fn(obs, self.data, **kwargs)


def batched_slots(resolved, sheet, players: int, rules) -> tuple | None:
    """Per strategy of `resolved` (strategies.registry.Resolved), its BatchedSlot or None; None for
    a line-up without a batched strategy. Each setup hook is called here, once."""
    if all(r.strategy.batched is None for r in resolved):
        return None
    out = []
    for r in resolved:
        b = r.strategy.batched
        if b is None:
            out.append(None)
            continue
        data = _NO_DATA if b.setup is None else b.setup(sheet, players, rules)
        out.append(BatchedSlot(b.fn, data, tuple(r.strategy.params)))
    return tuple(out)


# --- the kernels -------------------------------------------------------------------------------

_C1, _C2, _C3 = types.int64[::1], types.int64[:, ::1], types.int64[:, :, ::1]
_U3 = types.uint64[:, :, ::1]
#: sim.step.advance, compiled apart for its one signature and called through its address (as
#: sim.batch calls the game): this kernel's compiled code then carries no copy of the turn kernel.
AdvanceFn = types.FunctionType(step.ADVANCE_SIG)


# The functions _step_rows calls (advance, and the line-up's decision functions for the built-in
# seats) travel in a StructRef, made once per chunk: a function value handed to a kernel from
# Python is looked up anew on every call (a pickled signature read, a Python call: 30 us each,
# 0.3 ms for the seven), and _step_rows is called once per step of a batch.
@structref.register
class _CalleesType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Callees(structref.StructRefProxy):
    """advance and the line-up's decision functions (StrategySet), as _step_rows takes them."""


structref.define_proxy(Callees, _CalleesType, ["advance", "strats"])
CalleesType = _CalleesType([("advance", AdvanceFn), ("strats", StrategySet)])


@njit(CalleesType(AdvanceFn, StrategySet), cache=True)
def _callees(advance, strats):
    return Callees(advance, strats)


STEP_SIG = types.int64(
    types.int64, types.int64, CalleesType, _C1, types.float64[:, ::1], TablesType, _C2,
    _C2, _C3, _U3, _C3, _U3, _C2, _C2, _C3, _C3,
    _C1, _C1, types.uint64, types.int64, types.int64, types.int64, _C2, _C3, _C1)


@njit(STEP_SIG, cache=True, nogil=True)
def _step_rows(lo, hi, callees, kinds, params, tab, slots, st, ps, bb, pending, rngs, sp, gres, dice_log,
               log, actions, start, root, first, players, max_rolls, games, seats, finished):
    """Rows lo..hi-1: a row with start[r] >= 0 begins game start[r]; a row deciding (sp's SP_SEAT)
    takes the move of actions[r]; either then plays on up to its next decision of a batched seat
    (sim.step.advance). A game that ends is written to games and seats (row g - first) and its
    row marked in `finished`. Returns the first row whose action is no legal one (nothing of it
    applied), or -1: the caller checked the actions against the mask, so that is a bug."""
    st, ps, bb, pending, rngs, sp, gres = (uncounted(st), uncounted(ps), uncounted(bb), uncounted(pending),
                                           uncounted(rngs), uncounted(sp), uncounted(gres))
    dice_log, log = uncounted(dice_log), uncounted(log)
    advance, strats = callees.advance, callees.strats
    cands = np.empty((MAX_CANDS, CAND_SIZE), np.int64)
    logged = log.shape[1] > 0
    bad = -1
    for r in range(lo, hi):
        finished[r] = 0
        if start[r] >= 0:
            step.begin(st[r], ps[r], bb[r], rngs[r], sp[r], gres[r], tab, root, start[r], players, max_rolls,
                       dice_log[r])
            start[r] = -1
        elif sp[r, step.SP_SEAT] >= 0:
            cd, nd, sub, cost = observe.canonical(st[r], ps[r], bb[r], tab, actions[r])
            if cd == observe.ILLEGAL:
                if bad < 0:
                    bad = r
                continue
            # The log counts the seat's legal choices as the game loop does (every dice pair).
            n = engine.legal_choices(st[r], ps[r], bb[r], tab, cands) if logged else 0
            step.commit(st[r], ps[r], bb[r], tab, pending[r], sp[r], gres[r], log[r], n, cd, nd, sub, cost)
        else:
            continue    # no game, or its game is over and no game is left to take
        if advance(strats, kinds, params, slots[r], tab, st[r], ps[r], bb[r], cands, pending[r], rngs[r], sp[r],
                   gres[r], dice_log[r], log[r], None) < 0:
            g = sp[r, step.SP_GAME] - first
            for f in range(gres.shape[1]):
                games[g, f] = gres[r, f]
            for s in range(players):
                for f in range(PS_SIZE):
                    seats[g, s, f] = ps[r, s, f]
            finished[r] = 1
    return bad


@njit(cache=True, nogil=True)
def _observe_rows(lo, hi, order, st, ps, bb, sp, tab, obs):
    """Row j (lo <= j < hi) of the batch arrays `obs` (sim.observe's tuple): the observation of the
    seat deciding in row order[j]."""
    st, ps, bb, obs = uncounted(st), uncounted(ps), uncounted(bb), observe.uncounted_obs(obs)
    for j in range(lo, hi):
        r = order[j]
        observe.observe_row(st[r], ps[r], bb[r], tab, sp[r, step.SP_SEAT], True, j, obs)


# --- the loop ----------------------------------------------------------------------------------

class _Rows:
    """The games in progress: sim.step's arrays of `rows` games (a leading row axis), their
    strategy slots, the actions taken and the games begun at the next step, their move logs."""

    def __init__(self, rows: int, players: int, log_rolls: int):
        self.st = np.zeros((rows, ST_SIZE), np.int64)
        self.ps = np.zeros((rows, MAX_SEATS, PS_SIZE), np.int64)
        self.bb = np.zeros((rows, MAX_SEATS, BB_SIZE), np.uint64)
        self.pending = np.zeros((rows, MAX_SEATS, 4), np.int64)
        self.rngs = np.zeros((rows, MAX_SEATS, RNG_WORDS), np.uint64)
        self.sp = np.zeros((rows, step.SP_SIZE), np.int64)
        self.sp[:, step.SP_SEAT] = -1
        self.gres = np.zeros((rows, engine.GR_SIZE), np.int64)
        self.dice_log = np.zeros((rows, log_rolls, 6), np.int64)
        self.log = np.zeros((rows, log_rolls * players, engine.LOG_SIZE), np.int64)
        self.slots = np.zeros((rows, MAX_SEATS), np.int64)
        self.actions = np.zeros(rows, np.int64)
        self.start = np.full(rows, -1, np.int64)     # the game a row begins at the next step, or -1
        self.finished = np.zeros(rows, np.int64)     # 1 where the last step ended the row's game

    def step_args(self):
        return (self.slots, self.st, self.ps, self.bb, self.pending, self.rngs, self.sp, self.gres, self.dice_log,
                self.log, self.actions, self.start)


def play_batched(line, tab, seed: int, first: int, count: int, players: int, max_rolls: int, cap: int,
                 rotate: bool, log_turns: bool, error=ValueError, batch: int | None = None):
    """Games first .. first+count-1 of root seed `seed`, played by Lineup `line` (sim.runs.api), of
    which a slot is batched (line.batched): (games, seats, logs) as play_chunk's kernels fill them,
    logs (dice_start, dice, log_start, log) with `log_turns` (`cap`: the rolls a game may last),
    else None. `error` is the exception raised, with one line, for a batch of actions of the wrong
    shape or type, an illegal action, or an exception of the function. `batch`: games in progress
    at once [BATCH]."""
    names = line.labels or line.specs
    for i in range(len(line.specs)):
        if line.kinds[i] in (PLAYER_GUARDED, PLAYER_STRICT):
            raise error(f"strategy {names[i]!r} is a user's Numba strategy: it cannot play at a table with a "
                        "batched strategy (play it against the built-ins, or make it batched too)")
    games = np.zeros((count, engine.GR_SIZE), np.int64)
    seats = np.zeros((count, players, PS_SIZE), np.int64)
    dice_parts, log_parts = [], []      # each finished game's dice and moves, by game
    n_rows = min(count, batch or (LOGGED_BATCH if log_turns and players > 1 else BATCH))
    rows = _Rows(n_rows, players, cap if log_turns else 0)
    k = observe.n_actions(build_tables(line.sheet, line.rules)) - 1
    obs = observe.new_obs(n_rows, players, k)
    arrays, mask = tuple(obs.values()), obs["action_mask"]
    callees = (_plain_callees if JIT_DISABLED else _callees)(step.stepper(), line.fns)
    own = [i for i in range(len(line.specs)) if line.batched[i] is not None]   # the batched slots
    rotation = getattr(seat_slot, "py_func", seat_slot)   # on NumPy arrays (as sim.runs.api's chunk slots)

    def take_games(where: np.ndarray, number: int) -> None:
        """Rows `where` begin games number, number + 1, ... at the next step, seated as run seats them."""
        numbers = number + np.arange(len(where))
        rows.start[where] = numbers
        rows.slots[where, :players] = (rotation(np.arange(players)[None, :], numbers[:, None], players, bool(rotate))
                                       if len(line.specs) > 1 else 0)

    if log_turns:
        dice_parts, log_parts = [None] * count, [None] * count
    take_games(np.arange(n_rows), first)
    next_game = first + n_rows
    sp = rows.sp
    while n_rows:
        bad = _run(_step_rows, n_rows, callees, line.kinds, line.params, tab, *rows.step_args(), np.uint64(seed),
                   first, players, max_rolls, games, seats, rows.finished)
        if bad >= 0:
            raise AssertionError(f"an action the mask allowed is no legal move (game {sp[bad, step.SP_GAME]})")
        done = np.flatnonzero(rows.finished)
        for r in done if log_turns else ():
            g = int(sp[r, step.SP_GAME]) - first
            dice_parts[g] = rows.dice_log[r, :games[g, engine.GR_ROLLS]].copy()
            log_parts[g] = rows.log[r, :games[g, engine.GR_LOG_ROWS]].copy()
        more = min(done.size, first + count - next_game)
        if more:    # in row order: which row plays which game is the same every time
            take_games(done[:more], next_game)
            next_game += more
        deciding = np.flatnonzero(sp[:, step.SP_SEAT] >= 0)
        if deciding.size == 0:
            if (rows.start >= 0).any():
                continue    # only games to begin
            break
        if len(own) == 1:     # one batched slot decides every row
            groups, decider = own, None
        else:                 # the rows of each batched slot together, a view of the arrays each
            decider = rows.slots[deciding, sp[deciding, step.SP_SEAT]]
            order = np.argsort(decider, kind="stable")
            deciding, decider = deciding[order], decider[order]
            groups = np.unique(decider).tolist()
        n = deciding.size
        _run(_observe_rows, n, deciding, rows.st, rows.ps, rows.bb, sp, tab, arrays)
        lo = 0
        for i in groups:
            hi = n if decider is None else lo + int(np.count_nonzero(decider == i))
            views = obs if (lo, hi) == (0, n_rows) else {name: a[lo:hi] for name, a in obs.items()}
            try:
                out = line.batched[i](views, line.params[i])
            except Exception as e:   # noqa: BLE001 -- any error of the user's code: named in one line
                raise error(_raised(names[i], e, line.batched[i].fn)) from e
            rows.actions[deciding[lo:hi]] = _checked(out, k, mask[lo:hi], deciding[lo:hi], names[i], sp, rows.st,
                                                     seed, error)
            lo = hi
    logs = None
    if log_turns:
        dice_start = np.concatenate(([0], np.cumsum(games[:, engine.GR_ROLLS])))
        logs = (dice_start, _joined(dice_parts, (0, 6)), dice_start * players,
                _joined(log_parts, (0, engine.LOG_SIZE)))
    games[:, engine.GR_LOG_ROWS] = 0   # as play_chunk's games, from its unlogged pass
    return games, seats, logs


def _plain_callees(advance, strats):
    """Callees in plain Python (NUMBA_DISABLE_JIT), whose StructRef constructor is compiled code."""
    return SimpleNamespace(advance=advance, strats=strats)


def _run(kernel, items: int, *args) -> int:
    """kernel(lo, hi, *args) on slices of rows 0..items-1 over Numba's thread count (sim.threads);
    the lowest row any slice reports (_step_rows' illegal action), or -1. Each row is a game of its
    own, so the slicing changes no result."""
    found = [-1]

    def part(lo, hi, *_):
        bad = kernel(lo, hi, *args)
        if bad is not None and bad >= 0:
            found.append(bad)
    if items:
        over_threads(part, items)
    return min(b for b in found if b >= 0) if len(found) > 1 else -1


def _raised(name: str, e: Exception, fn) -> str:
    """One line for an exception a batched function raised: what, and where in the function's
    file (its innermost frame there; else the innermost of all)."""
    frames = traceback.extract_tb(e.__traceback__)
    own = getattr(getattr(fn, "__code__", None), "co_filename", None)
    where = next((f for f in reversed(frames) if f.filename == own), frames[-1] if frames else None)
    at = f" at {Path(where.filename).name}:{where.lineno}" if where else ""
    text = str(e).strip().splitlines()
    return f"batched strategy {name!r} raised {type(e).__name__}{at}" + (f": {text[0]}" if text else "")


def _joined(parts, empty_shape) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(empty_shape, np.int64)


def _checked(out, k: int, mask: np.ndarray, rows: np.ndarray, name: str, sp, st, seed: int, error):
    """The actions `out` a batched function returned for the games of `rows` (their masks `mask`),
    as int64; `error` (one line) for anything but an integer array of one action per game, or an
    action that is not legal."""
    n = len(rows)
    try:
        acts = np.asarray(out)
    except Exception:   # noqa: BLE001 -- an object NumPy cannot read: named below by its type
        acts = None
    if acts is None or acts.shape != (n,) or acts.dtype.kind not in "iu":
        what = (f"{type(out).__name__}" if acts is None or acts.dtype == object else
                f"an array of shape {acts.shape} and dtype {acts.dtype}")
        raise error(f"batched strategy {name!r} returned {what} for a batch of {n} games: it must return their "
                    f"actions, an integer array of shape ({n},)")
    acts = acts.astype(np.int64, copy=False)
    legal = (acts >= 0) & (acts <= k)
    legal[legal] = mask[np.flatnonzero(legal), acts[legal]] == 1
    if not legal.all():
        j = int(np.argmin(legal))
        r = rows[j]
        raise error(f"batched strategy {name!r} (seat {sp[r, step.SP_SEAT]}) chose action {int(acts[j])}, not a "
                    f"legal action, in seed {seed}, game {sp[r, step.SP_GAME]}, roll {st[r, ST_ROLL]}: an action is "
                    f"0..{k} with action_mask 1 ({k} passes)")
    return acts
