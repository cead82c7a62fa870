"""sim.runs.summary against a direct pandas computation."""
import math

import numpy as np
import pandas as pd
import pytest

from sim.runs.runner import run
from sim.runs.summary import QUANTILES, SOLO_BANDS, Summary, format_table, notes, summarise, t_quantile, wilson


@pytest.fixture(scope="module")
def solo_ds(tmp_path_factory):
    out = tmp_path_factory.mktemp("solo") / "ds"
    run(out, games=900, players=1, strategies=["greedy"], seed=8, chunk_size=400)
    return out


def expected(path, keys):
    p = pd.read_parquet(path / "players").merge(pd.read_parquet(path / "games")[["game", "rolls", "capped"]],
                                                on="game")
    g = p.groupby(keys)
    return pd.DataFrame({
        "games": g["game"].nunique(), "seat_games": g.size(), "mean": g["score"].mean(), "sd": g["score"].std(),
        "q05": g["score"].quantile(0.05, interpolation="lower"),
        "q50": g["score"].quantile(0.5, interpolation="lower"),
        "q95": g["score"].quantile(0.95, interpolation="lower"),
        "win_rate": g["winner"].mean(), "rolls": g["rolls"].mean(), "jokers_used": g["jokers_used"].mean(),
        "passes": g["passes"].mean(), "capped": g["capped"].mean(),
    }).reset_index()


@pytest.mark.parametrize("by_seat", [False, True])
def test_summary_matches_pandas(table_ds, by_seat):
    keys = ["strategy", "seat"] if by_seat else ["strategy"]
    got = summarise(table_ds, by_seat=by_seat).stats.sort_values(keys).reset_index(drop=True)
    want = expected(table_ds, keys)
    for col in want.columns:
        np.testing.assert_allclose(got[col].astype(float), want[col].astype(float), rtol=1e-12, err_msg=col) \
            if col not in keys else None
    half = t_quantile(want["games"][0] - 1) * want["sd"][0] / math.sqrt(want["games"][0])
    assert got["ci_high"][0] - got["mean"][0] == pytest.approx(half)
    assert got["seat_games"].sum() == 2100
    if by_seat:   # a row per seat: one result per game
        assert (got["games"] == got["seat_games"]).all()
    else:         # random holds two of the three seats: it played the 700 games, with two results in each
        assert got.set_index("strategy")["games"].to_dict() == {"greedy": 700, "random": 700}
        assert got.set_index("strategy")["seat_games"].to_dict() == {"greedy": 700, "random": 1400}


@pytest.mark.parametrize("batch_size", [65_536, 7, 2, 1])
def test_intervals_are_clustered_by_game(table_ds, batch_size):
    """random holds two seats of every game: its seats' results in one game are not independent,
    so the intervals come from per-game sums (batches of 7, 2 or 1 rows cut games apart: they must not)."""
    got = summarise(table_ds, batch_size=batch_size).stats.set_index("strategy")
    p = pd.read_parquet(table_ds / "players")
    for name, rows in p.groupby("strategy"):
        per_game = rows.groupby("game").agg(s=("score", "sum"), w=("winner", "sum"), m=("score", "size"))
        n, games = len(rows), len(per_game)
        mean, rate = rows["score"].mean(), rows["winner"].mean()
        var = ((per_game["s"] - mean * per_game["m"]) ** 2).sum() / n**2 * games / (games - 1)
        half = t_quantile(games - 1) * math.sqrt(var)
        assert got.loc[name, "ci_high"] - got.loc[name, "mean"] == pytest.approx(half, rel=1e-9)
        var_rate = ((per_game["w"] - rate * per_game["m"]) ** 2).sum() / n**2
        n_eff = rate * (1 - rate) / var_rate if var_rate > 0 else n   # greedy wins every game here
        lo, hi = wilson(rate * n_eff, n_eff)
        assert (got.loc[name, "win_ci_low"], got.loc[name, "win_ci_high"]) == pytest.approx((lo, hi), rel=1e-9)
        if name == "random":   # two seats a game: a wider score interval than independent values would give
            naive = t_quantile(n - 1) * rows["score"].std() / math.sqrt(n)
            assert half > 1.05 * naive


def test_header_counts_the_games_summarised(table_ds, tmp_path):
    """A stopped Dask run's workers may finish chunks after the manifest was last written."""
    import json
    import shutil
    out = tmp_path / "ds"
    shutil.copytree(table_ds, out)
    manifest = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps({**manifest, "games_done": 300, "status": "interrupted"}))
    s = summarise(out)
    assert s.games == 700 and format_table(s).startswith("700 games of seed 5, 3 players")


def test_solo_bands(solo_ds):
    s = summarise(solo_ds)
    scores = pd.read_parquet(solo_ds / "players")["score"]
    assert s.bands["games"].sum() == 900 and s.bands["share"].sum() == pytest.approx(1)
    for (lo, hi, _, _), count in zip(SOLO_BANDS, s.bands["games"]):
        inside = scores.between(-10**6 if lo is None else lo, 10**6 if hi is None else hi)
        assert inside.sum() == count


def pandas_format_table(summary):
    """format_table as it was written with pandas (it prints the same text without)."""
    s, m = summary.stats, summary.manifest
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
    seats = s["seat_games"] / s["games"] if "seat_games" in s else s["games"] / s["games"]
    if (seats != 1).any():
        table["seats/game"] = seats.map("{:.3g}".format)
    table["mean score (95% CI)"] = [f"{a:.2f} ({lo:.2f}..{hi:.2f})"
                                   for a, lo, hi in zip(s["mean"], s["ci_low"], s["ci_high"])]
    table["sd"] = s["sd"].map("{:.2f}".format)
    table["q05/q25/q50/q75/q95"] = [
        "/".join(str(int(r[f"q{int(q * 100):02d}"])) for q in QUANTILES) for _, r in s.iterrows()]
    if not solo:
        every = (seats == st.get("players")) & ("seat" not in s)
        table["win rate (95% CI)"] = ["-" if e else f"{w:.1%} ({lo:.1%}..{hi:.1%})"
                                      for e, w, lo, hi in zip(every, s["win_rate"], s["win_ci_low"], s["win_ci_high"])]
    table["rolls"] = s["rolls"].map("{:.1f}".format)
    table["jokers used"] = s["jokers_used"].map("{:.2f}".format)
    table["passes"] = s["passes"].map("{:.1f}".format)
    if not solo:
        table["capped"] = s["capped"].map("{:.2%}".format)
    lines.append(table.to_string(index=False))
    if notes(summary):
        lines += [""] + notes(summary)
    if summary.bands is not None:
        b = summary.bands
        lines += ["", "Solo rating bands (docs/rules.md, section 8):"]
        keys = ["strategy", "seat"] if "seat" in b else ["strategy"]
        wide = b.assign(cell=[f"{x:.1%}" for x in b["share"]]).pivot_table(
            index=["score", "stars", "rating"], columns=keys, values="cell", aggfunc="first", sort=False)
        wide.columns = [" ".join(map(str, c)) if isinstance(c, tuple) else str(c) for c in wide.columns]
        lines.append(wide.reset_index().to_string(index=False))
    return "\n".join(lines)


@pytest.mark.parametrize("by_seat", [False, True])
@pytest.mark.parametrize("ds", ["table_ds", "solo_ds"])
def test_format_table_as_pandas_printed_it(ds, by_seat, request):
    s = summarise(request.getfixturevalue(ds), by_seat=by_seat)
    assert format_table(s) == pandas_format_table(s)


def test_format_table_several_groups_and_wide_cells():
    rows = [{"strategy": name, "seat": seat, "games": games, "mean": mean, "ci_low": mean - 1, "ci_high": mean + 1,
             "sd": 7.5, **{f"q{int(q * 100):02d}": int(q * 100) - 50 for q in QUANTILES}, "min": -60, "max": 60,
             "win_rate": 0.25, "win_ci_low": 0.2, "win_ci_high": 0.3, "rolls": 30.0, "jokers_used": 7.5,
             "passes": 4.25, "capped": 0.0}
            for name, seat, games, mean in [("greedy", 0, 12, -3.5), ("my_strategies/very_long_file.py:choose", 1,
                                                                          1_234_567, 12.25), ("random", 10, 5, 0.0)]]
    for r, seats in zip(rows, (1, 2, 3)):   # seat results per game: 1, 2 and (at 3 players) every seat
        r["seat_games"] = r["games"] * seats
    bands = [{"strategy": r["strategy"], "seat": r["seat"], "score": f"{lo}-{hi}", "stars": stars, "rating": rating,
              "games": 1, "share": share}
             for r in rows for (lo, hi, stars, rating), share in zip(SOLO_BANDS[:4], (0.0, 0.123, 1.0, 0.5))]
    for players in (1, 3):
        manifest = {"games_done": 1_234_584, "status": "running",
                    "settings": {"seed": 1, "players": players, "sheet": "standard", "rotate": True}}
        for with_seat in (True, False):
            strip = (lambda d: d) if with_seat else (lambda d: {k: v for k, v in d.items() if k != "seat"})
            s = Summary([strip(r) for r in rows], [strip(b) for b in bands] if players == 1 else None, manifest)
            assert format_table(s) == pandas_format_table(s)


def test_wilson_and_t():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    # 97.5 % points of Student's t (any table, to its 4 decimals), and the normal one in the limit
    for df, t in ((1, 12.7062), (2, 4.3027), (3, 3.1824), (4, 2.7764), (10, 2.2281), (30, 2.0423),
                  (None, 1.9600), (math.inf, 1.9600)):
        assert t_quantile(df) == pytest.approx(t, abs=5e-5)
    assert t_quantile(120, 0.995) == pytest.approx(2.6174, abs=5e-5)
    assert math.isnan(t_quantile(0.5))
