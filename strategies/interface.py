"""The strategy interface: how a decision function is declared, named and parametrised.

A strategy is a Numba function with the signature sim.state.DECIDE_SIG:

    choose(st, ps, bb, cands, n_cands, tables, params, rng) -> int

called once per decision with the legal choices already enumerated in
cands[:n_cands]; it returns a row index of cands, or -1 to pass. `params` holds
its parameters in the order they were declared, `rng` its private random
stream (see sim.rng.below / sim.rng.uniform). docs/strategies.md has the full
guide and an example.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from sim.nbinternals import compiled_for
from sim.numba_cache import cache_folder
from sim.state import DECIDE_SIG
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
