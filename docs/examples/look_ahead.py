"""One-move look-ahead with the kit: each choice is worth what it earns now plus the best the next
roll could add after it, averaged over the 25 colour and number pairs that roll could bring."""
from numba import njit

from strategies import kit, strategy


@njit
def now_value(st, ps, bb, tab, cands, i, near_h, joker):
    """What choice i is worth now: its score gain, less `joker` more per '!' it spends, plus its
    boxes, those near H more."""
    value = kit.score_gain(st, ps, bb, tab, cands, i) - joker * kit.jokers_cost(cands, i)
    for j in range(kit.size(tab, cands, i)):
        col, row = kit.box(tab, cands, i, j)
        value += 1.0 + near_h / (1 + kit.distance_from_h(col))
    return value


@njit
def next_roll(st2, ps2, bb2, tab, cands2, near_h, joker):
    """The best now_value of one choice on the next roll, averaged over its (colour, number)."""
    total = 0.0
    for c in range(5):
        for number in range(1, 6):
            kit.set_dice(st2, c, number)
            best = 0.0                              # passing
            for j in range(kit.legal_choices(st2, ps2, bb2, tab, cands2)):
                best = max(best, now_value(st2, ps2, bb2, tab, cands2, j, near_h, joker))
            total += best
    return total / 25


@strategy(params={"near_h": 1.0, "joker": 2.0, "ahead": 1.0})
def choose(st, ps, bb, cands, n, tab, params, rng):
    """One-move look-ahead: value now plus `ahead` times the mean best reply next roll."""
    near_h, joker, ahead = params[0], params[1], params[2]
    st2, ps2, bb2, cands2 = kit.workspace()
    best, best_value = -1, -1e9
    for i in range(-1, n):                          # -1 is passing
        now = 0.0 if i < 0 else now_value(st, ps, bb, tab, cands, i, near_h, joker)
        kit.sheet_after(st, ps, bb, tab, cands, i, st2, ps2, bb2)
        value = now + ahead * next_roll(st2, ps2, bb2, tab, cands2, near_h, joker)
        if value > best_value:
            best, best_value = i, value
    return best
