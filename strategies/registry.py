"""Turning a strategy spec from the command line into a decision function.

Specs:  NAME[:key=value,...]                 a built-in strategy
        path/to/file.py:function[:key=value,...]   a user's file
        package.module:function[:key=value,...]    an importable module
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import math
import os
import re
import sys
import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba.core.errors import NumbaError

from sim.guard import bounds_checked

from .builtin import BUILTIN
from .interface import Strategy, strategy

REGISTRY: dict[str, Strategy] = {s.name: s for s in BUILTIN}


@dataclass(frozen=True)
class Resolved:
    spec: str          # canonical spec, e.g. "heuristic:joker_cost=2.5"
    strategy: Strategy
    params: np.ndarray
    file: str | None = None   # the absolute path of the file the spec names: a user's strategy, or its data

    def data(self, sheet, players: int) -> np.ndarray | None:
        """What the strategy reads after its parameters on `sheet` at a game of `players`
        (Strategy.data), or None."""
        if self.strategy.data is None:
            return None
        return self.strategy.data(sheet, self.file, players)

    @property
    def fn(self):
        return self.strategy.fn


def _parse_params(text: str, spec: str, file_param: str | None = None) -> tuple[dict[str, float], str | None]:
    """(numeric parameters, the value of `file_param`, a path, or None)."""
    out, path = {}, None
    for item in filter(None, text.split(",")):
        key, eq, value = item.partition("=")
        key = key.strip()
        if key == file_param and file_param is not None:
            if not value.strip() or path is not None:
                raise ValueError(f"bad parameter {item!r} in strategy {spec!r}: expected {key}=PATH, once")
            path = value.strip()
            continue
        try:
            if not eq:
                raise ValueError
            number = float(value)
        except ValueError:
            raise ValueError(f"bad parameter {item!r} in strategy {spec!r}: expected key=number") from None
        if not math.isfinite(number):
            raise ValueError(f"bad parameter {item!r} in strategy {spec!r}: the value must be a finite number")
        if key in out:
            raise ValueError(f"parameter {key!r} given twice in strategy {spec!r}")
        out[key] = number
    return out, path


def _load_user(target: str, func: str, spec: str, file: str | None) -> tuple[Strategy, str | None]:
    """(the strategy, the absolute path of its file, None for a module); `file` overrides target's path."""
    name = f"{target}:{func}"
    path = None
    if target.endswith(".py"):
        path = Path(file or target)
        if not path.is_file():
            raise ValueError(f"strategy {spec!r}: no such file {path}")
        path = path.resolve()
        # A function the file itself caches on disk (cache=True) is loaded back under this module
        # name: it must be the same in every process (str hashes are salted per process).
        digest = hashlib.sha256(str(path).encode()).hexdigest()[:16]
        mod_name = f"encore_user_{path.stem}_{digest}"
        loader = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(loader)
        sys.modules[mod_name] = module
        try:
            loader.loader.exec_module(module)
        except Exception as e:
            raise ValueError(f"strategy {spec!r}: cannot load {path}: {type(e).__name__}: {e}") from None
    else:
        try:
            module = importlib.import_module(target)
        except Exception as e:
            raise ValueError(f"strategy {spec!r}: cannot import module {target}: {e}") from None
    where = str(path) if path else target
    obj = getattr(module, func, None)
    if obj is None:
        raise ValueError(f"strategy {spec!r}: {where} has no function {func!r}")
    if not isinstance(obj, Strategy):
        if not callable(obj):
            raise ValueError(f"strategy {spec!r}: {func!r} is not a function")
        obj = strategy(obj, name=name)
    return obj, (str(path) if path else None)


class StrategyCompileError(ValueError):
    """A strategy that does not compile. The first line of the message names it and gives
    the gist of Numba's complaint and where; the lines after it are Numba's message."""


_NUMBA_FRAME = re.compile(r'^File "(.+)", line (\d+)')


def _gist(message: str) -> str:
    """Numba's reason and the first place it points at, on one line."""
    lines = [line.strip() for line in message.splitlines()]
    at = next((i for i, line in enumerate(lines) if line and not line.startswith(("Failed in", "During:", "File "))),
              None)
    reason = lines[at] if at is not None else ""
    if reason.endswith("found for signature:"):   # the signature is on the next line that has text
        reason += " " + next((line for line in lines[at + 1:] if line), "").lstrip("> ")
    where = next((m for m in map(_NUMBA_FRAME.match, lines) if m), None)
    # Numba writes the path relative to the working directory.
    return reason + (f" ({os.path.abspath(where[1])}, line {where[2]})" if where else "")


def _compiled(strat: Strategy, spec: str) -> Strategy:
    """strat, compiled for the decision signature; Numba's message if it does not compile."""
    try:
        strat.fn
    except Exception as e:
        msg = str(e).strip()
        if not isinstance(e, NumbaError):   # not the strategy's code: say what failed, as it is
            raise StrategyCompileError(f"strategy {spec!r} could not be compiled: {type(e).__name__}: "
                                       f"{msg}") from None
        raise StrategyCompileError(f"strategy {spec!r} does not compile with the decision signature: "
                                   f"{_gist(msg)}\n" + "\n".join(msg.splitlines()[:30])) from None
    return strat


def resolve(spec, file: str | None = None, checked: bool = True) -> Resolved:
    """A Resolved strategy from a spec string (a Strategy or Resolved object is used as is).

    A user file in the spec is found relative to the working directory, unless `file` says
    where it is: a stored run names the file it was started with (sim.runs.manifest.manifest_files),
    so it can be resumed or replayed from anywhere. A user's function is compiled with Numba's
    bounds checking (sim.guard.bounds_checked) unless `checked` is false.
    """
    if isinstance(spec, Resolved):
        return spec
    if isinstance(spec, Strategy):
        return Resolved(spec.name, _compiled(spec, spec.name), spec.param_vector({}))
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a strategy spec must be a non-empty string, got {spec!r}")
    spec = spec.strip().rstrip(":")
    head, _, rest = spec.partition(":")
    if head in REGISTRY:
        strat = REGISTRY[head]
        params, path = _parse_params(rest, spec, strat.file_param)
        if path is None:
            file = None
        else:
            # A stored run names the file it was started with (`file`); the spec's path is
            # relative to where that was.
            file = Path(file or path)
            if not file.is_file():
                raise ValueError(f"strategy {spec!r}: no such file {file}")
            file = str(file.resolve())
    else:
        if not rest:
            known = ", ".join(REGISTRY)
            raise ValueError(f"unknown strategy {spec!r}: built-in strategies are {known}; "
                             "a user strategy is path/to/file.py:function or package.module:function")
        func, _, ptext = rest.partition(":")
        strat, file = _load_user(head, func, spec, file)
        if checked:
            strat = dataclasses.replace(strat, dispatcher=bounds_checked(strat.dispatcher))
        params, _ = _parse_params(ptext, spec)
    vector = strat.param_vector(params)
    return Resolved(spec, _compiled(strat, spec), vector, file)
