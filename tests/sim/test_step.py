"""sim/step.py and sim/runs/game.py: a game stepped from outside is the game `run` plays.

A seat decided by the caller, who takes each time the choice a strategy would take, must give
move for move the game in which that strategy plays the seat inside the kernel (sim.engine.play,
through play_chunk): same dice, same moves, same scores, same end."""
import numpy as np
import pytest

from sim import engine
from sim.runs.api import play_chunk
from sim.runs.game import GameInProgress, IllegalChoice
from sim.sheets import load_sheet
from sim.state import CAND_COST, CAND_SUB, PS_SCORE
from sim.tables import build_tables

SIZE = build_tables(load_sheet("standard")).size


def greedy_index(choices) -> int:
    """sim.players.greedy in Python: most boxes, then fewest '!', then the first offered."""
    best, best_key = -1, -1
    for i, row in enumerate(choices):
        key = 4 * SIZE[row[CAND_SUB]] - row[CAND_COST]
        if key > best_key:
            best, best_key = i, key
    return best


def same_game(g: GameInProgress, chunk) -> bool:
    mine = g.chunk()
    return (np.array_equal(mine.seats, chunk.seats) and np.array_equal(mine.dice, chunk.dice)
            and np.array_equal(mine.log, chunk.log)
            and np.array_equal(mine.games[:, :engine.GR_LOG_ROWS], chunk.games[:, :engine.GR_LOG_ROWS]))


@pytest.mark.parametrize("others", [[], ["learned"] * 3, ["heuristic", "greedy"], ["random", "greedy", "random",
                                                                                    "greedy", "random"]])
@pytest.mark.parametrize("seat", [0, -1])
def test_a_seat_decided_outside_plays_run_s_game(others, seat):
    for game in (0, 1, 17):
        seats = list(others)
        seats.insert(seat if seat >= 0 else len(seats), None)
        g = GameInProgress(11, game, seats)
        while not g.over:
            assert g.seat == seats.index(None)
            g.play(greedy_index(g.choices()))
        specs = ["greedy" if s is None else s for s in seats]
        chunk = play_chunk(11, game, 1, specs, players=len(specs), rotate=False, log_turns=True)
        assert same_game(g, chunk)
        assert g.scores() == chunk.seats[0, :, PS_SCORE].tolist()


def test_every_seat_outside_with_random_choices_ends_and_passive_seats_see_no_other_passive_move():
    rng = np.random.default_rng(3)
    g = GameInProgress(2, 5, [None] * 4)
    seen = None     # (roll, sheets) at the roll's first passive decision
    passive = 0
    while not g.over:
        if not g.active:
            if seen is None or seen[0] != g.roll:
                seen = (g.roll, g.bb.copy())
            else:
                assert np.array_equal(seen[1], g.bb)    # no passive move of this roll applied yet
                passive += 1
        g.play(int(rng.integers(-1, len(g.choices()))))
    assert passive > 0
    assert g.seat is None
    assert len(g.chunk().log) == g.chunk().games[0, engine.GR_ROLLS] * 4


def test_an_illegal_choice_raises_and_changes_nothing():
    g = GameInProgress(0, 0, [None, "greedy"])
    before = [a.copy() for a in (g.st, g.ps, g.bb, g.sp)]
    n = len(g.choices())
    for bad in (n, -2, 1.5, "0", True, None):
        with pytest.raises(IllegalChoice, match="not a legal choice"):
            g.play(bad)
    assert all(np.array_equal(a, b) for a, b in zip(before, (g.st, g.ps, g.bb, g.sp)))


def test_a_game_needs_a_seat_of_the_caller():
    with pytest.raises(ValueError, match="None in strategies"):
        GameInProgress(0, 0, ["greedy"])


CHEAT = '''
from sim.state import PS_JOKERS, ST_SEAT


def jokers(st, ps, bb, cands, n, tab, params, rng):
    ps[st[ST_SEAT], PS_JOKERS] += 1          # refill its own '!'
    return n - 1
'''


def test_a_users_strategy_writing_to_the_game_is_refused_as_in_run(tmp_path):
    """A user's strategy at the table of a game stepped from outside (the play page's, es.game's)
    is watched as in `run` (sim.guard): the same error, naming the seat, the game and the roll."""
    from sim.runs.api import StrategyError, play_game
    f = tmp_path / "cheat.py"
    f.write_text(CHEAT)
    spec = f"{f}:jokers"
    with pytest.raises(StrategyError, match="wrote to ps") as ran:
        play_game(4, 2, ["greedy", spec])
    with pytest.raises(StrategyError) as stepped:
        g = GameInProgress(4, 2, [None, spec])
        while not g.over:
            g.play(greedy_index(g.choices()))
    assert str(stepped.value) == str(ran.value)
