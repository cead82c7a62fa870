"""The encore-sim command line: Click's runner, and real subprocesses for kill + resume."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from sim.runs.dataset import read_manifest
from sim.runs.runner import run as api_run
from invoking import invoke

ROOT = Path(__file__).resolve().parents[1]


def rows(out, name):
    """A dataset's table in the order of its keys (turns: the active seat first in its roll), as
    Arrow: comparing two of a few million rows with Table.equals takes a second, pandas ten."""
    keys = {"games": ["game"], "players": ["game", "seat"],
            "turns": ["game", "roll", "order", "seat"]}[name]
    t = pq.read_table(out / name)
    if name == "turns":  # the active seat decides first in its roll
        t = t.append_column("order", pc.invert(t["active"]))
    t = t.sort_by([(k, "ascending") for k in keys])
    return t.drop_columns(["order"]) if name == "turns" else t


def assert_same_rows(a, b, name):
    ta, tb = rows(a, name), rows(b, name)
    assert ta.schema == tb.schema, (ta.schema, tb.schema)
    assert ta.equals(tb), f"{name}: {ta.num_rows} and {tb.num_rows} rows, not equal"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "ds"
    r = invoke("run", "-n", 300, "-p", 2, "-s", "greedy", "-s", "random", "--seed", 4, "--chunk-size", 120,
               "--log-turns", "--out", out)
    assert r.exit_code == 0, r.output
    return out, r


def test_run_prints_summary(dataset):
    out, r = dataset
    assert "300 games of seed 4, 2 players, sheet standard, seats rotated" in r.stdout
    assert "greedy" in r.stdout and "random" in r.stdout and "win rate" in r.stdout
    assert r.stderr == ""  # no progress line when stderr is not a terminal
    m = read_manifest(out)
    assert m["status"] == "complete" and m["settings"]["log_turns"] and m["chunks"] == 3


def test_summary_formats(dataset, tmp_path):
    out, _ = dataset
    csv = invoke("summary", out, "--format", "csv", "--by", "seat")
    assert csv.exit_code == 0
    df = pd.read_csv(pd.io.common.StringIO(csv.stdout))
    players = pd.read_parquet(out / "players")
    want = players.groupby(["strategy", "seat"])["score"].mean().reset_index()
    pd.testing.assert_series_equal(df["mean"], want["score"].astype(float), check_names=False)
    js = json.loads(invoke("summary", out, "-f", "json").stdout)
    assert js["settings"]["players"] == 2 and len(js["rows"]) == 2
    pq_file = tmp_path / "s.parquet"
    assert invoke("summary", out, "-f", "parquet", "-o", pq_file).exit_code == 0
    assert list(pd.read_parquet(pq_file)["strategy"]) == ["greedy", "random"]
    table = invoke("summary", out)
    assert "mean score (95% CI)" in table.stdout


def test_replay_reproduces_stored_scores(dataset):
    out, _ = dataset
    players = pd.read_parquet(out / "players")
    for game in (0, 131, 299):
        r = invoke("replay", out, "--game", game, "--json")
        assert r.exit_code == 0, r.output
        log = json.loads(r.stdout)
        stored = players[players["game"] == game].sort_values("seat")
        assert [x["score"] for x in log["result"]] == stored["score"].tolist()
        assert log["strategies"] == stored["strategy"].tolist()
    text = invoke("replay", out, "--game", 131)
    assert "Scores equal the ones stored in the dataset." in text.stdout
    assert "Roll 1, active seat 0:" in text.stdout and "Final sheet of seat 1" in text.stdout
    # the per-decision table agrees with the log
    turns = pd.read_parquet(out / "turns")
    t = turns[(turns["game"] == 131)]
    log = json.loads(invoke("replay", out, "--game", 131, "--json").stdout)
    cells = [m["cells"] for r in log["rolls"] for m in r["moves"]]
    t = t.assign(order=~t["active"]).sort_values(["roll", "order"])
    assert [list(c) for c in t["cells"]] == cells


def test_replay_from_a_url_and_of_an_unfinished_chunk(dataset, tmp_path):
    out, _ = dataset
    r = invoke("replay", out.as_uri(), "--game", 131)
    assert r.exit_code == 0, r.output
    assert "Scores equal the ones stored in the dataset." in r.stdout
    shutil.copytree(out, tmp_path / "ds")
    (tmp_path / "ds" / "games" / "part-000002.parquet").unlink()   # games 240.. not finished
    r = invoke("replay", tmp_path / "ds", "--game", 250)
    assert r.exit_code == 0, r.output
    assert "no scores for this game yet" in r.stdout and "Scores equal" not in r.stdout


def test_replay_from_seed():
    r = invoke("replay", "--seed", 9, "--game", 2, "-s", "greedy")
    assert r.exit_code == 0 and "Game 2 of seed 9: solo" in r.stdout and "Roll 30" in r.stdout
    log = json.loads(invoke("replay", "--seed", 9, "--game", 2, "-s", "greedy", "--json").stdout)
    from sim.runs import api as sim
    assert log == sim.play_game(9, 2, ["greedy"])


def test_moves_and_strategies():
    r = invoke("moves", "--crossed", "H3,H4", "--colour", "blue", "--number", 2)
    assert r.exit_code == 0, r.output
    from sim.runs import api as sim
    want = sim.legal_placements(["H3", "H4"], "blue", 2)
    head = f"{len(want)} legal placements of blue 2:"
    assert head in r.stdout
    listed = [frozenset(line.split()) for line in r.stdout.split(head + "\n")[1].splitlines()]
    # by hand from the standard sheet: blue G4, G5, H5 touch the crossed H4 or lie in the start column
    assert listed == want == [{"G4", "G5"}, {"G5", "H5"}]
    s = invoke("strategies")
    assert s.exit_code == 0 and s.stdout.startswith("random") and "\ngreedy " in s.stdout


def test_compare_cli_solo():
    r = invoke("compare", "greedy", "random", "--games", 1000, "--seed", 1, "-f", "json")
    assert r.exit_code == 0
    rows_ = json.loads(r.stdout)["rows"]
    assert rows_[1]["significant"] is True and rows_[1]["diff"] < 0
    t = invoke("compare", "greedy", "random", "-n", 200, "-p", 2)
    assert "win-rate difference" in t.stdout


def test_compare_cli_until_ci_says_what_stopped_it():
    """--max-games stopping before --until-ci is said (text and json); a loose target stops
    at the first check (1,000 games), not after a first batch of --max-games."""
    r = invoke("compare", "greedy", "random", "--until-ci", 0.01, "--max-games", 300)
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("300 games")
    last = r.stdout.strip().splitlines()[-1]
    assert last.startswith("Target NOT reached: --max-games 300 stopped the comparison") and "--until-ci 0.01" in last
    j = invoke("compare", "greedy", "random", "--until-ci", 0.01, "--max-games", 300, "-f", "json")
    stop = json.loads(j.stdout)["stop"]
    assert stop["target_reached"] is False and stop["stopped_by"] == "max_games"
    assert stop["widest_half_width"] > 0.01 and stop["games_needed"] > 300
    c = invoke("compare", "greedy", "random", "--until-ci", 0.01, "--max-games", 300, "-f", "csv")
    assert c.stderr.startswith("Warning: Target NOT reached") and c.stderr.count("\n") == 1

    loose = invoke("compare", "greedy", "random", "--until-ci", 5, "--max-games", 5000, "-f", "json")
    out = json.loads(loose.stdout)
    assert out["games"] == 1000 and out["stop"]["target_reached"] is True
    assert out["stop"]["stopped_by"] == "until_ci" and out["stop"]["widest_half_width"] < 5
    t = invoke("compare", "greedy", "random", "--until-ci", 5, "--max-games", 5000)
    assert "Target reached after 1,000 games" in t.stdout


USER_OK = '''
from strategies import strategy

@strategy
def first(st, ps, bb, cands, n, tab, params, rng):
    """Always the first legal choice."""
    return 0 if n > 0 else -1


def never(st, ps, bb, cands, n, tab, params, rng):
    return -1
'''
USER_ILLEGAL = '''
def bad(st, ps, bb, cands, n, tab, params, rng):
    return n
'''
USER_BROKEN = '''
def broken(st, ps, bb, cands, n, tab, params, rng):
    return "a string" if n > 1 else n
'''


def test_user_strategy_file_end_to_end(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text(USER_OK)
    out = tmp_path / "ds"
    r = invoke("run", "-n", 200, "-p", 3, "-s", f"{f}:first", "-s", f"{f}:never", "-s", "greedy",
               "--seed", 2, "-o", out)
    assert r.exit_code == 0, r.output
    p = pd.read_parquet(out / "players")
    never = p[p["strategy"] == "mine.py:never"]   # labelled without its folders
    assert len(never) == 200 and (never["boxes"] == 0).all()
    assert read_manifest(out)["strategies"][0]["sha256"]


def test_user_strategy_file_again_in_a_new_process(tmp_path):
    """A user's file runs again in a new process, from Numba's cache. (Its module name once depended
    on the process, which broke the cache; it follows the file's content now.)"""
    f = tmp_path / "my-strategy.py"
    f.write_text(USER_OK)
    for i in range(2):
        out = tmp_path / f"ds{i}"
        r = subprocess.run([sys.executable, "-m", "cli", "run", "-n", "100", "-s", f"{f}:first", "--seed", "3",
                            "--out", str(out), "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=600,
                           check=False)
        assert r.returncode == 0, r.stderr
    assert_same_rows(tmp_path / "ds0", tmp_path / "ds1", "players")


HELPER = """
from numba import njit


@njit(cache=True)
def pick(n):
    return {choice}
"""
USES_HELPER = """
from pick_helper import pick


def choose(st, ps, bb, cands, n, tab, params, rng):
    return pick(n)
"""


def test_user_strategy_sees_its_edited_helper(tmp_path):
    """Numba checks a cached function against its own file only: had the strategy been cached,
    the second run would still play the first version of the helper it imports."""
    (tmp_path / "pick_helper.py").write_text(HELPER.format(choice="0 if n > 0 else -1"))
    (tmp_path / "uses.py").write_text(USES_HELPER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    boxes = []
    for i, choice in enumerate(["0 if n > 0 else -1", "-1"]):
        (tmp_path / "pick_helper.py").write_text(HELPER.format(choice=choice))
        out = tmp_path / f"ds{i}"
        r = subprocess.run([sys.executable, "-m", "cli", "run", "-n", "50", "-p", "1",
                            "-s", f"{tmp_path}/uses.py:choose", "--seed", "3", "--out", str(out), "--quiet"],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
        assert r.returncode == 0, r.stderr
        boxes.append(int(pd.read_parquet(out / "players")["boxes"].sum()))
    assert boxes[0] > 0 and boxes[1] == 0


def test_resume_and_replay_a_user_strategy_run_from_another_folder(tmp_path, monkeypatch):
    """The spec names the file relative to where the run started; the manifest knows where it is."""
    started, elsewhere = tmp_path / "started", tmp_path / "elsewhere"
    started.mkdir()
    elsewhere.mkdir()
    (started / "mine.py").write_text(USER_OK)
    settings = ["-n", "300", "-p", "2", "-s", "mine.py:first", "-s", "greedy", "--seed", "8", "--chunk-size", "100",
                "--rotate", "-q"]
    monkeypatch.chdir(started)
    assert invoke("run", *settings, "-o", tmp_path / "ref").exit_code == 0
    assert invoke("run", *settings, "-o", tmp_path / "ds").exit_code == 0
    (tmp_path / "ds" / "games" / "part-000002.parquet").unlink()   # as if stopped before the last chunk
    monkeypatch.chdir(elsewhere)
    r = invoke("run", "--out", tmp_path / "ds", "--resume", "-q")
    assert r.exit_code == 0, r.output
    for name in ("games", "players"):
        assert_same_rows(tmp_path / "ds", tmp_path / "ref", name)
    r = invoke("replay", tmp_path / "ds", "--game", 7)
    assert r.exit_code == 0, r.output
    assert "mine.py:first" in r.stdout and "Scores equal the ones stored in the dataset." in r.stdout


def _run_user_file(tmp_path, body, func):
    """(result, file, output folder) of a 50-game solo run of `func` in a file holding `body`."""
    f = tmp_path / "s.py"
    f.write_text(body)
    out = tmp_path / "ds"
    return invoke("run", "-n", 50, "-p", 1, "-s", f"{f}:{func}", "-o", out), f, out


def test_illegal_user_strategy(tmp_path):
    r, _, out = _run_user_file(tmp_path, USER_ILLEGAL, "bad")
    assert r.exit_code == 2
    assert r.stderr.startswith("Error: ") and "returned" in r.stderr and r.stderr.count("\n") == 1
    assert not out.exists()


def test_user_strategy_that_does_not_compile(tmp_path):
    """One `Error:` line with Numba's reason and where, then Numba's message; no traceback."""
    r, f, out = _run_user_file(tmp_path, USER_BROKEN, "broken")
    assert r.exit_code == 2
    first, *rest = r.stderr.splitlines()
    assert re.match(r"^Error: (.*/)?s\.py:3: strategy 's\.py:broken' does not compile: Cannot unify", first)
    assert len(first) <= 200
    assert rest and all(line.startswith("  ") or not line for line in rest)
    assert any('return "a string"' in line for line in rest)
    assert "Traceback" not in r.stderr
    assert not out.exists()
    # Numba's "No implementation ... found for signature:" names the signature on the next line
    f.write_text("def broken(st, ps, bb, cands, n, tab, params, rng):\n    return cands[1.5, 0]\n")
    r = invoke("run", "-n", 50, "-p", 1, "-s", f"{f}:broken", "-o", out)
    assert r.exit_code == 2 and "found for signature: getitem(array(int64, 2d" in r.stderr.splitlines()[0]


@pytest.mark.parametrize("args, message", [
    (["run", "-n", "-5"], "games must be"),
    (["run", "-p", "7"], "players must be 1..6"),
    (["run", "-p", "0"], "players must be 1..6"),
    (["run", "-s", "nonsense"], "unknown strategy 'nonsense'"),
    (["run", "-s", "greedy:x=1"], "no parameter x"),
    (["run", "--sheet", "nosuch"], "no sheet 'nosuch'"),
    (["run", "--seed", "-1"], "seed must be"),
    (["run", "-n", "abc"], "'abc' is not a valid integer"),
    (["run", "--threads", "0"], "threads must be"),
    (["run", "--out", "{tmp}/afile/sub"], "is not a folder"),
    (["run", "--out", "{tmp}/full"], "is not empty"),
    (["run", "--resume"], "--resume needs --out"),
    (["run", "--out", "{tmp}/nothing", "--resume"], "there is no run in it"),
    (["run", "-s", "heuristic:solo_joker=nan"], "must be a finite number"),
    (["run", "-s", "heuristic:solo_joker=1,solo_joker=2"], "'solo_joker' given twice"),
    (["summary", "{tmp}/full"], "not an encore-sim dataset"),
    (["summary", "{tmp}/nothing"], "no such dataset folder"),
    (["replay", "--game", "1"], "give a dataset PATH"),
    (["moves", "--colour", "pink", "--number", "2"], "unknown colour 'pink'"),
    (["moves", "--colour", "red", "--number", "2", "--crossed", "Z9"], "malformed cell name"),
    (["compare", "greedy"], "at least two strategies"),
    (["compare", "greedy", "nope"], "unknown strategy"),
    (["compare", "greedy", "random", "--until-ci", "1", "--games", "300"],
     "--games and --until-ci exclude each other"),
    (["compare", "greedy", "random", "--max-games", "300"], "--max-games is the limit of --until-ci"),
    (["nosuchcommand"], "No such command"),
])
def test_bad_input_one_line_exit_2(tmp_path, args, message):
    (tmp_path / "afile").write_text("x")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "data.csv").write_text("x")
    before = sorted(tmp_path.rglob("*"))
    cwd = os.getcwd()
    os.chdir(tmp_path)  # the default --out is results/... under the working directory
    try:
        r = invoke(*[a.format(tmp=tmp_path) for a in args], "-n", "10") if args[0] == "run" and "-n" not in args \
            else invoke(*[a.format(tmp=tmp_path) for a in args])
    finally:
        os.chdir(cwd)
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1, r.stderr
    assert message in r.stderr
    assert sorted(tmp_path.rglob("*")) == before


def test_corrupt_dataset_cli(dataset, tmp_path):
    import shutil
    out, _ = dataset
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    (bad / "games" / "part-000002.parquet").write_bytes(b"PAR1 nonsense")
    r = invoke("summary", bad)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "part-000002.parquet" in r.stderr


def test_dataset_missing_a_column_cli(dataset, tmp_path):
    """A players file rewritten without its score column: one `Error:` line naming file and column
    from summary, replay and run --resume (which refuses before playing), exit 2, no traceback."""
    import shutil

    import pyarrow.parquet as pq
    out, _ = dataset
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    part = bad / "players" / "part-000000.parquet"
    pq.write_table(pq.read_table(part).drop_columns(["score"]), part)
    # interrupted after chunk 1: the last chunk is still to play
    (bad / "games" / "part-000002.parquet").unlink()
    manifest = json.loads((bad / "manifest.json").read_text())
    (bad / "manifest.json").write_text(json.dumps({**manifest, "status": "running"}))
    message = f"{part}: column 'score' is missing"
    for args in (["summary", bad], ["replay", bad, "--game", 1], ["run", "--out", bad, "--resume", "-q"]):
        r = invoke(*args)
        assert r.exit_code == 2, (args, r.output)
        assert r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1, (args, r.stderr)
        assert message in r.stderr, (args, r.stderr)
    assert not (bad / "games" / "part-000002.parquet").exists()
    assert read_manifest(bad)["status"] == "running"


#: How a run ends on each signal: SIGKILL as it is (no handler runs), Ctrl-C and SIGTERM by the
#: interrupt handler (sim.runs.interrupts), which marks the manifest.
ENDINGS = {signal.SIGKILL: (-signal.SIGKILL, "running"), signal.SIGINT: (130, "interrupted"),
           signal.SIGTERM: (143, "interrupted")}


@pytest.mark.parametrize("signum", list(ENDINGS), ids=lambda s: signal.Signals(s).name)
def test_kill_and_resume_subprocess(tmp_path, games_lasting, signum):
    """Signal a real run with a move log after its first chunk (SIGKILL: nothing runs; SIGINT and
    SIGTERM: the interrupt handler), resume it, compare with an uninterrupted run."""
    lineup = ["greedy", "random", "greedy"]
    games = games_lasting(1, lineup, 3, chunk=250, log_turns=True)   # still playing when killed, on any machine
    settings = ["-n", str(games), "-p", "3", "-s", "greedy", "-s", "random", "-s", "greedy", "--seed", "77",
                "--chunk-size", "250", "--log-turns", "--threads", "1"]
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "cli", "run", *settings, "--out", str(out), "--quiet"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    first = out / "games" / "part-000000.parquet"
    while not first.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signum)
    proc.wait()
    code, status = ENDINGS[signum]
    assert proc.returncode == code, ("the run ended before it could be interrupted", proc.returncode)
    finished = len(list((out / "games").glob("part-*.parquet")))
    assert 1 <= finished < games // 250
    assert read_manifest(out)["status"] == status

    r = subprocess.run([sys.executable, "-m", "cli", "run", "--out", str(out), "--resume", "--quiet"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert r.returncode == 0, r.stderr
    assert read_manifest(out)["status"] == "complete"
    assert not list(out.rglob("*.tmp")) and not list(out.rglob(".*"))

    ref = tmp_path / "ref"
    api_run(ref, games=games, players=3, strategies=lineup, seed=77, chunk_size=1000,
            log_turns=True, rotate=True)
    for name in ("games", "players", "turns"):
        assert_same_rows(out, ref, name)


def test_train_refuses_bad_init_and_step_in_one_line(tmp_path):
    """train's own argument errors: a step out of range, or --init weights of another sheet or a
    damaged file, are one line on stderr with exit 2, and no weights file is written."""
    out = tmp_path / "w.npz"
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    blue = tmp_path / "blue.npz"
    assert invoke("train", "--sheet", "blue", "--games", 1, "--threads", 1, "-q", "--out", blue).exit_code == 0
    cases = {("--step", 0, 0.1): "step sizes must be in (0, 1], got 0",
             ("--init", junk): "junk.npz is not a weights file",
             ("--init", blue): "blue.npz was trained for sheet 'blue', not for this sheet ('standard')"}
    for args, message in cases.items():
        r = invoke("train", *args, "--games", 10, "--out", out)
        assert r.exit_code == 2 and r.stderr.count("\n") == 1 and message in r.stderr, (args, r.stderr)
        assert not out.exists()

