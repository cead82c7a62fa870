"""Boxes near H first, stars count, jokers only for big moves: a rule of thumb, with the kit."""
from strategies import kit, strategy


@strategy(params={"near_h": 1.0, "star": 4.0, "joker_min": 5.0})
def choose(st, ps, bb, cands, n, tab, params, rng):
    """Boxes near H first, stars count, jokers only for big moves."""
    near_h, star, joker_min = params[0], params[1], params[2]
    best, best_value = -1, 0.0                      # -1 is passing, worth 0
    for i in range(n):
        jokers = kit.jokers_cost(cands, i)
        if jokers > 0 and kit.size(tab, cands, i) < joker_min:
            continue                                # a '!' only for a big move
        value = star * kit.stars(tab, cands, i) + kit.points_now(st, ps, bb, tab, cands, i) - jokers
        for j in range(kit.size(tab, cands, i)):
            col, row = kit.box(tab, cands, i, j)
            value += 1.0 + near_h / (1 + kit.distance_from_h(col))
        if value > best_value:
            best, best_value = i, value
    return best
