"""learned's view of one decision: the action value of every legal choice, and its own choice.

    a = Advisor(sheet, players, rules)           # learned's weights and decision for the game
    adv = a.advise(st, ps, bb, cands, n, tab)    # at the deciding seat's decision
    adv.values[i]     # learned's value of cands row i (adv.values[n]: passing)
    adv.best          # the row of the best value (-1: passing): analyse's "learned's choice"
    adv.learned       # the row learned's decision function plays (-1: passing), dice pair included

The values are learned's one-ply action values, the numbers `analyse` judges every decision by
(sim.research.rollouts uses solo_value_of and table_value_of below): reward now plus the
value of the sheet after the move, for the solo game or, at a table, the margin over the best
opponent (learned.rank_placements, rank_table). A choice paid with more '!' than its placement
needs is valued at that cost. The loss of choice i is values[best] - values[i].

learned's own choice is its decision function itself, called on the state as the game loop calls
it: solo, its placer (look-ahead included, if its parameters ask for it) and the engine's `placed`
for the dice; at a table decide_table, whose dice denial may take a placement of lower value or
another dice pair than the first that makes it. So the row it names is the move `run -s learned`
makes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from sim.nbinternals import JIT_DISABLED, as_any, compiled_for
from sim.players import placed
from sim.state import (
    CAND_CDIE, CAND_COST, CAND_NDIE, CAND_SUB, DECIDE_SIG, PASS, PS_JOKERS, RNG_WORDS, ST_PLAYERS, ST_ROLL, ST_SEAT,
)

from .learned import (
    N_FEAT, N_ROW_TABLE, P_TOP, SC_NEW, best_row, joker_entry, new_scratch, place_block, place_columns, ranked,
    ranked_table, row_offset, shared_scratch, solo_row, solo_rolls, successor_value,
)
from .learned_weights import weights_array
from .table_features import TC_COLOURS_TAKEN, TC_COLS_TAKEN, TC_SIZE, TE_SIZE, stage, table_after


@njit(cache=True, inline="always")
def solo_value_of(W, o, tab, scratch, m, sub, cost, jokers):
    """learned's solo value of placing `sub` for `cost` '!' (sub -1: passing), the sheet prepared
    by rank_placements in scratch (its rows subs, costs, qs[:m]; W's row at o): the row's value
    when it has one (every placement at its fewest '!'), else the same sum at that cost."""
    lay, sc, se, subs, costs, _, qs = scratch
    for i in range(m):
        if subs[i] == sub and (sub < 0 or costs[i] == cost):
            return qs[i]
    v, r = successor_value(W, o, lay, tab, sc, se, sub, 0)
    return r - cost + v + W[o + joker_entry(jokers - cost)]


@njit(cache=True, inline="always")
def table_value_of(W, o, tab, scratch, tc, te, m, sub, cost, jokers):
    """learned's table value of placing `sub` for `cost` '!' (sub -1: passing), the sheet and table
    prepared by rank_table in scratch, tc and te (W's row at o, as rank_table reads it): as
    solo_value_of, the table's part added, completions whose first value is gone at their later
    value."""
    lay, sc, se, subs, costs, _, qs = scratch
    for i in range(m):
        if subs[i] == sub and (sub < 0 or costs[i] == cost):
            return qs[i]
    v, r = successor_value(W, o, lay, tab, sc, se, sub, tc[TC_COLS_TAKEN] | (tc[TC_COLOURS_TAKEN] << 16))
    c_lo, n_cols, _ = place_columns(lay, sub)
    _, _, k, size, _ = place_block(lay, sub)
    return (r - cost + v + W[o + joker_entry(jokers - cost)]
            + table_after(W, o + N_FEAT, tc, te, sc, SC_NEW, c_lo, n_cols, k, size, int(r) - cost))


def choice_values(W, st, ps, bb, cands, n, tab, values):
    """values[i]: learned's action value of cands[i] (i < n), values[n]: of passing, for the seat
    deciding in st; returns the row of the best value (-1: passing; the first on ties, as learned
    and analyse break them)."""
    # A kernel each for the solo game and the table: one holding both compiled the table's
    # ranking (a third of a solo game's first hint) for a game that never uses it.
    if st[ST_PLAYERS] == 1:
        return _solo_values(W, st, ps, bb, cands, n, tab, values)
    return _table_values(W, st, ps, bb, cands, n, tab, values)


@njit(cache=True)
def _solo_values(W, st, ps, bb, cands, n, tab, values):
    scratch = new_scratch(tab)
    seat = st[ST_SEAT]
    jokers = ps[seat, PS_JOKERS]
    m = ranked(as_any(W), 0, as_any(st), as_any(bb), seat, jokers, tab, shared_scratch(scratch))
    o = row_offset(0, solo_row(solo_rolls(tab) - st[ST_ROLL]))
    for i in range(n):
        values[i] = solo_value_of(W, o, tab, scratch, m, cands[i, CAND_SUB], cands[i, CAND_COST], jokers)
    return _best_choice(cands, n, scratch, m, values)


@njit(cache=True)
def _table_values(W, st, ps, bb, cands, n, tab, values):
    scratch = new_scratch(tab)
    seat = st[ST_SEAT]
    jokers = ps[seat, PS_JOKERS]
    tc = np.empty(TC_SIZE, np.int64)
    te = np.empty(TE_SIZE)
    m = ranked_table(as_any(W), 0, as_any(st), as_any(ps), as_any(bb), seat, tab, shared_scratch(scratch), tc, te)
    o = N_ROW_TABLE * stage(st)
    for i in range(n):
        values[i] = table_value_of(W, o, tab, scratch, tc, te, m, cands[i, CAND_SUB], cands[i, CAND_COST], jokers)
    return _best_choice(cands, n, scratch, m, values)


@njit(cache=True, inline="always")
def _best_choice(cands, n, scratch, m, values):
    _, _, _, subs, costs, _, qs = scratch
    values[n] = qs[0]       # rank row 0 is passing
    b = best_row(qs, m)
    if subs[b] < 0:
        return PASS
    for i in range(n):      # the first row offering the best placement at its fewest '!'
        if cands[i, CAND_SUB] == subs[b] and cands[i, CAND_COST] == costs[b]:
            return i
    return PASS             # unreachable: legal_choices offers every placement at its fewest '!'


@dataclass(frozen=True)
class Advice:
    """learned's view of one decision (Advisor.advise)."""
    values: np.ndarray      # values[i]: of cands row i; values[n]: of passing
    best: int               # the row of the best value, -1 passing
    learned: int            # the row learned's decision function plays, -1 passing

    def value(self, row: int) -> float:
        """The value of cands row `row` (-1: passing)."""
        return float(self.values[row if row >= 0 else len(self.values) - 1])

    def loss(self, row: int) -> float:
        """What row `row` (-1: passing) costs against the best value: analyse's loss."""
        return self.value(self.best) - self.value(row)


class Advisor:
    """learned, as `run -s learned` plays a game of `players` on `sheet` under `rules`: its weights,
    its parameters (`spec`, default learned's own) and its decision function."""

    def __init__(self, sheet, players: int, rules, spec: str = "learned"):
        from .registry import resolve

        r = resolve(spec)
        if r.strategy.name != "learned":
            raise ValueError(f"an Advisor is learned, not {spec!r}")
        self.players = players
        # The weights as learned reads them (learned._weights); MissingWeights (a ValueError) where
        # it has none. Its parameters row (with the sheet's layout, whose kernel compiles) is made
        # only for its decision.
        self.W = np.array(weights_array(sheet, r.file, players, rules), np.float32)
        self._data, self._params = (r, sheet, rules), None
        # Solo without look-ahead learned's placer plays the best of its one-ply ranking, which
        # choice_values finds (analyse's judge_solo(own=True) takes it so): its decision is
        # compiled only where it can differ, and not before the first hint.
        self.own_best = players == 1 and int(r.params[P_TOP]) < 1
        self._played = None if self.own_best else r.strategy
        self._decide = None

    @property
    def params(self) -> np.ndarray:
        """learned's parameters row (Strategy.data after its parameters), as its decision reads it."""
        if self._params is None:
            r, sheet, rules = self._data
            self._params = np.concatenate((r.params, r.data(sheet, self.players, rules)))
        return self._params

    def decide(self, st, ps, bb, cands, n, tab, params, rng):
        """learned's decision function (its DECIDE_SIG overload, called as such: called through
        the dispatcher on C-contiguous arrays, Numba would compile the whole decision again)."""
        if self._decide is None:
            fn, self.places = self._played.played_fn(self.players)
            fn = compiled_for(fn, DECIDE_SIG)
            self._decide = fn if JIT_DISABLED else fn.overloads[DECIDE_SIG.args].entry_point
        return self._decide(st, ps, bb, cands, n, tab, params, rng)

    def advise(self, st, ps, bb, cands, n: int, tab) -> Advice:
        """learned's view of the decision of the seat deciding in st (st, ps, bb as the engine holds
        them; cands[:n] its legal choices, in legal_choices' order). Nothing is written."""
        st, ps, bb = st.copy(), ps.copy(), bb.copy()
        cands = np.ascontiguousarray(cands)
        values = np.empty(n + 1)
        best = int(choice_values(self.W, st, ps, bb, cands, n, tab, values))
        if self.own_best:
            return Advice(values, best, best)
        # learned draws nothing from its stream; a seat's stream is still handed over, as the engine does.
        rng = np.zeros(RNG_WORDS, np.uint64)
        returned = int(self.decide(st, ps, bb, cands, n, tab, self.params, rng))
        if self.places:     # a placement code: the dice are the engine's (sim.players.placed)
            k, cd, nd, sub, cost = placed(st, ps, bb, tab, returned)
            if k == -2:
                raise RuntimeError("learned named a placement that is no legal choice: a bug, please report it")
            mine = PASS if k == PASS else _row_of(cands, n, cd, nd, sub, cost)
        else:
            mine = returned
        if not PASS <= mine < n:
            raise RuntimeError("learned's decision is no legal choice: a bug, please report it")
        return Advice(values, best, mine)


def _row_of(cands, n, cd, nd, sub, cost) -> int:
    for i in range(n):
        row = cands[i]
        if (row[CAND_CDIE], row[CAND_NDIE], row[CAND_SUB], row[CAND_COST]) == (cd, nd, sub, cost):
            return i
    raise RuntimeError("the engine's dice for learned's placement are no legal choice: a bug, please report it")
