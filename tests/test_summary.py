"""sim.runs.summary against a direct pandas computation; sim.runs.compare on common random numbers."""
import math

import numpy as np
import pandas as pd
import pytest

from sim.runs.compare import compare
from sim.runs.dataset import DatasetError
from sim.runs.runner import run
from sim.runs.summary import QUANTILES, SOLO_BANDS, Summary, format_table, notes, summarise, t_quantile, wilson


@pytest.fixture(scope="module")
def table_ds(tmp_path_factory):
    out = tmp_path_factory.mktemp("table") / "ds"
    run(out, games=700, players=3, strategies=["greedy", "random", "random"], rotate=True, seed=5, chunk_size=300)
    return out


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


def test_corrupt_dataset(table_ds, tmp_path):
    import shutil
    bad = tmp_path / "bad"
    shutil.copytree(table_ds, bad)
    part = bad / "players" / "part-000001.parquet"
    part.write_bytes(part.read_bytes()[:100])
    with pytest.raises(DatasetError, match="part-000001.parquet: not a readable Parquet file"):
        summarise(bad)
    (bad / "manifest.json").write_text("{")
    with pytest.raises(DatasetError, match="cannot read the manifest"):
        summarise(bad)
    with pytest.raises(DatasetError, match="no such dataset"):
        summarise(tmp_path / "none")


def rewrite_part(file, change):
    """Rewrite a Parquet file of a dataset as a user's script might: read, change, write back."""
    import pyarrow.parquet as pq
    pq.write_table(change(pq.read_table(file)), file)


def test_nulls_where_the_schema_forbids_them(table_ds, tmp_path):
    import shutil

    import pyarrow as pa

    from sim.runs.replay import from_dataset
    bad = tmp_path / "bad"
    shutil.copytree(table_ds, bad)
    rewrite_part(bad / "players" / "part-000001.parquet",
                 lambda t: t.set_column(3, pa.field("score", pa.int16()), pa.nulls(t.num_rows, pa.int16())))
    match = "players/part-000001.parquet: column 'score' holds nulls"
    with pytest.raises(DatasetError, match=match):
        summarise(bad)
    with pytest.raises(DatasetError, match=match):
        from_dataset(bad, 400)


@pytest.mark.parametrize("table, change, message", [
    ("players", lambda t: t.drop_columns(["score"]), "column 'score' is missing"),
    ("players", lambda t: t.drop_columns(["rank", "winner"]), "columns 'rank', 'winner' are missing"),
    ("games", lambda t: t.drop_columns(["rolls"]), "column 'rolls' is missing"),
    # a column no reader selects: still a damaged file
    ("games", lambda t: t.drop_columns(["seed"]), "column 'seed' is missing"),
    ("players", lambda t: t.append_column("note", t["strategy"]), "unexpected column 'note'"),
    ("players", lambda t: t.set_column(3, "score", t["score"].cast("string")),
     "column 'score' has type string, expected int16"),
])
def test_damaged_columns(table_ds, tmp_path, table, change, message):
    """Every reader names the file and the column: no KeyError from deep inside pyarrow or replay."""
    import shutil

    from sim.runs.dataset import read_part
    from sim.runs.replay import from_dataset
    bad = tmp_path / "bad"
    shutil.copytree(table_ds, bad)
    rewrite_part(bad / table / "part-000001.parquet", change)
    match = f"{table}/part-000001.parquet: {message}"
    with pytest.raises(DatasetError, match=match):
        summarise(bad)
    if table == "players":
        with pytest.raises(DatasetError, match=match):
            from_dataset(bad, 400)   # chunk 1 holds games 300..599
    from_dataset(bad, 10)            # other chunks replay as before
    with pytest.raises(DatasetError, match=match):
        read_part(bad, table, 1, columns=["game"])
    from sim.runs.dataset import check_parts  # what `run --resume` checks first
    with pytest.raises(DatasetError, match=match):
        check_parts(bad)


def test_wilson_and_t():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    # 97.5 % points of Student's t (any table, to its 4 decimals), and the normal one in the limit
    for df, t in ((1, 12.7062), (2, 4.3027), (3, 3.1824), (4, 2.7764), (10, 2.2281), (30, 2.0423),
                  (None, 1.9600), (math.inf, 1.9600)):
        assert t_quantile(df) == pytest.approx(t, abs=5e-5)
    assert t_quantile(120, 0.995) == pytest.approx(2.6174, abs=5e-5)
    assert math.isnan(t_quantile(0.5))


def test_compare_win_intervals_stay_within_0_and_1():
    t = compare(["greedy", "heuristic"], players=6, games=7, seed=3, chunk_size=1).table
    for _, r in t.iterrows():
        wins = round(r["win_rate"] * 7)
        assert (r["win_ci_low"], r["win_ci_high"]) == pytest.approx(wilson(wins, 7))
    assert -1 <= t["win_diff_ci_low"][1] <= t["win_diff_ci_high"][1] <= 1


def test_compare_solo_greedy_beats_random():
    r = compare(["greedy", "random"], games=1500, seed=3).table
    assert r["significant"][1] and r["diff"][1] < -5
    assert r["diff"][1] == pytest.approx(r["mean"][1] - r["mean"][0])
    # the same candidate twice: identical dice and choices, zero difference
    same = compare(["greedy", "greedy"], games=300, seed=3).table
    assert same["diff"][1] == 0 and not same["significant"][1]


def test_compare_tables_and_until_ci():
    r = compare(["greedy", "random"], players=3, opponents="greedy", games=600, seed=1)
    t = r.table
    assert r.games == 600 and t["win_significant"][1] and t["win_diff"][1] < 0
    u = compare(["greedy", "random"], until_ci=2.0, max_games=20_000, chunk_size=100, seed=2)
    assert u.table["diff_ci_high"][1] - u.table["diff"][1] < 2.0 and u.games < 20_000
    assert u.stop["target_reached"] and u.stop["stopped_by"] == "until_ci"


def test_compare_against_a_mixed_table_plays_each_opponent_in_its_seat():
    """--opponents once per opponent seat: the candidate sits with those strategies in that order,
    the games a rotated run of the same four plays; once for all seats, copies; another count, refused."""
    from click.testing import CliRunner
    from cli import main
    from sim.runs.api import lineup
    from sim.runs.compare import candidate_results
    mixed = compare(["heuristic", "greedy"], players=4, opponents=["greedy", "heuristic", "random"], games=80, seed=5)
    assert mixed.opponents == ["greedy", "heuristic", "random"]
    for i, c in enumerate(["heuristic", "greedy"]):
        scores, _ = candidate_results(lineup([c, "greedy", "heuristic", "random"], players=4), 5, 0, 80, 4,
                                      "standard")
        assert mixed.table["mean"][i] == pytest.approx(scores.mean())
    copies = compare(["heuristic", "greedy"], players=4, opponents=["random"], games=80, seed=5)
    assert copies.opponents == "random" and not copies.table["mean"].equals(mixed.table["mean"])
    r = CliRunner().invoke(main, ["compare", "heuristic", "greedy", "-p", "4", "-n", "80", "--seed", "5", "-q",
                                  "--opponents", "greedy", "--opponents", "heuristic", "--opponents", "random"])
    assert r.exit_code == 0, r.output
    assert "rotated through the seats against greedy, heuristic, random;" in r.output.splitlines()[0]
    assert f"{mixed.table['mean'][0]:.2f}" in r.output
    r = CliRunner().invoke(main, ["compare", "heuristic", "greedy", "-p", "4", "-n", "80", "--opponents", "greedy",
                                  "--opponents", "random"])
    assert r.exit_code == 2 and r.output == ("Error: 2 opponents for a table of 4: give one strategy for all 3 "
                                             "opponent seats, or one per seat (3)\n")


def test_compare_until_ci_schedule():
    """Batches sized by the predicted need stop near it; the games are those of a fixed-size
    run (game g is the same game in any batch); max_games that stops it first is reported."""
    u = compare(["greedy", "random"], until_ci=0.3, max_games=50_000, seed=4)
    h = u.table["diff_ci_high"][1] - u.table["diff"][1]
    assert h < 0.3 and 1000 < u.games < 5000 and u.stop["widest_half_width"] == pytest.approx(h)
    fixed = compare(["greedy", "random"], games=u.games, seed=4)
    for col in ("mean", "diff", "diff_ci_high"):
        np.testing.assert_allclose(u.table[col], fixed.table[col], rtol=1e-12, err_msg=col)
    assert compare(["greedy", "random"], until_ci=0.3, max_games=50_000, seed=4).table.equals(u.table)
    short = compare(["greedy", "random"], until_ci=0.3, max_games=1500, seed=4)
    assert short.games == 1500 and not short.stop["target_reached"]
    assert short.stop["games_needed"] > 1500 and short.stop["stopped_by"] == "max_games"
    with pytest.raises(ValueError, match="exclude each other"):
        compare(["greedy", "random"], games=100, until_ci=1.0)
    with pytest.raises(ValueError, match="needs it"):
        compare(["greedy", "random"], max_games=100)
