"""The designer's measures of a game: one row per game, aggregated with 95% intervals.

    frame = dataset_frame("results/demo")        # a pandas DataFrame, a row per game
    table = aggregate(frame)                      # a row per measure: value and 95% interval
    table = aggregate({"A": frame_a, "B": frame_b})   # and each B paired with A, game by game

The interface, shared with the measures of the per-roll trace (sim.runs.trace):

- A **per-game frame** has a column `game` (the game's number in its seed) and one column per
  per-game value. A column named `metric@who` is that metric of one part of the game (a seat,
  a colour, a column); a plain name is the game's. Columns whose name starts with `_` are
  ingredients of the statistics below, never shown. Every value is a float; NaN where the
  game has none (a solo game's margin, a game too short to have a roll after the free rolls).
- `frame_of_tables(games, players, turns, sheet, rules)` makes it from a dataset's tables (the
  Arrow tables of sim.runs.schema; `turns` may be None), `frame_of_chunk(chunk)` from played
  games, `dataset_frame(path)` from a dataset chunk by chunk. When the dataset has a trace
  (`sim.runs.trace.has_trace(dataset)`), `sim.runs.trace.trace_measures(dataset)`'s per-game
  frame (the same `game` column, one column per trace measure) is joined to it, and
  `frame_of_chunk(chunk, trace=True)` joins `sim.runs.trace.chunk_measures(chunk)`'s: nothing
  more is needed for their columns to be aggregated, printed and compared.
- `aggregate(frames)` turns one frame, or several keyed by a label (the first is A), into a tidy
  table: a row per side, metric and who, with `value` and its 95% interval, and for every side
  after the first `diff` = B - A and its 95% interval, paired on the games both played.
  A column is aggregated as the mean over games (a t interval; paired: of the games'
  differences), unless STATISTICS names it: those are statistics of the games' distribution
  (a standard deviation, a quantile, a gap between seats), with a percentile bootstrap interval
  over games (scipy.stats.bootstrap, resampling whole games, paired when compared).

The measures (docs/design.md defines each in one sentence):

    score, score_sd          the seats' final scores: mean, standard deviation over all seats
    margin                   the first's score minus the second's (tables)
    ties                     share of games whose win is shared (tables)
    rolls, rolls_sd, rolls_q05/q50/q95   game length
    win_rate@seat N          share of games seat N won, a tie counting as a win for each tied seat
    win_share@seat N         seat N's share of the wins, a tie's win split between the tied seats
                             (the seats' shares sum to 100%)
    seat_gap                 the largest gap between two seats' win shares
    active_gain              boxes the active player crosses in a roll after the free rolls, minus
                             the mean of the passive seats' on the same roll (needs the turns)
    active_gain_points       the same in points of the score if the game ended then (needs turns)
    completed@C              share of seats that completed colour or column C (needs turns)
    first@C                  share of games in which C is the first colour (or column) completed
                             at the table, ties in one roll split (needs turns)
    skill_step@S>W           sim.experiments.skill: S's win share against W minus 1/2

Measures of the trace (lead_changes, drama, decided_roll, comebacks, luck, luck_share) come from
sim.runs.trace when a dataset has one; NEEDS says which run option each missing measure needs.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..rules import Rules
from ..sheets import COLOURS, COLUMNS, N_COLS, N_ROWS, Sheet, parse_cell
from .dataset import as_numpy, done_chunks, open_store, read_manifest, read_part

#: Bootstrap resamples of a statistic's interval (seeded: the same games give the same interval).
RESAMPLES = 999
#: The run option each group of measures needs, and the measures it gives.
NEEDS = {
    "--log-turns": ("active_gain", "active_gain_points", "completed", "first"),
    "--trace": ("lead_changes", "drama", "decided_roll", "comebacks", "luck", "luck_share"),
}
#: The completion measures: per colour and column, the share of seats that completed it, and
#: the share of games in which it was the first completed.
COMPLETION = ("completed", "first")
#: How the tables name a who that is the whole game, or every seat.
GAME, ALL = "game", "all seats"


# --- per game -----------------------------------------------------------------------------

def _np(col) -> np.ndarray:
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    return as_numpy(col)


def frame_of_tables(games: pa.Table, players: pa.Table, turns: pa.Table | None, sheet: Sheet,
                    rules: Rules) -> pd.DataFrame:
    """The per-game frame of games whose rows are `games` (a row per game), `players` (a row per
    game and seat) and `turns` (a row per decision, or None: no measure of the turns)."""
    game = _np(games.column("game")).astype(np.int64)
    order = np.argsort(game, kind="stable")
    game = game[order]
    n = len(game)
    p_game = _np(players.column("game")).astype(np.int64)
    p_seat = _np(players.column("seat")).astype(np.int64)
    seats = len(p_game) // n if n else 1
    rows = np.lexsort((p_seat, p_game))
    score = _np(players.column("score")).astype(np.float64)[rows].reshape(n, seats)
    winner = _np(players.column("winner")).astype(np.float64)[rows].reshape(n, seats)
    out = {"game": game,
           "rolls": _np(games.column("rolls")).astype(np.float64)[order],
           "capped": _np(games.column("capped")).astype(np.float64)[order],
           "score": score.mean(axis=1), "_score_sq": (score * score).mean(axis=1)}
    if seats > 1:
        top = np.sort(score, axis=1)
        out["margin"] = top[:, -1] - top[:, -2]
        wins = winner.sum(axis=1)
        out["ties"] = (wins > 1).astype(np.float64)
        for s in range(seats):
            out[f"win_rate@seat {s}"] = winner[:, s]
        for s in range(seats):
            out[f"win_share@seat {s}"] = winner[:, s] / np.maximum(wins, 1)
    if turns is not None and turns.num_rows:
        out.update(turn_measures(turns, game, seats, sheet, rules)[0])
    return pd.DataFrame(out)


def frame_of_chunk(chunk, trace: bool = False) -> pd.DataFrame:
    """The per-game frame of a chunk of played games (sim.runs.chunk.Chunk); with its move log
    (played with log_turns) the measures of the turns too, and with `trace` those of the trace
    (sim.runs.trace.chunk_measures, where that module gives them)."""
    turns = chunk.to_arrow("turns", ["game", "roll", "seat", "active", "passed", "jokers", "cells"]) \
        if chunk.log is not None else None
    frame = frame_of_tables(chunk.to_arrow("games", ["game", "rolls", "capped"]),
                            chunk.to_arrow("players", ["game", "seat", "score", "winner"]), turns, chunk.sheet,
                            chunk.rules)
    of_chunk = getattr(_trace_module(), "chunk_measures", None)
    if trace and turns is not None and of_chunk is not None:
        frame = frame.merge(of_chunk(chunk), on="game", how="left")
    return frame


def turn_measures(turns: pa.Table, game: np.ndarray, seats: int, sheet: Sheet, rules: Rules):
    """(per-game columns, points per decision): the measures read from the decisions (a row per
    seat and roll), the active player's gain and when each colour and column was completed, and
    the points each decision moved its seat's score if the game ended then (columns and colours
    it completed, first or later, star boxes crossed, minus '!' used and the pass penalty: their
    sum over a seat's decisions plus an empty sheet's score is its final score). `game`: the
    frame's games, sorted."""
    n = len(game)
    t_game = _np(turns.column("game")).astype(np.int64)
    roll = _np(turns.column("roll")).astype(np.int64)
    seat = _np(turns.column("seat")).astype(np.int64)
    active = _np(turns.column("active"))
    passed = _np(turns.column("passed"))
    jokers = _np(turns.column("jokers")).astype(np.float64)
    gi = np.searchsorted(game, t_game)
    rows = len(t_game)
    cells = turns.column("cells").combine_chunks()
    parent = as_numpy(pc.list_parent_indices(cells)).astype(np.int64)   # the decision of each box
    names = pc.dictionary_encode(pc.list_flatten(cells))
    where = np.array([parse_cell(c) for c in names.dictionary.to_pylist()], np.int64).reshape(-1, 2)
    idx = as_numpy(names.indices).astype(np.int64)
    col, row = where[idx, 0], where[idx, 1]
    colour = sheet.colour[row, col].astype(np.int64)
    boxes = np.bincount(parent, minlength=rows).astype(np.float64)
    points = rules.star_penalty * np.bincount(parent, weights=sheet.star[row, col], minlength=rows) \
        - jokers - rules.pass_penalty * passed
    owner = gi[parent] * seats + seat[parent]
    out = {}
    colour_boxes = np.bincount(sheet.colour.ravel(), minlength=len(COLOURS))
    parts = {}
    for kind, part, size, names_, values in (
            ("colour", colour, len(COLOURS), COLOURS, (
                (rules.colour_bonus[0],) * len(COLOURS), (rules.colour_bonus[1],) * len(COLOURS))),
            ("column", col, N_COLS, [f"column {c}" for c in COLUMNS], rules.column_points)):
        key = owner * size + part
        count = np.bincount(key, minlength=n * seats * size)
        last = np.full(n * seats * size, -1, np.int64)
        np.maximum.at(last, key, parent)        # the decision that crossed its last box
        full = N_ROWS if kind == "column" else colour_boxes[np.arange(n * seats * size) % size]
        done = count == full
        done_roll = np.where(done, roll[np.maximum(last, 0)], np.iinfo(np.int64).max).reshape(n, seats, size)
        first_roll = done_roll.min(axis=1)                       # (n, size): when the table first did it
        first = (done_roll == first_roll[:, None, :]) & done.reshape(n, seats, size)
        value = np.where(first, np.array(values[0])[None, None, :], np.array(values[1])[None, None, :])
        hit = np.flatnonzero(done)
        points += np.bincount(last[hit], weights=value.ravel()[hit], minlength=rows)
        completed = done.reshape(n, seats, size).mean(axis=1)
        earliest = first_roll.min(axis=1)
        is_first = (first_roll == earliest[:, None]) & (first_roll < np.iinfo(np.int64).max)
        share = is_first / np.maximum(is_first.sum(axis=1, keepdims=True), 1)
        parts[kind] = (names_, completed, share)
    for k, metric in enumerate(COMPLETION):      # every colour and column's completed, then first
        for names_, *values in parts.values():
            for j, name in enumerate(names_):
                out[f"{metric}@{name}"] = values[k][:, j]
    if seats > 1:
        late = roll > rules.free_rolls
        a, p = late & active, late & ~active
        counted = np.bincount(gi[a], minlength=n).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            for name, v in (("active_gain", boxes), ("active_gain_points", points)):
                gain = np.bincount(gi[a], weights=v[a], minlength=n) \
                    - np.bincount(gi[p], weights=v[p], minlength=n) / (seats - 1)
                out[name] = np.where(counted > 0, gain / counted, np.nan)
    return out, points


def dataset_frame(path) -> pd.DataFrame:
    """The per-game frame of the dataset at `path`, chunk by chunk (the turns' measures where it
    has turns; the trace's from sim.runs.trace where it has a trace)."""
    from .manifest import manifest_rules, manifest_sheet
    store = open_store(path)
    manifest = read_manifest(store)
    sheet, rules = manifest_sheet(manifest), manifest_rules(manifest)
    logged = bool((manifest.get("settings") or {}).get("log_turns"))
    parts = []
    for c in sorted(done_chunks(store)):
        turns = read_part(store, "turns", c, ["game", "roll", "seat", "active", "passed", "jokers", "cells"]) \
            if logged else None
        parts.append(frame_of_tables(read_part(store, "games", c, ["game", "rolls", "capped"]),
                                     read_part(store, "players", c, ["game", "seat", "score", "winner"]),
                                     turns, sheet, rules))
    frame = pd.concat(parts, ignore_index=True)
    trace = _trace_module()
    if trace is not None and trace.has_trace(store):
        frame = frame.merge(trace.trace_measures(store), on="game", how="left")
    return frame


def _trace_module():
    """sim.runs.trace where it gives the trace's measures (has_trace, trace_measures), else None."""
    try:
        from . import trace
    except ImportError:
        return None
    return trace if hasattr(trace, "has_trace") and hasattr(trace, "trace_measures") else None


def missing(frame: pd.DataFrame) -> dict[str, list[str]]:
    """Per run option (NEEDS), the measures the frame lacks for want of it."""
    have = {c.split("@")[0] for c in frame}
    have |= {name for name, s in STATISTICS.items() if all(c in frame for c in s.columns(frame) or [None])}
    out = {}
    for option, names in NEEDS.items():
        lacking = [m for m in names if m not in have]
        if option == "--log-turns" and "margin" not in have:   # solo: no active player's gain
            lacking = [m for m in lacking if not m.startswith("active_gain")]
        if lacking:
            out[option] = lacking
    return out


# --- aggregated ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Statistic:
    """A measure that is a statistic of the games' distribution, not a mean over games."""
    who: str
    columns: object        # frame -> the list of its columns the statistic reads
    fn: object             # (*columns as arrays, axis) -> value (vectorised over a resample axis)


def _sd_of_seats(score, sq, axis=-1):
    m = score.mean(axis=axis)
    return np.sqrt(np.maximum(sq.mean(axis=axis) - m * m, 0.0))


def _quantile(q):
    return lambda x, axis=-1: np.quantile(x, q, axis=axis, method="lower")


def _gap(*shares, axis=-1):
    means = np.stack([s.mean(axis=axis) for s in shares])
    return means.max(axis=0) - means.min(axis=0)


def _seat_shares(frame) -> list[str]:
    return [c for c in frame if c.startswith("win_share@")]


#: The measures that are statistics of the games' distribution, by name.
STATISTICS = {
    "score_sd": Statistic(ALL, lambda f: ["score", "_score_sq"], _sd_of_seats),
    "rolls_sd": Statistic(GAME, lambda f: ["rolls"], lambda x, axis=-1: np.std(x, axis=axis, ddof=1)),
    "rolls_q05": Statistic(GAME, lambda f: ["rolls"], _quantile(0.05)),
    "rolls_q50": Statistic(GAME, lambda f: ["rolls"], _quantile(0.5)),
    "rolls_q95": Statistic(GAME, lambda f: ["rolls"], _quantile(0.95)),
    "seat_gap": Statistic(GAME, _seat_shares, _gap),
    # The winners' luck margins over their margins, summed over games (sim.runs.trace): a mean of
    # each game's share would be ruled by the games won by a point.
    "luck_share": Statistic(GAME, lambda f: ["_luck_margin", "_win_margin"],
                            lambda luck, margin, axis=-1: np.sum(luck, axis=axis) / np.sum(margin, axis=axis)),
}
#: The order of the rows (a measure not named here comes after these, in its frame's order).
ORDER = ("score", "score_sd", "margin", "ties", "rolls", "rolls_sd", "rolls_q05", "rolls_q50", "rolls_q95",
         "capped", "win_rate", "win_share", "seat_gap", "active_gain", "active_gain_points", "skill_step")
#: Shares, shown in %.
PERCENT = ("ties", "capped", "win_rate", "win_share", "seat_gap", "completed", "first", "skill_step",
           "comebacks", "drama", "luck_share", "luck_win")
#: Of those, the ones that may be negative (a change of a chance): their intervals are not held to 0..1.
SIGNED = ("luck_win",)


def _split(column: str) -> tuple[str, str]:
    metric, at, who = column.partition("@")
    if at:
        return metric, who
    return metric, ALL if metric == "score" else GAME


def _mean_ci(x: np.ndarray, lo=-np.inf, hi=np.inf) -> tuple[float, float, float]:
    """The mean of the values that are not NaN and its 95% t interval, within lo..hi (a share's)."""
    from scipy import stats
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return (float("nan"),) * 3
    m = float(x.mean())
    if len(x) < 2:
        return m, float("nan"), float("nan")
    half = float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)))
    return m, max(m - half, lo), min(m + half, hi)


def _boot_ci(data, statistic) -> tuple[float, float]:
    from scipy import stats
    if len(data[0]) < 2:
        return float("nan"), float("nan")
    if all(np.ptp(d) == 0 for d in data):     # every game the same: nothing to resample
        v = float(statistic(*data, axis=-1))
        return v, v
    # SciPy 1.15 renamed the generator's keyword random_state to rng (the old name is deprecated);
    # the floor, 1.13, knows only random_state. Either way the resamples are seeded: one interval.
    seeded = {"rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state":
              np.random.default_rng(0)}
    res = stats.bootstrap(data, statistic, paired=True, vectorized=True, n_resamples=RESAMPLES,
                          method="percentile", batch=100, **seeded)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def _columns(frames) -> list[str]:
    seen = {}
    for f in frames:
        for c in f:
            if c != "game" and not c.startswith("_"):
                seen.setdefault(c, None)
    cols = list(seen)
    rank = {m: i for i, m in enumerate(ORDER)}
    return sorted(cols, key=lambda c: (rank.get(_split(c)[0], len(ORDER)), cols.index(c)))


def aggregate(frames) -> pd.DataFrame:
    """The measures of one per-game frame (a row per metric and who: games, value, ci_low,
    ci_high), or of several ({label: frame}, A first; a row per side too) with each later one
    paired against A on the games both have (diff, diff_ci_low, diff_ci_high, significant)."""
    single = isinstance(frames, pd.DataFrame)
    if single:
        frames = {"": frames}
    labels = list(frames)
    base = frames[labels[0]]
    columns = _columns(frames.values())
    rows = []
    for i, label in enumerate(labels):
        f = frames[label]
        paired = None if i == 0 else base.merge(f, on="game", suffixes=("_a", "_b"))
        side = []
        for c in columns:
            if c not in f:
                continue
            share = _split(c)[0] in PERCENT and _split(c)[0] not in SIGNED
            row = _row(label, *_split(c), len(f), *_mean_ci(f[c].to_numpy(np.float64), *((0, 1) if share else ())))
            if paired is not None and c in base:
                row.update(_diff(*_mean_ci(paired[f"{c}_b"].to_numpy(np.float64)
                                           - paired[f"{c}_a"].to_numpy(np.float64), *((-1, 1) if share else ()))))
            side.append(row)
        for name, s in STATISTICS.items():
            cols = s.columns(f)
            if cols and all(c in f for c in cols):
                side.append(_statistic_row(name, s, cols, label, f, None if paired is None or any(
                    c not in base for c in cols) else paired))
        rows += sorted(side, key=lambda r: _rank(r["metric"]))
    table = pd.DataFrame(rows, columns=["side", "metric", "who", "games", "value", "ci_low", "ci_high", "diff",
                                        "diff_ci_low", "diff_ci_high", "significant"])
    # one frame: no side, nothing paired
    return table.drop(columns=["side", "diff", "diff_ci_low", "diff_ci_high", "significant"]) if single else table


def _rank(metric: str) -> int:
    return ORDER.index(metric) if metric in ORDER else len(ORDER)


def _row(label, metric, who, games, value, lo, hi) -> dict:
    return {"side": label, "metric": metric, "who": who, "games": games, "value": value, "ci_low": lo,
            "ci_high": hi, "diff": float("nan"), "diff_ci_low": float("nan"), "diff_ci_high": float("nan"),
            "significant": None}


def _diff(d, lo, hi) -> dict:
    return {"diff": d, "diff_ci_low": lo, "diff_ci_high": hi,
            "significant": None if np.isnan(lo) else bool(lo > 0 or hi < 0)}


def _statistic_row(name, s: Statistic, cols, label, f, paired) -> dict:
    data = [f[c].to_numpy(np.float64) for c in cols]
    if name == "seat_gap":
        # The bootstrap of a largest gap sits above it (noise widens every gap): the interval is
        # the paired one of the gap between the two seats the games found furthest apart.
        means = [d.mean() for d in data]
        gap = data[int(np.argmax(means))] - data[int(np.argmin(means))]
        ci = _mean_ci(gap, 0, 1)[1:]
    else:
        ci = _boot_ci(data, s.fn)
    row = _row(label, name, s.who, len(f), float(s.fn(*data, axis=-1)), *ci)
    if paired is not None:
        a = [paired[f"{c}_a"].to_numpy(np.float64) for c in cols]
        b = [paired[f"{c}_b"].to_numpy(np.float64) for c in cols]
        k = len(cols)

        def delta(*xs, axis=-1):
            return s.fn(*xs[k:], axis=axis) - s.fn(*xs[:k], axis=axis)
        row.update(_diff(float(delta(*a, *b)), *_boot_ci(a + b, delta)))
    return row


# --- printed ------------------------------------------------------------------------------

def _cell(metric: str, v: float) -> str:
    if np.isnan(v):
        return "-"
    return f"{v:.1%}" if metric in PERCENT else f"{v:.2f}"


def _with_ci(metric: str, v: float, lo: float, hi: float) -> str:
    if np.isnan(lo):
        return _cell(metric, v)
    if metric in PERCENT:
        return f"{v:.1%} ({lo:.1%}..{hi:.1%})"
    return f"{v:.2f} ({lo:.2f}..{hi:.2f})"


def _diff_ci(metric: str, d: float, lo: float, hi: float) -> str:
    if np.isnan(d):
        return "-"
    if metric in PERCENT:   # in percentage points
        return f"{d * 100:+.1f} ({lo * 100:+.1f}..{hi * 100:+.1f}) pts"
    return f"{d:+.2f} ({lo:+.2f}..{hi:+.2f})"


def display(table: pd.DataFrame, b: str | None = None, completion: bool = False) -> pd.DataFrame:
    """The measures as the text output prints them, one string per cell: of the one side (b None),
    or side `b` against the first; the completion measures (`completion`) or the others."""
    if "side" not in table:
        table = table.assign(side="")
    sides = list(dict.fromkeys(table["side"]))
    part = table[table["metric"].isin(COMPLETION) == completion]
    a = part[part["side"] == sides[0]]
    if completion:
        return _completion(a, None if b is None else part[part["side"] == b], sides[0], b)
    if b is None:
        return pd.DataFrame({"metric": a["metric"], "who": a["who"],
                             "value (95% CI)": [_with_ci(*x) for x in zip(a["metric"], a["value"], a["ci_low"],
                                                                          a["ci_high"])]})
    t = part[part["side"] == b].merge(a[["metric", "who", "value"]], on=["metric", "who"], how="left",
                                      suffixes=("", "_a"))
    return pd.DataFrame({
        "metric": t["metric"], "who": t["who"],
        "A": [_cell(m, v) for m, v in zip(t["metric"], t["value_a"])],
        "B": [_cell(m, v) for m, v in zip(t["metric"], t["value"])],
        "B - A (95% CI)": [_diff_ci(*x) for x in zip(t["metric"], t["diff"], t["diff_ci_low"], t["diff_ci_high"])],
        "significant": ["-" if s is None or s != s else "yes" if s else "no" for s in t["significant"]],
    })


def _completion(a: pd.DataFrame, b: pd.DataFrame | None, label_a: str, label_b: str | None) -> pd.DataFrame:
    whos = list(dict.fromkeys(a["who"]))
    out = {"colour or column": whos}
    for metric in COMPLETION:
        va = a[a["metric"] == metric].set_index("who")
        if b is None:
            out[metric] = [_with_ci(metric, *va.loc[w, ["value", "ci_low", "ci_high"]]) for w in whos]
            continue
        vb = b[b["metric"] == metric].set_index("who")
        out[f"{metric} A"] = [_cell(metric, va.loc[w, "value"]) for w in whos]
        out[f"{metric} B"] = [_cell(metric, vb.loc[w, "value"]) for w in whos]
        out[f"{metric} B - A"] = [_diff_ci(metric, *vb.loc[w, ["diff", "diff_ci_low", "diff_ci_high"]])
                                  for w in whos]
    return pd.DataFrame(out)


def missing_line(lacking: dict[str, list[str]], what: str = "the dataset", how: str | None = None) -> str | None:
    """One line naming the measures missing for want of a run option (missing()), or None; `how`:
    what they need, if not the run option."""
    if not lacking:
        return None
    parts = [f"{', '.join(names)} (need {how or f'`run {option}`'})" for option, names in lacking.items()]
    return f"Not measured for {what}: " + "; ".join(parts) + "."


def format_measures(table: pd.DataFrame, lacking: dict | None = None, what: str = "the dataset",
                    how: str | None = None) -> str:
    """The measures as text: of one side, or each later side against the first (A = ..., B = ...),
    with the completion table apart; and the line on what is not measured."""
    sides = list(dict.fromkeys(table["side"])) if "side" in table else [""]
    blocks = []
    has_completion = table["metric"].isin(COMPLETION).any()
    for b in ([None] if len(sides) == 1 else sides[1:]):
        head = "Measures (95% CI; docs/design.md defines each)" + (
            "" if b is None else f": A = {sides[0]}, B = {b}, B - A paired on the games")
        blocks.append(head + "\n\n" + display(table, b).to_string(index=False))
        if has_completion:
            blocks.append("Completion: the share of seats that completed each colour and column, and of games in "
                          "which it was the first completed\n\n" + display(table, b, completion=True).to_string(
                              index=False))
    rates = table[(table["metric"] == "win_rate") & (table["side"] == sides[0] if "side" in table else True)]
    if len(rates):
        blocks.append(f"win_rate counts a tie as a win for each tied seat (the seats' rates add up to "
                      f"{rates['value'].sum():.1%}{'' if len(sides) == 1 else ' under A'}); win_share splits a tie's "
                      "win between the tied seats (100%).")
    line = missing_line(lacking or {}, what, how)
    return "\n\n".join(blocks + ([line] if line else []))
