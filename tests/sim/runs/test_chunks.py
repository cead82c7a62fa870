"""One chunk of a run (sim.runs.chunks): which games it holds, its files written as play_chunk
plays them, and the pipelined writer leaving the same files as one chunk after another."""
import pyarrow.parquet as pq
import pytest

from sim.runs.api import play_chunk
from sim.runs.chunks import ChunkJob, play_ahead, play_and_write
from sim.runs.dataset import done_chunks, open_store, part_name, read_part
from sim.runs.settings import Settings
from sim.state import PS_SCORE


def job(out, log_turns=False) -> ChunkJob:
    """The job of a run into `out`, its tables' folders made (as the runner makes them)."""
    s = Settings.of(strategies=["greedy", "random"], games=25, seed=6, chunk_size=10, rotate=True, log_turns=log_turns,
                    threads=1)
    store = open_store(out)
    for name in ("games", "players", "turns"):
        store.makedirs(name)
    return ChunkJob(store, s.stored(), s.sheet.name, s.sheet.text, 1)


def test_the_games_of_each_chunk(tmp_path):
    j = job(tmp_path)
    assert j.n_chunks == 3 and [j.chunk_games(c) for c in range(3)] == [(0, 10), (10, 10), (20, 5)]
    assert j.games_in({0, 2}) == 15 and j.chunks_found() == set()


def test_a_chunk_s_files_hold_its_games_as_played(tmp_path):
    j = job(tmp_path / "ds", log_turns=True)
    assert play_and_write(j, 2) == 5
    assert done_chunks(tmp_path / "ds") == j.chunks_found() == {2}
    players = read_part(tmp_path / "ds", "players", 2).to_pandas()
    played = play_chunk(6, 20, 5, ["greedy", "random"], players=2, rotate=True)
    assert players["game"].tolist() == [g for g in range(20, 25) for _ in range(2)]
    assert players["score"].tolist() == played.seats[:, :, PS_SCORE].ravel().tolist()
    assert len(read_part(tmp_path / "ds", "turns", 2)) > 0


@pytest.mark.parametrize("log_turns", [False, True])
def test_played_ahead_the_files_are_those_of_one_chunk_after_another(tmp_path, log_turns):
    one, ahead = tmp_path / "one", tmp_path / "ahead"
    for c in range(3):
        play_and_write(job(one, log_turns), c)
    assert list(play_ahead(job(ahead, log_turns), [0, 1, 2])) == [(0, 10), (1, 10), (2, 5)]
    assert list(play_ahead(job(ahead, log_turns), [])) == []
    tables = ("games", "players", "turns") if log_turns else ("games", "players")
    for name in tables:
        for c in range(3):
            assert pq.read_table(one / name / part_name(c)).equals(pq.read_table(ahead / name / part_name(c)))
