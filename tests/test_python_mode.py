"""Plain-Python mode (`--python`, NUMBA_DISABLE_JIT=1): nothing is compiled, a user's strategy runs
as ordinary Python (print, breakpoint), and every strategy plays the same games as compiled."""
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.engine import GR_ROLLS
from sim.nbinternals import argsort
from sim.runs.api import play_chunk, play_game
from sim.state import PS_SCORE
from invoking import invoke

ROOT = Path(__file__).resolve().parents[1]

# Reads the dice, its sheet and the tables, draws from its stream (sim.rng) and counts bits (sim.bits),
# so that the plain-Python stand-ins of all of them play a part.
USER = '''
from sim.bits import popcount
from sim.rng import below
from sim.state import BB_CROSSED, CAND_COST, CAND_SUB, PASS, ST_ROLL, ST_SEAT


def choose(st, ps, bb, cands, n, tab, params, rng):
    if st[ST_ROLL] == 1:
        print("user:", n, "choices")
    if n == 0 or below(rng, 10) == 0:
        return PASS
    seat = st[ST_SEAT]
    best, best_value = 0, -100
    for i in range(n):
        k = cands[i, CAND_SUB]
        near = popcount(tab.nb[k, 0] & bb[seat, BB_CROSSED]) + popcount(tab.nb[k, 1] & bb[seat, BB_CROSSED + 1])
        value = 4 * tab.size[k] + 3 * tab.stars[k] + near - 5 * cands[i, CAND_COST]
        if value > best_value:
            best, best_value = i, value
    return best
'''

HALF = '''
def choose(st, ps, bb, cands, n, tab, params, rng):
    return n / 2
'''

TABLE = ["greedy", "random", "learned", "lookahead"]
#: Many equal values, more than Numba's quicksort sorts by insertion (15).
TIES = np.round(np.random.default_rng(5).random(60) * 3) / 3

# What the plain-Python process plays; the test plays the same compiled and compares.
PLAIN = '''
import sys
import numpy as np
from sim.nbinternals import JIT_DISABLED, argsort
from sim.runs.api import StrategyError, check_chunk, play_chunk, play_game

assert JIT_DISABLED
user, half, out = sys.argv[1:]
solo = play_chunk(3, 0, 8, [user])
table = play_chunk(3, 0, 3, [user] + {table!r}, rotate=True, log_turns=True)
log = play_game(3, 0, [user])
try:
    check_chunk(play_chunk(0, 0, 1, [half]))
    raised = ""
except StrategyError as e:
    raised = str(e)
np.savez(out, solo_games=solo.games, solo_seats=solo.seats, games=table.games, seats=table.seats, dice=table.dice,
         log=table.log, scores=[r["score"] for r in log["result"]], raised=raised,
         argsort=argsort(np.array({ties!r})))
'''.format(table=TABLE, ties=TIES.tolist())


def _plain_python(*args, env=None):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("python-mode")
    (folder / "user.py").write_text(USER)
    (folder / "half.py").write_text(HALF)
    return folder


@pytest.fixture(scope="module")
def plain(files):
    """The games played with NUMBA_DISABLE_JIT=1 (set as a user would: in the environment), and their output."""
    p = _plain_python("-c", PLAIN, f"{files / 'user.py'}:choose", f"{files / 'half.py'}:choose", files / "plain.npz",
                      env={"NUMBA_DISABLE_JIT": "1"})
    assert p.returncode == 0, p.stderr
    return np.load(files / "plain.npz"), p.stdout


def test_plain_python_plays_the_same_games(files, plain):
    got, _ = plain
    user = f"{files / 'user.py'}:choose"
    solo = play_chunk(3, 0, 8, [user])
    table = play_chunk(3, 0, 3, [user] + TABLE, rotate=True, log_turns=True)
    assert np.array_equal(got["solo_games"], solo.games) and np.array_equal(got["solo_seats"], solo.seats)
    for name in ("games", "seats", "dice", "log"):
        assert np.array_equal(got[name], getattr(table, name)), name
    assert list(got["scores"]) == [r["score"] for r in play_game(3, 0, [user])["result"]]
    assert len(set(solo.seats[:, 0, PS_SCORE])) > 1   # eight games, not one eight times


def test_print_runs_once_per_decision(plain):
    """print() in a user's strategy writes to stdout as it plays; a logged game (play_game, `replay`)
    is played once, not once more to fill its log."""
    _, stdout = plain
    lines = stdout.splitlines()
    # Roll 1, one decision per game: 8 solo games, 3 at a table, 1 replayed game.
    assert len(lines) == 8 + 3 + 1 and all(line.startswith("user: ") and line.endswith(" choices") for line in lines)


def test_ties_sort_as_compiled(plain):
    """lookahead orders its choices with sim.nbinternals.argsort: in plain Python it is Numba's own
    quicksort, which leaves equal values in another order than NumPy's."""
    got, _ = plain
    assert np.array_equal(got["argsort"], argsort(TIES))


def test_a_float_return_is_named(plain):
    got, _ = plain
    assert re.fullmatch(r"strategy '.*half.py:choose' \(seat 0\) returned \d+\.\d+ \(float\), not a choice index "
                        r"\(an integer\) or -1, in seed 0, game 0, roll 1", str(got["raised"]))


def test_python_option_on_the_command_line(files):
    """`compare --python` prints what the compiled comparison prints, the strategy's own output
    included (Numba's print writes to Python's stdout too)."""
    args = ["compare", "greedy", f"{files / 'user.py'}:choose", "-n", "4", "--seed", "2"]
    p = _plain_python("-m", "cli", *args, "--python")
    assert p.returncode == 0, p.stderr
    compiled = invoke(*args)
    assert compiled.exit_code == 0
    assert len([line for line in p.stdout.splitlines() if line.startswith("user: ")]) == 4
    assert p.stdout == compiled.stdout


@pytest.mark.parametrize("args, error", [
    (["run", "-n", "10", "--python", "--scheduler", "local"], "--python cannot be combined with --scheduler"),
    (["compare", "greedy", "random", "--python", "--unchecked"], "--python cannot be combined with --unchecked"),
    (["compare", "greedy", "random", "--python", "-j", "2"], "--python cannot be combined with --threads"),
    # This process has compiled kernels already.
    (["replay", "-s", "greedy", "-g", "0", "--python"], "--python needs a fresh process"),
])
def test_python_option_errors(args, error):
    r = invoke(*args)
    assert r.exit_code == 2 and r.output.startswith(f"Error: {error}") and r.output.count("\n") == 1, r.output


def test_plain_python_logs_a_solo_game_longer_than_the_rulebook_s(tmp_path):
    """The rules' solo game length (issue 46) in plain Python: a logged solo game of 40 rolls is the
    compiled one."""
    rules = "solo-rolls=40"
    code = ("import sys, numpy as np\n"
            "from sim.runs.api import play_chunk\n"
            f"c = play_chunk(5, 0, 2, ['greedy'], log_turns=True, rules={rules!r})\n"
            "np.savez(sys.argv[1], games=c.games, seats=c.seats, dice=c.dice, log=c.log)\n")
    p = _plain_python("-c", code, tmp_path / "plain.npz", env={"NUMBA_DISABLE_JIT": "1"})
    assert p.returncode == 0, p.stderr[-2000:]
    got, compiled = np.load(tmp_path / "plain.npz"), play_chunk(5, 0, 2, ["greedy"], log_turns=True, rules=rules)
    assert list(compiled.games[:, GR_ROLLS]) == [40, 40]   # the rules' length
    for name in ("games", "seats", "dice", "log"):
        assert np.array_equal(got[name], getattr(compiled, name)), name
