"""Turning a strategy spec from the command line into a decision function.

Specs:  NAME[:key=value,...]                 a built-in strategy
        path/to/file.py:function[:key=value,...]   a user's file
        package.module:function[:key=value,...]    an importable module
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .builtin import BUILTIN
from .interface import Strategy, strategy

REGISTRY: dict[str, Strategy] = {s.name: s for s in BUILTIN}


@dataclass(frozen=True)
class Resolved:
    spec: str          # canonical spec, e.g. "heuristic:joker_cost=2.5"
    strategy: Strategy
    params: np.ndarray

    @property
    def fn(self):
        return self.strategy.fn


def _parse_params(text: str, spec: str) -> dict[str, float]:
    out = {}
    for item in filter(None, text.split(",")):
        key, eq, value = item.partition("=")
        try:
            if not eq:
                raise ValueError
            out[key.strip()] = float(value)
        except ValueError:
            raise ValueError(f"bad parameter {item!r} in strategy {spec!r}: expected key=number") from None
    return out


def _load_user(target: str, func: str, spec: str) -> Strategy:
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise ValueError(f"strategy {spec!r}: no such file {target}")
        # Numba's cache of the compiled function records this name and imports it on
        # loading: it must be the same in every process (str hashes are salted per process).
        digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
        mod_name = f"encore_user_{path.stem}_{digest}"
        loader = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(loader)
        sys.modules[mod_name] = module
        try:
            loader.loader.exec_module(module)
        except Exception as e:
            raise ValueError(f"strategy {spec!r}: cannot load {target}: {type(e).__name__}: {e}") from None
    else:
        try:
            module = importlib.import_module(target)
        except Exception as e:
            raise ValueError(f"strategy {spec!r}: cannot import module {target}: {e}") from None
    obj = getattr(module, func, None)
    if obj is None:
        raise ValueError(f"strategy {spec!r}: {target} has no function {func!r}")
    if isinstance(obj, Strategy):
        return obj
    if not callable(obj):
        raise ValueError(f"strategy {spec!r}: {func!r} is not a function")
    return strategy(obj, name=f"{target}:{func}")


class StrategyCompileError(ValueError):
    """A strategy that does not compile. The first line of the message names it and gives
    the gist of Numba's complaint and where; the lines after it are Numba's message."""


_NUMBA_FRAME = re.compile(r'^File "(.+)", line (\d+)')


def _gist(message: str) -> str:
    """Numba's reason and the first place it points at, on one line."""
    lines = [line.strip() for line in message.splitlines()]
    reason = next((line for line in lines if line and not line.startswith(("Failed in", "During:", "File "))),
                  "")
    where = next((m for m in map(_NUMBA_FRAME.match, lines) if m), None)
    # Numba writes the path relative to the working directory.
    return reason + (f" ({os.path.abspath(where[1])}, line {where[2]})" if where else "")


def _compiled(strat: Strategy, spec: str) -> Strategy:
    """strat, compiled for the decision signature; Numba's message if it does not compile."""
    try:
        strat.fn
    except Exception as e:  # Numba's typing/lowering errors
        msg = str(e).strip()
        raise StrategyCompileError(f"strategy {spec!r} does not compile with the decision signature: "
                                   f"{_gist(msg)}\n" + "\n".join(msg.splitlines()[:30])) from None
    return strat


def resolve(spec) -> Resolved:
    """A Resolved strategy from a spec string (or a Strategy object, used as is)."""
    if isinstance(spec, Strategy):
        return Resolved(spec.name, _compiled(spec, spec.name), spec.param_vector({}))
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a strategy spec must be a non-empty string, got {spec!r}")
    spec = spec.strip()
    head, _, rest = spec.partition(":")
    if head in REGISTRY:
        strat = REGISTRY[head]
        params = _parse_params(rest, spec)
    else:
        if not rest:
            known = ", ".join(REGISTRY)
            raise ValueError(f"unknown strategy {spec!r}: built-in strategies are {known}; "
                             "a user strategy is path/to/file.py:function or package.module:function")
        func, _, ptext = rest.partition(":")
        strat = _load_user(head, func, spec)
        params = _parse_params(ptext, spec)
    vector = strat.param_vector(params)
    return Resolved(spec, _compiled(strat, spec), vector)
