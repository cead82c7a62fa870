"""Runs on a Dask cluster (2 worker processes on 127.0.0.1), killed workers, and summaries in row batches."""
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from sim.runs import summary as summary_mod
from sim.runs.dataset import done_chunks, read_manifest
from sim.runs.runner import run
from invoking import invoke

distributed = pytest.importorskip("distributed")

TABLE = {"games": 600, "players": 3, "strategies": ["greedy", "random", "greedy"], "rotate": True, "seed": 11,
         "log_turns": True}
CHUNK = 100


def rows(out, name):
    df = pd.read_parquet(Path(out) / name)
    if name == "turns":  # the active seat decides first in its roll
        df = df.assign(order=~df["active"]).sort_values(["game", "roll", "order", "seat"]).drop(columns="order")
    else:
        df = df.sort_values(["game", "seat"] if name == "players" else ["game"])
    return df.reset_index(drop=True)


def assert_same_rows(a, b):
    for name in ("games", "players", "turns"):
        got, want = rows(b, name), rows(a, name)
        keys = ["game", "seat"] if name == "players" else ["game"] if name == "games" else None
        if keys:
            assert not got.duplicated(keys).any(), f"duplicate {name} rows"
        pd.testing.assert_frame_equal(got, want)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# `cluster`: the whole run's Dask local cluster (tests/conftest.py).


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The same batch played locally (other thread count and chunk size: the rows must not depend on them)."""
    out = tmp_path_factory.mktemp("local") / "ds"
    run(out, threads=2, chunk_size=250, **TABLE)
    return out


def test_cli_run_on_cluster_matches_local(cluster, reference, tmp_path):
    out = tmp_path / "ds"
    r = invoke("run", "-n", TABLE["games"], "-p", 3, "-s", "greedy", "-s", "random", "-s", "greedy",
               "--seed", TABLE["seed"], "--log-turns", "--chunk-size", CHUNK, "--out", out,
               "--scheduler", cluster.scheduler_address)
    assert r.exit_code == 0, r.output
    assert "greedy" in r.output and f"Dataset: {out}" in r.output
    m = read_manifest(out)
    assert m["status"] == "complete" and m["games_done"] == 600 and m["scheduler"] == cluster.scheduler_address
    assert m["threads"] == 1 and done_chunks(out) == set(range(6))
    assert sorted(p.name for p in (out / "games").iterdir()) == [f"part-{c:06d}.parquet" for c in range(6)]
    assert not list(out.rglob("*.tmp"))
    assert_same_rows(reference, out)


def test_file_url_interrupt_and_resume_on_cluster(cluster, reference, tmp_path):
    out = tmp_path / "url"
    url = out.as_uri()  # file:///... : written through pyarrow.fs, as s3:// etc. would be

    def stop(chunk, done):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(url, chunk_size=CHUNK, scheduler=cluster.scheduler_address, on_chunk=stop, **TABLE)
    assert read_manifest(url)["status"] == "interrupted"
    assert 1 <= len(done_chunks(url)) <= 6
    r = invoke("run", "--out", url, "--resume", "--scheduler", cluster.scheduler_address, "-q")
    assert r.exit_code == 0, r.output
    m = read_manifest(url)
    assert m["status"] == "complete" and m["games_done"] == 600 and len(m["resumed"]) == 1
    assert_same_rows(reference, out)
    r = invoke("summary", url, "--by", "seat", "--format", "csv")
    assert r.exit_code == 0 and r.output.count("\n") == 1 + 3 * 2


class KillWorkerOnce(distributed.WorkerPlugin):
    """Ends the worker process (os._exit) the first time chunk `chunk`'s task reaches `state`.

    "executing": the task dies before writing (after leaving a damaged players
    file and a temporary, as a crash in the middle of writing would); "memory":
    the chunk's files are all written but its result never reaches the
    scheduler. A marker file makes it happen exactly once, so the test does not
    depend on timing.
    """

    def __init__(self, folder, out, chunk, state):
        self.folder, self.out, self.chunk, self.state = str(folder), str(out), chunk, state
        self.name = f"kill-{chunk}-{state}"

    def transition(self, key, start, finish, **kwargs):
        if finish != self.state or f"-chunk-{self.chunk:06d}-" not in str(key):
            return
        try:
            fd = os.open(os.path.join(self.folder, self.name), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        if self.state == "executing":
            part = f"part-{self.chunk:06d}.parquet"
            Path(self.out, "players", part).write_bytes(b"half a file")
            Path(self.out, "games", f".{part}.1-dead.tmp").write_bytes(b"half a file")
        os._exit(1)


def test_killed_workers_still_give_complete_data(cluster, reference, tmp_path):
    import cloudpickle
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import this test module
    out, markers = tmp_path / "ds", tmp_path / "markers"
    markers.mkdir()
    plugins = [KillWorkerOnce(markers, out, 1, "memory"), KillWorkerOnce(markers, out, 3, "executing")]
    with distributed.Client(cluster.scheduler_address) as client:
        for p in plugins:
            client.register_plugin(p, name=p.name)
        try:
            m = run(out, chunk_size=CHUNK, scheduler=cluster.scheduler_address, retries=2, **TABLE)
        finally:
            for p in plugins:
                client.unregister_worker_plugin(p.name)
        client.wait_for_workers(2, timeout=60)
    killed = [int((markers / p.name).read_text()) for p in plugins]
    assert not any(_alive(pid) for pid in killed), "the plugin should have ended those workers"
    assert m["status"] == "complete" and m["games_done"] == 600
    assert sorted(p.name for p in (out / "players").iterdir()) == [f"part-{c:06d}.parquet" for c in range(6)]
    assert not list(out.rglob("*.tmp"))
    assert_same_rows(reference, out)


SCRIPT = """
import sys

from sim.runs.runner import run   # at the top, as scripts do: spawned workers import this file again

if __name__ == "__main__":
    m = run(sys.argv[1], games=300, players=2, strategies=[sys.argv[2], "greedy"], seed=6, chunk_size=100,
            scheduler="local:1")
    print(m["status"])
"""
USER_FILE = """
def first(st, ps, bb, cands, n, tab, params, rng):
    return 0 if n > 0 else -1
"""


def test_script_with_a_user_strategy_on_a_local_cluster(tmp_path):
    """A worker compiles the user's strategy after importing the script that started it."""
    import subprocess
    (tmp_path / "go.py").write_text(SCRIPT)
    (tmp_path / "mine.py").write_text(USER_FILE)
    root = Path(__file__).resolve().parents[3]
    r = subprocess.run([sys.executable, str(tmp_path / "go.py"), str(tmp_path / "ds"), f"{tmp_path}/mine.py:first"],
                       cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True, text=True,
                       timeout=600, check=False)
    assert r.returncode == 0 and r.stdout.strip().endswith("complete"), r.stderr[-3000:]
    local = tmp_path / "local"
    run(local, games=300, players=2, strategies=[f"{tmp_path}/mine.py:first", "greedy"], seed=6, chunk_size=100)
    for name in ("games", "players"):
        pd.testing.assert_frame_equal(rows(tmp_path / "ds", name), rows(local, name))


@pytest.mark.parametrize("scheduler, message", [
    ("local:x", "local:N"),
    ("tcp://127.0.0.1:1", "cannot reach the scheduler"),
    ("tcp://127.0.0.1", "expected local, local:N or an address"),
])
def test_scheduler_errors_create_nothing(tmp_path, scheduler, message):
    r = invoke("run", "-n", "10", "--scheduler", scheduler, "--out", str(tmp_path / "a"))
    assert r.exit_code == 2 and message in r.output
    assert not (tmp_path / "a").exists()


def test_summary_in_small_batches_matches_pandas(tmp_path, monkeypatch):
    """Many chunks, batches of 16 player rows (not a multiple of the 3 seats): no more is ever held."""
    out = tmp_path / "many"
    run(out, games=1200, players=3, strategies=["greedy", "random", "random"], rotate=True, seed=2, chunk_size=40,
        max_rolls=60)
    assert len(done_chunks(out)) == 30
    full = pd.read_parquet(out / "players").merge(pd.read_parquet(out / "games")[["game", "rolls", "capped"]],
                                                  on="game")
    full_bytes = pa.Table.from_pandas(full).nbytes
    seen, peak, base = [], [0], pa.total_allocated_bytes()
    real = summary_mod.accumulate

    def spy(accs, batch, rolls, capped, by_seat):
        seen.append(batch.num_rows)
        peak[0] = max(peak[0], pa.total_allocated_bytes() - base)
        return real(accs, batch, rolls, capped, by_seat)

    monkeypatch.setattr(summary_mod, "accumulate", spy)
    got = summary_mod.summarise(out.as_uri(), by_seat=True, batch_size=16).stats
    assert max(seen) <= 16 and sum(seen) == 3600 and len(seen) >= 3600 // 16
    assert peak[0] < full_bytes / 10, (peak[0], full_bytes)
    g = full.groupby(["strategy", "seat"])
    want = pd.DataFrame({
        "games": g.size(), "mean": g["score"].mean(), "sd": g["score"].std(),
        "q05": g["score"].quantile(0.05, interpolation="lower"),
        "q50": g["score"].quantile(0.5, interpolation="lower"),
        "q95": g["score"].quantile(0.95, interpolation="lower"),
        "min": g["score"].min(), "max": g["score"].max(),
        "win_rate": g["winner"].mean(), "rolls": g["rolls"].mean(), "jokers_used": g["jokers_used"].mean(),
        "passes": g["passes"].mean(), "capped": g["capped"].mean(),
    }).reset_index()
    assert want["capped"].sum() > 0  # max_rolls=60 caps some games, so capped is checked too
    got = got.sort_values(["strategy", "seat"]).reset_index(drop=True)
    for col in want.columns[2:]:
        np.testing.assert_allclose(got[col].astype(float), want[col].astype(float), rtol=1e-12, err_msg=col)
    # the default batch size gives the same numbers
    monkeypatch.setattr(summary_mod, "accumulate", real)
    pd.testing.assert_frame_equal(summary_mod.summarise(out, by_seat=True).stats.sort_values(["strategy", "seat"])
                                  .reset_index(drop=True), got, rtol=1e-12)


# --- failure paths ---------------------------------------------------------------------------

def failing_task(c, job, folder, bad):
    """sim.runs.distributed.chunk_task, except that chunk `bad` raises on every attempt (each one
    leaves a file in `folder`)."""
    from sim.runs.distributed import chunk_task
    if c == bad:
        import uuid
        Path(folder, f"attempt-{uuid.uuid4().hex}").write_text("")
        raise RuntimeError("disk on fire")
    return chunk_task(c, job)


def test_a_chunk_whose_retries_are_used_up(cluster, reference, tmp_path, monkeypatch):
    """The run stops with one line naming the chunk and the task's error (exit 1); the manifest
    says "failed", the chunks finished are kept, and --resume finishes the dataset."""
    import functools

    import cloudpickle

    from sim.runs import distributed as dist
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    attempts = tmp_path / "attempts"
    attempts.mkdir()
    task = functools.partial(failing_task, folder=str(attempts), bad=2)
    monkeypatch.setattr(dist, "run_chunks", functools.partial(dist.run_chunks, task=task))
    out = tmp_path / "ds"
    r = invoke("run", "-n", TABLE["games"], "-p", 3, "-s", "greedy", "-s", "random", "-s", "greedy", "--seed",
               TABLE["seed"], "--log-turns", "--chunk-size", CHUNK, "--out", out, "--scheduler",
               cluster.scheduler_address, "--retries", 1, "-q")
    assert r.exit_code == 1, r.output
    assert r.stderr == (f"Error: the run stopped: chunk 2 failed 2 times on the cluster: RuntimeError: disk on fire; "
                        f"its finished chunks are kept in {out}: finish it with --out {out} and --resume\n"), r.stderr
    assert len(list(attempts.iterdir())) == 2
    m = read_manifest(out)
    assert m["status"] == "failed" and m["error"] == "chunk 2 failed 2 times on the cluster: RuntimeError: disk on fire"
    kept = done_chunks(out)   # what workers wrote: maybe more than the client heard of before it stopped
    assert 2 not in kept and m["games_done"] <= CHUNK * len(kept)
    monkeypatch.undo()
    r = invoke("run", "--out", out, "--resume", "--scheduler", cluster.scheduler_address, "-q")
    assert r.exit_code == 0 and read_manifest(out)["status"] == "complete"
    assert_same_rows(reference, out)


CHEAT = """
from sim.state import PS_JOKERS, ST_SEAT


def refill(st, ps, bb, cands, n, tab, params, rng):
    ps[st[ST_SEAT], PS_JOKERS] += 1
    return n - 1
"""


def test_an_illegal_strategy_on_a_cluster(cluster, tmp_path):
    """A strategy that writes to the game, played by the workers: exit 2, one line naming it."""
    f = tmp_path / "cheat.py"
    f.write_text(CHEAT)
    out = tmp_path / "ds"
    r = invoke("run", "-n", 300, "-p", 2, "-s", f"{f}:refill", "-s", "greedy", "--seed", 5, "--chunk-size", CHUNK,
               "--out", out, "--scheduler", cluster.scheduler_address)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
    assert r.stderr.startswith(f"Error: strategy '{f}:refill' (seat ") and " wrote to ps (the seats' counters) in " \
        "seed 5, game " in r.stderr and ", roll 1: " in r.stderr, r.stderr
    assert not out.exists() or read_manifest(out)["status"] == "failed"


def test_the_scheduler_lost_mid_run(reference, tmp_path):
    """A scheduler killed after the first chunk: RunFailed naming it, the manifest "failed", the
    chunks finished kept; the run is then finished locally with --resume."""
    import json
    import signal
    import subprocess

    from sim.runs.runner import RunFailed
    info = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                  "--port", "0", "--no-dashboard", "--scheduler-file", str(info)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not info.exists() or not info.read_text().strip():
            assert scheduler.poll() is None and time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.05)
        address = json.loads(info.read_text())["address"]
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                   "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def kill(chunk, done):
            if scheduler.poll() is None:
                scheduler.send_signal(signal.SIGKILL)
                scheduler.wait()

        out = tmp_path / "ds"
        with pytest.raises(RunFailed, match=f"the run stopped: lost the connection to the Dask scheduler at "
                                            f"{address}; its finished chunks are kept in {out}"):
            run(out, chunk_size=CHUNK, scheduler=address, on_chunk=kill, **TABLE)
    finally:
        for p in (scheduler, worker):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    m = read_manifest(out)
    kept = done_chunks(out)
    assert m["status"] == "failed" and m["error"] == f"lost the connection to the Dask scheduler at {address}"
    # The worker may have written more chunks than the client heard of before it lost the scheduler.
    assert kept and 0 < m["games_done"] <= CHUNK * len(kept)
    run(out, resume=True, threads=1, chunk_size=CHUNK, **TABLE)
    assert read_manifest(out)["status"] == "complete"
    assert_same_rows(reference, out)
