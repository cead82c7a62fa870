"""A user's strategy file as the tests write one: most boxes, with two parameters to tune."""

MOST = '''
from sim.state import CAND_COST, CAND_SUB
from strategies import strategy


@strategy(params={"joker_cost": 0.0, "min_boxes": 1.0})
def choose(st, ps, bb, cands, n, tab, params, rng):
    """Most boxes, each joker costing joker_cost boxes; passes below min_boxes."""
    best, best_value = -1, params[1] - 0.5
    for i in range(n):
        value = tab.size[cands[i, CAND_SUB]] - params[0] * cands[i, CAND_COST]
        if value > best_value:
            best, best_value = i, value
    return best
'''
