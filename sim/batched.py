"""Games played by batched strategies: many games stepped together, one Python call per batch.

A batched strategy (strategies.interface.batched) is a plain Python function of a batch of
observations (sim.observe's arrays, a leading axis of games) that returns one action per game.
sim.runs.api.play_chunk plays a line-up holding one here (play_stepped), and so does everything
that plays through it: run, compare, tune, analyse, replay; a game stepped one decision at a time
(sim.runs.game: es.game, the play page's opponents) asks it for one game (decide_one).

    rows      B games in progress at once: a sim.vector.Rows (the one container of stepped games),
              autoreset off, each row seated as run seats its game
    a step    sim.vector.step_range over slices of the rows on Numba's threads: each row that
              decided takes its action, plays its built-in seats up to its next decision of a
              batched seat and writes that decision's observation into its own row of the batch
              arrays; a finished game's results are kept, and its row begins the next game
              number (sim.vector.reset_range)
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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import engine, observe, step, vector
from .players import PLAYER_GUARDED, PLAYER_STRICT
from .state import MAX_SEATS, PS_SIZE, ST_ROLL, seat_slot
from .tables import build_tables
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


# --- the loop ----------------------------------------------------------------------------------

def play_stepped(line, tab, seed: int, first: int, count: int, players: int, max_rolls: int, cap: int,
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
    games = np.zeros((count, engine.GR_SIZE), np.int64)
    seats = np.zeros((count, players, PS_SIZE), np.int64)
    if n == 0:
        return games, seats, _logs(games, [], [], players) if log_turns else None
    b, a = vector.new_rows(n, line.fns, line.kinds, line.params, tab, k, players, max_rolls, root=seed,
                           slots=np.zeros((n, MAX_SEATS), np.int64), autoreset=vector.AUTORESET_DISABLED,
                           logged_rolls=cap if log_turns else 0)
    vector.compiled()
    sp, obs, actions = a["sp"], a["obs"], np.zeros(n, np.int64)
    own = [i for i in range(len(line.specs)) if line.batched[i] is not None]   # the batched slots
    rotation = getattr(seat_slot, "py_func", seat_slot)   # on NumPy arrays (as sim.runs.api's chunk slots)
    dice_parts, log_parts = [None] * count, [None] * count     # each finished game's dice and moves, by game
    kept = np.ones(n, bool)    # rows whose game's results are kept (or that have none)

    def threads(kernel, *args) -> list:
        """kernel(lo, hi, b, *args) over slices of the rows on Numba's threads (sim.threads)."""
        found = []
        over_threads(lambda lo, hi: found.append(kernel(lo, hi, b, *args)), n)
        return found

    def take_games(where: np.ndarray, number: int) -> None:
        """Rows `where` begin games number, number + 1, ..., seated as run seats them."""
        numbers = number + np.arange(len(where))
        a["slots"][where, :players] = (rotation(np.arange(players)[None, :], numbers[:, None], players, bool(rotate))
                                       if len(line.specs) > 1 else 0)
        which, starts = np.zeros(n, np.int8), np.zeros(n, np.int64)
        which[where], starts[where] = 1, numbers
        kept[where] = False
        threads(vector.reset_range, which, starts)

    def keep_finished() -> np.ndarray:
        """The rows whose game is over (or failed) and not yet kept: their results kept, by game."""
        done = np.flatnonzero((sp[:, step.SP_STATE] != step.ONGOING) & ~kept)
        g = sp[done, step.SP_GAME] - first
        games[g] = a["gres"][done]
        seats[g] = a["ps"][done, :players]
        for r, gi in zip(done if log_turns else (), g):
            dice_parts[gi] = a["dice_log"][r, :games[gi, engine.GR_ROLLS]].copy()
            log_parts[gi] = a["log"][r, :games[gi, engine.GR_LOG_ROWS]].copy()
        kept[done] = True
        return done

    take_games(np.arange(n), first)
    next_game = first + n
    while True:
        done = keep_finished()
        more = min(done.size, first + count - next_game)
        if more:    # in row order: which row plays which game is the same every time
            take_games(done[:more], next_game)
            next_game += more
            continue     # they begin now, in this step's batch (or end at once)
        deciding = int((sp[:, step.SP_SEAT] >= 0).sum())
        if deciding == 0:
            break
        _decide(line, own, names, obs, a, actions, deciding == n, error)
        bad = [x for x in threads(vector.step_range, actions) if x >= 0]
        if bad:
            r = min(bad)
            seat = sp[r, step.SP_SEAT]
            raise error(f"batched strategy {names[a['slots'][r, seat]]!r} (seat {seat}) chose action "
                        f"{actions[r]}, not a legal action, in seed {seed}, game {sp[r, step.SP_GAME]}, roll "
                        f"{a['table'][r, ST_ROLL]}: an action is 0..{k} with action_mask 1 ({k} passes)")
    games[:, engine.GR_LOG_ROWS] = 0   # as play_chunk's games, from its unlogged pass
    return games, seats, _logs(games, dice_parts, log_parts, players) if log_turns else None


def _logs(games, dice_parts, log_parts, players):
    """(dice_start, dice, log_start, log) of the games, from each one's parts."""
    dice_start = np.concatenate(([0], np.cumsum(games[:, engine.GR_ROLLS])))
    return (dice_start, _joined(dice_parts, (0, 6)), dice_start * players, _joined(log_parts, (0, engine.LOG_SIZE)))


def _decide(line, own, names, obs, a, actions, every_row, error) -> None:
    """The batched functions' actions for the rows deciding (their observations in obs' rows), into
    `actions`: one call per batched slot. When every row decides and one slot decides them all,
    the function is shown the batch arrays themselves; else copies of its rows."""
    sp = a["sp"]
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


def decide_one(line, slot: int, name: str, obs: dict, error=ValueError) -> int:
    """The action of line's batched strategy in `slot` for the one game whose observation (a batch
    of one) is `obs`: a game stepped one decision at a time (sim.runs.game) calls it where a
    batched opponent decides. `error`, with one line, for what play_stepped refuses too."""
    try:
        out = line.batched[slot](obs, line.params[slot])
    except Exception as e:   # noqa: BLE001 -- any error of the user's code: named in one line
        raise error(_raised(name, e, line.batched[slot].fn)) from e
    return int(_checked(out, 1, name, error)[0])


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
