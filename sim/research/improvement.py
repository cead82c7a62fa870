"""How much one step of policy improvement would add to `learned` in solo: rollouts of its own play.

    encore-sim run -s learned -n 200 --seed 555 -o L && encore-sim analyse L --rollouts 200

The clairvoyant bound (sim.research.headroom) says how far `learned` is from a player who knows the
dice; it cannot say how much of that gap a real player could ever earn. This measures a part that
is certainly earnable. At every decision of `learned`'s own solo games, each of its `top` best
choices is followed by `rollouts` full games to the end played by `learned` itself (the same
dice for every choice: common random numbers). Picking the choice whose rollouts score best is one
step of policy iteration (a rollout player); what it gains over `learned`'s choice, summed over a
game, is what a perfect value of `learned`'s own future would add to it.

The rollouts of each choice are split in two halves, A and B, of independent dice. Picking by A
and scoring the pick by B (and the other way round) gives an estimate free of the winner's curse,
low rather than high: noise in A makes some picks worse than the best. Picking and scoring by
the same rollouts is biased high. The truth lies between the two, and the less noise the
rollouts have, the closer the two come: so each rollout is taxed for its dice's luck
(sim.research.rollouts), which leaves its expectation as it is and its noise about four times
smaller: the same noise from a sixteenth of the rollouts, each costing about three times as much.

The kernels are in sim.research.rollouts; its dice depend on the arguments only, never on the
thread count.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numba
import numpy as np

from sim.runs.defaults import SHEET
from sim.runs.api import MAX_SEED, check_int
from sim.runs.settings import MAX_ROLLOUTS
from sim.runs.progress import Progress
from sim.runs.summary import Z95

from strategies.learned import solo_rolls
from .headroom import solo_setup
from .rollouts import ABSENT, rollout_means

#: The choices of a decision followed by rollouts: `learned`'s best ones by its own value.
DEFAULT_TOP = 4
MAX_TOP = 8
#: Most games one measurement rolls out (each decision of each game, `top` choices, `rollouts` times).
MAX_MEASURED_GAMES = 1_000_000
#: The report's clear misjudgement: a choice ahead of learned's by more than CLEAR points in both
#: halves of the rollouts; a close call: learned's value puts it within CLOSE points of its own.
CLEAR = 0.25
CLOSE = 0.5


def gains(means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per decision (games, rolls): the cross-fitted gain of the rollout pick over learned's
    choice (pick by one half, score by the other, both ways averaged; low by the noise of the
    pick) and the same-rollouts gain (pick and score by both halves pooled; high by the winner's
    curse). Zero where no decision was rolled out."""
    a, b = means[..., 0], means[..., 1]
    pooled = (a + b) / 2
    rolled = a[..., 1] > ABSENT / 2

    def score_pick(pick_by, score_by):
        pick = np.argmax(pick_by, axis=-1)[..., None]
        return np.take_along_axis(score_by, pick, -1)[..., 0] - score_by[..., 0]

    cross_fit = (score_pick(a, b) + score_pick(b, a)) / 2
    same = pooled.max(axis=-1) - pooled[..., 0]
    return np.where(rolled, cross_fit, 0.0), np.where(rolled, same, 0.0)


@dataclass(frozen=True)
class Improvement:
    """The rollout means (rollout_means' out) and learned's scores of solo games 0.. of `seed`."""
    seed: int
    sheet: str
    top: int
    rollouts: int
    weights: str | None
    means: np.ndarray
    gaps: np.ndarray
    scores: np.ndarray
    seconds: float
    threads: int
    taxed: bool = True

    def report(self) -> str:
        n = len(self.scores)
        low, high = gains(self.means)
        rolled = self.means[..., 1, 0] > ABSENT / 2
        pick = np.argmax(self.means.sum(axis=-1), axis=-1)
        ahead = self.means - self.means[:, :, :1]
        clear = (ahead[..., 0] > CLEAR) & (ahead[..., 1] > CLEAR) & (self.means[..., 0] > ABSENT / 2)

        def mean_ci(x):
            hw = Z95 * x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else math.nan
            return f"{x.mean():+6.2f} +- {hw:.2f}"

        learned = "learned" if self.weights is None else f"learned:weights={self.weights}"
        out = [f"One step of policy improvement over {learned}: {n:,} solo games of seed {self.seed}, "
               f"sheet {self.sheet}; its {self.top} best choices at every decision, {self.rollouts:,} "
               f"{'taxed ' if self.taxed else ''}rollouts each",
               "",
               f"  {learned} scores               {self.scores.mean():6.2f}",
               "  rollout pick - learned's choice, per game (95% CI):",
               f"    picked and scored apart (low)   {mean_ci(low.sum(axis=1))}",
               f"    picked and scored alike (high)  {mean_ci(high.sum(axis=1))}",
               f"  decisions rolled out: {int(rolled.sum()):,}; the rollouts prefer another choice in "
               f"{100 * (pick[rolled] != 0).mean():.1f}% of them",
               f"  clearly better than learned's choice by both halves (by more than {CLEAR} points): "
               f"{int(clear.sum()):,} choices;",
               f"    learned's value put {100 * (self.gaps[clear] < CLOSE).mean() if clear.any() else 0:.0f}% of them "
               f"within {CLOSE} points of its own choice",
               "",
               "  gain per game by rolls (low estimate):"]
        rolls = self.means.shape[1] - 1     # the solo game's rolls, under the rules measured
        for r0 in range(1, rolls, 5):
            r1 = min(r0 + 5, rolls + 1)
            out.append(f"    rolls {r0:2d}-{r1 - 1:2d}  {low[:, r0:r1].sum(axis=1).mean():+6.2f}")
        out.append(f"  {self.seconds:.0f} s on {self.threads} thread(s)")
        return "\n".join(out)


def measure(games: int = 200, seed: int = 555, sheet=SHEET, rollouts: int = 200, top: int = DEFAULT_TOP,
            weights=None, threads: int | None = None, progress: bool = False, taxed: bool = True,
            rules=None) -> Improvement:
    """Roll out `learned`'s `top` best choices at every decision of solo games 0..games-1 of
    `seed` on `sheet` under `rules` (None: the rulebook; its weights for them, or those of the
    file `weights`). Rollouts are taxed
    for their dice's luck (sim.research.rollouts) unless `taxed` is false: the same expectations,
    less noise. A progress line on stderr with `progress`."""
    games = check_int("games", games, 1, MAX_MEASURED_GAMES)
    seed = check_int("seed", seed, 0, MAX_SEED)
    rollouts = check_int("rollouts", rollouts, 2, MAX_ROLLOUTS)
    if rollouts % 2:
        raise ValueError(f"rollouts must be even (two halves), got {rollouts}")
    top = check_int("top", top, 2, MAX_TOP)
    sheet_obj, W, tab, threads = solo_setup(sheet, weights, threads, rules)
    return measure_games(W, tab, sheet_obj.name, seed, games, rollouts, top, weights, threads, progress, taxed)


def measure_games(W, tab, sheet_name: str, seed: int, games: int, rollouts: int, top: int, weights, threads: int,
                  progress: bool = False, taxed: bool = True) -> Improvement:
    """measure() with its arguments checked and set up: learned's weights W, the sheet's kernel
    tables and name (sim.research.analyse measures learned's own games of a dataset by it);
    the games are the solo game of the tables' rules."""
    numba.set_num_threads(threads)
    rolls = solo_rolls(tab)
    means = np.empty((games, rolls + 1, top, 2))
    scores = np.empty(games, np.int64)
    gaps = np.zeros((games, rolls + 1, top))
    rollout_means(W, tab, seed, 0, 0, top, rollouts, taxed, means, gaps, scores)    # compile (or load) outside the timing
    # Chunks only for the progress line: every game is measured alone, so they change nothing.
    step = 2 * threads
    bar = Progress(games, 0, enabled=progress, unit="games")
    t0 = time.monotonic()
    for first in range(0, games, step):
        n = min(step, games - first)
        part = slice(first, first + n)
        rollout_means(W, tab, seed, first, n, top, rollouts, taxed, means[part], gaps[part], scores[part])
        bar.update(first + n)
    bar.close()
    return Improvement(seed, sheet_name, top, rollouts, None if weights is None else str(weights), means,
                       gaps, scores, time.monotonic() - t0, threads, taxed)
