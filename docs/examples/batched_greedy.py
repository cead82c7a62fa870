"""Greedy as a batched strategy: one NumPy call decides for a whole batch of games (docs/agents.md)."""
import numpy as np

from strategies import batched, placement_table


def keys(sheet, players, rules):
    """Each action's worth before its '!': 4 per box, plus 1 so that a legal action beats an
    illegal one (0 below); passing, the last action, 1: below any placement."""
    return np.append(4 * placement_table(sheet, rules)["boxes"] + 1, 1).astype(np.int8)


@batched(setup=keys)
def greedy(obs, key):
    """Most boxes, then fewest '!'; on a tie the lowest placement row."""
    worth = key - obs["action_cost"]        # int8, one row per game: (games, K + 1)
    worth *= obs["action_mask"]             # 0 for the illegal actions
    return worth.argmax(axis=1)
