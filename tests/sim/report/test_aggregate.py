"""sim.report.aggregate: a dataset's report data, folded in the pass that summarises it."""
import json

import pandas as pd
import pytest

from sim.report.aggregate import SUMMED, collect
from sim.runs.dataset import DatasetError
from sim.runs.runner import run


def test_every_game_is_counted_once_and_the_means_are_the_tables(tmp_path):
    """Chunks of 20 games cut the 50 apart: each game still counts once per seat, and the score
    parts' means are those pandas reads from the players table."""
    ds = tmp_path / "ds"
    run(ds, games=50, players=2, strategies=["greedy", "random"], seed=3, chunk_size=20)
    data = collect(ds)
    assert data["games"] == 50 and sum(data["lengths"].values()) == 50
    assert [s["games"] for s in data["seats"]] == [50, 50]
    players = pd.read_parquet(ds / "players")
    for name, rows in players.groupby("strategy"):
        assert data["means"][name] == pytest.approx({c: rows[c].mean() for c in SUMMED})
        assert sum(data["first_joker"][name].values()) == len(rows)
    won = players.groupby("seat")["winner"].mean()
    assert [s["win_rate"] for s in data["seats"]] == pytest.approx(won.tolist())


def test_a_manifest_without_a_valid_table_size_is_refused(tmp_path):
    ds = tmp_path / "ds"
    run(ds, games=10, strategies=["greedy"], seed=1)
    manifest = json.loads((ds / "manifest.json").read_text())
    manifest["settings"]["players"] = 9
    (ds / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(DatasetError, match="names no valid number of players"):
        collect(ds)
