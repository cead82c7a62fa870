"""Built on learned's value: one-ply search on what learned expects a sheet still to earn, with a
weight of one's own for the '!' kept. With keep=0 it makes learned's solo moves."""
from strategies import kit, strategy


@strategy(params={"keep": 0.0}, data=kit.learned_data)
def choose(st, ps, bb, cands, n, tab, params, rng):
    """learned's value of the sheet after each choice, plus `keep` per '!' kept."""
    keep = params[0]
    W, lay = kit.learned_weights(params, 1)          # 1: this strategy's own parameters
    seat = kit.me(st)
    later = kit.rolls_left_estimate(st, bb, tab)     # rolls to come after this one
    st2, ps2, bb2, _ = kit.workspace()
    best = -1                                        # passing keeps the sheet, less the rules' pass penalty
    best_value = (kit.learned_value(W, lay, ps, bb, seat, later) + keep * kit.jokers_left(ps, seat)
                  - kit.pass_penalty(tab))
    for i in range(n):
        kit.sheet_after(st, ps, bb, tab, cands, i, st2, ps2, bb2)
        value = (kit.score_gain(st, ps, bb, tab, cands, i) + kit.learned_value(W, lay, ps2, bb2, seat, later)
                 + keep * kit.jokers_left(ps2, seat))
        if value > best_value:
            best, best_value = i, value
    return best
