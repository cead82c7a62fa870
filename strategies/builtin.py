"""The built-in strategies, each a decision function with sim.state.DECIDE_SIG."""
from sim.rng import below
from sim.state import CAND_COST, CAND_SUB, PASS

from .interface import strategy


@strategy(name="random")
def random_choice(st, ps, bb, cands, n, tab, params, rng):
    """Uniform over the legal choices, pass included."""
    return below(rng, n + 1) - 1


@strategy
def greedy(st, ps, bb, cands, n, tab, params, rng):
    """Most boxes crossed now; on a tie the fewest jokers, then the first offered."""
    best = PASS
    best_key = -1
    for i in range(n):
        key = 4 * tab.size[cands[i, CAND_SUB]] - cands[i, CAND_COST]
        if key > best_key:
            best, best_key = i, key
    return best


from .heuristic import heuristic  # noqa: E402
from .lookahead import lookahead  # noqa: E402
from .learned import learned  # noqa: E402

BUILTIN = (random_choice, greedy, heuristic, lookahead, learned)
