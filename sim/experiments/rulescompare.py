"""Rule sets compared on the same dice: what a rule change does to the game (the designer's view).

    r = compare_rules("learned", ["rulebook", "pass-penalty=1", "end-colours=3"], players=4, games=10_000)
    r.table                          # tidy: a row per (rule set B, who, metric), paired against A
    r.row("score", rules="pass-penalty=1")    # one row as a dict

The first rule set is A, the baseline; every other one is a B. One rule set alone is compared with
the rulebook. The same line-up (one strategy per seat, or one for every seat; seats rotated as
`run` rotates them) plays game g of the same seed under each rule set, so every game's dice are
the same under A and B (the dice depend on seed, game and roll only: sim.rng) and a per-game
difference B - A carries none of the dice's variance, only what the rules change and what the
strategies then decide differently.

Per rule set and game, every metric is one number: for the game (rolls, capped), or a mean over
seats (all of them, one seat, or the seats a strategy holds). The table gives its mean under A
and under B and the mean of the per-game differences B - A with a 95% t interval over games
(games are independent; the seats of one game are not, so a game, not a seat, is the unit).
Sums are kept as exact integers (a group's per-game value is a sum over a fixed number of seats,
divided at the end), so a difference that is the same in every game has an interval of width 0,
not of rounding noise.

Either a fixed number of games (`games`, default 10,000), or `until_ci`: play until the mean
score's difference (all seats) of every B has a 95% half-width below `until_ci` points, at most
`max_games`; batches are scheduled as sim.experiments.compare schedules them (its code, reused).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numba
import numpy as np
import pandas as pd

from ..runs import api
from ..runs.api import check_chunk, play_chunk
from .compare import paired_settings, play_batches, stop_message, stop_of
from ..runs.defaults import CHECK_ADAPTATION, ROTATE, SEED, SHEET
from ..runs.settings import DEFAULT_MAX_ROLLS, Settings
from ..runs.summary import t_quantile
from strategies.adaptation import (
    for_rules,
    players_lines,
    plays_weights,
    trained_games,
    unadapted,
    warning,
    weights_rules_of,
)
from strategies.learned import weights_rules as learned_rules
from strategies.registry import resolve
from ..engine import GR_CAPPED, GR_ROLLS
from ..rules import RULEBOOK, RuleSet, Rules, acting, expand_sweep, inert, parse_rule_set, parse_rules
from ..sheets import Sheet, load_sheet
from ..state import (
    PS_BOXES,
    PS_COL_POINTS,
    PS_COLOUR_POINTS,
    PS_COLOURS,
    PS_COLS,
    PS_JOKERS,
    PS_PASSES,
    PS_SCORE,
    PS_STAR_PENALTY,
    PS_WINNER,
)


@dataclass(frozen=True)
class Metric:
    name: str      # the table's `metric`
    label: str     # how the printed table and the report name it
    percent: bool = False   # a share (win rate, capped games): shown in %


#: Per game (who = "game").
GAME_METRICS = (Metric("rolls", "game length (rolls)"), Metric("capped", "capped games", True))
#: Per seat, averaged over the seats of a group. Score = column points + colour points + '!' left
#: - star penalty - pass penalty x passes: the breakdown is here too, to see where a change acts.
SEAT_METRICS = (
    Metric("score", "score"),
    Metric("win_rate", "win rate", True),
    Metric("jokers_used", "'!' used"),
    Metric("columns", "columns completed"),
    Metric("colours", "colours completed"),
    Metric("passes", "passes"),
    Metric("star_penalty", "star penalty"),
    Metric("column_points", "column points"),
    Metric("colour_points", "colour points"),
    Metric("jokers_left", "'!' left"),
    Metric("boxes", "boxes crossed"),
)
METRICS = {m.name: m for m in GAME_METRICS + SEAT_METRICS}
#: Per seat (tables): the seat's own rows, the first player's edge and how a rule moves it.
SEAT_ROWS = ("score", "win_rate")
ALL = "all seats"
#: The adaptation check's row at a table of one strategy: the seat that, in turn, plays A's weights.
ONE_SEAT = "one seat"
GAME = "game"


def _seat_values(name: str, seats: np.ndarray, rules: Rules) -> np.ndarray:
    """(games, players) int64: metric `name` of every seat of a chunk's games."""
    if name == "columns":
        return np.bitwise_count(seats[:, :, PS_COLS].astype(np.uint64)).astype(np.int64)
    if name == "colours":
        return np.bitwise_count(seats[:, :, PS_COLOURS].astype(np.uint64)).astype(np.int64)
    if name == "jokers_used":
        return rules.jokers - seats[:, :, PS_JOKERS]   # jokers=N: a sheet starts with N
    return seats[:, :, {"score": PS_SCORE, "win_rate": PS_WINNER, "passes": PS_PASSES, "star_penalty": PS_STAR_PENALTY,
                        "column_points": PS_COL_POINTS, "colour_points": PS_COLOUR_POINTS, "jokers_left": PS_JOKERS,
                        "boxes": PS_BOXES}[name]]


@dataclass(frozen=True)
class _Key:
    """One row of the table: a metric of a group. Its per-game value is the sum of the metric over
    the group's seats (`seats` of them in every game), divided by `seats` at the end."""
    metric: str
    who: str
    seats: int
    slot: int | None = None       # the group's strategy: a slot of the line-up's distinct labels
    seat: int | None = None       # or its seat


def _keys(players: int) -> list[_Key]:
    """The first rows: the game's, and the means over every seat."""
    keys = [_Key(m.name, GAME, 1) for m in GAME_METRICS if players > 1 or m.name != "capped"]
    seat_metrics = [m.name for m in SEAT_METRICS if players > 1 or m.name != "win_rate"]
    # every seat's mean: a win rate over every seat is only the ties' share, not a rate: left out
    keys += [_Key(m, ALL, players) for m in seat_metrics if m != "win_rate"]
    return keys


@dataclass
class _Tally:
    """Exact integer sums over games: per rule set of each key's value, and per B of its difference
    from A and of that difference's square (the interval's; A's own entries stay 0)."""
    keys: list
    sets: int
    done: int = 0
    widest: float = float("nan")   # with until_ci: the widest score difference's half-width (compare's)

    def __post_init__(self):
        k = len(self.keys)
        self.s = [np.zeros(k, object) for _ in range(self.sets)]
        self.d = [np.zeros(k, object) for _ in range(self.sets)]
        self.dd = [np.zeros(k, object) for _ in range(self.sets)]
        self.hists = [{"score": Counter(), "rolls": Counter()} for _ in range(self.sets)]

    def add(self, values: list[np.ndarray]) -> None:
        """One batch: per rule set, (games, keys) int64 values of the same games."""
        base = values[0]
        for i, v in enumerate(values):
            self.s[i] += _column_sums(v)
            if i:
                diff = v - base
                self.d[i] += _column_sums(diff)
                self.dd[i] += _column_sums(diff * diff)
        self.done += len(base)

    def ci(self, i: int, k: int) -> tuple[float, float, float]:
        """(mean, sd, 95% half-width) of key k's per-game difference B_i - A."""
        n, m = self.done, self.keys[k].seats
        s, ss = int(self.d[i][k]), int(self.dd[i][k])
        mean = s / (n * m)
        if n < 2:
            return mean, float("nan"), float("nan")
        # n * sum(x^2) - sum(x)^2 in Python's integers: exactly 0 when every game's difference is the same
        var = (n * ss - s * s) / (n * (n - 1) * m * m)
        sd = var ** 0.5
        return mean, sd, t_quantile(n - 1) * sd / n ** 0.5

    def mean(self, i: int, k: int) -> float:
        return int(self.s[i][k]) / (self.done * self.keys[k].seats)

    @property
    def dscore(self) -> list:
        """What sim.experiments.compare's batch schedule reads: per rule set (A first, unread) an object
        whose ci() is the mean score's difference over every seat."""
        k = next(j for j, key in enumerate(self.keys) if key.metric == "score" and key.who == ALL)
        return [None] + [_Diff(self, i, k) for i in range(1, self.sets)]


@dataclass
class _Diff:
    tally: _Tally
    i: int
    k: int

    def ci(self):
        return self.tally.ci(self.i, self.k)


def _column_sums(v: np.ndarray) -> np.ndarray:
    """Column sums as Python integers. A batch's int64 sums cannot overflow: a per-game value is
    under 2^17 (the roll cap is at most 100,000; a sum over six seats of a seat's figure is far
    less), its square under 2^34, and a batch under 2^24 games (MAX_CHUNK); the running totals
    over a long comparison might, so they are Python's integers."""
    return np.array([int(x) for x in v.sum(axis=0, dtype=np.int64)], object)


@dataclass
class RulesComparison:
    """The result of compare_rules: `table` (tidy, a row per rule set B, who and metric) and what
    produced it."""
    table: pd.DataFrame
    rules: list[Rules]           # A (the baseline) first, then each B
    games: int
    players: int
    seed: int
    strategies: list[str]        # the line-up's labels: one per seat, or one for every seat
    settings: dict = field(default_factory=dict)
    #: With until_ci: as sim.experiments.compare.Comparison.stop.
    stop: dict | None = None
    #: per rule set label: {"score": {score: seats}, "rolls": {rolls: games}}, for the report
    hists: dict = field(default_factory=dict)
    #: per rule set label: one line per distinct strategy saying what played it (strategies.adaptation)
    played_by: dict = field(default_factory=dict)
    #: one line per strategy that does not read a rule that a B changes
    warnings: list = field(default_factory=list)
    #: with check_adaptation: a row per B, who and metric: the B players' figure against the same
    #: players with weights trained under A, both under B on the same games (None: not measured)
    adaptation: pd.DataFrame | None = None
    #: with measures (or skill): sim.runs.measures' aggregate of each rule set's games, a row per
    #: rule set, metric and who, each B paired against A (None: not measured)
    measures: pd.DataFrame | None = None
    #: the measures not given, by what they would need (sim.runs.measures.missing)
    not_measured: dict = field(default_factory=dict)
    #: each rule set with the sheet it was played on (rules[i] is sides[i].rules); [] before sheets
    sides: list = field(default_factory=list)
    #: a sweep's ranking (sim.experiments.sweep.ranking) and what it ranks by: (by, versus)
    ranking: pd.DataFrame | None = None
    ranked_by: tuple | None = None
    ranking_text: str | None = None

    @property
    def labels(self) -> list[str]:
        return [x.label for x in self.sides] if self.sides else [r.label for r in self.rules]

    def row(self, metric: str, who: str = ALL, rules=None) -> dict:
        """The table's row of `metric` for `who` ("all seats", "game", "seat N" or a strategy's
        label) and rule set B `rules` (a Rules or its text; default: the first B)."""
        label = self.labels[1] if rules is None else rules if rules in self.labels else parse_rules(rules).label
        if metric in (m.name for m in GAME_METRICS):
            who = GAME
        t = self.table
        hit = t[(t["rules_b"] == label) & (t["metric"] == metric) & (t["who"] == who)]
        if len(hit) != 1:
            raise KeyError(f"no row of metric {metric!r} for {who!r} under {label!r}")
        return hit.iloc[0].to_dict()


def rule_sets(rules) -> list[Rules]:
    """The rule sets compared, A first: `rules` is one (compared with the rulebook) or a list of
    two or more (the first is A). Each a Rules or a --rules text; ValueError for fewer than two
    different ones, or one given twice."""
    given = [rules] if isinstance(rules, (str, Rules)) or rules is None else list(rules)
    sets = [parse_rules(r) for r in given]
    if len(sets) == 1:
        if sets[0].is_rulebook:
            raise ValueError("compare-rules needs a rule set other than the rulebook: e.g. "
                             "`encore-sim compare-rules pass-penalty=1` (against the rulebook)")
        sets.insert(0, RULEBOOK)
    seen = set()
    for r in sets:
        if r in seen:
            raise ValueError(f"rule set {r.label!r} is given twice (the same rules, however spelled)")
        seen.add(r)
    return sets


@dataclass(frozen=True)
class Side:
    """A rule set compared, with the sheet it is played on: the comparison's sheet, or the one its
    text names (`sheet=NAME_OR_FILE`, then part of its label)."""
    rules: Rules
    sheet: Sheet
    named: bool = False

    @property
    def text(self) -> str:
        """As a rule-set text names it: the sheet (if named) and the rules."""
        return RuleSet(self.rules, self.sheet.name if self.named else None).text

    @property
    def label(self) -> str:
        return self.text or "rulebook"


def sides_of(rules, sheet=SHEET) -> list[Side]:
    """rule_sets() of rule-set texts that may name their sheet (sim.rules.parse_rule_set): a Side
    each, on its own sheet or on `sheet`; one alone is compared with the rulebook on `sheet`."""
    given = [rules] if isinstance(rules, (str, Rules, RuleSet)) or rules is None else list(rules)
    given = [p for r in given for p in (expand_sweep(r) if isinstance(r, str) else [r])]   # a range: its points
    default = load_sheet(sheet)
    parsed = [parse_rule_set("" if r is None else r) for r in given]
    sides = [Side(p.rules, default if p.sheet is None else load_sheet(p.sheet), p.sheet is not None) for p in parsed]
    if len(sides) == 1:
        if sides[0].rules.is_rulebook and sides[0].sheet == default:
            raise ValueError("compare-rules needs a rule set other than the rulebook: e.g. "
                             "`encore-sim compare-rules pass-penalty=1` (against the rulebook)")
        sides.insert(0, Side(RULEBOOK, default))
    if any(x.named for x in sides):      # then every label names its sheet
        sides = [Side(x.rules, x.sheet, True) for x in sides]
    seen = set()
    for x in sides:
        if (x.rules, x.sheet) in seen:
            raise ValueError(f"rule set {x.label!r} is given twice (the same rules and sheet, however spelled)")
        seen.add((x.rules, x.sheet))
    return sides


def compare_rules(strategies, rules, games=None, players=None, seed=SEED, sheet=SHEET, rotate=ROTATE,
                  max_rolls=DEFAULT_MAX_ROLLS, threads=None, chunk_size=None, until_ci=None, max_games=None,
                  progress=False, checked=True, check_adaptation=CHECK_ADAPTATION, measures=False,
                  skill=None, trace=False) -> RulesComparison:
    """Play the line-up `strategies` (one spec per seat, or one for every seat of `players`) on the
    same games under each rule set of `rules` (rule_sets: one, against the rulebook, or A, B, ...)
    and compare every B with A, game by game.

    `games` (default 10,000) and `until_ci` exclude each other; `max_games` (default 1,000,000)
    is the limit of `until_ci` and needs it. `rotate`: rotate several strategies over the seats
    from game to game, as `encore-sim run` does. `checked`: users' strategies are compiled with
    bounds checking. Raises ValueError for bad input, sim.runs.api.StrategyError for a strategy's
    illegal move.

    Each rule set is played by the players of its rules: `learned` with weights trained under
    them (a learned:weights=FILE spec names the weights of the rule set FILE was trained for; the
    others play their own). `check_adaptation`: also play each B's games with the weights players
    of A's rules (learned trained under A, playing under B), to measure what B's own weights gain
    (RulesComparison.adaptation); a gain near 0 says B was answered by players who did not adapt.

    `measures`: also the designer's measures of each rule set's games (sim.runs.measures; the games
    are played with their move log, which takes about twice as long), each B paired against A;
    always where the rule sets are played on different sheets (the completion table compares them).
    `skill`: also the skill ladder under each rule set (True: sim.experiments.skill.LADDER, or the
    strategies weakest first), duels of two on the comparison's game numbers. `trace`: the measures
    too of each rule set's per-roll trace (sim.runs.trace.chunk_measures: `learned`'s chances
    after every roll, its weights for each rule set needed), each B paired against A.
    """
    sides = sides_of(rules, sheet)
    sets = [x.rules for x in sides]
    measures = measures or trace or any(x.sheet != sides[0].sheet for x in sides)   # sheets: their completion table
    specs = [strategies] if isinstance(strategies, str) else list(strategies)
    base = Settings.of(strategies=specs, players=players, seed=seed, sheet=sheet, rotate=rotate,
                       max_rolls=max_rolls, threads=threads, chunk_size=chunk_size, checked=checked)
    # compare's checks of games, until_ci, max_games and chunk_size, and its default batch size
    s = paired_settings(players=base.players, opponents=None, games=games, seed=base.seed, until_ci=until_ci,
                  max_games=max_games, chunk_size=chunk_size, sheet=base.sheet, max_rolls=max_rolls, threads=threads,
                  checked=checked)
    resolved = [resolve(spec, checked=s.checked) for spec in specs]
    _check_weights_files(resolved, sets, s.players)
    lineups = [api.lineup([for_rules(r, side.rules, s.players) for r in resolved], sheet=side.sheet,
                          players=s.players, checked=s.checked, rules=side.rules) for side in sides]
    labels = list(lineups[0].labels or lineups[0].specs)
    played_by = {x.label: players_lines([for_rules(r, x.rules, s.players) for r in resolved], x.sheet, s.players,
                                        x.rules) for x in sides}
    warnings = list(dict.fromkeys([line for b in sets[1:] for line in inert(sets[0], b, s.players)]
                                  + [w for b in sets[1:] for x in resolved
                                     if (w := warning(x, sets[0], acting(sets[0], b, s.players))) is not None]
                                  + training_note(resolved, sides, s.players)))
    unadapted_lineups = [None] * len(sets)
    one_seat = s.players > 1 and len(set(specs)) == 1
    if check_adaptation:
        for i, b in enumerate(sets[1:], 1):
            if learned_rules(b, s.players) == learned_rules(sets[0], s.players) or sides[i].sheet != sides[0].sheet:
                # B's weights are A's (the variant does not change the game they are for), or
                # they are for another sheet, whose boxes A's weights do not know
                continue
            own = [for_rules(x, b, s.players) for x in resolved]
            swapped = [unadapted(for_rules(x, sets[0], s.players), sets[0]) for x in resolved]
            if one_seat and swapped[0] is not None:
                # At a table of one strategy, swapping every seat would change the whole table (a
                # slower table scores more for everyone): one seat, in turn, plays A's weights
                # against B's players, and is set against the same seat in B's own games.
                line = [swapped[0]] + own[:1] * (s.players - 1)
            elif any(x is not None for x in swapped):
                line = [u or x for u, x in zip(swapped, own)]
            else:
                continue
            unadapted_lineups[i] = api.lineup(line, sheet=sides[i].sheet, players=s.players, checked=s.checked,
                                              rules=b)
    groups = list(dict.fromkeys(labels))          # the distinct strategies, in the line-up's order
    keys = _keys(s.players)
    keys += _group_keys(s.players, labels, groups)
    numba.set_num_threads(s.threads)
    adapt_keys = _adaptation_keys(s.players, labels, groups, resolved, one_seat)
    adapt = [None if u is None else _Tally(adapt_keys, 2) for u in unadapted_lineups]
    frames = [[] for _ in sets] if measures else None
    tally = _play(lineups, sides, keys, s, base.rotate, labels, groups, until_ci, progress,
                  [(u, t) for u, t in zip(unadapted_lineups, adapt)], adapt_keys, one_seat, frames, trace)
    measured, lacking = _measures(sides, frames, skill, tally.done, s)
    settings = {"strategies": specs, "players": s.players, "rotate": base.rotate, "seed": s.seed,
                "sheet": s.sheet.name, "max_rolls": s.max_rolls, "rules": [x.text for x in sides],
                "until_ci": until_ci}
    if any(x.named for x in sides):
        settings["sheets"] = [x.sheet.name for x in sides]
    if until_ci is not None:
        settings["max_games"] = s.games
    hists = {x.label: {k: dict(sorted(h.items())) for k, h in tally.hists[i].items()} for i, x in enumerate(sides)}
    return RulesComparison(_table(sides, keys, tally), sets, tally.done, s.players, s.seed, labels, settings,
                           None if until_ci is None else stop_of(tally, until_ci, s.games), hists, played_by,
                           warnings, _adaptation_table(sides, adapt_keys, adapt) if check_adaptation else None,
                           measured, lacking, sides)


def _measures(sides, frames, skill, games: int, s):
    """(the measures of each rule set's games, paired against A, and what they lack), or (None, {})."""
    if frames is None and not skill:
        return None, {}
    from ..runs.measures import aggregate, missing
    from .skill import LADDER, ladder_frame
    per_set = {}
    for i, x in enumerate(sides):
        frame = pd.concat(frames[i], ignore_index=True) if frames is not None else None
        if skill:
            ladder = ladder_frame(games, LADDER if skill is True else tuple(skill), seed=s.seed, sheet=x.sheet,
                                  rules=x.rules)
            frame = ladder if frame is None else frame.merge(ladder, on="game")
        per_set[x.label] = frame
    return aggregate(per_set), (missing(per_set[sides[0].label]) if frames is not None else {})


def training_note(resolved, sides, players: int) -> list[str]:
    """A line when the sides' `learned` play weights trained on different numbers of games (a
    side's players may then be weaker for its shorter training, not for its rules)."""
    lines = []
    for r in resolved:
        games = {x.label: trained_games(for_rules(r, x.rules, players), x.sheet, players, x.rules) for x in sides}
        known = {g for g in games.values() if g}
        if len(known) > 1:
            lines.append(f"Note: {r.spec}'s weights were trained on different numbers of games ("
                         + ", ".join(f"{label}: {g:,}" for label, g in games.items() if g)
                         + "): a side trained on fewer may play worse for that alone")
    return lines


def _check_weights_files(resolved, sets, players: int) -> None:
    """A weights file named in the line-up must be of one of the rule sets compared."""
    wanted = {learned_rules(r, players) for r in sets}
    for x in resolved:
        if plays_weights(x) and x.file is not None:
            got = weights_rules_of(x.file, players)
            if got is not None and got not in wanted:
                raise ValueError(f"{x.spec}: {x.file} was trained under the rules {got.label}, which none of the "
                                 f"rule sets compared is ({', '.join(r.label for r in sets)})")


def _adaptation_keys(players: int, labels: list[str], groups: list[str], resolved, one_seat: bool) -> list[_Key]:
    """The rows of the adaptation check: solo the score and passes; at a table of one strategy those
    and the win rate of the one seat swapped (ONE_SEAT); at a table of several, those of each
    weights player over its seats."""
    if players == 1:
        return [_Key(m, ALL, 1) for m in ("score", "passes")]
    if one_seat:
        return [_Key(m, ONE_SEAT, 1) for m in ("score", "win_rate", "passes")]
    weighted = {labels[i] for i, x in enumerate(resolved) if plays_weights(x)} if len(resolved) == len(labels) \
        else set()
    seats = [labels.count(g) for g in groups] if len(labels) == players else [players]
    return [_Key(m, g, seats[slot], slot=slot) for slot, g in enumerate(groups) if g in weighted
            for m in ("score", "win_rate", "passes")]


def _adaptation_table(sets, keys, tallies) -> pd.DataFrame:
    rows = []
    for i, t in enumerate(tallies):
        if t is None or not t.done:
            continue
        for k, key in enumerate(keys):
            d, sd, h = t.ci(1, k)
            rows.append({"rules_a": sets[0].label, "rules_b": sets[i].label, "metric": key.metric, "who": key.who,
                         "games": t.done, "unadapted": t.mean(0, k), "adapted": t.mean(1, k), "gain": d,
                         "gain_ci_low": d - h, "gain_ci_high": d + h, "significant": bool(abs(d) > h)})
    return pd.DataFrame(rows, columns=["rules_a", "rules_b", "metric", "who", "games", "unadapted", "adapted", "gain",
                                       "gain_ci_low", "gain_ci_high", "significant"])


def _group_keys(players: int, labels: list[str], groups: list[str]) -> list[_Key]:
    """Each strategy's rows (when the line-up has several) and each seat's (at tables)."""
    keys = []
    if len(groups) > 1:
        seats = [labels.count(g) for g in groups] if len(labels) == players else [players]
        for slot, g in enumerate(groups):
            keys += [_Key(m.name, g, seats[slot], slot=slot) for m in SEAT_METRICS
                     if players > 1 or m.name != "win_rate"]
    if players > 1:
        keys += [_Key(m, f"seat {seat}", 1, seat=seat) for seat in range(players) for m in SEAT_ROWS]
    return keys


def _values(chunk, rules: Rules, keys: list[_Key], labels: list[str], groups: list[str]) -> np.ndarray:
    """(games, keys) int64: every key's per-game sum over its seats, in the games of `chunk`."""
    games, seats = chunk.games, chunk.seats
    # the distinct strategy of every seat of every game (the slots index the line-up's specs)
    slot = np.array([groups.index(g) for g in labels], np.int64)[chunk.slots]
    cache = {}
    out = np.zeros((len(games), len(keys)), np.int64)
    for j, k in enumerate(keys):
        if k.who == GAME:
            out[:, j] = games[:, GR_ROLLS if k.metric == "rolls" else GR_CAPPED]
            continue
        if k.metric not in cache:
            cache[k.metric] = _seat_values(k.metric, seats, rules)
        v = cache[k.metric]
        if k.seat is not None:
            out[:, j] = v[:, k.seat]
        elif k.slot is not None:
            out[:, j] = np.where(slot == k.slot, v, 0).sum(axis=1)
        else:
            out[:, j] = v.sum(axis=1)
    return out


def _one_seat_values(chunk, first: int, rules: Rules, keys: list[_Key]) -> np.ndarray:
    """(games, keys): each key's metric of the seat that the adaptation line-up's slot 0 holds
    in each game (rotated: seat (-g) mod players in game g)."""
    n, players = chunk.seats.shape[:2]
    seat = (-(first + np.arange(n))) % players
    return np.stack([_seat_values(k.metric, chunk.seats, rules)[np.arange(n), seat] for k in keys], axis=1)


def _play(lineups, sides, keys, s, rotate, labels, groups, until_ci, progress, adapt, adapt_keys,
          one_seat=False, frames=None, trace=False) -> _Tally:
    """Play every rule set batch by batch on the same games (s.games, or with until_ci until its
    target), as sim.experiments.compare plays its candidates (its schedule); and where adapt[i] is
    (a line-up, a tally), B_i's games by that line-up too, into that tally against B_i's own
    (with `one_seat`, that line-up's slot 0, rotated over the seats, against the same seat).
    With `frames` (a list per rule set), each rule set's games are played with their move log and
    their per-game frame (sim.runs.measures; with `trace`, the trace's measures joined) appended
    to its list."""
    tally = _Tally(keys, len(sides))

    def play(line, side, first, count, rotated=rotate, logged=False):
        chunk = play_chunk(s.seed, first, count, line, players=s.players, sheet=side.sheet,
                           max_rolls=s.max_rolls, rotate=rotated, rules=side.rules, log_turns=logged)
        check_chunk(chunk)
        return chunk

    def adapted(other, chunk, side, first, count):
        r = side.rules
        if one_seat:
            return [_one_seat_values(play(other, side, first, count, True), first, r, adapt_keys),
                    _one_seat_values(chunk, first, r, adapt_keys)]
        return [_values(play(other, side, first, count), r, adapt_keys, labels, groups),
                _values(chunk, r, adapt_keys, labels, groups)]

    def batch(first, count):
        values = []
        for i, (line, side, h) in enumerate(zip(lineups, sides, tally.hists)):
            chunk = play(line, side, first, count, logged=frames is not None)
            values.append(_values(chunk, side.rules, keys, labels, groups))
            if frames is not None:
                from ..runs.measures import frame_of_chunk
                frames[i].append(frame_of_chunk(chunk, trace=trace))
            for name, v in (("score", chunk.seats[:, :, PS_SCORE]), ("rolls", chunk.games[:, GR_ROLLS])):
                h[name].update(dict(zip(*(a.tolist() for a in np.unique(v, return_counts=True)))))
            other, t = adapt[i]
            if other is not None:
                t.add(adapted(other, chunk, side, first, count))
        return values

    return play_batches(tally, s, until_ci, progress, batch)


def _table(sets: list, keys: list[_Key], tally: _Tally) -> pd.DataFrame:
    rows = []
    for i in range(1, len(sets)):
        for k, key in enumerate(keys):
            d, sd, h = tally.ci(i, k)
            rows.append({"rules_a": sets[0].label, "rules_b": sets[i].label, "metric": key.metric, "who": key.who,
                         "games": tally.done, "mean_a": tally.mean(0, k), "mean_b": tally.mean(i, k), "diff": d,
                         "diff_ci_low": d - h, "diff_ci_high": d + h, "diff_sd": sd,
                         "significant": bool(abs(d) > h)})
    return pd.DataFrame(rows)


# --- printing ---------------------------------------------------------------------------

def headline(result: RulesComparison) -> str:
    line = result.strategies[0] if len(set(result.strategies)) == 1 else ", ".join(result.strategies)
    who = "solo" if result.players == 1 else (
        f"{result.players} players, {line} in every seat" if len(set(result.strategies)) == 1 else
        f"{result.players} players: {line}" + (", seats rotated" if result.settings.get("rotate") else ""))
    return (f"{result.games:,} games of seed {result.seed} under each rule set, on the same dice ({who}); "
            f"B - A is the mean of the games' differences (95% CI)")


def _short(text: str, width: int = 28) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _value(metric: str, v: float) -> str:
    return f"{v:.1%}" if METRICS[metric].percent else f"{v:.2f}"


def _diff(metric: str, d: float, lo: float, hi: float) -> str:
    if METRICS[metric].percent:   # in percentage points
        return f"{d * 100:+.1f} ({lo * 100:+.1f}..{hi * 100:+.1f}) pts"
    return f"{d:+.2f} ({lo:+.2f}..{hi:+.2f})"


def display_table(result: RulesComparison) -> pd.DataFrame:
    """The table as format_table prints it (and the report shows it): one string per cell."""
    t = result.table
    return pd.DataFrame({
        "rules B": t["rules_b"],
        "who": t["who"],
        "metric": [METRICS[m].label for m in t["metric"]],
        "A": [_value(m, v) for m, v in zip(t["metric"], t["mean_a"])],
        "B": [_value(m, v) for m, v in zip(t["metric"], t["mean_b"])],
        "B - A (95% CI)": [_diff(m, d, lo, hi) for m, d, lo, hi in
                           zip(t["metric"], t["diff"], t["diff_ci_low"], t["diff_ci_high"])],
        "significant": ["yes" if s else "no" for s in t["significant"]],
    })


def format_players(result: RulesComparison) -> str:
    """Who played each rule set, and the warnings for strategies that ignore a change."""
    lines = ["Players:"]
    for label, played in result.played_by.items():
        lines += [f"  {label}: {played[0]}"] + [f"  {' ' * len(label)}  {p}" for p in played[1:]]
    return "\n".join(lines + result.warnings)


def format_adaptation(result: RulesComparison, b: str) -> str | None:
    """B's block of the adaptation check: B's players against A's under B, and a warning when
    B's weights gain nothing measurable."""
    t = result.adaptation
    if t is None or not len(t) or not (t["rules_b"] == b).any():
        return None
    t = t[t["rules_b"] == b]
    a = result.labels[0]
    shown = pd.DataFrame({
        "who": t["who"], "metric": [METRICS[m].label for m in t["metric"]],
        f"weights of {_short(b, 20)}": [_value(m, v) for m, v in zip(t["metric"], t["adapted"])],
        f"weights of {_short(a, 20)}": [_value(m, v) for m, v in zip(t["metric"], t["unadapted"])],
        "gain (95% CI)": [_diff(m, d, lo, hi) for m, d, lo, hi in
                          zip(t["metric"], t["gain"], t["gain_ci_low"], t["gain_ci_high"])],
    })
    how = (f"one seat in turn played with the weights trained for {a}, among players with {b}'s, against that seat "
           f"in {b}'s own games" if (t["who"] == ONE_SEAT).any() else
           f"the players with weights trained for {b} against the same players with weights trained for {a}")
    text = f"Adaptation under {b}: {how} (the same dice)\n\n" + shown.to_string(index=False)
    first = t[t["who"] == t["who"].iloc[0]]
    gains = first[first["metric"].isin(["score", "win_rate"])]
    if not (gains["significant"] & (gains["gain"] > 0)).any():
        text += (f"\nWarning: the weights trained for {b} gain no measurable score or win rate over {a}'s under "
                 f"{b}: these players may not have adapted to the change")
    return text


def format_table(result: RulesComparison) -> str:
    """The headline and who played, then a table per B: its rows against A, named by the two rule
    sets, and its adaptation check."""
    shown = display_table(result)
    a = result.labels[0]
    parts = [headline(result)] + ([format_players(result)] if result.played_by else [])
    for b in result.labels[1:]:
        block = shown[shown["rules B"] == b].drop(columns="rules B").rename(
            columns={"A": _short(a), "B": _short(b)})
        parts.append(f"A = {a}, B = {b}\n\n" + block.to_string(index=False))
        adaptation = format_adaptation(result, b)
        if adaptation:
            parts.append(adaptation)
    if result.measures is not None:
        from ..runs.measures import format_measures
        parts.append(format_measures(result.measures, result.not_measured, "the comparison",
                                     how="`compare-rules --trace`"))
    if result.ranking is not None:
        parts.append(result.ranking_text)
    message = stop_message(result)
    return "\n\n".join(parts + ([message] if message else []))
