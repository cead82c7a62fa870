"""How far `learned` is from perfect play: its solo score against the clairvoyant bound.

    encore-sim bound --games 1000 --seed 1 --beam 512     (python -m sim.research.clairvoyant ...)

measure() runs the clairvoyant search (sim.research.clairvoyant) and `learned` (through
sim.runs.api.play_chunk, as any run plays it) on the same solo games, and Headroom.report()
prints the bound, learned's mean, learned as a percentage of the bound, and the score
breakdown of both: which points the bot never goes for.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from sim.rules import parse_rules
from sim.runs.defaults import BOUND_GAMES, BOUND_SEED, SHEET
from sim.runs.api import MAX_SEED, check_int, play_chunk
from sim.runs.settings import check_threads
from sim.runs.progress import Progress
from sim.sheets import COLOURS, COLUMNS, load_sheet
from sim.runs.summary import Z95
from sim.state import PS_COL_POINTS, PS_COLOUR_POINTS, PS_COLOURS, PS_COLS, PS_JOKERS, PS_SCORE, PS_STAR_PENALTY
from sim.tables import build_tables, kernel_tables

from .clairvoyant import DEFAULT_BEAM, GUIDES, MAX_BEAM, search_games
from strategies.learned import weights_array

#: Most games one bound searches (each by a beam search of every roll).
MAX_SEARCHED_GAMES = 10_000_000

@dataclass(frozen=True)
class Headroom:
    """The clairvoyant bound and `learned` on solo games 0..games-1 of `seed`.

    bound_ends / learned_ends: int64 (games, PS_SIZE), the engine's ps row at the end of each
    game (the bound's best line; learned's game); lines: int64 (games, 30, 2) the best lines
    (sim.research.clairvoyant.LINE_*); guide_scores: int64 (games, len(guides))."""
    seed: int
    sheet: str
    beam: int
    guides: tuple
    weights: str | None
    bound_ends: np.ndarray
    lines: np.ndarray
    guide_scores: np.ndarray
    learned_ends: np.ndarray
    seconds: float
    threads: int
    column_points: tuple = ()   # what completing each column A..O scores
    rules: str = ""             # the --rules text the games were played under ("" the rulebook)

    @property
    def games(self) -> int:
        return len(self.bound_ends)

    @property
    def bound(self) -> np.ndarray:
        return self.bound_ends[:, PS_SCORE]

    @property
    def learned(self) -> np.ndarray:
        return self.learned_ends[:, PS_SCORE]

    def ratio(self) -> tuple[float, float]:
        """learned's mean / the bound's mean, and its 95% half-width (delta method, paired games)."""
        b, lrn = self.bound.astype(float), self.learned.astype(float)
        r = lrn.mean() / b.mean()
        d = lrn - r * b
        return r, Z95 * d.std(ddof=1) / math.sqrt(len(d)) / b.mean() if len(d) > 1 else math.nan

    def breakdown(self) -> list[tuple[str, float, float]]:
        """(what, bound's mean, learned's mean) per part of the score."""
        def parts(ps):
            cols = np.bitwise_count(ps[:, PS_COLS])
            colours = np.bitwise_count(ps[:, PS_COLOURS])
            return [("column points", ps[:, PS_COL_POINTS]), ("columns completed", cols),
                    ("colour points", ps[:, PS_COLOUR_POINTS]), ("colours completed", colours),
                    ("'!' left", ps[:, PS_JOKERS]), ("star penalty", -ps[:, PS_STAR_PENALTY]),
                    ("score", ps[:, PS_SCORE])]
        return [(name, float(a.mean()), float(b.mean()))
                for (name, a), (_, b) in zip(parts(self.bound_ends), parts(self.learned_ends))]

    def report(self) -> str:
        n = self.games
        b, lrn = self.bound, self.learned
        r, r_ci = self.ratio()

        def mean_ci(x):
            hw = Z95 * x.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
            return f"{x.mean():6.2f} +- {hw:.2f}"

        guides = ", ".join(_guide_name(g) for g in self.guides)
        learned = "learned" if self.weights is None else f"learned:weights={self.weights}"
        rolls = self.lines.shape[1]
        known = f"bound (all {rolls} rolls known)"
        out = [f"Clairvoyant bound: {n:,} solo games of seed {self.seed}, sheet {self.sheet}, "
               + (f"rules {self.rules}, " if self.rules else "") + f"beam {self.beam}, guides {guides}",
               "",
               f"  {known:<27} {mean_ci(b)}   (95% CI)",
               f"  {learned + ' (same dice)':<27} {mean_ci(lrn)}",
               f"  learned / bound             {100 * r:6.1f}% +- {100 * r_ci:.1f}",
               f"  games where learned beats the bound: {int((lrn > b).sum())}",
               "",
               f"  {'per game':<20} {'bound':>7} {'learned':>8} {'gap':>7}"]
        for name, x, y in self.breakdown():
            out.append(f"  {name:<20} {x:7.2f} {y:8.2f} {x - y:7.2f}")
        out.append("")
        out.append("  how often each column / colour is completed (% of games):")
        cols_b, cols_l = _rates(self.bound_ends[:, PS_COLS], 15), _rates(self.learned_ends[:, PS_COLS], 15)
        out.append(f"  {'column':<9}" + "".join(f"{c:>4}" for c in COLUMNS))
        out.append(f"  {'points':<9}" + "".join(f"{v:>4}" for v in self.column_points))
        out.append(f"  {'bound':<9}" + "".join(f"{x:>4.0f}" for x in cols_b))
        out.append(f"  {'learned':<9}" + "".join(f"{x:>4.0f}" for x in cols_l))
        col_b, col_l = _rates(self.bound_ends[:, PS_COLOURS], 5), _rates(self.learned_ends[:, PS_COLOURS], 5)
        out.append(f"  {'colour':<9}" + "".join(f"{c:>7}" for c in COLOURS))
        out.append(f"  {'bound':<9}" + "".join(f"{x:>7.0f}" for x in col_b))
        out.append(f"  {'learned':<9}" + "".join(f"{x:>7.0f}" for x in col_l))
        out.append("")
        best = self.guide_scores.max(axis=1, keepdims=True)
        for g, guide in enumerate(self.guides):
            out.append(f"  guide {_guide_name(guide):<18} mean {self.guide_scores[:, g].mean():6.2f}, "
                       f"finds the bound in {100 * (self.guide_scores[:, g] == best[:, 0]).mean():.0f}% of games")
        out.append(f"  {self.seconds:.0f} s on {self.threads} thread(s), {n / self.seconds:.1f} games/s")
        return "\n".join(out)


def _rates(masks, n) -> np.ndarray:
    """Percentage of games with bit i set, i = 0..n-1."""
    return np.array([100.0 * ((masks >> i) & 1).mean() for i in range(n)])


def _guide_name(guide) -> str:
    factor, joker_factor = guide
    return f"V x{factor:g}" + ("" if joker_factor == 1 else f" ('!' x{joker_factor:g})")


def solo_setup(sheet, weights, threads, rules=None):
    """What a measurement of `learned` in solo under `rules` (None: the rulebook) needs, checked:
    (the sheet, learned's weights for it and the rules or those of the file `weights`, the
    sheet's kernel tables under the rules, the thread count: all cores if None)."""
    threads = check_threads(threads)
    sheet_obj = load_sheet(sheet)
    rules = parse_rules(rules)
    if weights is not None and not Path(weights).is_file():
        raise ValueError(f"weights file {weights} does not exist")
    return sheet_obj, weights_array(sheet_obj, weights, 1, rules), kernel_tables(sheet_obj, rules), threads


def measure(games: int = BOUND_GAMES, seed: int = BOUND_SEED, sheet=SHEET, beam: int = DEFAULT_BEAM, weights=None,
            threads: int | None = None, guides=GUIDES, progress: bool = False, rules=None) -> Headroom:
    """The clairvoyant bound (beam search of width `beam`, best over `guides`) and `learned` on
    solo games 0..games-1 of `seed` on `sheet` under `rules` (a sim.rules.Rules or a --rules
    text; None: the rulebook), both with `learned`'s weights for the sheet and rules (or those of
    the file `weights`, trained under them). A progress line on stderr with `progress`."""
    games = check_int("games", games, 1, MAX_SEARCHED_GAMES)
    seed = check_int("seed", seed, 0, MAX_SEED)
    beam = check_int("beam", beam, 1, MAX_BEAM)
    rules = parse_rules(rules)
    sheet_obj, W, tab, threads = solo_setup(sheet, weights, threads, rules)
    spec = "learned" if weights is None else f"learned:weights={weights}"
    learned = play_chunk(seed, 0, games, [spec], players=1, sheet=sheet_obj, rules=rules).seats[:, 0, :]
    numba.set_num_threads(threads)
    parts = []
    # Chunks only for the progress line: every game is searched alone, so they change nothing.
    step = 8 * threads
    bar = Progress(games, 0, enabled=progress, unit="games")
    search_games(W, tab, seed, 0, 0, beam, guides)        # compile (or load) the kernel outside the timing
    t0 = time.monotonic()
    for first in range(0, games, step):
        parts.append(search_games(W, tab, seed, first, min(step, games - first), beam, guides))
        bar.update(first + len(parts[-1][0]))
    bar.close()
    seconds = time.monotonic() - t0
    ends, lines, guide_scores = (np.concatenate(a) for a in zip(*parts))
    return Headroom(seed, sheet_obj.name, beam, tuple(guides), None if weights is None else str(weights), ends,
                    lines, guide_scores, learned, seconds, threads,
                    tuple(int(v) for v in build_tables(sheet_obj, rules).col_first), rules.text)
