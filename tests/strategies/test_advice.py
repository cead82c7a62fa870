"""learned's view of a decision (strategies.advice): the row it names is the move `run -s learned`
makes, and its values rank the choices as analyse judges them (the best's loss 0, no loss below)."""
import numpy as np
import pytest

from sim.runs.api import play_chunk
from sim.runs.game import GameInProgress
from sim.sheets import load_sheet
from sim.state import PS_SCORE
from sim.tables import kernel_tables
from strategies.advice import Advisor


@pytest.mark.parametrize("players, opponents", [(1, []), (3, ["greedy", "heuristic"])])
def test_the_advised_move_is_run_s_learned_move(players, opponents):
    g = GameInProgress(5, 2, [None, *opponents])
    tab = kernel_tables(g.sheet, g.rules)
    advisor = Advisor(g.sheet, players, g.rules)
    while not g.over:
        choices = g.choices()
        adv = advisor.advise(g.st, g.ps, g.bb, choices, len(choices), tab)
        assert len(adv.values) == len(choices) + 1
        assert adv.value(adv.best) == adv.values.max() and adv.loss(adv.best) == 0
        assert min(adv.loss(i) for i in range(-1, len(choices))) >= 0
        g.play(adv.learned)
    chunk = play_chunk(5, 2, 1, ["learned", *opponents], players=players, log_turns=True)
    assert g.scores() == chunk.seats[0, :, PS_SCORE].tolist()
    assert np.array_equal(g.chunk().log, chunk.log)


def test_an_advisor_is_learned():
    with pytest.raises(ValueError, match="an Advisor is learned, not 'greedy'"):
        Advisor(load_sheet("standard"), 1, None, spec="greedy")
