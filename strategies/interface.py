"""The strategy interface: how a decision function is declared, named and parametrised.

A strategy is a Numba function with the signature sim.state.DECIDE_SIG:

    choose(st, ps, bb, cands, n_cands, tables, params, rng) -> int

called once per decision with the legal choices already enumerated in
cands[:n_cands]; it returns a row index of cands, or -1 to pass. `params` holds
its parameters in the order they were declared, `rng` its private random
stream (see sim.rng.below / sim.rng.uniform). docs/strategies.md has the full
guide and an example.

A batched strategy (@batched) is a plain Python function that decides for a batch of games at
once, from arrays: the observations and action masks of the Gymnasium environments (sim.observe,
docs/agents.md). The runs layer steps many games to their next decision of its seat, calls it
once for all of them and applies its actions (sim.batched): NumPy or PyTorch code plays
at the engine's speed, its Python overhead paid once per batch rather than once per decision.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from sim.nbinternals import compiled_for
from sim.numba_cache import cache_folder
from sim.state import DECIDE_SIG, PASS
from sim.suggest import did_you_mean


@dataclass(frozen=True)
class Strategy:
    """A named decision function with its parameters (name -> default).

    `dispatcher` is compiled for DECIDE_SIG on first use of `fn`, so a run
    compiles (or loads from cache) only the strategies it plays.

    A strategy that plays with data too large for parameters (a learned player's
    weights) gives `data(sheet, file, players) -> float64 array`: the array the
    strategy reads after its parameters in `params`, for the run's sheet and number
    of players, from the file its spec names as `file_param=PATH` (None when the
    spec names none). A data function with a `rules` parameter, `data(sheet, file,
    players, rules=...)`, also gets the run's rules (sim.rules.Rules; registry.Resolved.data),
    as `learned`'s weights are trained per rules.

    A built-in that ranks the distinct placements itself may also give `solo_placer`: the same
    solo decision, returning sim.players.placement_code(subset row, '!' used) instead of a row
    of the candidate table, which the engine then need not fill (sim.players.PLAYER_PLACE).
    Solo games are played with it. And `table_decider`: the decision (DECIDE_SIG) at tables of
    2-6 alone, which table games are played with: compiled without the solo decision, where `fn`
    holds both. Everything else (a user's view of the strategy, training, analysis) uses `fn`.

    `reads_rules`: the sim.rules.Rules fields its decisions read (e.g. {"pass_penalty"}), so that
    compare-rules can say which rule changes it plays as it plays the rulebook
    (strategies.adaptation); None: not declared.

    `label_of(file) -> str | None`: a built-in whose results name it by what its file says (`recorded`:
    the player whose moves it holds, "you"), rather than by its spec (registry.labels).
    `batched`: a batched strategy's Python function (strategies.batched): it decides for a batch of
    games at once, outside the kernels, and `dispatcher` only stands in for it there.
    """
    name: str
    dispatcher: object
    description: str = ""
    params: dict[str, float] = field(default_factory=dict)
    data: Callable | None = None
    file_param: str | None = None
    solo_placer: object = None
    table_decider: object = None
    reads_rules: frozenset | None = None
    label_of: Callable | None = None
    batched: object = None

    @property
    def fn(self):
        """The decision function, compiled for DECIDE_SIG (once per process, or loaded from the cache)."""
        return compiled_for(self.dispatcher, DECIDE_SIG)

    def played_fn(self, players: int):
        """(function, True if it names its placement: sim.players.PLAYER_PLACE) that games of
        `players` are played with, compiled (or loaded) now: each compiled only if played."""
        if players == 1 and self.solo_placer is not None:
            return compiled_for(self.solo_placer, DECIDE_SIG), True
        if players > 1 and self.table_decider is not None:
            return compiled_for(self.table_decider, DECIDE_SIG), False
        return self.fn, False

    def param_vector(self, overrides: dict[str, float]) -> np.ndarray:
        unknown = sorted(set(overrides) - set(self.params))
        if unknown:
            raise ValueError(f"strategy {self.name!r} " + unknown_params(unknown, self.params))
        return np.array([float(overrides.get(k, v)) for k, v in self.params.items()], np.float64)


def unknown_params(unknown, params) -> str:
    """"has no parameter X: did you mean Y?", or with no close name the parameters it has."""
    hint = did_you_mean(unknown[0], params) if len(unknown) == 1 else ""
    return f"has no parameter {', '.join(unknown)}" + (hint or f" (parameters: {', '.join(params) or 'none'})")


def cached_on_disk(f) -> bool:
    """Whether f's machine code can be kept on disk: when it is defined in a file.

    The cache of a file is keyed by that file and every file it imports (sim.numba_cache), so a
    user's strategy is loaded back in the next process, yet recompiled once it or a helper it
    imports changes. A function typed at a prompt or in a notebook has no file to key it by.
    """
    try:
        return cache_folder(inspect.getfile(f)) is not None
    except TypeError:
        return False


def strategy(fn=None, *, name: str | None = None, description: str | None = None, params=None, data=None,
             file_param=None, reads_rules=None):
    """Declare a strategy: `fn` is compiled with the decision signature when first played.

    Use as ``@strategy`` or ``@strategy(params={"joker_cost": 2.0})``. The
    first line of the docstring is its description.
    """
    def wrap(f):
        dispatcher = f if hasattr(f, "nopython_signatures") else njit(cache=cached_on_disk(f))(f)
        doc = (f.__doc__ or "").strip().splitlines()
        return Strategy(
            name=name or f.__name__,
            dispatcher=dispatcher,
            description=description if description is not None else (doc[0] if doc else ""),
            params=dict(params or {}),
            data=data,
            file_param=file_param,
            reads_rules=None if reads_rules is None else frozenset(reads_rules),
        )

    return wrap(fn) if fn is not None else wrap


# --- batched strategies --------------------------------------------------------------------

@dataclass(frozen=True)
class Batched:
    """What makes a Strategy batched: its Python function and its setup hook (or None)."""
    fn: Callable
    setup: Callable | None = None


# The line-up hands the game kernels a decision function for every slot. A batched slot is of
# kind PLAYER_EXTERNAL (sim.step), whose function the kernels never call: this one stands in.
@njit(cache=True)
def decided_outside(st, ps, bb, cands, n, tab, params, rng):
    """A batched strategy's stand-in in the game kernels (never called: its seat is external)."""
    return PASS


def batched(fn=None, *, name: str | None = None, description: str | None = None, params=None, setup=None):
    """Declare a batched strategy: ``fn(obs, **params) -> actions``, one action per row of obs.

    `obs` is a dict of arrays whose leading axis is the batch's games (the Gymnasium
    environments' observation, docs/agents.md), actions an integer array of shape (games,). Use as
    ``@batched`` or ``@batched(params={"w": 1.0}, setup=my_setup)``:

    - `params` (name -> default), as @strategy's: a spec ``file.py:fn:w=2`` sets them, `tune`
      searches them; they are passed as keyword arguments.
    - `setup(sheet, players, rules)` is called once per line-up before the first batch, and what
      it returns is passed after the observations, ``fn(obs, data, **params)``: what the
      function reads besides them, e.g. the sheet's placements (placement_table).

    The first line of the docstring is its description. The function must decide each game from
    its own row alone: games join a batch as the runner finds them ready, and a run's games are
    the same for any batch size and thread count only if no row's action depends on another's.
    """
    if setup is not None and not callable(setup):
        raise TypeError(f"setup must be a function setup(sheet, players, rules), got {setup!r:.60}")

    def wrap(f):
        if not callable(f) or isinstance(f, Strategy) or hasattr(f, "nopython_signatures"):
            raise TypeError(f"@batched decorates a plain Python function, got {f!r:.60}")
        doc = (f.__doc__ or "").strip().splitlines()
        return Strategy(
            name=name or f.__name__,
            dispatcher=decided_outside,
            description=description if description is not None else (doc[0] if doc else ""),
            params={k: float(v) for k, v in (params or {}).items()},
            batched=Batched(f, setup),
        )

    return wrap(fn) if fn is not None else wrap


def placement_table(sheet, rules=None) -> dict:
    """The placements of `sheet` (a Sheet or a built-in sheet's name) under `rules`: the action
    space's first K actions, in order, as arrays of K rows (docs/agents.md). What a batched
    strategy's setup reads to weigh its actions, and a policy's features are built from:

        boxes   int64 (K,)        the boxes it crosses (the number it needs)
        colour  int64 (K,)        0..4: green, yellow, blue, red, orange
        stars   int64 (K,)        its star boxes
        cells   int8 (K, 7, 15)   1 for each box it crosses, laid out as the observation's
                                  "crossed" (row 1..7, column A..O)
    """
    from sim.rules import parse_rules
    from sim.sheets import load_sheet
    from sim.tables import build_tables
    tab = build_tables(load_sheet(sheet), parse_rules(rules))
    bits = np.arange(64, dtype=np.uint64)
    words = ((tab.mask[:, :, None] >> bits) & np.uint64(1)).astype(np.int8)   # (K, 2, 64): bit 8 * col + row
    columns = words.reshape(len(tab.mask), 16, 8)[:, :15, :7]                   # (K, column, row)
    return {"boxes": tab.size.astype(np.int64), "colour": tab.colour.astype(np.int64),
            "stars": tab.stars.astype(np.int64), "cells": np.ascontiguousarray(columns.transpose(0, 2, 1))}
