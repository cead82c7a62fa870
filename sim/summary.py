"""Summaries of a dataset, aggregated chunk by chunk (memory does not grow with the dataset).

    summarise(path, by_seat=False, batch_size=BATCH_ROWS) -> Summary(stats, bands | None, manifest)

`path` is a dataset folder or a filesystem URL (sim.dataset.open_store). The
players table is scanned part by part in record batches of at most
`batch_size` rows, each joined to the games rows it needs (both are sorted by
game), and folded into running sums and per-group score histograms: memory is
bounded by the batch size and the number of distinct groups and scores, not by
the dataset, so datasets far larger than memory can be summarised.

Per strategy (and seat): games, mean score with a 95% confidence interval,
standard deviation, quantiles (exact: scores are integers, so a histogram per
group is kept), win rate with a 95% Wilson interval, mean rolls, jokers used,
passes and the share of capped games. For solo datasets, the distribution over
the rulebook's rating bands (RULES section 8).
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from .dataset import DatasetError, done_chunks, iter_part, open_store, read_manifest

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
#: Rows of the players table read at a time.
BATCH_ROWS = 65_536
Z95 = 1.959963984540054

#: RULES section 8: (lowest score, highest score, stars, rating), best first.
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
    """Student-t quantile (Cornish-Fisher expansion; the normal one for large df)."""
    z = Z95 if p == 0.975 else _norm_ppf(p)
    if df is None or not math.isfinite(df) or df > 1e6:
        return z
    if df < 1:
        return float("nan")
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def _norm_ppf(p: float) -> float:
    from statistics import NormalDist
    return NormalDist().inv_cdf(p)


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
class _Acc:
    n: int = 0
    score: float = 0.0
    score_sq: float = 0.0
    wins: int = 0
    rolls: float = 0.0
    jokers: float = 0.0
    passes: float = 0.0
    capped: int = 0

    def __post_init__(self):
        self.hist = defaultdict(int)


@dataclass
class Summary:
    stats: pd.DataFrame
    bands: pd.DataFrame | None
    manifest: dict


PLAYER_COLUMNS = ["game", "seat", "strategy", "score", "jokers_used", "passes", "winner"]


def summarise(path, by_seat: bool = False, batch_size: int = BATCH_ROWS) -> Summary:
    """Aggregate the dataset at `path` chunk by chunk, in row batches (raises DatasetError if damaged)."""
    store = open_store(path)
    manifest = read_manifest(store)
    chunks = sorted(done_chunks(store))
    if not chunks:
        raise DatasetError(f"{store}: the dataset has no finished chunk")
    players = int(manifest.get("settings", {}).get("players", 0)) or None
    accs: dict[tuple, _Acc] = defaultdict(_Acc)
    for c in chunks:
        for batch, rolls, capped in _joined_batches(store, c, players, batch_size):
            _accumulate(accs, batch, rolls, capped, by_seat)
    stats = _stats(accs, by_seat, players)
    bands = _bands(accs, by_seat) if players == 1 else None
    return Summary(stats, bands, manifest)


def _joined_batches(store, c: int, players: int | None, batch_size: int):
    """(players batch, rolls, capped of each row's game) for chunk c, batch by batch.

    Both tables are sorted by game, so a buffer of the games rows from the
    current batch's last game on is all that is kept between batches.
    """
    games_iter = iter_part(store, "games", c, ["game", "rolls", "capped"], batch_size)
    buf = (np.empty(0, np.int64), np.empty(0, np.int16), np.empty(0, bool))
    n_games = n_rows = 0
    for batch in iter_part(store, "players", c, PLAYER_COLUMNS, batch_size):
        if batch.num_rows == 0:
            continue
        game = batch.column("game").to_numpy()
        last = game[-1]
        while len(buf[0]) == 0 or buf[0][-1] < last:
            g = next(games_iter, None)
            if g is None:
                break
            n_games += g.num_rows
            buf = tuple(np.concatenate((old, g.column(name).to_numpy(zero_copy_only=False)))
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


def _accumulate(accs, batch: pa.RecordBatch, rolls: np.ndarray, capped: np.ndarray, by_seat) -> None:
    p = batch.to_pandas()
    p["rolls"] = rolls
    keys = ["strategy", "seat"] if by_seat else ["strategy"]
    p["score_sq"] = p["score"].astype(np.float64) ** 2
    p["wins"] = p["winner"].astype(np.int64)
    p["capped"] = capped.astype(np.int64)
    sums = p.groupby(keys, sort=False, observed=True).agg(
        n=("score", "size"), score=("score", "sum"), score_sq=("score_sq", "sum"), wins=("wins", "sum"),
        rolls=("rolls", "sum"), jokers=("jokers_used", "sum"), passes=("passes", "sum"),
        capped=("capped", "sum"))
    for key, row in sums.iterrows():
        a = accs[key if isinstance(key, tuple) else (key,)]
        a.n += int(row.n)
        a.score += float(row.score)
        a.score_sq += float(row.score_sq)
        a.wins += int(row.wins)
        a.rolls += float(row.rolls)
        a.jokers += float(row.jokers)
        a.passes += float(row.passes)
        a.capped += int(row.capped)
    counts = p.groupby(keys + ["score"], sort=False, observed=True).size()
    for key, count in counts.items():
        accs[key[:-1]].hist[int(key[-1])] += int(count)


def _stats(accs, by_seat, players) -> pd.DataFrame:
    rows = []
    for key in sorted(accs, key=lambda k: tuple(str(x) if i == 0 else x for i, x in enumerate(k))):
        a = accs[key]
        mean, sd, half = mean_ci(a.n, a.score, a.score_sq)
        row = {"strategy": key[0]}
        if by_seat:
            row["seat"] = int(key[1])
        lo, hi = wilson(a.wins, a.n)
        row.update({
            "games": a.n, "mean": mean, "ci_low": mean - half, "ci_high": mean + half, "sd": sd,
            **{f"q{int(q * 100):02d}": hist_quantile(a.hist, a.n, q) for q in QUANTILES},
            "min": min(a.hist), "max": max(a.hist),
            "win_rate": a.wins / a.n, "win_ci_low": lo, "win_ci_high": hi,
            "rolls": a.rolls / a.n, "jokers_used": a.jokers / a.n, "passes": a.passes / a.n,
            "capped": a.capped / a.n,
        })
        rows.append(row)
    return pd.DataFrame(rows)


def _bands(accs, by_seat) -> pd.DataFrame:
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
    return pd.DataFrame(rows)


# --- rendering -------------------------------------------------------------------

def format_table(summary: Summary) -> str:
    s = summary.stats
    m = summary.manifest
    st = m.get("settings", {})
    solo = st.get("players") == 1
    status = "" if m.get("status") == "complete" else f" (status: {m.get('status')})"
    header = (f"{m.get('games_done', 0):,} games of seed {st.get('seed')}, "
              f"{'solo' if solo else str(st.get('players')) + ' players'}, sheet {st.get('sheet')}"
              f"{', seats rotated' if st.get('rotate') else ''}{status}")
    lines = [header, ""]
    table = pd.DataFrame({"strategy": s["strategy"]})
    if "seat" in s:
        table["seat"] = s["seat"]
    table["games"] = s["games"].map("{:,}".format)
    table["mean score (95% CI)"] = [f"{a:.2f} ({lo:.2f}..{hi:.2f})"
                                   for a, lo, hi in zip(s["mean"], s["ci_low"], s["ci_high"])]
    table["sd"] = s["sd"].map("{:.2f}".format)
    table["q05/q25/q50/q75/q95"] = [
        "/".join(str(int(r[f"q{int(q * 100):02d}"])) for q in QUANTILES) for _, r in s.iterrows()]
    if not solo:
        table["win rate (95% CI)"] = [f"{w:.1%} ({lo:.1%}..{hi:.1%})"
                                      for w, lo, hi in zip(s["win_rate"], s["win_ci_low"], s["win_ci_high"])]
    table["rolls"] = s["rolls"].map("{:.1f}".format)
    table["jokers"] = s["jokers_used"].map("{:.2f}".format)
    table["passes"] = s["passes"].map("{:.1f}".format)
    if not solo:
        table["capped"] = s["capped"].map("{:.2%}".format)
    lines.append(table.to_string(index=False))
    if summary.bands is not None:
        b = summary.bands
        lines += ["", "Solo rating bands (RULES section 8):"]
        keys = ["strategy", "seat"] if "seat" in b else ["strategy"]
        wide = b.assign(cell=[f"{x:.1%}" for x in b["share"]]).pivot_table(
            index=["score", "stars", "rating"], columns=keys, values="cell", aggfunc="first", sort=False)
        wide.columns = [" ".join(map(str, c)) if isinstance(c, tuple) else str(c) for c in wide.columns]
        lines.append(wide.reset_index().to_string(index=False))
    return "\n".join(lines)
