"""Games played by batched strategies: many games stepped together, one Python call per batch.

A batched strategy (strategies.interface.batched) is a plain Python function of a batch of
observations (sim.observe's arrays, a leading axis of games) that returns one action per game.
sim.runs.api.play_chunk plays a line-up holding one here, and so does everything that plays
through it: run, compare, tune, analyse, replay.

    rows      B games in progress at once: sim.step's arrays with a leading row axis, in a Rows
    a step    _step_rows, one kernel call: each row that decided takes its action
              (sim.observe.canonical, sim.step.commit), plays its built-in seats up to its next
              decision of a batched seat (sim.step.advance) and writes that decision's
              observation into its own row of the batch arrays (sim.observe.observe_row); a
              finished game's results are kept, and its row begins the next game number
              then the batched function, once for the batch (once per batched slot if several
              decide), on the batch arrays themselves when every row decides, else on copies

Game g is game g of the root seed whatever row plays it and whatever else is in its batch: the
kernels derive everything from (seed, g), and a batched strategy decides each row from that row
alone (its contract). So the results are those of any batch size and thread count, and a
batched function that takes the choices a built-in strategy takes plays that strategy's games
exactly (tests/sim/test_batched.py). The observation arrays are allocated once and reused: a
function that keeps what it is shown copies it.
"""
from __future__ import annotations

import traceback
from collections import namedtuple
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit, typeof, types
from numba.experimental import structref

from . import engine, observe, step
from .nbinternals import JIT_DISABLED, uncounted
from .players import PLAYER_GUARDED, PLAYER_STRICT
from .state import BB_SIZE, CAND_SIZE, MAX_CANDS, MAX_SEATS, PS_SIZE, RNG_WORDS, ST_ROLL, ST_SIZE, StrategySet, seat_slot
from .tables import TablesType, build_tables
from .threads import over_threads

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
        try:
            data = _NO_DATA if b.setup is None else b.setup(sheet, players, rules)
        except Exception as e:   # noqa: BLE001 -- any error of the user's code: named in one line
            raise ValueError(_raised(r.spec, e, b.setup).replace("raised", "setup raised", 1)) from e
        out.append(BatchedSlot(b.fn, data, tuple(r.strategy.params)))
    return tuple(out)


# --- the kernels -------------------------------------------------------------------------------

#: sim.step.advance, compiled apart for its one signature and called through its address (as
#: sim.batch calls the game): the kernel's compiled code then carries no copy of the turn kernel.
AdvanceFn = types.FunctionType(step.ADVANCE_SIG)

#: What plays the games (advance, the line-up, the tables), the games in progress (sim.step's
#: arrays with a leading row axis, their strategy slots, the actions they take, the games they
#: begin next), what a step writes (the finished games' results, by game; the rows' observations)
#: and the settings (config: CF_*). One StructRef, the kernel's one argument: a Numba call types
#: and unboxes each argument in Python, which for two dozen arrays, a tuple of them and the
#: strategies' function values (looked up anew on each call) cost more than a step of 512 games.
FIELDS = ("adv", "strats", "kinds", "params", "tab", "slots", "table", "ps", "bb", "pending", "rngs", "sp", "gres",
          "dice_log", "log", "actions", "start", "finished", "games", "seats", "obs", "config")
CF_ROOT = 0         # the root seed (the uint64's bits)
CF_FIRST = 1        # the chunk's first game: games[g - first] is game g's row
CF_PLAYERS = 2
CF_MAX_ROLLS = 3
CF_SIZE = 4


@structref.register
class _RowsType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Rows(structref.StructRefProxy):
    """The games a line-up with a batched strategy has in progress, as the kernel takes them."""


structref.define_proxy(Rows, _RowsType, list(FIELDS))
if JIT_DISABLED:
    Rows = namedtuple("Rows", FIELDS)  # noqa: F811   (plain Python: the kernel reads its fields alike)


def _rows_type():
    c1, c2, c3, u3 = types.int64[::1], types.int64[:, ::1], types.int64[:, :, ::1], types.uint64[:, :, ::1]
    obs = typeof(tuple(observe.new_obs(1, 1, 1).values()))
    fields = (AdvanceFn, StrategySet, c1, types.float64[:, ::1], TablesType, c2, c2, c3, u3, c3, u3, c2, c2, c3, c3,
              c1, c1, c1, c2, c3, obs, c1)
    return _RowsType(list(zip(FIELDS, fields))), fields


@njit(cache=True)
def _pack(adv, strats, kinds, params, tab, slots, table, ps, bb, pending, rngs, sp, gres, dice_log, log, actions,
          start, finished, games, seats, obs, config):
    return Rows(adv, strats, kinds, params, tab, slots, table, ps, bb, pending, rngs, sp, gres, dice_log, log, actions,
                start, finished, games, seats, obs, config)


@njit(cache=True, nogil=True)
def _step_rows(lo, hi, b, act):
    """Rows lo..hi-1 of `b` (a Rows): a row with start[r] >= 0 begins game start[r]; with `act`, a
    row deciding (sp's SP_SEAT) takes the move of actions[r]. Either then plays on up to its next
    decision of a batched seat (sim.step.advance), whose observation goes to row r of b.obs; a game
    that ends goes to b.games and b.seats (row g - first) and its row is marked in b.finished.
    Returns the rows lo..hi-1 deciding now, or -1 - r for the first row r whose action is no legal
    one (nothing of it applied: the step is void, the caller stops)."""
    adv, strats, kinds, params, tab = b.adv, b.strats, b.kinds, b.params, b.tab
    slots, st, ps, bb, pending, rngs = uncounted(b.slots), uncounted(b.table), uncounted(b.ps), uncounted(b.bb), \
        uncounted(b.pending), uncounted(b.rngs)
    sp, gres, dice_log, log = uncounted(b.sp), uncounted(b.gres), uncounted(b.dice_log), uncounted(b.log)
    cands = np.empty((MAX_CANDS, CAND_SIZE), np.int64)   # the slice's own: slices run on several threads
    actions, start, finished, games, seats = uncounted(b.actions), uncounted(b.start), uncounted(b.finished), \
        uncounted(b.games), uncounted(b.seats)
    obs, config = observe.uncounted_obs(b.obs), b.config
    root, first, players, max_rolls = np.uint64(config[CF_ROOT]), config[CF_FIRST], config[CF_PLAYERS], \
        config[CF_MAX_ROLLS]
    logged = log.shape[1] > 0
    deciding = 0
    for r in range(lo, hi):
        finished[r] = 0
        if start[r] >= 0:
            step.begin(st[r], ps[r], bb[r], rngs[r], sp[r], gres[r], tab, root, start[r], players, max_rolls,
                       dice_log[r])
            start[r] = -1
        elif act and sp[r, step.SP_SEAT] >= 0:
            cd, nd, sub, cost = observe.canonical(st[r], ps[r], bb[r], tab, actions[r])
            if cd == observe.ILLEGAL:
                return -1 - r
            # The log counts the seat's legal choices as the game loop does (every dice pair).
            n = engine.legal_choices(st[r], ps[r], bb[r], tab, cands) if logged else 0
            step.commit(st[r], ps[r], bb[r], tab, pending[r], sp[r], gres[r], log[r], n, cd, nd, sub, cost)
        else:
            deciding += sp[r, step.SP_SEAT] >= 0   # still deciding (not acting), or no game left
            continue
        seat = adv(strats, kinds, params, slots[r], tab, st[r], ps[r], bb[r], cands, pending[r], rngs[r], sp[r],
                   gres[r], dice_log[r], log[r], None)
        if seat >= 0:
            observe.observe_row(st[r], ps[r], bb[r], tab, seat, True, r, obs)
            deciding += 1
            continue
        g = sp[r, step.SP_GAME] - first
        for f in range(gres.shape[1]):
            games[g, f] = gres[r, f]
        for s in range(players):
            for f in range(PS_SIZE):
                seats[g, s, f] = ps[r, s, f]
        finished[r] = 1
    return deciding


def _kernels():
    """(_pack, _step_rows), compiled for the one Rows type on first use (or loaded from the cache)."""
    if JIT_DISABLED:
        return Rows, _step_rows
    if not _step_rows.signatures:
        rows, fields = _rows_type()
        _pack.compile(rows(*fields))
        _step_rows.compile(types.int64(types.int64, types.int64, rows, types.boolean))
        for kernel in (_pack, _step_rows):
            kernel.disable_compile()
    return _pack, _step_rows


# --- the loop ----------------------------------------------------------------------------------

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
    n = min(count, batch or (LOGGED_BATCH if log_turns and players > 1 else BATCH))
    k = observe.n_actions(build_tables(line.sheet, line.rules)) - 1
    a = dict(slots=np.zeros((n, MAX_SEATS), np.int64), table=np.zeros((n, ST_SIZE), np.int64),
             ps=np.zeros((n, MAX_SEATS, PS_SIZE), np.int64), bb=np.zeros((n, MAX_SEATS, BB_SIZE), np.uint64),
             pending=np.zeros((n, MAX_SEATS, 4), np.int64), rngs=np.zeros((n, MAX_SEATS, RNG_WORDS), np.uint64),
             sp=np.full((n, step.SP_SIZE), -1, np.int64), gres=np.zeros((n, engine.GR_SIZE), np.int64),
             dice_log=np.zeros((n, cap if log_turns else 0, 6), np.int64),
             log=np.zeros((n, cap * players if log_turns else 0, engine.LOG_SIZE), np.int64),
             actions=np.zeros(n, np.int64),
             start=np.full(n, -1, np.int64), finished=np.zeros(n, np.int64),
             games=np.zeros((count, engine.GR_SIZE), np.int64), seats=np.zeros((count, players, PS_SIZE), np.int64),
             config=np.array([np.uint64(seed).astype(np.int64), first, players, max_rolls], np.int64))
    obs = observe.new_obs(n, players, k)
    pack, kernel = _kernels()
    b = pack(step.stepper(), tuple(line.fns), line.kinds, line.params, tab, *(a[f] for f in FIELDS[5:20]),
             tuple(obs.values()), a["config"])
    sp, start, games = a["sp"], a["start"], a["games"]
    own = [i for i in range(len(line.specs)) if line.batched[i] is not None]   # the batched slots
    rotation = getattr(seat_slot, "py_func", seat_slot)   # on NumPy arrays (as sim.runs.api's chunk slots)
    dice_parts, log_parts = [None] * count, [None] * count     # each finished game's dice and moves, by game

    def take_games(where: np.ndarray, number: int) -> None:
        """Rows `where` begin games number, number + 1, ... at the next step, seated as run seats them."""
        numbers = number + np.arange(len(where))
        start[where] = numbers
        a["slots"][where, :players] = (rotation(np.arange(players)[None, :], numbers[:, None], players, bool(rotate))
                                       if len(line.specs) > 1 else 0)

    def run(act: bool) -> int:
        """A step over every row (sim.threads: slices of rows over Numba's threads); the rows deciding."""
        found = []
        over_threads(lambda lo, hi: found.append(kernel(lo, hi, b, act)), n)
        bad = [-1 - x for x in found if x < 0]
        if bad:
            r = min(bad)
            seat = sp[r, step.SP_SEAT]
            raise error(f"batched strategy {names[a['slots'][r, seat]]!r} (seat {seat}) chose action "
                        f"{a['actions'][r]}, not a legal action, in seed {seed}, game {sp[r, step.SP_GAME]}, roll "
                        f"{a['table'][r, ST_ROLL]}: an action is 0..{k} with action_mask 1 ({k} passes)")
        return sum(found)

    take_games(np.arange(n), first)
    next_game = first + n
    act = False
    while n:
        deciding = run(act)
        done = np.flatnonzero(a["finished"])
        if done.size:
            for r in done if log_turns else ():
                g = int(sp[r, step.SP_GAME]) - first
                dice_parts[g] = a["dice_log"][r, :games[g, engine.GR_ROLLS]].copy()
                log_parts[g] = a["log"][r, :games[g, engine.GR_LOG_ROWS]].copy()
            more = min(done.size, first + count - next_game)
            if more:    # in row order: which row plays which game is the same every time
                take_games(done[:more], next_game)
                next_game += more
                deciding = run(False)    # they begin now, in this step's batch
        if deciding == 0:
            break
        act = True
        _decide(line, own, names, obs, a, deciding == n, error)
    logs = None
    if log_turns:
        dice_start = np.concatenate(([0], np.cumsum(games[:, engine.GR_ROLLS])))
        logs = (dice_start, _joined(dice_parts, (0, 6)), dice_start * players,
                _joined(log_parts, (0, engine.LOG_SIZE)))
    games[:, engine.GR_LOG_ROWS] = 0   # as play_chunk's games, from its unlogged pass
    return games, a["seats"], logs


def _decide(line, own, names, obs, a, every_row, error) -> None:
    """The batched functions' actions for the rows deciding (their observations in obs' rows), into
    a["actions"]: one call per batched slot. When every row decides and one slot decides them all,
    the function is shown the batch arrays themselves; else copies of its rows."""
    sp, actions = a["sp"], a["actions"]
    if every_row and len(own) == 1:
        groups = [(own[0], None)]
    else:
        rows = np.flatnonzero(sp[:, step.SP_SEAT] >= 0)
        decider = a["slots"][rows, sp[rows, step.SP_SEAT]]
        groups = [(i, rows[decider == i]) for i in own if (decider == i).any()]
    for i, rows in groups:
        views = obs if rows is None else {name: x[rows] for name, x in obs.items()}
        try:
            out = line.batched[i](views, line.params[i])
        except Exception as e:   # noqa: BLE001 -- any error of the user's code: named in one line
            raise error(_raised(names[i], e, line.batched[i].fn)) from e
        games = len(actions) if rows is None else len(rows)
        acts = _checked(out, games, names[i], error)
        if rows is None:
            actions[:] = acts
        else:
            actions[rows] = acts


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


def _checked(out, n: int, name: str, error) -> np.ndarray:
    """The actions `out` a batched function returned for a batch of n games; `error` (one line) for
    anything but an integer array of shape (n,). (Whether each is legal, the kernel checks.)"""
    try:
        acts = np.asarray(out)
    except Exception:   # noqa: BLE001 -- an object NumPy cannot read: named below by its type
        acts = None
    if acts is None or acts.shape != (n,) or acts.dtype.kind not in "iu":
        what = (f"{type(out).__name__}" if acts is None or acts.dtype == object else
                f"an array of shape {acts.shape} and dtype {acts.dtype}")
        raise error(f"batched strategy {name!r} returned {what} for a batch of {n} games: it must return their "
                    f"actions, an integer array of shape ({n},)")
    return acts
