"""sim.runs.runner: deterministic, chunked, atomic, resumable batch runs into Parquet."""
import json
import shutil
import threading

import numba
import pandas as pd
import pyarrow.parquet as pq
import pytest

from sim.rules import RULEBOOK, parse_rules, rules_dict
from sim.runs import runner
from sim.runs.dataset import done_chunks, read_manifest
from sim.runs.runner import run
from sim.runs.schema import SCHEMAS

TABLE = {"games": 900, "players": 3, "strategies": ["greedy", "random", "greedy"], "rotate": True, "seed": 11,
             "log_turns": True}


def read(out, name):
    df = pd.read_parquet(out / name)
    keys = [k for k in ("game", "seat", "roll") if k in df]
    if name == "turns":
        keys = ["game", "roll", "active", "seat"]
        df = df.sort_values(keys, ascending=[True, True, False, True], kind="stable")
    else:
        df = df.sort_values(keys, kind="stable")
    return df.reset_index(drop=True)


def assert_same_rows(a, b, tables=("games", "players", "turns")):
    for name in tables:
        pd.testing.assert_frame_equal(read(a, name), read(b, name))


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "ds"
    run(out, threads=2, chunk_size=400, **TABLE)
    return out


def test_identical_for_threads_and_chunk_sizes(reference, tmp_path):
    other = tmp_path / "other"
    run(other, threads=1, chunk_size=250, **TABLE)
    assert len(list((other / "games").glob("*.parquet"))) == 4
    assert len(list((reference / "games").glob("*.parquet"))) == 3
    assert_same_rows(reference, other)


def test_layout_schema_and_manifest(reference):
    files = sorted(p.relative_to(reference).as_posix() for p in reference.rglob("*") if p.is_file())
    assert files == sorted(["manifest.json"] + [f"{t}/part-{c:06d}.parquet"
                                                 for t in ("games", "players", "turns") for c in range(3)])
    for name in ("games", "players", "turns"):     # no trace table without --trace
        schema = SCHEMAS[name]
        for part in (reference / name).iterdir():
            assert pq.read_schema(part).remove_metadata().equals(schema.remove_metadata())
    m = read_manifest(reference)
    assert m["status"] == "complete" and m["games_done"] == 900 and m["chunks"] == 3
    assert m["settings"] == {"games": 900, "players": 3, "strategies": ["greedy", "random", "greedy"],
                             "rotate": True, "seed": 11, "sheet": "standard", "max_rolls": 200,
                             "log_turns": True, "chunk_size": 400, "rules": ""}
    assert m["rules"] == rules_dict(RULEBOOK)   # every number of the rules played, beside their text
    assert m["sheet"]["text"].count("\n") == 6
    assert m["strategies"][0]["name"] == "greedy" and "numba" in m["versions"]
    assert m["started"] and m["finished"]
    players = read(reference, "players")
    games = read(reference, "games")
    assert len(players) == 2700 and len(games) == 900
    # rotation: seat s of game g is played by strategies[(s + g) % 3]
    specs = ["greedy", "random", "greedy"]
    assert (players["strategy"] == [specs[(s + g) % 3] for g, s in zip(players["game"], players["seat"])]).all()
    assert (players["score"] == players["column_points"] + players["colour_points"] + players["jokers_left"]
            - players["star_penalty"] - parse_rules(m["settings"]["rules"]).pass_penalty * players["passes"]).all()
    winners = players[players["winner"]].groupby("game")["seat"].apply(list)
    assert [list(w) for w in games["winners"]] == list(winners)
    turns = read(reference, "turns")
    assert turns.groupby("game").size().tolist() == (games["rolls"] * 3).tolist()
    passes = turns.groupby(["game", "seat"])["passed"].sum().reset_index(drop=True)
    assert passes.tolist() == players["passes"].tolist()


def test_interrupt_and_resume_in_process(reference, tmp_path):
    out = tmp_path / "resumed"

    def stop(chunk, done):
        if chunk == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(out, chunk_size=400, on_chunk=stop, **TABLE)
    assert done_chunks(out) == {0, 1}
    assert read_manifest(out)["status"] == "interrupted"
    # a crash between renames leaves a players file without its games file: rewritten on resume
    (out / "players" / "part-000002.parquet").write_bytes(b"garbage")
    (out / "games" / ".part-000002.parquet.tmp").write_bytes(b"garbage")
    m = run(out, chunk_size=400, resume=True, **TABLE)
    assert m["status"] == "complete" and m["games_done"] == 900 and len(m["resumed"]) == 1
    assert not list(out.rglob("*.tmp"))
    assert_same_rows(reference, out)


def test_a_chunk_written_late_by_an_interrupted_run_is_counted_once(reference, tmp_path, monkeypatch):
    """A cancelled Dask task runs on: a worker of the interrupted run may finish writing its chunk
    while the resume starts, after the manifest counted the chunks found but before the chunks
    to play are chosen. The resume must not play it again, and must count its games."""
    out = tmp_path / "late"

    def stop(chunk, done):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(out, chunk_size=400, on_chunk=stop, **TABLE)
    assert done_chunks(out) == {0}
    real_start = runner._start

    def start_then_a_late_chunk(store, *args, **kwargs):
        manifest = real_start(store, *args, **kwargs)
        for name in ("players", "turns", "games"):      # games last: done_chunks looks there
            shutil.copy(reference / name / "part-000001.parquet", out / name / "part-000001.parquet")
        return manifest

    monkeypatch.setattr(runner, "_start", start_then_a_late_chunk)
    played = []
    m = run(out, chunk_size=400, resume=True, on_chunk=lambda c, done: played.append(c), **TABLE)
    assert played == [2]
    assert m["status"] == "complete" and m["games_done"] == 900 == read_manifest(out)["games_done"]
    assert_same_rows(reference, out)


def test_resume_refuses_other_settings(reference, tmp_path):
    out = tmp_path / "copy"
    run(out, chunk_size=400, **{**TABLE, "games": 100})
    with pytest.raises(ValueError, match="cannot resume.*seed is 12 here but 11"):
        run(out, chunk_size=400, resume=True, **{**TABLE, "games": 100, "seed": 12})


USER_FILE = """
from strategies import strategy


@strategy(params={"which": 0.0})
def pick(st, ps, bb, cands, n, tab, params, rng):
    return min(n - 1, int(params[0]))
"""


def _interrupted(out, **kwargs):
    """A run of `kwargs` into `out` stopped by Ctrl-C after its first chunk."""
    def stop(chunk, done):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(out, on_chunk=stop, **kwargs)
    assert done_chunks(out) == {0}


def test_resume_refuses_a_changed_strategy_file_or_other_kernels(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text(USER_FILE)
    args = {"games": 300, "players": 1, "strategies": [f"{f}:pick"], "seed": 4, "chunk_size": 100}
    out = tmp_path / "ds"
    _interrupted(out, **args)
    f.write_text(USER_FILE + "\n# edited\n")
    with pytest.raises(ValueError, match=f"the file of strategy '{f}:pick' .* has changed since the run started"):
        run(out, resume=True, **args)
    f.write_text(USER_FILE)
    manifest = read_manifest(out)
    # as if a default had changed in the code between the two runs
    other = [{**info, "params": {"which": 1.0}} for info in manifest["strategies"]]
    (out / "manifest.json").write_text(json.dumps({**manifest, "strategies": other}))
    with pytest.raises(ValueError, match="has parameters .'which': 0.0. here but .'which': 1.0."):
        run(out, resume=True, **args)
    (out / "manifest.json").write_text(json.dumps({**manifest, "kernel_sources": "0123456789abcdef"}))
    with pytest.raises(ValueError, match="other versions of the engine or built-in strategies"):
        run(out, resume=True, **args)
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert run(out, resume=True, **args)["status"] == "complete"


def test_resume_needs_a_run(tmp_path):
    args = {"games": 10, "players": 1, "strategies": ["greedy"], "seed": 0}
    (tmp_path / "empty").mkdir()
    for out in (tmp_path / "missing", tmp_path / "empty"):
        with pytest.raises(ValueError, match="there is no run in it"):
            run(out, resume=True, **args)
    assert not (tmp_path / "missing").exists() and not list((tmp_path / "empty").iterdir())


def test_existing_folder_needs_resume_or_force(tmp_path):
    out = tmp_path / "ds"
    run(out, games=50, strategies=["greedy"], players=1, seed=1)
    with pytest.raises(ValueError, match="not empty"):
        run(out, games=50, strategies=["greedy"], players=1, seed=2)
    m = run(out, games=60, strategies=["greedy"], players=1, seed=2, force=True)
    assert m["settings"]["seed"] == 2 and len(pd.read_parquet(out / "games")) == 60
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="refusing to delete"):
        run(out, games=60, strategies=["greedy"], players=1, seed=2, force=True)
    assert (out / "manifest.json").exists()


def test_strategy_objects_need_a_spec(tmp_path):
    from strategies import REGISTRY, strategy

    @strategy
    def greedy(st, ps, bb, cands, n, tab, params, rng):   # not the built-in, despite its name
        return -1

    with pytest.raises(ValueError, match="run.. takes strategies as specs"):
        run(tmp_path / "a", games=10, players=1, strategies=[greedy], seed=0)
    assert list(tmp_path.iterdir()) == []
    m = run(tmp_path / "b", games=10, players=1, strategies=[REGISTRY["greedy"]], seed=0)   # a built-in's object
    assert m["settings"]["strategies"] == ["greedy"]


@pytest.mark.parametrize("kwargs, message", [
    ({"games": -1}, "games must be"),
    ({"players": 7}, "players must be 1..6"),
    ({"strategies": ["nonsense"]}, "unknown strategy"),
    ({"strategies": ["greedy:foo=1"]}, "no parameter foo"),
    ({"sheet": "nosuchsheet"}, "no sheet"),
    ({"chunk_size": 0}, "chunk_size"),
    ({"threads": 99}, "threads"),
    ({"players": 3, "strategies": ["greedy", "random"]}, "2 strategies for 3 players"),
])
def test_bad_input_creates_nothing(tmp_path, kwargs, message):
    args = {"games": 10, "players": 2, "strategies": ["greedy"], "seed": 0}
    with pytest.raises(ValueError, match=message):
        run(tmp_path / "a" / "b", **{**args, **kwargs})
    assert list(tmp_path.iterdir()) == []


def test_manifest_is_json_with_command(tmp_path):
    out = tmp_path / "ds"
    args = {"games": 20, "players": 1, "strategies": ["random"], "seed": 3, "chunk_size": 10}
    run(out, **args, command="encore-sim run -n 20")
    m = json.loads((out / "manifest.json").read_text())
    assert m["command"] == "encore-sim run -n 20" and m["settings"]["rotate"] is False
    (out / "games" / "part-000001.parquet").unlink()
    run(out, **args, resume=True, command="encore-sim run --resume")
    m = json.loads((out / "manifest.json").read_text())
    assert m["command"] == "encore-sim run -n 20" and len(m["resumed"]) == 1   # the command that started it


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="the runner pipelines only on 2+ threads")
def test_play_ahead_stops_cleanly(tmp_path):
    """On 2 threads chunk c+1 plays on a worker thread while chunk c is written; stopping
    after chunk 1 keeps exactly chunks 0 and 1, and no playing thread outlives the run."""
    out = tmp_path / "ahead"

    def stop(chunk, done):
        if chunk == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(out, games=2000, players=1, strategies=["greedy"], seed=5, chunk_size=300, threads=2, on_chunk=stop)
    assert done_chunks(out) == {0, 1}
    assert not any(t.name.startswith("encore-sim-play") for t in threading.enumerate())
    assert not list(out.rglob("*.tmp")) and not list(out.rglob(".*"))
    ref = tmp_path / "ref"
    run(ref, games=2000, players=1, strategies=["greedy"], seed=5, chunk_size=300, threads=1)
    m = run(out, games=2000, players=1, strategies=["greedy"], seed=5, chunk_size=300, threads=2, resume=True)
    assert m["status"] == "complete"
    assert_same_rows(ref, out, tables=("games", "players"))
