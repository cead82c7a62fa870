"""One game stepped from Python (sim.runs.game.GameInProgress), through its public face: what it
tells of the decision to take, the score if the game ended now, and the finished game as a chunk."""
import numpy as np
import pytest

from sim.runs.game import GameInProgress, IllegalChoice
from sim.state import CAND_SIZE, PS_SCORE


def test_the_deciding_seat_s_choices_and_dice():
    g = GameInProgress(3, 2, [None, "greedy", None], label="me")
    assert g.labels == ("me", "greedy", "me") and g.specs == ("me", "greedy", "me")
    assert (g.seat, g.roll, g.active) == (0, 1, True)
    choices = g.choices()
    assert choices.shape[1] == CAND_SIZE and len(choices) > 0
    used = {(1 << int(c[0])) | (8 << int(c[1])) for c in choices}
    assert all(d & g.available == d for d in used)         # only dice the seat may use
    choices[:] = -7                                        # a copy: the game's own rows are untouched
    assert (g.choices() != -7).all()


def test_scores_are_the_end_of_the_game_now_then_its_final_scores():
    g = GameInProgress(1, 0, [None, "greedy"])
    start = g.scores()
    assert start == [-22, -22]      # 8 '!' and 15 open stars at 2 points each, by the rulebook
    rolls = []
    while not g.over:
        rolls.append(g.roll)
        g.play(0 if len(g.choices()) else -1)
    assert rolls == sorted(rolls) and g.seat is None and len(g.choices()) == 0
    c = g.chunk()
    assert g.scores() == c.seats[0, :, PS_SCORE].tolist() != start
    assert c.log_start.tolist() == [0, len(c.log)] and len(c.dice) == rolls[-1]
    with pytest.raises(IllegalChoice, match="the game is over"):
        g.play(0)


def test_an_unfinished_game_is_no_chunk_yet():
    g = GameInProgress(0, 0, [None])
    with pytest.raises(ValueError, match="the game is not over"):
        g.chunk()
    assert g.players == 1 and g.max_rolls == 30
    c = g.chunk(finished=False)
    assert c.first == 0 and len(c.dice) == 1 and np.array_equal(c.dice[0, 2:3], [-1])   # solo: two dice of each


@pytest.mark.parametrize("seed, game, message", [(-1, 0, "seed"), (0, -5, "game")])
def test_bad_settings_are_refused(seed, game, message):
    with pytest.raises(ValueError, match=message):
        GameInProgress(seed, game, [None, "greedy"])
