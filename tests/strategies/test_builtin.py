"""strategies.builtin: every built-in strategy plays only legal moves (checked by the independent
checker), solo and at tables of 2-6, on every sheet."""
import pytest

from checker import check_game_log
from sim.runs import api as sim

SEED = 20261201
BUILTINS = ["random", "greedy", "heuristic", "lookahead"]
SHEETS = ["standard", "red", "blue", "green", "orange", "yellow"]


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_plays_only_legal_moves(name):
    # 40 solo games and 40 table games of 2..6 players per strategy, on every sheet,
    # other seats mixing the built-ins.
    for i in range(40):
        sheet = SHEETS[i % len(SHEETS)]
        log = sim.play_game(SEED, i, [name], sheet=sheet)
        check_game_log(log, sheet)
        players = 2 + i % 5
        lineup = [name] + [BUILTINS[(i + s) % len(BUILTINS)] for s in range(1, players)]
        log = sim.play_game(SEED, 1000 + i, lineup, sheet=sheet)
        check_game_log(log, sheet)
