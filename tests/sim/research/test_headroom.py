"""How far `learned` is from perfect play (sim.research.headroom): the ratio to the bound, the score's
parts side by side, and the settings refused before any search. The search itself is
tests/sim/research/test_clairvoyant.py's."""
import numpy as np
import pytest

from sim.research.clairvoyant import GUIDES
from sim.research.headroom import Headroom, measure
from sim.state import PS_COL_POINTS, PS_COLOUR_POINTS, PS_COLOURS, PS_COLS, PS_JOKERS, PS_SCORE, PS_SIZE, \
    PS_STAR_PENALTY


def ends(scores, cols=0, colours=0):
    ps = np.zeros((len(scores), PS_SIZE), np.int64)
    ps[:, PS_SCORE] = scores
    ps[:, PS_COL_POINTS] = np.asarray(scores) + 10
    ps[:, PS_COLOUR_POINTS], ps[:, PS_JOKERS], ps[:, PS_STAR_PENALTY] = 5, 1, 16
    ps[:, PS_COLS], ps[:, PS_COLOURS] = cols, colours
    return ps


def headroom(bound, learned, **kw):
    n = len(bound)
    return Headroom(seed=1, sheet="standard", beam=4, guides=GUIDES, weights=None, bound_ends=ends(bound, 0b11, 0b1),
                    lines=np.zeros((n, 30, 2), np.int64), guide_scores=np.column_stack([bound] * len(GUIDES)),
                    learned_ends=ends(learned, 0b1, 0), seconds=2.0, threads=1,
                    column_points=tuple(range(15)), **kw)


def test_learned_as_a_share_of_the_bound():
    h = headroom([40, 50, 60, 70], [20, 25, 30, 35])
    assert h.games == 4 and h.ratio() == (0.5, 0.0)          # exactly half on every game: no spread
    r, hw = headroom([40, 50, 60, 70], [30, 25, 30, 35]).ratio()
    assert r == pytest.approx(120 / 220) and hw > 0
    assert np.isnan(headroom([40], [20]).ratio()[1])


def test_the_breakdown_and_the_report_side_by_side():
    h = headroom([40, 50], [20, 30], rules="jokers=6")
    rows = {name: (b, lrn) for name, b, lrn in h.breakdown()}
    assert rows["score"] == (45.0, 25.0) and rows["column points"] == (55.0, 35.0)
    assert rows["columns completed"] == (2.0, 1.0) and rows["colours completed"] == (1.0, 0.0)
    assert rows["star penalty"] == (-16.0, -16.0)
    text = h.report()
    assert text.startswith("Clairvoyant bound: 2 solo games of seed 1, sheet standard, rules jokers=6, beam 4")
    assert "learned / bound               55.6%" in text and "games where learned beats the bound: 0" in text
    assert "finds the bound in 100% of games" in text


@pytest.mark.parametrize("kw, message", [({"games": 0}, "games"), ({"beam": 0}, "beam"), ({"seed": -1}, "seed"),
                                         ({"weights": "no-such.npz"}, "weights file no-such.npz does not exist")])
def test_bad_settings_are_refused_before_any_search(kw, message):
    with pytest.raises(ValueError, match=message):
        measure(**{"games": 2, "beam": 2, **kw})
