"""Fixtures of the runs' tests."""
import pytest

from sim.runs.runner import run


@pytest.fixture(scope="module")
def table_ds(tmp_path_factory):
    """A small dataset of three-player tables (greedy, random, random; seats rotated) in three chunks."""
    out = tmp_path_factory.mktemp("table") / "ds"
    run(out, games=700, players=3, strategies=["greedy", "random", "random"], rotate=True, seed=5, chunk_size=300)
    return out
