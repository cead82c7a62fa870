"""sim.runs.dataset: a damaged dataset is named in one line by every reader (the file and the
column), never a KeyError from deep inside pyarrow; numpy views of Arrow arrays."""
import numpy as np
import pyarrow as pa
import pytest

from sim.runs.dataset import DatasetError, as_numpy
from sim.runs.summary import summarise


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


def test_as_numpy_of_slices():
    rng = np.random.default_rng(0)
    for type_, dtype in ((pa.int8(), np.int8), (pa.int16(), np.int16), (pa.int64(), np.int64), (pa.bool_(), bool)):
        values = rng.integers(0, 2 if dtype is bool else 100, 1000).astype(dtype)
        arr = pa.array(values, type_)
        for lo, hi in ((0, 1000), (3, 17), (8, 9), (997, 1000), (5, 5)):
            got = as_numpy(arr.slice(lo, hi - lo))
            assert got.dtype == dtype and got.tolist() == values[lo:hi].tolist()
    with pytest.raises(ValueError, match="nulls"):
        as_numpy(pa.array([1, None], pa.int16()))
