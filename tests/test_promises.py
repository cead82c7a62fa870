"""What the README and --help promise and no other test held the program to: a user's sheet
file through every command that takes one, replay --every-roll, --unchecked for compare and
replay, compare --opponents, the progress line and -q on a terminal, run with no options, and
what bound and improvement print. Each with the fewest games that can show it wrong."""
import json
import re
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.runs.api import play_chunk
from sim.runs.dataset import read_manifest
from sim.sheets import load_sheet, parse_sheet
from sim.state import PS_SCORE
from strategies.learned import read_weights

from sheetgen import random_sheet
from invoking import invoke
from terminal import Terminal

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def mine(tmp_path):
    """A user's sheet file, mine.txt, of a layout no built-in sheet has; and the Sheet it holds."""
    text = random_sheet(5).text
    path = tmp_path / "mine.txt"
    path.write_text(f"# my own sheet\n{text}\n")
    sheet = parse_sheet(text, "mine")
    assert sheet.text != load_sheet("standard").text
    return path, sheet


def scores(sheet, games, strategies, seed, players=1):
    return play_chunk(seed, 0, games, strategies, players=players, sheet=sheet).seats[:, 0, PS_SCORE]


# --- a user's sheet file --------------------------------------------------------------------

def test_a_users_sheet_through_run_resume_and_replay(mine, tmp_path, monkeypatch):
    """run --sheet FILE plays on the file's layout and keeps its text in the manifest: --resume
    and replay need the file no more (it is gone by then)."""
    path, sheet = mine
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "ds"
    r = invoke("run", "-n", 60, "-s", "greedy", "--sheet", "mine.txt", "--seed", 4, "--chunk-size", 20, "-q",
               "-o", out)
    assert r.exit_code == 0, r.output
    m = read_manifest(out)
    assert m["sheet"] == {"name": "mine", "text": sheet.text}
    got = pd.read_parquet(out / "players").sort_values("game")["score"].to_numpy()
    want = scores(sheet, 60, ["greedy"], 4)
    assert np.array_equal(got, want) and not np.array_equal(want, scores("standard", 60, ["greedy"], 4))

    # Interrupted after its first chunk; then the sheet file goes away.
    (out / "games" / "part-000002.parquet").unlink()
    (out / "players" / "part-000002.parquet").unlink()
    m["status"], m["games_done"] = "interrupted", 40
    (out / "manifest.json").write_text(json.dumps(m))
    path.unlink()
    r = invoke("run", "-o", out, "--resume", "-q")
    assert r.exit_code == 0, r.output
    assert read_manifest(out)["status"] == "complete"
    assert np.array_equal(pd.read_parquet(out / "players").sort_values("game")["score"].to_numpy(), want)
    r = invoke("replay", out, "--game", 45)
    assert r.exit_code == 0, r.output
    assert "sheet mine" in r.stdout and "Scores equal the ones stored in the dataset." in r.stdout


def test_a_users_sheet_through_compare_and_train(mine, tmp_path):
    path, sheet = mine
    r = invoke("compare", "greedy", "random", "-n", 100, "--seed", 2, "--sheet", path, "-f", "json", "-q")
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    assert res["settings"]["sheet"] == "mine"
    assert [row["mean"] for row in res["rows"]] == pytest.approx(
        [scores(sheet, 100, [s], 2).mean() for s in ("greedy", "random")])

    w = tmp_path / "w.npz"
    r = invoke("train", "--sheet", path, "--games", 2, "--threads", 1, "-q", "--out", w)
    assert r.exit_code == 0, r.output
    assert read_weights(w, sheet=sheet).size
    with pytest.raises(ValueError, match="was trained for sheet 'mine'"):
        read_weights(w, sheet=load_sheet("standard"))


# --- replay ------------------------------------------------------------------------------

def crossed_in_drawing(header, rows):
    """The boxes a drawn sheet shows crossed ("[y]", "[y*]"), from its column header and 7 rows."""
    column_at = {i: c for i, c in enumerate(header) if c.isalpha()}
    return {f"{column_at[m.start() + 1]}{row.split()[0]}" for row in rows for m in re.finditer(r"\[", row)}


def test_replay_every_roll_draws_the_sheet_after_each_roll():
    """--every-roll: after each roll, a drawing that shows exactly the boxes crossed so far."""
    log = json.loads(invoke("replay", "--seed", 9, "--game", 2, "-s", "greedy", "--json").stdout)
    r = invoke("replay", "--seed", 9, "--game", 2, "-s", "greedy", "--every-roll")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    crossed = set()
    for roll in log["rolls"]:
        for move in roll["moves"]:
            crossed |= set(move["cells"])
        at = next(i for i, line in enumerate(lines) if line.startswith(f"  after roll {roll['roll']}:"))
        assert crossed_in_drawing(lines[at + 1], lines[at + 2:at + 9]) == crossed, roll["roll"]
    assert len(crossed) > 20
    assert "after roll" not in invoke("replay", "--seed", 9, "--game", 2, "-s", "greedy").stdout


# --- compare --opponents ---------------------------------------------------------------------

def test_compare_opponents_from_the_command_line():
    """--opponents fills the other seats: the candidates' means are those of games against it."""
    from sim.experiments.compare import compare
    args = ["compare", "heuristic", "greedy", "-p", 3, "-n", 100, "--seed", 5, "-f", "json", "-q"]
    res = json.loads(invoke(*args, "--opponents", "random").stdout)
    assert res["settings"]["opponents"] == "random"
    api = compare(["heuristic", "greedy"], players=3, opponents="random", games=100, seed=5)
    assert [row["mean"] for row in res["rows"]] == pytest.approx(list(api.table["mean"]))
    other = json.loads(invoke(*args, "--opponents", "heuristic").stdout)
    assert [row["mean"] for row in other["rows"]] != [row["mean"] for row in res["rows"]]


# --- the terminal ----------------------------------------------------------------------------

def on_a_terminal(args, cwd, timeout=240):
    """Run `encore-sim ARGS` with stderr on a terminal to its end: (what the terminal showed,
    stdout, exit code)."""
    deadline = time.monotonic() + timeout
    with Terminal(args, cwd) as t:
        t.read_until(timeout=timeout)
        out = t.proc.communicate(timeout=max(1, deadline - time.monotonic()))[0]
    return t.text, out.decode(), t.proc.returncode


def test_progress_on_a_terminal_and_quiet(tmp_path):
    """A run shows its progress line on a terminal (games done, games per second) and prints its
    summary; -q shows neither."""
    args = ["run", "-n", 4000, "-s", "greedy", "--chunk-size", 1000, "--threads", 1]
    shown, out, code = on_a_terminal([*args, "-o", tmp_path / "a"], ROOT)
    assert code == 0, shown
    assert re.search(r"4,000/4,000 games .*/s", shown), shown
    assert out.startswith("4,000 games of seed")
    shown, out, code = on_a_terminal([*args, "-o", tmp_path / "b", "-q"], ROOT)
    assert code == 0 and shown == "" and out == "", (shown, out)
    assert read_manifest(tmp_path / "b")["status"] == "complete"


# --- run with no options ---------------------------------------------------------------------

def test_run_with_no_options(tmp_path, monkeypatch):
    """`encore-sim run`: 100,000 solo games of greedy, seed 0, the standard sheet, into
    results/run-<time> of the current folder (about 5 s and 0.5 MB)."""
    monkeypatch.chdir(tmp_path)
    r = invoke("run")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("100,000 games of seed 0, solo, sheet standard")
    out, = (tmp_path / "results").iterdir()
    assert re.fullmatch(r"run-\d{8}-\d{6}", out.name)
    m = read_manifest(out)
    assert m["status"] == "complete" and m["games_done"] == 100_000 and m["sheet"]["name"] == "standard"
    assert [s["spec"] for s in m["strategies"]] == ["greedy"] and m["settings"]["seed"] == 0
    first = pd.read_parquet(out / "players").sort_values("game")["score"].to_numpy()[:200]
    assert np.array_equal(first, scores("standard", 200, ["greedy"], 0))


# --- bound and improvement -------------------------------------------------------------------

def without_timing(text):
    """A report without its last line, the time it took ("0 s on 2 thread(s), 77.9 games/s")."""
    lines = text.rstrip("\n").splitlines()
    assert re.fullmatch(r"  \d+ s on \d+ thread\(s\).*", lines[-1]), lines[-1]
    return lines[:-1]


def test_bound_prints_the_measured_bound():
    from sim.research.headroom import measure
    r = invoke("bound", "-n", 2, "--beam", 4, "--seed", 3, "-q")
    assert r.exit_code == 0, r.output
    assert without_timing(r.stdout) == without_timing(measure(2, 3, "standard", 4).report())
    assert without_timing(r.stdout) != without_timing(invoke("bound", "-n", 2, "--beam", 4, "--seed", 4, "-q").stdout)
