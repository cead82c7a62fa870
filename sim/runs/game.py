"""One game stepped from Python: some seats decided by the caller, the others by strategies.

    g = GameInProgress(seed=5, game=0, strategies=[None, "learned", "learned", "learned"])
    g.seat              # 0: seat 0 (None in the line-up: yours) decides now; None when over
    g.choices()         # its legal choices: rows (colour die, number die, placement row, '!')
    g.play(k)           # choice k (-1 passes); the strategies play up to the next decision of yours
    g.over, g.roll, g.scores()

The game is sim.step's kernels on one row: game g of seed s has the dice of `run`'s game g of
seed s, and the strategies decide as they do there, seats not rotated. The move log and the
dice are kept (dataset's turns table), so a finished game is a Chunk (chunk()) that a dataset
stores like any run's.
"""
from __future__ import annotations

import numpy as np

from .. import engine, step
from ..players import PLAYER_EXTERNAL
from ..state import (
    CAND_SIZE, MAX_CANDS, MAX_SEATS, PS_SCORE, PS_SIZE, RNG_WORDS, ST_AVAIL, ST_IS_ACTIVE, ST_ROLL, ST_SEAT,
    ST_SIZE, BB_SIZE,
)
from ..tables import kernel_tables
from .api import Lineup, lineup
from .chunk import Chunk
from .settings import MAX_GAME_INDEX, MAX_SEED, check_int
from .defaults import MAX_ROLLS, SHEET

#: What a line-up's None seat (the caller's) is set up as before its kind is made external: any
#: built-in that loads nothing (its decision function is never called).
_PLACEHOLDER = "random"


class IllegalChoice(ValueError):
    """A choice that is not one of the deciding seat's legal choices; nothing was changed."""


class GameInProgress:
    """Game `game` of root seed `seed`, seat s played by strategies[s] (a spec), or by the caller
    where strategies[s] is None. `labels` names the caller's seats in results [default "you"]."""

    def __init__(self, seed: int, game: int, strategies, sheet=SHEET, rules=None, max_rolls: int = MAX_ROLLS,
                 checked: bool = True, label: str = "you"):
        seed = check_int("seed", seed, 0, MAX_SEED)
        game = check_int("game", game, 0, MAX_GAME_INDEX)
        strategies = list(strategies)
        external = [s is None for s in strategies]
        if not any(external):
            raise ValueError("a game in progress needs a seat of yours: None in strategies")
        specs = [_PLACEHOLDER if s is None else s for s in strategies]
        line = lineup(specs, sheet=sheet, players=len(specs), checked=checked, rules=rules)
        if line.batched is not None:   # its seat would be taken for the caller's (both are decided outside)
            raise ValueError(f"strategy {next(sp for sp, b in zip(line.specs, line.batched) if b)!r} is batched: "
                             "it plays batches of games (run, compare), not a game stepped one decision at a time")
        kinds = line.kinds.copy()
        for s, ext in enumerate(external):
            if ext:
                kinds[s] = PLAYER_EXTERNAL
        labels = list(line.labels or line.specs)
        self.specs = tuple(label if ext else spec for spec, ext in zip(line.specs, external))
        self.labels = tuple(label if ext else name for name, ext in zip(labels, external))
        self.line = Lineup(line.specs, line.fns, line.params, kinds, line.sheet, line.players, line.checked,
                           self.labels, line.rules)
        self.external = tuple(external)
        self.seed, self.game, self.players = seed, game, len(specs)
        self.sheet, self.rules = line.sheet, line.rules
        self.max_rolls = self.rules.solo_rolls if self.players == 1 else check_int("max_rolls", max_rolls, 1, 10_000)
        self.tab = kernel_tables(self.sheet, self.rules)
        self.slots = np.arange(MAX_SEATS, dtype=np.int64)
        self.st = np.zeros(ST_SIZE, np.int64)
        self.ps = np.zeros((MAX_SEATS, PS_SIZE), np.int64)
        self.bb = np.zeros((MAX_SEATS, BB_SIZE), np.uint64)
        self.cands = np.zeros((MAX_CANDS, CAND_SIZE), np.int64)
        self.pending = np.zeros((MAX_SEATS, 4), np.int64)
        self.rngs = np.zeros((MAX_SEATS, RNG_WORDS), np.uint64)
        self.sp = np.zeros(step.SP_SIZE, np.int64)
        self.gres = np.zeros(engine.GR_SIZE, np.int64)
        self.dice_log = np.zeros((self.max_rolls, 6), np.int64)
        self.log = np.zeros((self.max_rolls * self.players, engine.LOG_SIZE), np.int64)
        step.begin(self.st, self.ps, self.bb, self.rngs, self.sp, self.gres, self.tab, np.uint64(seed), game,
                   self.players, self.max_rolls, self.dice_log)
        self._n = -1
        self._advance()

    # --- stepping -----------------------------------------------------------------------

    def _advance(self) -> None:
        step.stepper()(self.line.fns, self.line.kinds, self.line.params, self.slots, self.tab, self.st, self.ps, self.bb,
                     self.cands, self.pending, self.rngs, self.sp, self.gres, self.dice_log, self.log, None)
        if self.sp[step.SP_STATE] == step.FAILED:
            from .api import check_chunk
            check_chunk(self.chunk(finished=False))
        self._n = -1

    @property
    def seat(self) -> int | None:
        """The caller's seat deciding now; None when the game is over."""
        s = int(self.sp[step.SP_SEAT])
        return None if s < 0 else s

    @property
    def over(self) -> bool:
        return self.sp[step.SP_STATE] != step.ONGOING

    @property
    def roll(self) -> int:
        return int(self.st[ST_ROLL])

    @property
    def active(self) -> bool:
        """Whether the deciding seat is the roll's active player."""
        return bool(self.st[ST_IS_ACTIVE])

    @property
    def available(self) -> int:
        """The dice the deciding seat may use (bits 0..2 colour dice, 3..5 number dice)."""
        return int(self.st[ST_AVAIL])

    def choices(self) -> np.ndarray:
        """The deciding seat's legal choices (a copy): rows (colour die, number die, placement row,
        '!' spent), in the order of sim.engine.legal_choices; passing (-1) is always allowed too."""
        if self.seat is None:
            return np.zeros((0, CAND_SIZE), np.int64)
        if self._n < 0:
            self._n = int(engine.legal_choices(self.st, self.ps, self.bb, self.tab, self.cands))
        return self.cands[:self._n].copy()

    def play(self, k: int) -> None:
        """The deciding seat takes choice k of choices() (-1: passes); the strategies then play up
        to the caller's next decision. IllegalChoice (nothing changed) if k is none of them."""
        if self.seat is None:
            raise IllegalChoice("the game is over: there is no decision to take")
        n = len(self.choices())
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not -1 <= k < n:
            raise IllegalChoice(f"choice {k!r} is not a legal choice of seat {self.seat} at roll {self.roll}: "
                                f"an index 0..{n - 1} of its {n} choices, or -1 to pass")
        if k < 0:
            cd = nd = sub = -1
            cost = 0
        else:
            cd, nd, sub, cost = (int(x) for x in self.cands[k])
        step.commit(self.st, self.ps, self.bb, self.tab, self.pending, self.sp, self.gres, self.log, n, cd, nd, sub,
                    cost)
        self._advance()

    # --- results ------------------------------------------------------------------------

    def scores(self) -> list[int]:
        """Each seat's score: final once the game is over, else what it would be if it ended now."""
        if self.over:
            return [int(x) for x in self.ps[:self.players, PS_SCORE]]
        ps = self.ps.copy()
        engine.end_of_game(ps, self.bb, self.tab, self.players)
        return [int(x) for x in ps[:self.players, PS_SCORE]]

    def chunk(self, finished: bool = True) -> Chunk:
        """The game as a Chunk of one game (with its dice and move log): what play_chunk returns
        for it, so that a dataset stores it as it stores a run's games."""
        if finished and self.sp[step.SP_STATE] != step.OVER:
            raise ValueError("the game is not over")
        rolls = int(self.st[ST_ROLL])
        rows = int(self.gres[engine.GR_LOG_ROWS])
        c = Chunk(self.seed, self.game, self.specs, self.gres[None, :].copy(),
                  self.ps[None, :self.players].copy(), np.arange(self.players, dtype=np.int64)[None, :],
                  sheet=self.sheet, labels=self.labels, rules=self.rules)
        c.dice_start = np.array([0, rolls], np.int64)
        c.dice = self.dice_log[:rolls].copy()
        c.log_start = np.array([0, rows], np.int64)
        c.log = self.log[:rows].copy()
        return c
