"""Training on demand: the weights a command's `learned` lacks, trained warm and kept in the store.

A run under rules that no weights ship for (a variant), or on a sheet of the user's, raises
learned.MissingWeights naming the sheet, table size and rules it needs. With the commands'
--train (train=True from Python) those weights are trained then and there into the weights store
(strategies.store), and the command goes on: the next run finds them there.

The training starts from the nearest weights that exist: the same sheet and table size under the
rulebook (shipped for the built-in sheets, or stored). A variant moves the value of a sheet far
less than learning it from nothing does, so a short run at a small step size adapts them
(WARM_GAMES, WARM_STEP); docs/variants.md measures such weights against a full default
`encore-sim train --rules` of the same variant, on seeds neither has seen. A sheet of the user's
that is a near copy of a built-in sheet (near_copy: at most NEAR_BOXES boxes differ) starts the
same way from that sheet's weights. Without weights to start from, the training is a full default one.
"""
from __future__ import annotations

from dataclasses import dataclass

from typing import NamedTuple

from sim.rules import RULEBOOK, Rules
from sim.runs.defaults import TRAIN_GAMES, TRAIN_SEED, TRAIN_TABLE_GAMES
from sim.sheets import BUILTIN_SHEETS, Sheet, load_sheet

from strategies import store
from strategies.learned import MissingWeights, weights_file, weights_rules
from .run import estimate, train_file

#: Training games of a warm start, solo and at tables of 2-6: as many as fit in about two minutes
#: on two cores, where docs/variants.md measures them as good as a full training (larger tables
#: play slower games, so fewer).
WARM_GAMES = {1: 1_000_000, 2: 400_000, 3: 400_000, 4: 400_000, 5: 300_000, 6: 250_000}
#: The step size of a warm start, at its start and at its end (falling linearly), solo and at a table.
WARM_STEP = {1: (0.1, 0.01), 2: (0.1, 0.02)}
#: Training on demand's root seed: train's own (no default comparison plays its games).
SEED = TRAIN_SEED
#: A sheet is a near copy of a built-in sheet when at most this many of its 105 boxes differ from
#: it in colour or star: moving one star within its column changes 2, a recoloured sheet
#: (tests/helpers/sheetgen.py) over 80 of them. The built-in sheets differ from each other in 78 or
#: more, so a near copy's value is its original's but for a few boxes.
NEAR_BOXES = 10


@dataclass(frozen=True)
class Need:
    """Weights `learned` needs: for `players` on `sheet` under `rules` (weights_rules)."""
    sheet: Sheet
    players: int
    rules: Rules

    @classmethod
    def of(cls, e: MissingWeights) -> "Need":
        return cls(e.sheet, e.players, e.rules)

    @property
    def what(self) -> str:
        game = "the solo game" if self.players == 1 else f"{self.players} players"
        return f"{game} on sheet {self.sheet.name!r}" + ("" if self.rules.is_rulebook else
                                                         f" under the rules {self.rules.text}")


class Plan(NamedTuple):
    """Where a training on demand starts: the weights file (None: from scratch), its games and step
    (None: train's defaults), a line saying so, and the sheet that file was trained for."""
    init: object
    games: int | None
    step: tuple[float, float] | None
    how: str
    init_sheet: Sheet | None = None


def differing_boxes(a: Sheet, b: Sheet) -> int:
    """How many boxes of two sheets differ in colour or star."""
    return int(((a.colour != b.colour) | (a.star != b.star)).sum())


def near_copy(sheet: Sheet) -> tuple[Sheet, int] | None:
    """(the built-in sheet with the fewest boxes differing from `sheet`, how many) where that is at
    most NEAR_BOXES and not 0 (a built-in sheet itself), else None."""
    best = min((load_sheet(name) for name in BUILTIN_SHEETS), key=lambda b: differing_boxes(sheet, b))
    d = differing_boxes(sheet, best)
    return (best, d) if 0 < d <= NEAR_BOXES else None


def plan(need: Need) -> Plan:
    """A warm start from the same sheet and table size under the rulebook where such weights
    exist, else from those of the built-in sheet it is a near copy of (under its rules, else the
    rulebook), else a full default training."""
    source, near, rulebook = need.sheet, "", True
    start = None if need.rules.is_rulebook else weights_file(need.sheet, need.players, RULEBOOK)
    if start is None and (copy := near_copy(need.sheet)) is not None:
        source, near = copy[0], f" of sheet {copy[0].name!r}, of which it is a near copy ({copy[1]} boxes differ)"
        start = weights_file(source, need.players, need.rules)
        rulebook = start is None or need.rules.is_rulebook
        start = start or weights_file(source, need.players, RULEBOOK)
    if start is None:
        return Plan(None, None, None, "from scratch (train's default games)")
    path, kind = start
    games = WARM_GAMES[need.players]
    if near:      # never longer than training from scratch (at tables, a full training is short)
        games = min(games, TRAIN_GAMES if need.players == 1 else TRAIN_TABLE_GAMES[need.players])
    return Plan(path, games, WARM_STEP[min(need.players, 2)],
                f"{games:,} games from the {'shipped ' if kind == 'shipped' else ''}"
                f"{'rulebook ' if rulebook else ''}weights {path.name}{near}", source)


def offer(need: Need, threads=None) -> str:
    """How the training of `need` would go and how long it would take, as its announcement says."""
    p = plan(need)
    total = p.games or (TRAIN_GAMES if need.players == 1 else TRAIN_TABLE_GAMES[need.players])
    return f"{p.how}, {estimate(total, need.players, threads)}"


def train_need(need: Need, threads=None, progress=False, say=None):
    """Train the weights of `need` into the store (nothing is stored if interrupted); `say(line)`
    announces it first. Returns the file written."""
    store.writable()
    p = plan(need)
    if say is not None:
        say(f"Training `learned` for {need.what}: {offer(need, threads)}, into the weights store {store.folder()}")
    return train_file(None, sheet=need.sheet, players=need.players, games=p.games, seed=SEED, threads=threads,
                      progress=progress, init=p.init, step=p.step, rules=weights_rules(need.rules, need.players),
                      lines=say, init_sheet=p.init_sheet)


def with_training(call, train: bool = True, threads=None, progress=False, say=None):
    """call(), training each weights file it lacks first (train_need) and calling it again, when
    `train`; without it, MissingWeights as call() raised it. A command resolves its players before
    it plays or writes anything, so calling it again repeats no work that counts."""
    done = set()
    while True:
        try:
            return call()
        except MissingWeights as e:
            need = Need.of(e)
            if not train or need in done:
                raise
            train_need(need, threads=threads, progress=progress, say=say)
            done.add(need)
