"""Where a strategy loses its points, and how much of a score was the dice (`encore-sim analyse`).

    a = analyse("results/run-X", rollouts=0)      # an Analysis; a.rows, a.mistakes, a.text()

The games of a dataset are replayed from its manifest (the same games: their scores are checked
against the stored ones) and every decision of every seat is judged against `learned`'s choice
for that sheet and number of players:

- **loss**: the action value of learned's choice minus that of the choice made (0 where they
  agree). By default the values are learned's own one-ply values (reward now + value of the
  sheet after the move). With `rollouts` N (solo), wherever the two choices differ, each is
  followed by N games that learned plays on from its afterstate, the k-th rollout of both on the
  same dice, each taxed for its dice's luck (sim.research.rollouts): an unbiased estimate
  of the difference of learned's true action values.
- **luck** (solo): the value of the best decision the dice of a roll allowed minus its exact mean
  over all 1,296 faces of that roll: 0 on average whatever came before, so a game's summed luck
  says how much its dice gave beyond the usual.

By the performance-difference identity, a strategy's expected summed loss along its own games,
judged by learned's true action values, is learned's expected score minus its own on the same
dice: so with rollouts the loss per game must match that score gap (which the solo analysis
measures alongside, learned replaying the same games), and by the value alone it is close but
biased where the value errs.

On learned's own games the loss is 0 by its value and by these rollouts alike; what rollouts of
its several best choices would still gain over it is one step of policy improvement
(sim.research.improvement), which the analysis adds for learned's rows with `top`.

Games are judged block by block (per-decision arrays of one block at a time, the figures folded
into sums), so memory does not grow with the dataset; every game is judged alone, so nothing
depends on the thread count.
"""
from __future__ import annotations

import heapq
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from sim.engine import (
    LOG_ACTIVE, LOG_AVAIL, LOG_CDIE, LOG_CHOICES, LOG_COST, LOG_NDIE, LOG_ROLL, LOG_SEAT, LOG_SIZE, LOG_SUB,
    SOLO_ROLLS,
)
from sim.errors import SettingError
from sim.runs.api import check_int, lineup, play_chunk
from sim.runs.defaults import ANALYSE_MISTAKES
from sim.runs.dataset import DatasetError, as_numpy, done_chunks, json_safe, open_store, read_manifest, read_part
from sim.runs.gamelog import describe
from sim.runs.manifest import check_files, manifest_files, manifest_sheet
from sim.runs import interrupts
from sim.runs.progress import Progress
from sim.runs.settings import MAX_GAMES, MAX_ROLLOUTS, Settings, check_threads
from sim.runs.summary import Z95
from sim.rules import parse_rules
from sim.sheets import COLOURS
from sim.state import COLOUR_JOKER, NUMBER_JOKER, PS_SCORE
from sim.tables import build_tables, kernel_tables

from strategies.learned import MissingWeights, WeightsError, weights_array
from .rollouts import J_BEST, J_BEST_COST, J_BEST_SUB, J_LUCK, J_MADE, J_ROLLED, J_SIZE, judge_solo, judge_table

#: Stages of a game: rolls 1-5, 6-10, ... (a table's last stage, and a solo game longer than the
#: rulebook's, takes every roll after 30).
STAGE_ROLLS = 5
STAGES = [f"rolls {lo}-{lo + STAGE_ROLLS - 1}" for lo in range(1, SOLO_ROLLS, STAGE_ROLLS)] + ["rolls 31+"]
#: Kinds of decision (a decision may be of several): the active player's or a passive one's,
#: a pass, a choice spending '!'.
KINDS = ("active", "passive", "pass", "'!' spent")
#: Largest mistakes kept.
DEFAULT_MISTAKES = ANALYSE_MISTAKES
MAX_MISTAKES = 10_000
#: Per seat and game, the figures summed (columns of _Fold's sums).
_F_DECISIONS, _F_LOSS, _F_VALUE_LOSS, _F_LUCK, _F_DIFFER, _F_SCORE, _F_GAP, _F_GAP_TAXED = range(8)
_F_KIND = 8
_F_STAGE = _F_KIND + 2 * len(KINDS)
_N_F = _F_STAGE + 2 * len(STAGES)
#: Score against luck (the report's figure): games per whole point of luck, -LUCK_SPAN..LUCK_SPAN.
LUCK_SPAN = 20
#: The log judge_solo does not read when it plays learned's own games (typed as a run's log).
_NO_LOG = np.empty((0, LOG_SIZE), np.int64)


class AnalyseError(SettingError):
    """A dataset that cannot be analysed (a one-line message)."""


@dataclass
class _Fold:
    """Sums over seat-games of a row's figures (x) and of their products (x x^T): every mean,
    variance and ratio the rows report, in memory that does not grow with the games."""
    n: int = 0
    s: np.ndarray = field(default_factory=lambda: np.zeros(_N_F))
    ss: np.ndarray = field(default_factory=lambda: np.zeros((_N_F, _N_F)))
    luck_games: np.ndarray = field(default_factory=lambda: np.zeros(2 * LUCK_SPAN + 1))
    luck_scores: np.ndarray = field(default_factory=lambda: np.zeros(2 * LUCK_SPAN + 1))

    def add(self, x: np.ndarray) -> None:
        self.n += len(x)
        self.s += x.sum(axis=0)
        self.ss += x.T @ x
        b = np.clip(np.rint(x[:, _F_LUCK]), -LUCK_SPAN, LUCK_SPAN).astype(np.int64) + LUCK_SPAN
        self.luck_games += np.bincount(b, minlength=len(self.luck_games))
        self.luck_scores += np.bincount(b, weights=x[:, _F_SCORE], minlength=len(self.luck_games))

    def mean_ci(self, f: int) -> tuple[float, float, float]:
        """(mean per seat-game, 95% half-width, sd) of figure f."""
        n = self.n
        m = self.s[f] / n
        var = max(self.ss[f, f] - n * m * m, 0.0) / (n - 1) if n > 1 else math.nan
        sd = math.sqrt(var)
        return m, Z95 * sd / math.sqrt(n), sd

    def ratio_ci(self, num: int, den: int) -> tuple[float, float]:
        """(sum of num / sum of den, 95% half-width): a ratio over seat-games, its variance by the
        delta method (decisions of one game are not independent; the games are)."""
        n, sx, sy = self.n, self.s[num], self.s[den]
        if sy == 0:
            return math.nan, math.nan
        r = sx / sy
        sd2 = self.ss[num, num] - 2 * r * self.ss[num, den] + r * r * self.ss[den, den]
        hw = Z95 * math.sqrt(max(sd2, 0.0) / (n - 1)) / math.sqrt(n) / (sy / n) if n > 1 else math.nan
        return r, hw


@dataclass
class Analysis:
    """The analysis of a dataset: a row per strategy (and per strategy and seat at tables), the
    largest mistakes, and how it was made."""
    dataset: str
    players: int
    sheet: str
    seed: int
    games: int
    rollouts: int
    judge: str
    rows: list[dict]
    mistakes: list[dict]
    seconds: float
    threads: int
    improvement: object = None      # sim.research.improvement.Improvement of learned's own games
    rating: dict | None = None      # a person's game (encore-sim play): their level (strategies.levels.rating)
    ratings: dict | None = None     # several people's game (pass-and-play): each one's level, by their label

    def to_dict(self) -> dict:
        """As plain JSON data (an interval of one game, NaN, as null)."""
        return json_safe({"dataset": self.dataset, "players": self.players, "sheet": self.sheet, "seed": self.seed,
                       "games": self.games, "rollouts": self.rollouts, "judge": self.judge, "rows": self.rows,
                       "mistakes": self.mistakes, **({"rating": self.rating} if self.rating else {}),
                       **({"ratings": self.ratings} if self.ratings else {})})

    def text(self) -> str:
        return format_text(self)


def choice_text(tab, dice, avail, sub, cost, cdie=-1, ndie=-1) -> dict:
    """A choice as data: pass, or colour, number, cells, '!' spent and the dice taken (the first
    die of the roll that makes it, where the choice names none)."""
    from sim.runs.gamelog import mask_cells
    if sub < 0:
        return {"pass": True, "colour": None, "number": None, "cells": [], "jokers": 0, "colour_die": None,
                "number_die": None}
    colour, number = int(tab.colour[sub]), int(tab.size[sub])
    if cdie < 0:
        # learned's choice names a placement and its '!': take real faces first, jokers for the rest.
        need_c = (cost >= 1) and not any((avail >> i) & 1 and dice[i] == colour for i in range(3))
        for i in range(3):
            if (avail >> i) & 1 and (dice[i] == (COLOUR_JOKER if need_c else colour)):
                cdie = i
                break
        for i in range(3):
            if (avail >> (3 + i)) & 1 and dice[3 + i] == (NUMBER_JOKER if cost - need_c >= 1 else number):
                ndie = i
                break
    return {"pass": False, "colour": COLOURS[colour], "number": number, "cells": mask_cells(tab.mask[sub]),
            "jokers": int(cost), "colour_die": int(cdie), "number_die": int(ndie)}


def _stage(roll: np.ndarray) -> np.ndarray:
    return np.minimum((roll - 1) // STAGE_ROLLS, len(STAGES) - 1)


def _blocks(dataset, s: Settings, games_limit: int | None, block: int):
    """(first game, count, stored scores (count, players), stored strategy labels (count, players))
    of the dataset's finished chunks, in blocks of at most `block` games; at most games_limit games."""
    store = open_store(dataset)
    left = games_limit
    size = s.chunk_size or 1
    for c in sorted(done_chunks(store)):
        if left is not None and left <= 0:
            return
        first = c * size
        count = min(size, s.games - first)
        if count <= 0:
            raise DatasetError(f"{store}: chunk {c} lies past the run's {s.games:,} games")
        p = read_part(store, "players", c, ["game", "seat", "strategy", "score"])
        game = as_numpy(p.column("game").combine_chunks()).astype(np.int64)
        seat = as_numpy(p.column("seat").combine_chunks()).astype(np.int64)
        score = as_numpy(p.column("score").combine_chunks()).astype(np.int64)
        label = np.asarray(p.column("strategy").to_pylist(), dtype=object)
        expect = np.repeat(np.arange(first, first + count), s.players)
        order = np.lexsort((seat, game))
        if len(game) != count * s.players or not np.array_equal(game[order], expect) \
                or not np.array_equal(seat[order], np.tile(np.arange(s.players), count)):
            raise DatasetError(f"{store}: chunk {c}'s players table does not hold games {first:,}-"
                               f"{first + count - 1:,} seat by seat")
        score = score[order].reshape(count, s.players)
        label = label[order].reshape(count, s.players)
        if left is not None:
            count = min(count, left)
            left -= count
        for b in range(0, count, block):
            n = min(block, count - b)
            yield first + b, n, score[b:b + n], label[b:b + n]


@dataclass
class Judged:
    """A dataset as the judge replays it: its settings, sheet and line-up, learned's weights for it."""
    settings: Settings
    sheet: object
    W: np.ndarray
    judge: str          # the judge's spec: learned, or learned:weights=FILE
    tab: object         # the kernels' tables of the sheet
    py_tab: object      # the same, as Python data
    line: object        # the line-up that played (sim.runs.api.Lineup)


def judged(dataset, weights=None, checked: bool = True, rollouts: int = 0, rules=None) -> Judged:
    """What judging the dataset's games needs; AnalyseError / DatasetError / WeightsError (one
    line) for a dataset, weights file or rollouts it cannot be judged with. The games are replayed
    and judged under the rules the dataset's manifest records; `rules` (a Rules or a --rules text),
    if given, must be those."""
    manifest = read_manifest(dataset)
    sheet = manifest_sheet(manifest)
    s = Settings.from_manifest(manifest, sheet, checked)
    if rules is not None and parse_rules(rules) != s.rules:
        raise AnalyseError(f"{dataset} was played under the rules {s.rules.label}, not {parse_rules(rules).label}: "
                           "a dataset is analysed under the rules of its manifest (leave out {rules})")
    if rollouts and s.players > 1:
        raise AnalyseError("{rollouts} judges solo games only: a table's decisions are judged by learned's value")
    if rollouts % 2:
        raise AnalyseError(f"rollouts must be even (two halves for the improvement of learned's own play), "
                           f"got {rollouts}")
    if weights is not None and not Path(weights).is_file():
        raise AnalyseError(f"weights file {weights} does not exist")
    try:
        W = weights_array(sheet, weights, s.players, s.rules)
    except MissingWeights:         # the caller may train them (--train) and judge again
        raise
    except WeightsError as e:      # the judge's weights file is unusable
        raise AnalyseError(f"{e}; analyse with {{weights}} W.npz") from None
    judge = "learned" if weights is None else f"learned:weights={weights}"
    check_files(manifest)
    line = lineup(list(s.strategies), [manifest_files(manifest).get(x) for x in s.strategies], sheet, s.players,
                  checked, rules=s.rules)
    return Judged(s, sheet, W, judge, kernel_tables(sheet, s.rules), build_tables(sheet, s.rules), line)


def analyse(dataset, strategy: str | None = None, rollouts: int = 0, games: int | None = None,
            weights=None, threads: int | None = None, mistakes: int = DEFAULT_MISTAKES, progress: bool = False,
            decisions_out=None, checked: bool = True, top: int = 0, rules=None) -> Analysis:
    """Judge every decision of the dataset's finished games (the first `games` of them if given)
    against learned's choice (its shipped weights for the dataset's sheet and players, or those
    of the file `weights`); with `strategy`, only the seats that strategy played. `rollouts` N > 0
    (even, solo only): judge by N taxed rollouts of both choices. `decisions_out`: a Parquet file
    to write with one row per decision. `top` >= 2 (with rollouts): also one step of policy
    improvement over learned on learned's own games (sim.research.improvement). The games are
    judged under the rules the dataset was played under (its manifest's; `rules`, if given, must
    be those), by learned's weights for them. Raises AnalyseError / DatasetError / WeightsError
    (ValueError, one line) for what cannot be analysed."""
    t0 = time.monotonic()
    if games is not None:
        games = check_int("games", games, 1, MAX_GAMES)
    rollouts = check_int("rollouts", rollouts, 0, MAX_ROLLOUTS)
    mistakes = check_int("mistakes", mistakes, 0, MAX_MISTAKES)
    if top:
        from .improvement import MAX_TOP
        top = check_int("top", top, 2, MAX_TOP)
    threads = check_threads(threads)
    j = judged(dataset, weights, checked, rollouts, rules)
    s, sheet, W, judge, tab, py_tab, line = j.settings, j.sheet, j.W, j.judge, j.tab, j.py_tab, j.line
    labels = list(dict.fromkeys(s.strategies))
    play = read_manifest(dataset).get("play")
    people = [play["label"]] if isinstance(play, dict) and isinstance(play.get("label"), str) else []
    if isinstance(play, dict) and isinstance(play.get("labels"), list) and play["labels"]:
        people = [str(x) for x in play["labels"]]    # several people at one screen: each one's seat
    if strategy is None and people:
        # A person's game (encore-sim play): their seats alone, not the bots', by the labels
        # their results carry (each person's seat plays `recorded`).
        strategy = people[0] if len(people) == 1 else tuple(people)
        labels.extend(people)
    if strategy is not None and not isinstance(strategy, tuple) and strategy not in labels:
        raise AnalyseError(f"strategy {strategy!r} did not play in {dataset} (it holds {', '.join(labels)})")
    done = sorted(done_chunks(dataset))
    if not done:
        raise AnalyseError(f"{dataset}: no finished chunk to analyse")
    total = min(games, s.games) if games is not None else None
    in_store = sum(min(s.chunk_size, s.games - c * s.chunk_size) for c in done)
    total = in_store if total is None else min(total, in_store)
    numba.set_num_threads(threads)
    # Blocks: a few for every thread with rollouts (each game is then long), larger without.
    block = 2 * threads if rollouts else 1000
    bar = Progress(total, enabled=progress, unit="games")
    folds: dict[tuple, _Fold] = {}
    heap: list = []
    writer = None
    tmp = None
    learned_spec = judge
    solo = s.players == 1
    done_games = 0
    from_zero = True     # the games analysed are 0..done_games-1 (what the improvement measures)
    try:
        if decisions_out is not None:
            import pyarrow.parquet as pq
            decisions_out = Path(decisions_out)
            tmp = decisions_out.with_name(f".{decisions_out.name}.{os.getpid()}.tmp")
        for first, n, stored, label in _blocks(dataset, s, total, block):
            chunk = play_chunk(s.seed, first, n, line, players=s.players, sheet=sheet, max_rolls=s.max_rolls,
                               rotate=s.rotate, log_turns=True, rules=s.rules)
            replayed = chunk.seats[:, :, PS_SCORE]
            bad = np.flatnonzero((replayed != stored).any(axis=1))
            if bad.size:
                g = int(bad[0])
                raise AnalyseError(f"game {first + g} of {dataset} replays to scores {replayed[g].tolist()}, the "
                                   f"dataset stores {stored[g].tolist()}: its strategies or the simulator changed "
                                   "since the run")
            log, log_start = chunk.log, chunk.log_start
            out = np.empty((len(log), J_SIZE))
            game_ids = np.arange(first, first + n, dtype=np.int64)
            if solo:
                scores = np.empty(n, np.int64)
                judge_solo(W, tab, np.uint64(s.seed), game_ids, log, rollouts, True, out, scores)
                scores = scores[:, None]
                own = learned_taxed(W, tab, s.seed, first, n, s.rules)
            else:
                scores = np.empty((n, s.players), np.int64)
                judge_table(W, tab, np.uint64(s.seed), game_ids, s.players, s.max_rolls, log, log_start, out, scores)
                own = None
            if not np.array_equal(scores, replayed):
                raise AnalyseError(f"the judge replayed games {first}-{first + n - 1} to other scores than the "
                                   "engine: a bug, please report it")
            _fold_block(folds, heap, out, log, log_start, chunk, first, stored, label, own, rollouts, strategy,
                        mistakes, py_tab)
            if decisions_out is not None:
                table = _decisions_table(out, log, log_start, chunk, first, label, rollouts, strategy, py_tab)
                if writer is None:
                    writer = pq.ParquetWriter(tmp, table.schema)
                writer.write_table(table)
            from_zero = from_zero and first == done_games
            done_games += n
            bar.update(done_games)
            interrupts.check()
        bar.close()
        if writer is not None:
            writer.close()
            writer = None
            os.replace(tmp, decisions_out)
    finally:
        if writer is not None:
            writer.close()
        if tmp is not None and tmp.exists():
            tmp.unlink()
    improvement = None
    own_games = strategy is None or strategy == learned_spec
    if top and rollouts and solo and from_zero and learned_spec in labels and own_games:
        from .improvement import measure_games
        improvement = measure_games(W, tab, sheet.name, s.seed, done_games, rollouts, top, weights, threads, progress)
    rows = _rows(folds, s.players, rollouts, improvement)
    found = sorted(heap, key=lambda x: -x[0])
    rated = None
    ratings = {}
    for who in people:
        person = [r for r in rows if r["strategy"] == who and r["seat"] is None]
        if person and person[0]["decisions"]:
            from strategies.levels import rating
            ratings[who] = rating(person[0]["loss_per_decision"], person[0]["loss_per_decision_ci"], s.players)
    rated = ratings.get(people[0]) if people else None
    return Analysis(str(dataset), s.players, sheet.name, s.seed, done_games, rollouts, judge, rows,
                    [m for _, _, m in found], time.monotonic() - t0, threads, improvement, rated,
                    ratings if len(people) > 1 else None)


def _among(labels, strategy):
    """Which of `labels` (an array) are `strategy`'s: one label, or a tuple of them (the people of
    a game at one screen); all where it is None."""
    if strategy is None:
        return np.ones(len(labels), bool)
    return np.isin(labels, list(strategy) if isinstance(strategy, tuple) else [strategy])


def _fold_block(folds, heap, out, log, log_start, chunk, first, stored, label, own, rollouts, strategy, keep, tab):
    n, players = stored.shape
    g = np.repeat(np.arange(n), np.diff(log_start))
    seat = log[:, LOG_SEAT]
    roll = log[:, LOG_ROLL]
    value_loss = out[:, J_BEST] - out[:, J_MADE]
    loss = out[:, J_ROLLED] if rollouts else value_loss
    sub = log[:, LOG_SUB]
    differ = (out[:, J_BEST_SUB] != sub) | ((sub >= 0) & (out[:, J_BEST_COST] != log[:, LOG_COST]))
    luck = np.nan_to_num(out[:, J_LUCK])
    unit = g * players + seat
    size = n * players
    x = np.zeros((size, _N_F))

    def add(f, w, where=None):
        x[:, f] = np.bincount(unit if where is None else unit[where], weights=w if where is None else w[where],
                              minlength=size)

    ones = np.ones(len(log))
    add(_F_DECISIONS, ones)
    add(_F_LOSS, loss)
    add(_F_VALUE_LOSS, value_loss)
    add(_F_LUCK, luck)
    add(_F_DIFFER, differ.astype(float))
    x[:, _F_SCORE] = stored.ravel()
    if own is not None:     # solo: learned's score on the same dice, and that score less its luck
        x[:, _F_GAP] = own[0] - stored[:, 0]
        x[:, _F_GAP_TAXED] = own[1] - (stored[:, 0] - x[:, _F_LUCK])
    kinds = [log[:, LOG_ACTIVE] == 1, log[:, LOG_ACTIVE] == 0, log[:, LOG_SUB] < 0, log[:, LOG_COST] > 0]
    for k, where in enumerate(kinds):
        add(_F_KIND + 2 * k, ones, where)
        add(_F_KIND + 2 * k + 1, loss, where)
    stage = _stage(roll)
    for k in range(len(STAGES)):
        where = stage == k
        add(_F_STAGE + 2 * k, ones, where)
        add(_F_STAGE + 2 * k + 1, loss, where)
    labels = label.ravel()
    seats = np.tile(np.arange(players), n)
    for name in dict.fromkeys(labels):
        if not _among(np.array([name], dtype=object), strategy)[0]:
            continue
        mine = labels == name
        folds.setdefault((name, None), _Fold()).add(x[mine])
        if players > 1:
            for s_ in range(players):
                sel = mine & (seats == s_)
                if sel.any():
                    folds.setdefault((name, s_), _Fold()).add(x[sel])
    if keep:
        judged = _among(labels[unit], strategy)
        cand = np.flatnonzero(judged & (loss > 0))
        if len(cand) > keep:
            cand = cand[np.argpartition(-loss[cand], keep - 1)[:keep]]
        for r in cand.tolist():
            item = (float(loss[r]), -(first * 1000 + r), None)
            if len(heap) >= keep and item[:2] <= heap[0][:2]:
                continue
            gi = int(g[r])
            dice = chunk.dice[chunk.dice_start[gi] + roll[r] - 1]
            avail = int(log[r, LOG_AVAIL])
            m = {"game": first + gi, "roll": int(roll[r]), "seat": int(seat[r]), "strategy": str(labels[unit[r]]),
                 "loss": float(loss[r]), "value_loss": float(value_loss[r]),
                 "chosen": choice_text(tab, dice, avail, int(log[r, LOG_SUB]), int(log[r, LOG_COST]),
                                        int(log[r, LOG_CDIE]), int(log[r, LOG_NDIE])),
                 "best": choice_text(tab, dice, avail, int(out[r, J_BEST_SUB]), int(out[r, J_BEST_COST])),
                 "dice": dice_text(dice, players)}
            item = (item[0], item[1], m)
            if len(heap) < keep:
                heapq.heappush(heap, item)
            else:
                heapq.heapreplace(heap, item)


def learned_taxed(W, tab, seed, first, n, rules):
    """learned's scores on solo games first..first+n-1 of `seed` under `rules`, and the same less each
    game's luck: the same expectation, less noise (about half the raw gap's against heuristic).
    The judge plays them itself (its best choice is learned's): no copy of learned's decision to compile."""
    out = np.empty((n * rules.solo_rolls, J_SIZE))
    scores = np.empty(n, np.int64)
    judge_solo(W, tab, np.uint64(seed), np.arange(first, first + n, dtype=np.int64), _NO_LOG, 0, True, out, scores,
               own=True)
    luck = out[:, J_LUCK].reshape(n, rules.solo_rolls).sum(axis=1)
    return scores, scores - luck


def dice_text(dice, players) -> str:
    """A roll's dice as text, colour faces | number faces (two of each in the solo game, three at a table)."""
    from sim.runs.gamelog import colour_face, number_face
    k = 2 if players == 1 else 3
    return " ".join(str(colour_face(int(f))) for f in dice[:k]) + " | " + \
        " ".join(str(number_face(int(f))) for f in dice[3:3 + k])


def _decisions_table(out, log, log_start, chunk, first, label, rollouts, strategy, tab):
    """One row per decision (of `strategy`'s seats, if given) as a pyarrow Table."""
    import pyarrow as pa
    n, players = label.shape
    g = np.repeat(np.arange(n), np.diff(log_start))
    seat = log[:, LOG_SEAT]
    labels = label.ravel()[g * players + seat]
    keep = _among(labels, strategy)
    value_loss = out[:, J_BEST] - out[:, J_MADE]
    cells = np.array([" ".join(choice_text(tab, None, 0, i, 0, 0, 0)["cells"]) for i in range(len(tab.size))]
                     + [""], dtype=object)
    sub, best_sub = log[:, LOG_SUB], out[:, J_BEST_SUB].astype(np.int64)
    cols = {
        "game": first + g, "roll": log[:, LOG_ROLL], "seat": seat, "strategy": labels.astype(str),
        "active": log[:, LOG_ACTIVE] == 1, "choices": log[:, LOG_CHOICES],
        "chosen_pass": sub < 0, "chosen_cells": cells[sub].astype(str), "chosen_jokers": log[:, LOG_COST],
        "best_pass": best_sub < 0, "best_cells": cells[best_sub].astype(str),
        "best_jokers": out[:, J_BEST_COST].astype(np.int64),
        "value_made": out[:, J_MADE], "value_best": out[:, J_BEST], "value_loss": value_loss,
        "loss": out[:, J_ROLLED] if rollouts else value_loss, "luck": out[:, J_LUCK],
    }
    return pa.table({k: np.asarray(v)[keep] for k, v in cols.items()})


def _rows(folds: dict, players: int, rollouts: int, improvement) -> list[dict]:
    rows = []
    for (name, seat), f in folds.items():
        games = f.n
        loss, loss_hw, _ = f.mean_ci(_F_LOSS)
        per_dec, per_dec_hw = f.ratio_ci(_F_LOSS, _F_DECISIONS)
        value, value_hw, _ = f.mean_ci(_F_VALUE_LOSS)
        luck, luck_hw, luck_sd = f.mean_ci(_F_LUCK)
        row = {"strategy": name, "seat": seat, "games": games, "decisions": int(f.s[_F_DECISIONS]),
               "loss_per_game": loss, "loss_ci": loss_hw, "loss_per_decision": per_dec,
               "loss_per_decision_ci": per_dec_hw, "value_loss_per_game": value, "value_loss_ci": value_hw,
               "luck_per_game": luck if players == 1 else None, "luck_ci": luck_hw if players == 1 else None,
               "luck_sd": luck_sd if players == 1 else None,
               "differ_share": f.s[_F_DIFFER] / f.s[_F_DECISIONS], "mean_score": f.s[_F_SCORE] / games}
        if players == 1:
            gap, gap_hw, _ = f.mean_ci(_F_GAP)
            row["learned_gap"], row["learned_gap_ci"] = gap, gap_hw
            gap, gap_hw, _ = f.mean_ci(_F_GAP_TAXED)
            row["learned_gap_taxed"], row["learned_gap_taxed_ci"] = gap, gap_hw
            seen = f.luck_games > 0
            row["score_by_luck"] = {"luck": (np.flatnonzero(seen) - LUCK_SPAN).tolist(),
                                    "games": f.luck_games[seen].astype(int).tolist(),
                                    "mean_score": (f.luck_scores[seen] / f.luck_games[seen]).tolist()}
        row["by_kind"] = _split(f, _F_KIND, KINDS)
        row["by_stage"] = _split(f, _F_STAGE, STAGES)
        rows.append(row)
    rows.sort(key=lambda r: (r["strategy"], -1 if r["seat"] is None else r["seat"]))
    return rows


def _split(f: _Fold, first: int, names) -> dict:
    """Per part (kind or stage) that has decisions: its decisions and loss per game (figures
    first + 2k, first + 2k + 1 of part k)."""
    out = {}
    for k, name in enumerate(names):
        d = f.s[first + 2 * k]
        if d:
            m, hw, _ = f.mean_ci(first + 2 * k + 1)
            out[name] = {"decisions_per_game": d / f.n, "loss_per_game": m, "loss_ci": hw}
    return out


def _fmt(m, hw) -> str:
    return f"{m:6.2f} +- {hw:.2f}" if hw is not None and math.isfinite(hw) else f"{m:6.2f}"


def format_text(a: Analysis) -> str:
    how = (f"{a.rollouts:,} taxed rollouts of both choices on the same dice" if a.rollouts
           else f"{a.judge}'s value")
    games = "game" if a.games == 1 else "games"
    out = [f"Analysis of {a.dataset}: {a.games:,} " + (f"solo {games}" if a.players == 1 else f"{games} of {a.players} "
                                                         "players") + f", sheet {a.sheet}, seed {a.seed}",
           f"Every decision judged against {a.judge}'s choice; loss = its action value minus that of the choice made, "
           f"by {how}.", ""]
    for r in a.rows:
        who = r["strategy"] if r["seat"] is None else f"{r['strategy']}, seat {r['seat']}"
        one = r["games"] == 1
        out.append(f"{who}: {r['games']:,} game{'' if one else 's'}, {r['decisions']:,} decisions, mean score "
                   f"{r['mean_score']:.2f}")
        out.append(f"  loss per game          {_fmt(r['loss_per_game'], r['loss_ci'])}   "
                   + ("(1 game: no interval)" if one else "(95% CI)"))
        if a.rollouts:
            out.append(f"    by learned's value   {_fmt(r['value_loss_per_game'], r['value_loss_ci'])}")
        if r.get("learned_gap") is not None:
            out.append(f"  {a.judge} - its score  {_fmt(r['learned_gap'], r['learned_gap_ci'])}   (same dice: "
                       "the loss's expectation by learned's true action values)")
            out.append(f"    less both's luck     {_fmt(r['learned_gap_taxed'], r['learned_gap_taxed_ci'])}   "
                       "(the same expectation, less noise)")
        out.append(f"  loss per decision      {_fmt(r['loss_per_decision'], r['loss_per_decision_ci'])};  "
                   f"differs from {a.judge}'s choice in {100 * r['differ_share']:.1f}% of decisions")
        if r["luck_per_game"] is not None:
            sd = f"sd {r['luck_sd']:.2f}" if math.isfinite(r["luck_sd"]) else "1 game: no sd"
            out.append(f"  luck per game          {_fmt(r['luck_per_game'], r['luck_ci'])}   ({sd})")
        out.append("  loss per game by kind: " + ";  ".join(
            f"{k} {v['loss_per_game']:.2f} ({v['decisions_per_game']:.1f} decisions)" for k, v in r["by_kind"].items()))
        out.append("  loss per game by stage:")
        for k, v in r["by_stage"].items():
            out.append(f"    {k:<12} {_fmt(v['loss_per_game'], v['loss_ci'])}")
        out.append("")
    if a.ratings:
        for who, rated in a.ratings.items():
            words = rated["words"].replace("you played", "played", 1)
            out.append(f"{who}: {words} (docs/levels.md).")
        out.append("")
    elif a.rating is not None:
        out.append(a.rating["words"][0].upper() + a.rating["words"][1:] + " (docs/levels.md).")
        out.append("")
    if a.improvement is not None:
        out.append(a.improvement.report())
        out.append("")
    if a.mistakes:
        out.append(f"Largest mistakes (replay with: encore-sim replay {a.dataset} --game N):")
        for m in a.mistakes:
            out.append(f"  game {m['game']}, roll {m['roll']}, seat {m['seat']} ({m['strategy']}), dice "
                       f"{m['dice']}: loss {m['loss']:.2f}")
            out.append(f"    played  {describe(m['chosen'])}")
            out.append(f"    learned {describe(m['best'])}")
            out.append(f"    every choice: encore-sim analyse {a.dataset} --game {m['game']} --roll {m['roll']}"
                       + (f" --seat {m['seat']}" if a.players > 1 else ""))
        out.append("")
    out.append(f"{a.seconds:.1f} s on {a.threads} thread(s)")
    return "\n".join(out)
