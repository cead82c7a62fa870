"""One game stepped from Python: some seats decided by the caller, the others by strategies.

    g = GameInProgress(seed=5, game=0, strategies=[None, "learned", "learned", "learned"])
    g.seat              # 0: seat 0 (None in the line-up: yours) decides now; None when over
    g.choices()         # its legal choices: rows (colour die, number die, placement row, '!')
    g.play(k)           # choice k (-1 passes); the strategies play up to the next decision of yours
    g.over, g.roll, g.scores()

The game is a row of sim.vector.Rows (the one container of stepped games), stepped by its
kernels: game g of seed s has the dice of `run`'s game g of seed s, and the strategies decide as
they do there (a user's watched, sim.guard: a write to the game stops it with run's error),
seats not rotated. The move log and the dice are kept (dataset's turns table), so a finished
game is a Chunk (chunk()) that a dataset stores like any run's. The Gym and PettingZoo envs' one
game (sim.agents.envs.OneGame) is a GameInProgress too, stepped by actions (act) rather than by
choices.
"""
from __future__ import annotations

import numpy as np

from dataclasses import replace

from .. import engine, step, vector
from ..guard import user_seated
from ..players import PLAYER_EXTERNAL
from ..state import CAND_SIZE, MAX_CANDS, PS_SCORE, ST_AVAIL, ST_IS_ACTIVE, ST_ROLL
from ..tables import build_tables, kernel_tables
from .api import Lineup, check_chunk, lineup
from .chunk import Chunk
from .settings import MAX_GAME_INDEX, MAX_SEED, check_int
from .defaults import MAX_ROLLS, SHEET

#: What a line-up's None seat (the caller's) is set up as before its kind is made external: any
#: built-in that loads nothing (its decision function is never called).
_PLACEHOLDER = "random"


class IllegalChoice(ValueError):
    """A choice that is not one of the deciding seat's legal choices; nothing was changed."""


def outside_lineup(strategies, sheet=SHEET, rules=None, checked: bool = True) -> Lineup:
    """The Lineup of a game whose seats with None in `strategies` (specs) are decided outside: their
    kind PLAYER_EXTERNAL, a built-in that loads nothing standing in for them (its decision function
    is never called). A batched strategy's seat is decided outside too: GameInProgress asks its
    function, for a batch of one game."""
    strategies = list(strategies)
    specs = [_PLACEHOLDER if s is None else s for s in strategies]
    line = lineup(specs, sheet=sheet, players=len(specs), checked=checked, rules=rules)
    kinds = line.kinds.copy()
    kinds[[s for s, spec in enumerate(strategies) if spec is None]] = PLAYER_EXTERNAL
    return replace(line, kinds=kinds)


class GameInProgress:
    """Game `game` of root seed `seed`, seat s played by strategies[s] (a spec), or by the caller
    where strategies[s] is None. `label` names the caller's seats in results [default "you"]: one
    name for all, or a list of one per caller's seat (several people at one screen).
    `line`: the outside_lineup of `strategies`, when made already; `reward`: what act's steps
    reward (sim.vector.REWARDS); `logged`: keep the dice and move log (chunk()); `skip_forced`:
    the caller's decisions whose only legal choice is pass are taken for it (sim.vector); `start`:
    begin the game now (else begin() does); `observed` False: the observations (obs, view) are
    not written (play's game reads none), unless a batched opponent reads them."""

    def __init__(self, seed: int, game: int, strategies, sheet=SHEET, rules=None, max_rolls: int = MAX_ROLLS,
                 checked: bool = True, label: str = "you", line: Lineup | None = None, reward="score",
                 logged: bool = True, skip_forced: bool = False, start: bool = True, observed: bool = True):
        strategies = list(strategies)
        external = [s is None for s in strategies]
        if not any(external):
            raise ValueError("a game in progress needs a seat of yours: None in strategies")
        line = line or outside_lineup(strategies, sheet, rules, checked)
        labels = list(line.labels or line.specs)
        outside = [label] * sum(external) if isinstance(label, str) else list(label)
        if len(outside) != sum(external):
            raise ValueError(f"{len(outside)} labels for the {sum(external)} seats decided outside")
        mine = iter(outside)
        self.specs = tuple(next(mine) if ext else spec for spec, ext in zip(line.specs, external))
        self.labels = tuple(self.specs[s] if ext else name for s, (name, ext) in enumerate(zip(labels, external)))
        self.line = replace(line, labels=self.labels)
        self.external = tuple(external)
        self.players = len(strategies)
        self.sheet, self.rules = line.sheet, line.rules
        self.max_rolls = self.rules.solo_rolls if self.players == 1 else check_int("max_rolls", max_rolls, 1, 10_000)
        self.tab = kernel_tables(self.sheet, self.rules)
        k = len(build_tables(self.sheet, self.rules).size)
        self.b, self.arrays = vector.new_rows(1, line.fns, line.kinds, line.params, self.tab, k, self.players,
                                              self.max_rolls, reward=reward, autoreset=vector.AUTORESET_DISABLED,
                                              logged_rolls=self.max_rolls if logged else 0, skip_forced=skip_forced,
                                              outside=bool((line.kinds[:self.players] == PLAYER_EXTERNAL).all()),
                                              watched=user_seated(line.kinds))
        a = self.arrays
        # Row 0 of the rows' arrays: sim.step's arrays of the game, as the kernels write them.
        self.st, self.ps, self.bb, self.sp, self.gres = a["table"][0], a["ps"][0], a["bb"][0], a["sp"][0], a["gres"][0]
        self.dice_log, self.log = a["dice_log"][0], a["log"][0]
        self.obs, self.view = a["obs"], a["final_obs"]
        self.cands = np.zeros((MAX_CANDS, CAND_SIZE), np.int64)
        # Only the kernels the game uses: the range kernels on its one row (their wrappers over every
        # row would be compiled too), without the observations where nobody reads them; step_rows
        # (act, a batched opponent) on first use.
        observed = observed or any(b is not None for b in (line.batched or ())[:self.players])
        self._begin_row = vector.reset_range if observed else vector.reset_range_unobserved
        self._apply_row = vector.apply_range if observed else vector.apply_range_unobserved
        vector.compiled(self._begin_row, self._apply_row)
        self._step = None
        self._n = -1
        self.seed, self.game = check_int("seed", seed, 0, MAX_SEED), None
        if start:
            self.begin(game)

    # --- stepping -----------------------------------------------------------------------

    def begin(self, game: int, seed: int | None = None) -> None:
        """Begin game `game` (of root seed `seed`, if given: else the seed's) up to the caller's
        first decision."""
        if seed is not None:
            self.seed = check_int("seed", seed, 0, MAX_SEED)
        self.game = check_int("game", game, 0, MAX_GAME_INDEX)
        self.arrays["config"][vector.CF_ROOT] = np.uint64(self.seed).astype(np.int64)
        self._done(self._begin_row(0, 1, self.b, np.ones(1, np.int8), np.array([self.game], np.int64)) == vector.OK)

    def _done(self, ok: bool) -> None:
        """After a step: a strategy that failed (a user's that wrote to the game, say) raises
        StrategyError as in `run` (check_chunk). Then a batched opponent deciding takes its action,
        until the caller's seat decides or the game is over."""
        self._n = -1
        if not ok:
            check_chunk(self.chunk(finished=False))
            raise RuntimeError(f"game {self.game} of seed {self.seed} stopped at roll {self.roll}")
        while (s := self.seat) is not None and not self.external[s]:
            from ..batched import decide_one   # only a line-up with a batched opponent gets here
            action = decide_one(self.line, s, self.labels[s], self.obs)
            status = self._stepper()(self.b, np.array([action], np.int64))
            if status == 0:
                raise ValueError(f"batched strategy {self.labels[s]!r} (seat {s}) chose action {action}, not a "
                                 f"legal action, in seed {self.seed}, game {self.game}, roll {self.roll}")
            self._n = -1
            if status != vector.OK:
                self._done(False)

    def act(self, action: int) -> int:
        """The deciding seat takes `action` (sim.observe's encoding): the kernels' status
        (sim.vector.step_rows: 0 if the action is not a legal one, and nothing changed; else OK)."""
        status = self._stepper()(self.b, np.array([action], np.int64))
        if status != 0:
            self._done(status == vector.OK)
        return status

    def _stepper(self):
        if self._step is None:
            self._step = vector.compiled(vector.step_rows)[1]
        return self._step

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
            self._n = int(vector.count_choices(self.st, self.ps, self.bb, self.tab, self.cands))
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
        self.arrays["moves"][0] = (-1, -1, -1, 0) if k < 0 else self.cands[k]
        self._done(self._apply_row(0, 1, self.b) == vector.OK)

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
