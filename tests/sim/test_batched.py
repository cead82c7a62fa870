"""Batched strategies (strategies.interface.batched, sim.batched): a Python function deciding
for a batch of games plays run's games, and plays in run, compare, tune and analyse.

The reference is greedy itself: a batched function that takes greedy's choice from the
observation alone (its key 4 * boxes - '!', ties to the first candidate in legal_choices' order:
the first dice pair, then the lowest group, then the lowest row) must play `run -s greedy`'s
games move for move, solo and at tables, seats rotated or not."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from sim import engine
from sim.moves import dice_word, die_pair, next_group
from sim.players import offered_dice
from sim.rules import R_NUMBERS, parse_rules
from sim import batched as batched_mod
from sim.runs.api import BatchedStrategyError, StrategyError, play_chunk
from sim.state import PS_PASSES, PS_SCORE, ST_DICE, ST_SIZE
from sim.tables import MAX_NUMBER, build_tables
from strategies import batched, placement_table, resolve
from invoking import invoke

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "batched_greedy.py"


def group_rows(sheet, players, rules):
    """Per (colour, number) group g, its placement rows in order (legal_choices walks them so)."""
    tab = build_tables(sheet, rules)
    return [np.flatnonzero((tab.colour == g // MAX_NUMBER) & (tab.size == g % MAX_NUMBER + 1))
            for g in range(5 * MAX_NUMBER)]


@batched(setup=group_rows)
def greedy_in_order(obs, rows):
    """sim.players.greedy from the observation: most boxes, then fewest '!', then the first
    candidate in legal_choices' order (a row loop: a test's reference, not a fast player)."""
    mask = obs["action_mask"]
    out = np.full(len(mask), mask.shape[1] - 1, np.int64)
    st = np.zeros(ST_SIZE, np.int64)
    for i in range(len(mask)):
        st[ST_DICE:ST_DICE + 6] = obs["dice"][i]
        avail = int((obs["available"][i].astype(np.int64) << np.arange(6)).sum())
        faces = dice_word(st, int(obs["rules"][i, R_NUMBERS]))
        offered = offered_dice(st, avail)
        best_key = -1
        for p in range(9):
            _, _, cost, groups = die_pair(faces, offered, int(obs["jokers"][i, 0]), p)
            while groups:
                g, groups = next_group(groups)
                legal = rows[g][mask[i, rows[g]] == 1]
                key = 4 * (g % MAX_NUMBER + 1) - cost
                if legal.size and key > best_key:
                    best_key, out[i] = key, legal[0]
    return out


def same_games(a, b, logged=True) -> bool:
    same = (np.array_equal(a.games, b.games) and np.array_equal(a.seats, b.seats)
            and np.array_equal(a.slots, b.slots))
    if logged:
        same = same and all(np.array_equal(getattr(a, k), getattr(b, k))
                            for k in ("dice_start", "dice", "log_start", "log"))
    return same


@pytest.mark.parametrize("players, others, rotate", [
    (1, [], False),
    (4, ["heuristic", "greedy", "random"], True),
    (4, ["heuristic", "greedy", "random"], False),
    (3, None, False),            # every seat batched: one call decides for all of them
])
def test_a_batched_greedy_plays_run_s_greedy_games(players, others, rotate):
    mine = [greedy_in_order] + (others if others is not None else [greedy_in_order] * (players - 1))
    theirs = ["greedy"] + (others if others is not None else ["greedy"] * (players - 1))
    games = 40 if players == 1 else 12
    a = play_chunk(5, 3, games, mine, players=players, rotate=rotate, log_turns=True)
    b = play_chunk(5, 3, games, theirs, players=players, rotate=rotate, log_turns=True)
    assert same_games(a, b)


@batched(setup=lambda sheet, players, rules: 4 * build_tables(sheet, rules).size)
def argmax_greedy(obs, key4):
    """Most boxes, then fewest '!', ties to the lowest row: NumPy, fast."""
    v = np.concatenate((key4, [0]))[None, :] + 1 - obs["action_cost"]
    return (v * obs["action_mask"]).argmax(axis=1)


def test_the_same_games_on_any_thread_count_batch_size_and_chunking(monkeypatch):
    line = [argmax_greedy, "heuristic", "greedy"]
    want = play_chunk(9, 0, 150, line, players=3, rotate=True, log_turns=True)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        for rows in (1, 7, 64):
            monkeypatch.setattr(batched_mod, "LOGGED_BATCH", rows)
            assert same_games(play_chunk(9, 0, 150, line, players=3, rotate=True, log_turns=True), want)
    finally:
        numba.set_num_threads(before)
    parts = [play_chunk(9, first, 50, line, players=3, rotate=True) for first in (0, 50, 100)]
    assert np.array_equal(np.concatenate([p.seats for p in parts]), want.seats)
    solo = play_chunk(9, 0, 300, [argmax_greedy], players=1)
    monkeypatch.setattr(batched_mod, "BATCH", 17)
    assert same_games(play_chunk(9, 0, 300, [argmax_greedy], players=1), solo, logged=False)


def test_its_parameters_reach_it_from_the_spec_and_the_line_up():
    seen = []

    @batched(params={"w": 1.0, "v": 2.0})
    def passes(obs, w, v):
        seen.append((w, v))
        return np.full(len(obs["action_mask"]), obs["action_mask"].shape[1] - 1)

    r = resolve(passes)
    assert r.strategy.params == {"w": 1.0, "v": 2.0}
    chunk = play_chunk(1, 0, 3, [passes], players=1)
    assert set(seen) == {(1.0, 2.0)}
    assert (chunk.seats[:, 0, PS_PASSES] == 30).all()


# --- errors: one line, naming the strategy ----------------------------------------------------

BAD = '''
import numpy as np
from strategies import batched


@batched
def shape(obs):
    return np.zeros((len(obs["action_mask"]), 2), np.int64)


@batched
def floats(obs):
    return np.zeros(len(obs["action_mask"]))


@batched
def illegal(obs):
    return np.zeros(len(obs["action_mask"]), np.int64)     # row 0, whatever the mask says


@batched
def raises(obs):
    return obs["no such key"]


def broken(sheet, players, rules):
    return 1 / 0


@batched(setup=broken)
def setup_raises(obs, data):
    return data
'''


@pytest.fixture
def bad_file(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(BAD)
    return path


@pytest.mark.parametrize("fn, message", [
    ("shape", "returned an array of shape (1, 2) and dtype int64 for a batch of 1 games: it must return their "
              "actions, an integer array of shape (1,)"),
    ("floats", "returned an array of shape (1,) and dtype float64"),
    ("illegal", "(seat 0) chose action 0, not a legal action, in seed 0, game 0, roll 1"),
    ("raises", "raised KeyError at bad.py:23: 'no such key'"),
    ("setup_raises", "setup raised ZeroDivisionError at bad.py:27: division by zero"),
])
def test_a_wrong_batch_is_one_line_and_exit_2(bad_file, fn, message, monkeypatch):
    monkeypatch.setattr(batched_mod, "BATCH", 1)
    result = invoke("run", "-s", f"{bad_file}:{fn}", "--games", "3", "--out", str(bad_file.parent / "out"), "--quiet")
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and f"bad.py:{fn}" in lines[0]
    assert not (bad_file.parent / "out").exists()     # the run created it and finished nothing
    with pytest.raises(ValueError, match="batched strategy") as e:
        play_chunk(0, 0, 3, [f"{bad_file}:{fn}"], players=1)
    # A batch is the strategy's misplay (a StrategyError to a run); its setup fails before any game.
    assert isinstance(e.value, BatchedStrategyError) == isinstance(e.value, StrategyError) == (fn != "setup_raises")


def test_a_batched_strategy_does_not_sit_with_a_users_numba_strategy(tmp_path):
    (tmp_path / "u.py").write_text("def choose(st, ps, bb, cands, n, tab, params, rng):\n    return -1\n")
    with pytest.raises(ValueError, match="user's Numba strategy"):
        play_chunk(0, 0, 2, [argmax_greedy, f"{tmp_path / 'u.py'}:choose"], players=2)


# --- in every command ----------------------------------------------------------------------------

def test_run_writes_a_dataset_that_summary_replay_and_analyse_read(tmp_path):
    import pyarrow.parquet as pq
    out = tmp_path / "run"
    spec = f"{EXAMPLE}:greedy"
    r = invoke("run", "-s", spec, "-s", "heuristic", "--players", "2", "--games", "40", "--rotate", "--log-turns",
               "--chunk-size", "16", "--out", out, "--quiet")
    assert r.exit_code == 0, r.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["strategies"][0]["file"] == str(EXAMPLE)
    stored = pq.read_table(out / "players").sort_by([("game", "ascending"), ("seat", "ascending")])
    direct = play_chunk(0, 0, 40, [spec, "heuristic"], players=2, rotate=True)
    assert stored["score"].to_pylist() == direct.seats[:, :, PS_SCORE].ravel().tolist()
    for command in (["summary", out], ["replay", out, "--game", "17"], ["analyse", out, "--format", "json"]):
        r = invoke(*command)
        assert r.exit_code == 0, r.output   # replay and analyse replay the games, their scores checked
    assert "Scores equal the ones stored in the dataset." in invoke("replay", out, "--game", "17").output


WEIGHED = '''
import numpy as np
from strategies import batched, placement_table


def boxes(sheet, players, rules):
    return np.append(placement_table(sheet, rules)["boxes"], 0).astype(np.float64)


@batched(params={"joker_cost": 0.25}, setup=boxes)
def weighed(obs, boxes, joker_cost):
    """Most boxes, each '!' worth joker_cost boxes; passes rather than go below 0."""
    worth = boxes - joker_cost * obs["action_cost"]
    return np.where(obs["action_mask"] == 1, worth, -np.inf).argmax(axis=1)
'''


def test_compare_and_tune_take_a_batched_strategy(tmp_path):
    r = invoke("compare", f"{EXAMPLE}:greedy", "greedy", "--games", "300", "--format", "json")
    assert r.exit_code == 0, r.output
    assert [row["strategy"] for row in json.loads(r.output)["rows"]] == ["batched_greedy.py:greedy", "greedy"]
    (tmp_path / "weighed.py").write_text(WEIGHED)
    spec = f"{tmp_path / 'weighed.py'}:weighed"
    r = invoke("tune", spec, "--param", "joker_cost=0..6", "--budget", "2100", "--trial-games", "100",
               "--validate-games", "200", "--format", "json")
    assert r.exit_code == 0, r.output
    result = json.loads(r.output)
    assert result["best_spec"].startswith(f"{spec}:joker_cost=") and result["validation"]["games"] == 200
    # The candidates differ: their parameter reaches the function through the line-up (tune's
    # candidates are the start's line-up with other numbers in its parameter row).
    assert any(h["best_candidate"] != h["mean"] for h in result["history"])


def test_a_plain_run_imports_neither_the_batched_loop_nor_the_environments():
    code = ("import sys\nfrom sim.runs.api import play_chunk\nplay_chunk(0, 0, 10, ['greedy'], players=1)\n"
            "print(sorted(m for m in ('sim.batched', 'sim.observe', 'gymnasium', 'pettingzoo') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_guide_quotes_the_shipped_example_as_it_is():
    import docs_check
    files = {it.arg: it.text for it in docs_check.parse((ROOT / "docs" / "agents.md").read_text()) if it.kind == "file"}
    assert files["batched_greedy.py"] == EXAMPLE.read_text()


@pytest.mark.parametrize("sheet, rules", [("standard", None), ("blue", None), ("standard", "joker-six")])
def test_the_placement_table_is_the_action_space_s(sheet, rules):
    from sim.sheets import load_sheet
    t = placement_table(sheet, rules)
    tab = build_tables(sheet, parse_rules(rules))
    s = load_sheet(sheet)
    assert len(t["boxes"]) == len(tab.size) and np.array_equal(t["boxes"], tab.size)
    assert np.array_equal(t["cells"].sum(axis=(1, 2)), t["boxes"])
    for k in range(len(t["boxes"])):
        rows, cols = np.nonzero(t["cells"][k])
        assert (s.colour[rows, cols] == t["colour"][k]).all() and s.star[rows, cols].sum() == t["stars"][k]


def test_no_games_and_plain_python_play_as_compiled():
    empty = play_chunk(2, 5, 0, [argmax_greedy, "greedy"], players=2, log_turns=True)
    assert empty.games.shape == (0, engine.GR_SIZE) and empty.log.shape == (0, engine.LOG_SIZE)
    # --python (NUMBA_DISABLE_JIT): the kernels are plain Python, the same games.
    spec = [f"{EXAMPLE}:greedy", "heuristic"]
    code = ("import sys\nimport numpy as np\nfrom sim.runs.api import play_chunk\n"
            f"c = play_chunk(4, 2, 3, {spec!r}, players=2, rotate=True, log_turns=True)\n"
            "sys.stdout.buffer.write(np.concatenate((c.seats.ravel(), c.log.ravel())).astype(np.int64).tobytes())")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, check=True,
                         env={**os.environ, "NUMBA_DISABLE_JIT": "1"}).stdout
    compiled = play_chunk(4, 2, 3, spec, players=2, rotate=True, log_turns=True)
    assert np.array_equal(np.frombuffer(out, np.int64), np.concatenate((compiled.seats.ravel(), compiled.log.ravel())))


@pytest.mark.parametrize("players", [2, 4])
def test_a_game_stepped_by_hand_plays_a_batched_opponent_as_its_built_in(players):
    """es.game and the play page step one game (GameInProgress): a batched opponent decides there
    for a batch of one, and plays the very game its built-in twin plays."""
    from sim.runs.game import GameInProgress
    others = ["heuristic", "random"][:players - 2]
    chunks = []
    for greedy in (greedy_in_order, "greedy"):
        g = GameInProgress(11, 4, [None, greedy, *others])
        while not g.over:
            g.play(len(g.choices()) - 1)     # the caller: its last legal choice, else a pass
        chunks.append(g.chunk())
    assert same_games(*chunks)
    example = GameInProgress(11, 4, [None, f"{EXAMPLE}:greedy", *others])   # a file's, as play's --opponents
    assert example.seat == 0 and not example.over
