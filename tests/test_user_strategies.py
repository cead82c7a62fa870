"""A user's strategy as a built-in is: compiled once (per process, and on disk per version of its
file), tuned without recompiling, refused in one short line when it cannot play, and named in
results by its @strategy name or file.py:function."""
import json
import re
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numba.core import event

from cli import COUNT
from sim.runs import api
from sim.experiments.compare import candidate_results, compare
from sim.runs.dataset import read_manifest
from sim.experiments.tune import tune
from strategies import labels, resolve
from invoking import invoke
from user_strategy import MOST

ROOT = Path(__file__).resolve().parents[1]

NAMED = MOST.replace('@strategy(params=', '@strategy(name="most", params=')


@pytest.fixture(scope="module")
def most(tmp_path_factory):
    """The user's file, in a folder of its own: (its path)."""
    folder = tmp_path_factory.mktemp("mine") / "deep"
    folder.mkdir()
    f = folder / "most.py"
    f.write_text(MOST)
    return f


class Compiles(event.Listener):
    """Every function Numba compiles (not those it loads from its cache) while it listens."""

    def __init__(self):
        self.names = []

    def on_start(self, ev):
        self.names.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev):
        pass


# --- 1. tuning: no candidate compiles anything -----------------------------------------------

def test_tune_compiles_nothing_per_candidate_and_plays_each_candidates_own_parameters(most):
    spec = f"{most}:choose"
    compare([spec, f"{spec}:joker_cost=1"], games=20)   # compiled (or loaded) once, before the search
    listener = Compiles()
    with event.install_listener("numba:compile", listener):
        r = tune(spec, ["joker_cost=0..3"], budget=1_400, trial_games=40, validate_games=40, seed=4)
    assert listener.names == [] and r.status == "complete"
    t = r.trials()
    assert t["spec"].nunique() > 10
    # Each candidate's parameters travelled to the kernel: its row is what its spec plays alone.
    for row in t.iloc[[1, 9, -1]].itertuples():
        scores, _ = candidate_results(api.lineup([row.spec]), row.seed, row.first_game, row.games, 1, "standard")
        assert scores.mean() == pytest.approx(row.mean)


def test_a_spec_played_again_reuses_the_strategy_until_its_file_changes(tmp_path):
    f = tmp_path / "again.py"
    f.write_text(MOST)
    first = resolve(f"{f}:choose")
    assert resolve(f"{f}:choose:joker_cost=2").fn is first.fn     # one compiled function for every spec
    f.write_text(MOST.replace("params[1] - 0.5", "params[1] - 1.5"))
    assert resolve(f"{f}:choose").fn is not first.fn


# --- 2. start-up: the user's function and its watch are cached on disk ----------------------

PLAY = """
import sys
from numba.core import event
sys.path.insert(0, {root!r})
names = []
class L(event.Listener):
    def on_start(self, ev):
        names.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", L())
from sim.runs import api
api.check_chunk(api.play_chunk(0, 0, 20, api.lineup([{spec!r}])))
print(sorted(set(names)))
"""


def test_a_new_process_loads_the_users_strategy_and_its_watch_from_the_cache(tmp_path):
    """The bounds-checked twin and the watched wrapper are compiled in the first process only."""
    f = tmp_path / "cached.py"
    f.write_text(f"# {uuid.uuid4()}: content no earlier process compiled\n{MOST}")
    code = PLAY.format(root=str(ROOT), spec=f"{f}:choose")
    runs = [subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                           timeout=600, check=True).stdout.strip().splitlines()[-1] for _ in range(2)]
    first, second = (eval(r) for r in runs)   # noqa: S307 (our own printed list)
    assert "choose__boundscheck" in first and any(n.startswith("watched_") for n in first)
    assert second == []


# --- 3. errors ---------------------------------------------------------------------------------

def _run(tmp_path, body, *extra):
    f = tmp_path / "s.py"
    f.write_text(body)
    out = tmp_path / "ds"
    return invoke("run", "-n", 30, "-s", f"{f}:choose", "-o", out, *extra), f, out


def test_a_float_return_is_refused_before_any_game(tmp_path):
    r, f, out = _run(tmp_path, "def choose(st, ps, bb, cands, n, tab, params, rng):\n    return n / 2\n")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1
    assert r.stderr == (f"Error: strategy '{f}:choose' returns float64, not an integer: it must return the index "
                        "of its choice (0 <= i < n) or -1 to pass\n")
    assert not out.exists()


TYPO = '''from sim.state import CAND_SUB


def choose(st, ps, bb, cands, n, tab, params, rng):
    best = -1
    for k in range(n):
        if tab.star[cands[k, CAND_SUB]] > 0:
            best = k
    return best
'''


def test_a_compile_error_has_a_short_first_line_with_file_line_and_reason(tmp_path):
    r, f, out = _run(tmp_path, TYPO)
    assert r.exit_code == 2
    first, *rest = r.stderr.splitlines()
    assert len(first) <= 200
    assert first.startswith("Error: s.py:7: strategy 's.py:choose' does not compile: Unknown attribute 'star' "
                            "of type numba.KernelTablesType(...)")
    assert first.endswith("did you mean stars or gstart?")
    assert rest and all(line.startswith("  ") or not line for line in rest)
    assert any("('mask', Array(uint64" in line for line in rest)   # the full message, below
    assert any(str(f) in line for line in rest)
    assert not out.exists()


@pytest.mark.parametrize("args, message", [
    (["run", "-s", "heuristc"], "unknown strategy 'heuristc': did you mean heuristic?"),
    (["run", "-s", "heuristc:solo_joker=1"], "unknown strategy 'heuristc:solo_joker=1': did you mean heuristic?"),
    (["run", "-s", "heuristic:deyn=1"], "strategy 'heuristic' has no parameter deyn: did you mean deny?"),
    (["run", "-s", "greedy:x=1"], "strategy 'greedy' has no parameter x (parameters: none)"),
    (["run", "--sheet", "bleu"], "no sheet 'bleu': did you mean blue?"),
    (["tune", "heuristic", "--param", "solo_jokr=0..1"],
     "strategy 'heuristic' has no parameter solo_jokr: did you mean solo_joker or solo_joker_t?"),
    (["run", "-n", "1.5e3"], "'1.5e3' is not a valid integer"),
    (["compare", "greedy", "random", "--games", "2.5"], "'2.5' is not a valid integer"),
])
def test_unknown_names_get_a_suggestion_in_one_line(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    r = invoke(*args, "-q")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and message in r.stderr, r.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text, value", [("1e6", 1_000_000), ("1_000_000", 1_000_000), ("250", 250),
                                         ("2E3", 2_000), ("1e+2", 100), (7, 7)])
def test_counts_are_written_as_people_write_them(text, value):
    assert COUNT.convert(text, None, None) == value


def test_games_in_powers_of_ten(tmp_path):
    r = invoke("compare", "greedy", "random", "--games", "1e2", "-f", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["games"] == 100


# --- 4. labels -----------------------------------------------------------------------------------

def test_a_users_strategy_is_labelled_by_its_file_and_function_without_folders(most, monkeypatch):
    """compare greedy ../mine/deep/most.py:choose names it most.py:choose, its parameters kept."""
    elsewhere = most.parent.parent.parent / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    monkeypatch.chdir(elsewhere)
    spec = f"../{most.parent.parent.name}/deep/most.py:choose"
    r = invoke("compare", "greedy", spec, f"{spec}:joker_cost=1.5", "-n", 50)
    assert r.exit_code == 0, r.output
    names = [line.split()[0] for line in r.stdout.splitlines()[3:6]]
    assert names == ["greedy", "most.py:choose", "most.py:choose:joker_cost=1.5"]


def test_labels_in_the_dataset_summary_and_manifest(most, tmp_path):
    (tmp_path / "named.py").write_text(NAMED)
    out = tmp_path / "ds"
    r = invoke("run", "-n", 40, "-p", 3, "-s", f"{most}:choose:min_boxes=2", "-s", f"{tmp_path}/named.py:choose",
               "-s", "greedy", "-o", out)
    assert r.exit_code == 0, r.output
    names = {"most.py:choose:min_boxes=2", "most", "greedy"}
    assert set(pd.read_parquet(out / "players")["strategy"]) == names
    assert names <= set(r.stdout.split())   # the summary `run` prints
    entries = read_manifest(out)["strategies"]
    assert [e["label"] for e in entries] == ["most.py:choose:min_boxes=2", "most", "greedy"]
    assert entries[0]["spec"] == f"{most}:choose:min_boxes=2" and entries[0]["file"] == str(most)
    assert len(entries[0]["sha256"]) == 64
    assert read_manifest(out)["settings"]["strategies"][0] == f"{most}:choose:min_boxes=2"


def test_strategies_that_would_share_a_label_are_told_apart(tmp_path):
    for folder, body in (("a/x", MOST), ("b/x", MOST.replace("- 0.5", "- 1.5")), ("c", NAMED)):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "most.py").write_text(body)
    a, b, c = (resolve(f"{tmp_path}/{d}/most.py:choose") for d in ("a/x", "b/x", "c"))
    assert labels([a, b]) == ["a/x/most.py:choose", "b/x/most.py:choose"]
    assert labels([a, a, c]) == ["most.py:choose", "most.py:choose", "most"]   # one strategy, one label
    (tmp_path / "g.py").write_text(NAMED.replace('name="most"', 'name="greedy"'))
    named_greedy = resolve(f"{tmp_path}/g.py:choose")
    assert labels([resolve("greedy"), named_greedy]) == ["greedy", "g.py:choose"]
    assert labels([a, resolve(f"{tmp_path}/a/x/most.py:choose:joker_cost=1")]) == \
        ["most.py:choose", "most.py:choose:joker_cost=1"]
    assert np.array_equal(a.params, resolve(f"{tmp_path}/a/x/./most.py:choose").params)


# --- 5. reading the turns table ------------------------------------------------------------------

def test_a_chunks_turns_by_the_columns_asked_for():
    chunk = api.play_chunk(3, 0, 12, ["greedy", "random"], log_turns=True)
    full = chunk.to_pandas("turns")
    two = chunk.to_pandas("turns", columns=["roll", "jokers"])
    assert list(two.columns) == ["roll", "jokers"] and len(full) > 12
    pd.testing.assert_frame_equal(two, full[["roll", "jokers"]])
    with pytest.raises(ValueError, match="has no column 'joker'"):
        chunk.to_arrow("turns", columns=["joker"])


def test_replay_names_a_user_s_strategy_as_the_other_commands_do(tmp_path):
    """By its @strategy name (the label a run's players table gives it), not by its path."""
    f = tmp_path / "deep" / "most.py"
    f.parent.mkdir()
    f.write_text(NAMED)
    out = tmp_path / "ds"
    assert invoke("run", "-n", 4, "-s", f"{f}:choose", "-s", "greedy", "-o", out, "-q").exit_code == 0
    stored = sorted(set(pd.read_parquet(out / "players")["strategy"]))
    assert stored == ["greedy", "most"]
    for args in ([out, "--game", 1], ["--game", 1, "-s", f"{f}:choose", "-s", "greedy"]):
        r = invoke("replay", *args)
        assert r.exit_code == 0, r.output
        assert "Seats: 0=greedy, 1=most" in r.output and str(f) not in r.output
        assert re.search(r"^\s+1\s+most\s+-?\d+", r.output, re.M)   # the score table
    log = api.play_game(0, 1, ["greedy", f"{f}:choose"])
    assert log["labels"] == ["greedy", "most"] and log["strategies"] == ["greedy", f"{f}:choose"]
