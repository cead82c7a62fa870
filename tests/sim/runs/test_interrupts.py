"""Ctrl-C at any moment is an interruption (sim.runs.interrupts): exit 130, no traceback, a manifest (if
one exists yet) that says "interrupted", nothing half-written.

Each real process is sent SIGINT when something observable happens (a library mapped, a file of
the compiled-code cache or of the dataset appearing, a line printed), never after a fixed sleep.
"""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from sim.runs import interrupts
from sim.runs.dataset import done_chunks, read_manifest
from sim.runs.runner import run
from terminal import Terminal

ROOT = Path(__file__).resolve().parents[3]
LINEUP = ["heuristic", "random"]


def _run(games):
    return ["run", "-n", str(games), "-p", "2", "-s", "heuristic", "-s", "random", "--seed", "3", "--chunk-size",
            "500", "--threads", "1", "-q"]


RUN = _run(6000)    # for the tests that stop it before it plays


@pytest.fixture
def games(games_lasting):
    """Games enough that a run of RUN's line-up plays at least 1 s here (~100 times the 10 ms the
    tests take to react to what they wait for): still playing when signalled."""
    return games_lasting(1, LINEUP, 2)


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler for a test that interrupts this process: a run in a background
    job (nohup, `cmd &`) starts with SIGINT ignored, and Python then installs no handler."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def _start(args, env=None, **kw):
    return subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=ROOT, env={**os.environ, **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def _when(proc, event, what, timeout=240):
    """Wait until event() is true (polled every 10 ms) while proc runs."""
    deadline = time.monotonic() + timeout
    while not event():
        assert proc.poll() is None, f"the process ended before {what}: {proc.communicate()[1].decode()[-2000:]}"
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.01)


def _interrupt(proc) -> str:
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    err = err.decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Error" not in err, err
    return err


def _mapped(proc, library):
    def event():
        try:
            return library in Path(f"/proc/{proc.pid}/maps").read_text()
        except OSError:
            return False
    return event


def _n_cache_files(cache):
    return sum(1 for _ in Path(cache).rglob("*.nbi"))


def _cache_files(cache, more):
    """`more` compiled functions cached beyond those cached now."""
    at_least = _n_cache_files(cache) + more
    return lambda: _n_cache_files(cache) >= at_least


def test_ctrl_c_during_a_cold_start(tmp_path):
    """Empty compiled-code cache: SIGINT while Numba is imported, as the first function is
    compiled, and with the engine half compiled. Each time: "Aborted.", exit 130, nothing made.
    (By hand, 0.5 to 90 s into a cold start: docs/performance.md.) One cache for the three: each
    start compiles only what the previous one had not cached. The run caches the tables' two
    functions in seconds, then compiles the engine for most of a minute: the third SIGINT lands
    in that compile (waiting for a fourth file, as this test once did, waited for the whole
    compile, the batch kernel's too)."""
    cache = tmp_path / "cache"
    moments = [("Numba's import", lambda p: _mapped(p, "llvmlite")),
               ("the first compiled function", lambda p: _cache_files(cache, 1)),
               ("the engine half compiled", lambda p: _cache_files(cache, 1))]
    for i, (what, event) in enumerate(moments):
        out = tmp_path / f"out{i}"
        proc = _start([*RUN, "--out", str(out)], env={"NUMBA_CACHE_DIR": str(cache)})
        _when(proc, event(proc), what)
        assert _interrupt(proc) == "Aborted.\n", what
        assert not out.exists(), what


def test_ctrl_c_while_playing_and_writing(tmp_path, games):
    """Warm cache: SIGINT once the dataset exists, and once chunks are being written. The manifest
    says "interrupted", the finished chunks are whole, no temporary is left, and --resume
    finishes the run."""
    for what, event in (("the manifest", lambda out: (out / "manifest.json").exists()),
                        ("a written chunk", lambda out: (out / "games" / "part-000001.parquet").exists())):
        out = tmp_path / what.replace(" ", "-")
        proc = _start([*_run(games), "--out", str(out)])
        _when(proc, lambda: event(out), what)
        err = _interrupt(proc)
        assert err.startswith(f"Interrupted: finished chunks are kept in {out}"), err
        m = read_manifest(out)
        assert m["status"] == "interrupted" and m["games_done"] == 500 * len(done_chunks(out)) < games, what
        assert not [p for p in out.rglob("*") if p.name.startswith(".")], what
        for part in out.rglob("part-*.parquet"):
            pq.read_metadata(part)
    r = subprocess.run([sys.executable, "-m", "cli", "run", "--out", str(out), "--resume"], cwd=ROOT,
                       capture_output=True, text=True, timeout=600, check=False)
    assert r.returncode == 0, r.stderr
    assert read_manifest(out)["status"] == "complete"


def _rows(out, table):
    df = pq.read_table(out / table).to_pandas()
    return df.sort_values([c for c in ("game", "seat") if c in df]).reset_index(drop=True)


def test_sigterm_mid_run_then_resume_gives_the_uninterrupted_data(tmp_path, games):
    """SIGTERM (kill, a batch scheduler) once the manifest counts finished chunks: exit 143, the
    manifest says "interrupted" and keeps them, and --resume gives the rows of a run never stopped."""
    out = tmp_path / "stopped"
    proc = _start([*_run(games), "--out", str(out)])

    def chunks_finished():
        try:
            return read_manifest(out)["games_done"] >= 500
        except Exception:   # not written yet
            return False
    _when(proc, chunks_finished, "a finished chunk in the manifest")
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    err = err.decode()
    assert proc.returncode == 143, err
    assert err.startswith(f"Interrupted: finished chunks are kept in {out}") and "Traceback" not in err, err
    m = read_manifest(out)
    assert m["status"] == "interrupted" and 500 <= m["games_done"] == 500 * len(done_chunks(out)) < games

    r = subprocess.run([sys.executable, "-m", "cli", "run", "--out", str(out), "--resume", "-q"], cwd=ROOT,
                       capture_output=True, text=True, timeout=600, check=False)
    assert r.returncode == 0, r.stderr
    assert read_manifest(out)["status"] == "complete"
    ref = tmp_path / "ref"
    run(ref, games=games, players=2, strategies=LINEUP, seed=3, chunk_size=500, rotate=True)
    for table in ("games", "players"):
        assert _rows(out, table).equals(_rows(ref, table)), table


def test_sigterm_while_starting_is_an_abort(tmp_path):
    """SIGTERM before the run has created anything: "Aborted.", exit 143, nothing made."""
    out = tmp_path / "ds"
    proc = _start([*RUN, "--out", str(out)])
    _when(proc, _mapped(proc, "llvmlite"), "Numba's import")
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143 and err.decode() == "Aborted.\n", err
    assert not out.exists()


def test_ctrl_c_in_a_search_prints_the_best_so_far():
    """tune: once its header is printed, Ctrl-C stops the search and prints the best so far."""
    proc = _start(["tune", "heuristic", "--param", "solo_joker=0..3", "--budget", "100000000", "--threads", "1"])
    header = proc.stdout.readline().decode()   # printed once the search is set up
    assert header.strip(), proc.communicate()[1]
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and not err.strip(), err
    assert "Interrupted. Best so far" in out.decode() and "heuristic:solo_joker=" in out.decode(), out


def _interrupt_on_a_terminal(args, cwd=ROOT) -> str:
    """Run the command with stderr on a terminal, so that it shows progress; once it does, Ctrl-C.
    Returns what the terminal showed; the command must have ended with 130 and no traceback."""
    with Terminal(args, cwd) as t:
        t.read_until(lambda seen: b"/s" in seen or t.proc.poll() is not None, 240)
        assert b"/s" in t.seen, t.seen
        t.proc.send_signal(signal.SIGINT)
        t.proc.wait(timeout=120)
        t.read_until(timeout=5)   # the rest, until the terminal closes
    assert t.proc.returncode == 130 and b"Traceback" not in t.seen, t.seen[-2000:]
    return t.text


def test_ctrl_c_in_compare_while_it_plays():
    """compare on a terminal shows progress: once it does, Ctrl-C ends it with 130."""
    _interrupt_on_a_terminal(["compare", "greedy", "random", "--games", "50000000", "--threads", "1"])


def test_ctrl_c_in_the_clairvoyant_bound():
    _interrupt_on_a_terminal(["bound", "--games", "100000", "--threads", "1"])


def test_ctrl_c_while_training_writes_no_weights(tmp_path):
    """train: Ctrl-C during training ends it with 130 and no weights file (nor a temporary)."""
    seen = _interrupt_on_a_terminal(["train", "--games", "100000000", "--threads", "1", "--out",
                                     str(tmp_path / "w.npz")])
    assert "Interrupted: no weights were written." in seen, seen[-2000:]
    assert not list(tmp_path.iterdir())


SAVE_INTERRUPTED = """
import os, signal, sys
import numpy as np
import cli
from strategies import learned
from sim.training import run

# Trained at once; then Ctrl-C arrives while the weights file is being written.
run.train = lambda sheet, games, seed, **options: np.zeros(learned.weights_shape(1), np.float32)
real = np.savez_compressed

def savez(f, **arrays):
    f.write(b"PK half a file")
    os.kill(os.getpid(), signal.SIGINT)
    real(f, **arrays)

learned.np.savez_compressed = savez
sys.argv = ["encore-sim", "train", "--games", "1", "--out", sys.argv[1]]
cli.entry()
"""


def test_ctrl_c_while_the_weights_are_saved_leaves_no_file(tmp_path):
    """While train saves, Ctrl-C removes the half-written temporary: no weights file, exit 130."""
    r = subprocess.run([sys.executable, "-c", SAVE_INTERRUPTED, str(tmp_path / "w.npz")], cwd=ROOT,
                       capture_output=True, text=True, timeout=600, check=False)
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert r.returncode == 130 and len(lines) == 2, r.stderr      # the announcement and the interruption alone
    assert lines[0].startswith("Training `learned`: 1 games, about") and lines[1] == "Interrupted: no weights were written."
    assert not list(tmp_path.iterdir())


def test_the_dataset_and_its_manifest_appear_together(tmp_path, monkeypatch, python_sigint):
    """Ctrl-C between creating the folders and writing the manifest waits for the manifest, then
    interrupts the run: a folder is never left without a manifest that says how the run ended."""
    from sim.runs import runner
    real = runner.write_json
    calls = []

    def write_json(store, manifest):
        if not calls:   # the first manifest, folders made: Ctrl-C now
            os.kill(os.getpid(), signal.SIGINT)
        calls.append(manifest["status"])
        real(store, manifest)

    monkeypatch.setattr(runner, "write_json", write_json)
    out = tmp_path / "ds"
    with pytest.raises(KeyboardInterrupt):
        run(out, games=1000, players=1, strategies=["greedy"], seed=1, chunk_size=100)
    assert calls == ["running", "interrupted"]
    assert read_manifest(out)["status"] == "interrupted" and done_chunks(out) == set()


def test_an_interrupt_that_a_finaliser_swallowed_is_raised_at_the_next_check():
    interrupts.clear()
    with interrupts.raising():
        with pytest.raises(KeyboardInterrupt):
            interrupts._handler(signal.SIGINT, None)   # as SIGINT does inside the block
        # ... raised in a __del__ or a ctypes callback, Python would print it and go on:
        with pytest.raises(KeyboardInterrupt):
            interrupts.check()
        interrupts.check()   # acted on once


def test_a_shield_holds_ctrl_c_until_its_end(python_sigint):
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    interrupts.clear()
    finished = False
    with pytest.raises(KeyboardInterrupt):
        with interrupts.shielded():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)   # the handler has run by now, and held it back
            finished = True
    assert finished
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_on_a_terminal_running_a_local_cluster(tmp_path, games):
    """A terminal's Ctrl-C reaches the whole process group, the workers of `--scheduler local:2`
    too: one message, exit 130, a manifest that says "interrupted", no worker left behind."""
    psutil = pytest.importorskip("psutil")
    pytest.importorskip("distributed")
    out = tmp_path / "ds"
    proc = _start([*_run(games), "--out", str(out), "--scheduler", "local:2"], start_new_session=True)
    _when(proc, lambda: (out / "games" / "part-000001.parquet").exists(), "a chunk written by a worker")
    workers = psutil.Process(proc.pid).children(recursive=True)
    assert workers
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    err = err.decode()
    assert proc.returncode == 130 and err.startswith(f"Interrupted: finished chunks are kept in {out}"), err
    assert err.count("\n") == 1, err
    assert read_manifest(out)["status"] == "interrupted"
    gone, alive = psutil.wait_procs(workers, timeout=30)
    assert not alive


UNBOX_INTERRUPTED = """
import os, signal, sys
import numba.core.serialize as serialize
import cli
from sim.runs import interrupts

# Once Ctrl-C raises (the work is under way), it arrives while Numba's compiled code unpickles the
# signature it unboxes a strategy with (a first-class function value): the KeyboardInterrupt comes
# out of it as another error (here a SystemError; a TypeError about a missing `sig` when it lands a
# step later).
real = serialize._numba_unpickle
sent = []

def unpickle(*args):
    if interrupts._mode == interrupts.RAISE and not sent:
        sent.append(True)
        os.kill(os.getpid(), signal.SIGINT)
    return real(*args)

serialize._numba_unpickle = unpickle
sys.argv = ["encore-sim", *sys.argv[1:]]
cli.entry()
"""


def _unbox_interrupted(args):
    return subprocess.run([sys.executable, "-c", UNBOX_INTERRUPTED, *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, check=False)


def test_ctrl_c_while_numba_unboxes_a_strategy_is_an_interruption(tmp_path):
    """Numba lets a KeyboardInterrupt out of its unboxing of a first-class function as another error:
    the run still ends as interrupted (130, its manifest says so), not as a failed run."""
    out = tmp_path / "ds"
    r = _unbox_interrupted([*RUN, "--out", str(out)])
    assert r.returncode == 130 and r.stderr.startswith(f"Interrupted: finished chunks are kept in {out}"), r.stderr
    assert "Error" not in r.stderr, r.stderr
    assert read_manifest(out)["status"] == "interrupted"


def test_ctrl_c_while_numba_unboxes_a_candidate_stops_the_search():
    """The same in tune: the search stops with its best so far, not as a failed command."""
    r = _unbox_interrupted(["tune", "heuristic", "--param", "solo_joker=0..3", "--budget", "100000000",
                            "--threads", "1"])
    assert r.returncode == 130 and not r.stderr.strip(), r.stderr
    assert "Interrupted. Best so far" in r.stdout and "heuristic:solo_joker=" in r.stdout, r.stdout
