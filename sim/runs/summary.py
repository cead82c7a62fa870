"""Summaries of a dataset, aggregated chunk by chunk (memory does not grow with the dataset).

    summarise(path, by_seat=False, batch_size=BATCH_ROWS) -> Summary(rows, band_rows | None, manifest)

`path` is a dataset folder or a filesystem URL (sim.runs.dataset.open_store). The
players table is scanned part by part in record batches of at most
`batch_size` rows, each joined to the games rows it needs (both are sorted by
game), and folded into running sums and per-group score histograms: memory is
bounded by the batch size and the number of distinct groups and scores, not by
the dataset, so datasets far larger than memory can be summarised.

Per strategy (and seat): games, seat results, mean score with a 95% confidence
interval, standard deviation, quantiles (exact: scores are integers, so a
histogram per group is kept), win rate with a 95% Wilson interval, mean rolls,
jokers used, passes and the share of capped games. For solo datasets, the
distribution over the rulebook's rating bands (docs/rules.md, section 8).

"games" counts the games a strategy played. A strategy in several seats of a
game has one result per seat ("seat_games": games x seats per game); its mean,
quantiles and win rate are over those, and its seats' results in one game are
not independent: they share the dice, and only one of them can win. So both
intervals are clustered
by game: the mean's variance is estimated from the per-game sums of the
group's scores (a ratio estimator's sandwich variance, with the small-sample
factor G/(G-1) over G games), and the Wilson interval of the win rate uses the
effective number of games that variance implies (Kish). With one seat per game
they are the usual t and Wilson intervals. Batches are cut at game boundaries
so a game's seats are always summed together.

Aggregating and format_table use no pandas (`encore-sim run` prints this
summary, and pandas costs a run ~65 MB and ~0.3 s); Summary.stats and .bands
build their DataFrames on first use.
"""
from __future__ import annotations

import math
import textwrap
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from .dataset import DatasetError, as_numpy, done_chunks, iter_part, open_store, read_manifest

if TYPE_CHECKING:
    import pandas as pd

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
#: Rows of the players table read at a time.
BATCH_ROWS = 65_536
Z95 = 1.959963984540054

#: docs/rules.md section 8: (lowest score, highest score, stars, rating), best first.
SOLO_BANDS = (
    (41, None, "4", "So superheroes do exist!"),
    (37, 40, "3.5", "Are you lucky, or a genius?"),
    (33, 36, "3.5", "You could be a professional player."),
    (29, 32, "3", "Excellent! What a terrific score!"),
    (25, 28, "2.5", "Wow... without cheating?"),
    (21, 24, "2.5", "Classy! Nice job!"),
    (17, 20, "2", "This was not your first game!"),
    (13, 16, "1.5", "Good, but you could do better."),
    (9, 12, "1.5", "You're getting there."),
    (5, 8, "1", "Not too bad."),
    (1, 4, "0.5", "Try harder."),
    (0, 0, "0", "Well, at least you tried."),
    (None, -1, "-", "This really borders on laziness."),
)


def band_label(lo, hi) -> str:
    if hi is None:
        return f"> {lo - 1}"
    if lo is None:
        return f"< {hi + 1}"
    return str(lo) if lo == hi else f"{lo}-{hi}"


def t_quantile(df: float, p: float = 0.975) -> float:
    """Student-t quantile with df degrees of freedom (nan below 1; None or inf: the normal one)."""
    # scipy.special.stdtrit is what scipy.stats.t.ppf computes; importing scipy.stats would
    # add ~0.5 s and ~70 MB to every command that prints a summary (scipy.special: 0.1 s, 20 MB).
    from scipy.special import stdtrit
    if df is None:
        df = math.inf
    return float("nan") if df < 1 else float(stdtrit(df, p))


def mean_ci(n: int, total: float, total_sq: float) -> tuple[float, float, float]:
    """(mean, sd, 95% half-width) from a count, sum and sum of squares."""
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    mean = total / n
    if n < 2:
        return mean, float("nan"), float("nan")
    var = max(0.0, (total_sq - n * mean * mean) / (n - 1))
    sd = math.sqrt(var)
    return mean, sd, t_quantile(n - 1) * sd / math.sqrt(n)


def clustered_var(n: int, mean: float, games: int, sq: float, cross: float, size_sq: float) -> float:
    """Sum over games of (S_g - mean * m_g)^2 / n^2, the variance of a mean of n values that
    come in `games` clusters, the game g one holding m_g values summing to S_g; sq, cross and
    size_sq are the sums over games of S_g^2, S_g m_g and m_g^2."""
    return max(0.0, sq - 2.0 * mean * cross + mean * mean * size_sq) / (n * n) if games else float("nan")


def wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return float("nan"), float("nan")
    p = k / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def hist_quantile(hist: dict[int, int], n: int, q: float) -> float:
    """The value at sorted position floor(q*(n-1)) (pandas' interpolation='lower')."""
    k = math.floor(q * (n - 1))
    seen = 0
    for value in sorted(hist):
        seen += hist[value]
        if seen > k:
            return value
    return float("nan")


@dataclass
class Sums:
    """The running sums of one group of a summary (a strategy, or a strategy at a seat), added to
    batch by batch (accumulate) and turned into its row at the end (summary_rows)."""
    n: int = 0
    score: float = 0.0
    score_sq: float = 0.0
    wins: int = 0
    rolls: float = 0.0
    jokers: float = 0.0
    passes: float = 0.0
    capped: int = 0
    # Per game g the group's seats m_g, score sum S_g and wins W_g: the number of games and
    # the sums of S_g^2, S_g m_g, m_g^2, W_g^2 and W_g m_g (clustered_var).
    games: int = 0
    game_score_sq: float = 0.0
    game_score_seats: float = 0.0
    game_seats_sq: float = 0.0
    game_wins_sq: float = 0.0
    game_wins_seats: float = 0.0

    def __post_init__(self):
        self.hist = defaultdict(int)


def default_by_seat(manifest: dict) -> bool:
    """How `run` and `summary` lay a dataset out unless told: a row per seat when one strategy
    holds every seat of a table (a row per strategy would pool its seats: its win rate would
    be a seat's share of the wins, nothing about the strategy), else a row per strategy."""
    st = manifest.get("settings") or {}
    return int(st.get("players") or 1) > 1 and len(set(st.get("strategies") or ())) == 1


@dataclass
class Summary:
    rows: list[dict]              # one per strategy (and seat): the columns of `stats`
    band_rows: list[dict] | None  # solo: one per strategy (and seat) and rating band
    manifest: dict
    games: int | None = None      # games summarised (the finished chunks'); None: the manifest's games_done
    #: per strategy (and seat) as in rows: {score: seat-games}, the histogram the quantiles come from
    hists: dict[tuple, dict[int, int]] | None = None
    #: with measures: sim.runs.measures' aggregate of the dataset's games, and what it lacks (by
    #: the run option each missing measure needs); None, {}: not asked
    measures: object = None
    not_measured: dict | None = None

    @cached_property
    def rules(self):
        """The rules the dataset was played under (sim.rules.Rules)."""
        from .manifest import manifest_rules   # not at the top: sim.runs.manifest imports the sheets
        return manifest_rules(self.manifest)

    @cached_property
    def stats(self) -> pd.DataFrame:
        import pandas as pd
        return pd.DataFrame(self.rows)

    @cached_property
    def bands(self) -> pd.DataFrame | None:
        import pandas as pd
        return None if self.band_rows is None else pd.DataFrame(self.band_rows)


PLAYER_COLUMNS = ["game", "seat", "strategy", "score", "jokers_used", "passes", "winner"]


def summarise(path, by_seat: bool = False, batch_size: int = BATCH_ROWS, columns=(), each_batch=None) -> Summary:
    """Aggregate the dataset at `path` chunk by chunk, in row batches (raises DatasetError if damaged).

    each_batch(batch, rolls, capped), if given, sees every batch summarised, with the further
    players `columns` asked for: sim.report.report draws its figures in the same pass, from the same rows.
    """
    store = open_store(path)
    manifest = read_manifest(store)
    chunks = sorted(done_chunks(store))
    if not chunks:
        raise DatasetError(f"{store}: the dataset has no finished chunk")
    players = int(manifest.get("settings", {}).get("players", 0)) or None
    accs: dict[tuple, Sums] = defaultdict(Sums)
    games = [0]
    for c in chunks:
        for batch, rolls, capped in _joined_batches(store, c, players, batch_size, games, columns):
            accumulate(accs, batch, rolls, capped, by_seat)
            if each_batch is not None:
                each_batch(batch, rolls, capped)
    play = manifest.get("play")
    if isinstance(play, dict) and play.get("label"):
        # A person's game (encore-sim play): their seat is what it is about, the bots' seats are no games of it.
        accs = defaultdict(Sums, {k: a for k, a in accs.items() if k[0] == play["label"]})
    stats = summary_rows(accs, by_seat, players)
    bands = _bands(accs, by_seat) if players == 1 else None
    return Summary(stats, bands, manifest, games[0], {key: dict(sorted(a.hist.items())) for key, a in accs.items()})


def _joined_batches(store, c: int, players: int | None, batch_size: int, games: list[int], columns=()):
    """(players batch, rolls, capped of each row's game) for chunk c, batch by batch; adds the
    chunk's games to games[0].

    Both tables are sorted by game, so a buffer of the games rows from the
    current batch's last game on is all that is kept between batches.
    """
    games_iter = iter_part(store, "games", c, ["game", "rolls", "capped"], batch_size)
    buf = (np.empty(0, np.int64), np.empty(0, np.int16), np.empty(0, bool))
    n_games = n_rows = 0
    wanted = PLAYER_COLUMNS + [col for col in columns if col not in PLAYER_COLUMNS]
    for batch in _whole_games(iter_part(store, "players", c, wanted, batch_size), batch_size):
        if batch.num_rows == 0:
            continue
        game = as_numpy(batch.column("game"))
        last = game[-1]
        while len(buf[0]) == 0 or buf[0][-1] < last:
            g = next(games_iter, None)
            if g is None:
                break
            n_games += g.num_rows
            buf = tuple(np.concatenate((old, as_numpy(g.column(name))))
                        for old, name in zip(buf, ("game", "rolls", "capped")))
        idx = np.searchsorted(buf[0], game)
        inside = idx < len(buf[0])
        if not (inside.all() and (buf[0][idx] == game).all()):
            raise DatasetError(f"{store}: chunk {c} has player rows of games missing from the games table "
                               "(or rows out of order)")
        n_rows += batch.num_rows
        yield batch, buf[1][idx], buf[2][idx]
        keep = buf[0] >= last
        buf = tuple(x[keep] for x in buf)
    for g in games_iter:
        n_games += g.num_rows
    if n_games == 0 or (n_rows != n_games * players if players else n_rows % n_games):
        raise DatasetError(f"{store}: chunk {c} has {n_rows} player rows for {n_games} games")
    games[0] += n_games


def _whole_games(batches, batch_size: int):
    """The batches re-cut at game boundaries (rows are sorted by game), so that every game's
    seats are in one batch; none is over batch_size rows unless a single game is."""
    carry = None
    for batch in batches:
        if carry is not None:
            # Table.combine_chunks rather than pa.concat_batches, which needs pyarrow 19.
            batch = pa.Table.from_batches([carry, batch]).combine_chunks().to_batches()[0]
        while batch.num_rows > batch_size:
            game = as_numpy(batch.column("game"))
            cut = int(np.searchsorted(game, game[batch_size]))             # the games that fit
            cut = cut or int(np.searchsorted(game, game[0], side="right"))  # or one game alone,
            if cut == batch.num_rows:                                       # unless it may go on
                break
            yield batch.slice(0, cut)
            batch = batch.slice(cut)
        carry = None
        if batch.num_rows:
            game = as_numpy(batch.column("game"))
            cut = int(np.searchsorted(game, game[-1]))   # the last game may go on in the next batch
            if cut:
                yield batch.slice(0, cut)
            carry = batch.slice(cut)
    if carry is not None and carry.num_rows:
        yield carry


def accumulate(accs, batch: pa.RecordBatch, rolls: np.ndarray, capped: np.ndarray, by_seat) -> None:
    """Add a batch of the players table (whole games; `rolls`, `capped`: each row's game's) to
    `accs`, a defaultdict(Sums) keyed by (strategy,) or with `by_seat` (strategy, seat)."""
    strategy = batch.column("strategy").dictionary_encode()
    names = strategy.dictionary.to_pylist()
    code = as_numpy(strategy.indices).astype(np.int64)
    if by_seat:
        code = code * 256 + as_numpy(batch.column("seat"))
    groups, group = np.unique(code, return_inverse=True)
    score = as_numpy(batch.column("score"))

    def sums(values):
        # Float sums of integers: exact far beyond any dataset's size.
        return np.bincount(group, weights=values, minlength=len(groups))

    n = np.bincount(group, minlength=len(groups))
    winner = as_numpy(batch.column("winner"))
    totals = {"score": sums(score), "score_sq": sums(score.astype(np.float64) ** 2),
              "wins": sums(winner), "rolls": sums(rolls),
              "jokers": sums(as_numpy(batch.column("jokers_used"))), "passes": sums(as_numpy(batch.column("passes"))),
              "capped": sums(capped)}
    # Per (group, game) of this batch: seats, score sum and wins (a (groups, games) table).
    _, game = np.unique(as_numpy(batch.column("game")), return_inverse=True)
    n_games = int(game.max()) + 1
    cell = group * n_games + game
    size = len(groups) * n_games
    seats = np.bincount(cell, minlength=size).reshape(len(groups), n_games).astype(np.float64)
    g_score = np.bincount(cell, weights=score, minlength=size).reshape(len(groups), n_games)
    g_wins = np.bincount(cell, weights=winner, minlength=size).reshape(len(groups), n_games)
    for i, c in enumerate(groups):
        a = accs[(names[c // 256], int(c % 256)) if by_seat else (names[c],)]
        a.n += int(n[i])
        a.score += float(totals["score"][i])
        a.score_sq += float(totals["score_sq"][i])
        a.wins += int(totals["wins"][i])
        a.rolls += float(totals["rolls"][i])
        a.jokers += float(totals["jokers"][i])
        a.passes += float(totals["passes"][i])
        a.capped += int(totals["capped"][i])
        m, sg, wg = seats[i], g_score[i], g_wins[i]
        a.games += int(np.count_nonzero(m))
        a.game_score_sq += float(sg @ sg)
        a.game_score_seats += float(sg @ m)
        a.game_seats_sq += float(m @ m)
        a.game_wins_sq += float(wg @ wg)
        a.game_wins_seats += float(wg @ m)
        values, counts = np.unique(score[group == i], return_counts=True)
        for value, count in zip(values.tolist(), counts.tolist()):
            a.hist[value] += count


def summary_rows(accs, by_seat, players) -> list[dict]:
    """A summary's rows, one per group of `accs` (accumulate), sorted: means, quantiles and win
    rates with their 95% intervals, clustered by game (a group may hold several seats of a game)."""
    rows = []
    for key in sorted(accs, key=lambda k: tuple(str(x) if i == 0 else x for i, x in enumerate(k))):
        a = accs[key]
        mean, sd, _ = mean_ci(a.n, a.score, a.score_sq)
        half = float("nan")
        if a.games >= 2:
            var = clustered_var(a.n, mean, a.games, a.game_score_sq, a.game_score_seats, a.game_seats_sq)
            half = t_quantile(a.games - 1) * math.sqrt(var * a.games / (a.games - 1))
        row = {"strategy": key[0]}
        if by_seat:
            row["seat"] = int(key[1])
        p = a.wins / a.n
        var = clustered_var(a.n, p, a.games, a.game_wins_sq, a.game_wins_seats, a.game_seats_sq)
        n_eff = p * (1 - p) / var if var > 0 else a.n   # Kish's effective number of games
        lo, hi = wilson(p * n_eff, n_eff)
        row.update({
            "games": a.games, "seat_games": a.n, "mean": mean, "ci_low": mean - half, "ci_high": mean + half, "sd": sd,
            **{f"q{int(q * 100):02d}": hist_quantile(a.hist, a.n, q) for q in QUANTILES},
            "min": min(a.hist), "max": max(a.hist),
            "win_rate": a.wins / a.n, "win_ci_low": lo, "win_ci_high": hi,
            "rolls": a.rolls / a.n, "jokers_used": a.jokers / a.n, "passes": a.passes / a.n,
            "capped": a.capped / a.n,
        })
        rows.append(row)
    return rows


def _bands(accs, by_seat) -> list[dict]:
    rows = []
    for key in sorted(accs):
        a = accs[key]
        for lo, hi, stars, rating in SOLO_BANDS:
            count = sum(v for s, v in a.hist.items()
                        if (lo is None or s >= lo) and (hi is None or s <= hi))
            row = {"strategy": key[0]}
            if by_seat:
                row["seat"] = int(key[1])
            row.update({"score": band_label(lo, hi), "stars": stars, "rating": rating,
                        "games": count, "share": count / a.n})
            rows.append(row)
    return rows


# --- rendering -------------------------------------------------------------------

def _text_table(columns: dict[str, list[str]], numeric=()) -> str:
    """Columns of cells laid out as pandas' DataFrame.to_string(index=False) prints them:
    right-aligned, one space apart; the header and cells of a numeric column (of
    non-negative numbers) get one more space in front, pandas' room for a sign."""
    # Not tabulate or rich: `run` prints this without importing pandas (~65 MB of peak RSS), and
    # neither library lays out pandas' look (sign room, one space apart) without as much setup.
    lines = []
    for name, cells in columns.items():
        pad = " " if name in numeric else ""
        cells = [pad + str(c) for c in (name, *cells)]
        width = max(map(len, cells))
        lines.append([c.rjust(width) for c in cells])
    return "\n".join(" ".join(row) for row in zip(*lines))


def headline(summary: Summary) -> str:
    m = summary.manifest
    st = m.get("settings", {})
    solo = st.get("players") == 1
    status = "" if m.get("status") == "complete" else f" (status: {m.get('status')})"
    # The games summarised: the manifest's games_done lags when a run stopped while chunks were
    # still being written (a Dask run's workers finish the tasks they hold).
    games = summary.games if summary.games is not None else m.get("games_done", 0)
    return (f"{games:,} game{'' if games == 1 else 's'} of seed {st.get('seed')}, "
            f"{'solo' if solo else str(st.get('players')) + ' players'}, sheet {st.get('sheet')}"
            f"{', seats rotated' if st.get('rotate') else ''}{status}")


def _seats_per_game(row: dict) -> float:
    return row.get("seat_games", row["games"]) / row["games"] if row["games"] else 1.0


def _every_seat(row: dict, players) -> bool:
    """True if the row's strategy held every seat of every game it played (at a table)."""
    return bool(players) and players > 1 and "seat" not in row and _seats_per_game(row) == players


def table_columns(summary: Summary) -> dict[str, list[str]]:
    """The statistics as format_table prints them (and the report shows them): cells by column.

    "seats/game" appears when a strategy held several seats of a game: its mean, quantiles
    and win rate are then over games x seats results. A strategy that held every seat has no
    win rate of its own ("-"): a share of seats that won is 1/players whatever it plays.
    """
    rows = summary.rows
    players = summary.manifest.get("settings", {}).get("players")
    solo = players == 1
    table = {"strategy": [r["strategy"] for r in rows]}
    if "seat" in rows[0]:
        table["seat"] = [r["seat"] for r in rows]
    table["games"] = [f"{r['games']:,}" for r in rows]
    if any(_seats_per_game(r) != 1 for r in rows):
        table["seats/game"] = [f"{_seats_per_game(r):.3g}" for r in rows]
    table["mean score (95% CI)"] = [f"{r['mean']:.2f} ({r['ci_low']:.2f}..{r['ci_high']:.2f})" if r["games"] > 1
                                    else f"{r['mean']:.2f} ({r['games']} game: no interval)" for r in rows]
    table["sd"] = [f"{r['sd']:.2f}" if math.isfinite(r["sd"]) else "-" for r in rows]
    table["q05/q25/q50/q75/q95"] = ["/".join(str(int(r[f"q{int(q * 100):02d}"])) for q in QUANTILES) for r in rows]
    if not solo:
        table["win rate (95% CI)"] = ["-" if _every_seat(r, players) else
                                      f"{r['win_rate']:.1%} ({r['win_ci_low']:.1%}..{r['win_ci_high']:.1%})"
                                      for r in rows]
    table["rolls"] = [f"{r['rolls']:.1f}" for r in rows]
    table["jokers used"] = [f"{r['jokers_used']:.2f}" for r in rows]
    table["passes"] = [f"{r['passes']:.1f}" for r in rows]
    if not solo:
        table["capped"] = [f"{r['capped']:.2%}" for r in rows]
    return table


def band_columns(summary: Summary) -> dict[str, list[str]] | None:
    """Solo: one row per rating band, one column per strategy (and seat), in order of appearance."""
    if summary.band_rows is None:
        return None
    bands, groups, cells = {}, {}, {}
    for b in summary.band_rows:
        band = (b["score"], b["stars"], b["rating"])
        group = " ".join(str(b[k]) for k in ("strategy", "seat") if k in b)
        bands.setdefault(band, None)
        groups.setdefault(group, None)
        cells.setdefault((band, group), f"{b['share']:.1%}")
    wide = {name: [band[i] for band in bands] for i, name in enumerate(("score", "stars", "rating"))}
    for group in groups:
        wide[group] = [cells[band, group] for band in bands]
    return wide


def notes(summary: Summary) -> list[str]:
    """What the table's numbers count, when a strategy held several seats of a game."""
    players = summary.manifest.get("settings", {}).get("players")
    out = []
    several = [r for r in summary.rows if _seats_per_game(r) != 1]
    if several:
        out.append("A strategy with several seats per game has one result per seat: its mean score, quantiles "
                   "and win rate are over games x seats/game results (the intervals allow for them sharing "
                   "a game's dice).")
    every = [r["strategy"] for r in summary.rows if _every_seat(r, players)]
    if every:
        out.append(f"{', '.join(every)} held every seat: every game's win went to it, so it has no win rate "
                   "of its own; `--by seat` shows each seat's.")
    return [textwrap.fill(note, 100) for note in out]


def rules_line(summary: Summary) -> str | None:
    """The line naming the rules the games were played under; None for the rulebook's."""
    rules = summary.rules
    return None if rules.is_rulebook else f"Rules: {rules.text} (docs/rules.md, \"Variants\")"


def format_table(summary: Summary) -> str:
    lines = [headline(summary), ""]
    if rules_line(summary):
        lines += [rules_line(summary), ""]
    lines.append(_text_table(table_columns(summary), numeric={"seat"}))
    extra = notes(summary)
    if extra:
        lines += [""] + extra
    bands = band_columns(summary)
    if bands is not None:
        # The bands rate the rulebook's scores: under variants they are only a yardstick.
        rated = "" if summary.rules.is_rulebook else "; made for the rulebook's scores"
        lines += ["", f"Solo rating bands (docs/rules.md, section 8{rated}):", _text_table(bands)]
    return "\n".join(lines)
