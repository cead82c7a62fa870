"""The strategy interface (strategies.interface): a decision function declared with its name,
description and parameters; a batched one declared as plain Python; the placements' table."""
import numpy as np
import pytest
from numba import njit

from sim.sheets import load_sheet
from sim.tables import build_tables
from strategies.interface import Strategy, batched, decided_outside, placement_table, strategy, unknown_params


def first(st, ps, bb, cands, n, tab, params, rng):
    """Takes the first choice offered.

    More lines of the docstring are not the description."""
    return 0


def test_a_strategy_is_named_and_described_by_its_function():
    s = strategy(first)
    assert (s.name, s.description, s.params) == ("first", "Takes the first choice offered.", {})
    assert hasattr(s.dispatcher, "nopython_signatures") and s.dispatcher.py_func is first
    t = strategy(name="other", description="mine", params={"w": 2}, reads_rules={"jokers"})(first)
    assert (t.name, t.description, t.params, t.reads_rules) == ("other", "mine", {"w": 2}, frozenset({"jokers"}))
    compiled = njit(first)
    assert strategy(compiled).dispatcher is compiled          # a Numba function is taken as it is


def test_parameters_are_set_in_their_declared_order_and_unknown_ones_named():
    s = Strategy("s", None, params={"alpha": 1.0, "beta": 2.5})
    assert s.param_vector({}).tolist() == [1.0, 2.5] and s.param_vector({"beta": 4}).tolist() == [1.0, 4.0]
    with pytest.raises(ValueError, match="^strategy 's' has no parameter betta: did you mean beta\\?$"):
        s.param_vector({"betta": 1})
    assert unknown_params(["x", "y"], {"a": 1}) == "has no parameter x, y (parameters: a)"
    assert unknown_params(["x"], {}) == "has no parameter x (parameters: none)"


def test_a_batched_strategy_is_plain_python_standing_in_the_kernels_as_a_pass():
    def setup(sheet, players, rules):
        return None

    @batched(params={"w": 2}, setup=setup)
    def mine(obs, data, w):
        """Passes."""
        return np.zeros(len(obs["action_mask"]), np.int64)

    assert mine.batched.fn.__name__ == "mine" and mine.batched.setup is setup
    assert mine.params == {"w": 2.0} and isinstance(mine.params["w"], float) and mine.description == "Passes."
    assert mine.dispatcher is decided_outside and decided_outside.py_func(*[None] * 8) == -1
    with pytest.raises(TypeError, match="@batched decorates a plain Python function"):
        batched(njit(first))
    with pytest.raises(TypeError, match="setup must be a function"):
        batched(setup=3)


def test_the_placement_table_is_the_sheet_s_placements_in_order():
    sheet = load_sheet("blue")
    t = placement_table("blue")
    tab = build_tables(sheet)
    k = len(tab.size)
    assert {name: a.shape for name, a in t.items()} == {"boxes": (k,), "colour": (k,), "stars": (k,),
                                                        "cells": (k, 7, 15)}
    assert np.array_equal(t["cells"].sum(axis=(1, 2)), t["boxes"])
    for i in (0, k // 2, k - 1):
        rows, cols = np.nonzero(t["cells"][i])
        assert {int(c) * 8 + int(r) for r, c in zip(rows, cols)} == {
            b for b in range(128) if (int(tab.mask[i, 0]) | int(tab.mask[i, 1]) << 64) >> b & 1}
        assert set(sheet.colour[rows, cols]) == {t["colour"][i]}
        assert sheet.star[rows, cols].sum() == t["stars"][i]
