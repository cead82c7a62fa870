"""Turning a strategy spec from the command line into a decision function.

Specs:  NAME[:key=value,...]                 a built-in strategy
        path/to/file.py:function[:key=value,...]   a user's file
        package.module:function[:key=value,...]    an importable module
"""
from __future__ import annotations

import hashlib
import importlib
import inspect
import importlib.util
import math
import os
import re
import sys
import dataclasses
import dis
import types as types_
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import types
from numba.core.errors import NumbaError

from sim.guard import bounds_checked, misspelt_hint, shown_path
from sim.nbinternals import JIT_DISABLED, USER_MODULE_PREFIX
from sim.rules import RULEBOOK
from sim.state import DECIDE_SIG
from sim.tables import Tables
from sim.suggest import did_you_mean

from .builtin import BUILTIN
from .interface import Strategy, strategy

REGISTRY: dict[str, Strategy] = {s.name: s for s in BUILTIN}


@dataclass(frozen=True)
class Resolved:
    spec: str          # canonical spec, e.g. "heuristic:joker_cost=2.5"
    strategy: Strategy
    params: np.ndarray
    file: str | None = None   # the absolute path of the file the spec names: a user's strategy, or its data

    def data(self, sheet, players: int, rules=RULEBOOK) -> np.ndarray | None:
        """What the strategy reads after its parameters on `sheet` at a game of `players` under
        `rules` (Strategy.data; a data function without a `rules` parameter is for every rules), or None."""
        if self.strategy.data is None:
            return None
        if "rules" in inspect.signature(self.strategy.data).parameters:
            return self.strategy.data(sheet, self.file, players, rules=rules)
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


#: Users' strategies this process has loaded: (file or module, sha256 of the file, function) -> (the
#: strategy, its file). A spec naming one again (tune plays hundreds of specs of one file) reuses it,
#: compiled, until its file changes.
_LOADED: dict[tuple, tuple[Strategy, str | None]] = {}
#: ... and as played: (that key, checked) -> the strategy compiled with bounds checking, or as declared.
_PLAYED: dict[tuple, Strategy] = {}


def _load_user(target: str, func: str, spec: str, file: str | None) -> tuple[Strategy, str | None, tuple]:
    """(the strategy, the absolute path of its file, None for a module, the key it is kept under in
    this process); `file` overrides target's path."""
    name = f"{target}:{func}"
    path = None
    if target.endswith(".py"):
        path = Path(file or target)
        if not path.is_file():
            raise ValueError(f"strategy {spec!r}: no such file {path}")
        path = path.resolve()
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        key = (str(path), sha, func)
        if key in _LOADED:
            return (*_LOADED[key], key)
        # A function compiled from the file is cached on disk under a key of its content, not its
        # path (sim.numba_cache), and loaded back under the name of the module it was compiled in:
        # so the name must follow the content too (a copy elsewhere shares the cache), and be the
        # same in every process (str hashes are salted per process).
        mod_name = f"{USER_MODULE_PREFIX}{path.stem}_{sha[:16]}"
        loader = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(loader)
        sys.modules[mod_name] = module
        # As Python runs a script: its folder first on the import path, so that it imports the
        # modules beside it (a network's definition, a helper), whatever the working directory.
        sys.path.insert(0, str(path.parent))
        try:
            loader.loader.exec_module(module)
        except Exception as e:
            raise ValueError(f"strategy {spec!r}: cannot load {path}: {type(e).__name__}: {e}") from None
        finally:
            sys.path.remove(str(path.parent))
    else:
        key = (target, None, func)
        if key in _LOADED:
            return (*_LOADED[key], key)
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
    _LOADED[key] = obj, (str(path) if path else None)
    return obj, (str(path) if path else None), key


def _as_played(strat: Strategy, key: tuple, checked: bool) -> Strategy:
    """strat as a run plays it: compiled with bounds checking (sim.guard.bounds_checked), or as
    declared; once per process and version of its file."""
    if (key, checked) not in _PLAYED:
        # A batched strategy's dispatcher only stands in for it in the kernels: nothing to check.
        _PLAYED[key, checked] = dataclasses.replace(strat, dispatcher=bounds_checked(strat.dispatcher)) \
            if checked and strat.batched is None else strat
    return _PLAYED[key, checked]


class StrategyCompileError(ValueError):
    """A strategy that does not compile. The first line of the message names it and gives
    the gist of Numba's complaint and where; the lines after it are Numba's message."""


_NUMBA_FRAME = re.compile(r'^File "(.+)", line (\d+)')
_TABLES_FIELD = re.compile(r"^Unknown attribute '(\w+)' of type [\w.]*KernelTablesType\(")
#: The longest first line of a compile error, and the longest group of a type it keeps whole.
FIRST_LINE = 200
_GROUP = 80


def _short_types(text: str) -> str:
    """text with each bracketed group longer than _GROUP characters cut to its brackets:
    `KernelTablesType(mask=..., 1,500 characters)` is `KernelTablesType(...)`."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            if depth == 0:
                start = i
            depth += 1
        elif ch in ")]}" and depth:
            depth -= 1
            if depth == 0:
                group = text[start:i + 1]
                out.append(group if len(group) <= _GROUP else group[0] + "..." + group[-1])
            continue
        if depth == 0:
            out.append(ch)
    return "".join(out) + (text[start:] if depth else "")


def _gist(message: str) -> tuple[str, str]:
    """(Numba's reason on one line, its types cut short; "file:line" of the first place it points at, or "")."""
    lines = [line.strip() for line in message.splitlines()]
    at = next((i for i, line in enumerate(lines) if line and not line.startswith(("Failed in", "During:", "File "))),
              None)
    reason = lines[at] if at is not None else ""
    if reason.endswith("found for signature:"):   # the signature is on the next line that has text
        reason += " " + next((line for line in lines[at + 1:] if line), "").lstrip("> ")
    field = _TABLES_FIELD.match(reason)
    if field:   # tab.star for tab.stars
        reason += did_you_mean(field[1], Tables._fields)
    where = next((m for m in map(_NUMBA_FRAME.match, lines) if m), None)
    # Numba writes the path relative to the working directory.
    return _short_types(reason), (f"{shown_path(os.path.abspath(where[1]))}:{where[2]}" if where else "")


_UNDEFINED = re.compile(r"NameError: name '(\w+)' is not defined")


def _reads(py_func, name: str, attribute: bool) -> str:
    """"file:line" of the first place py_func (or a function defined in it) reads `name`, as an
    attribute (kit.name) or as a global; "" if it does not."""
    ops = ("LOAD_ATTR", "LOAD_METHOD") if attribute else ("LOAD_GLOBAL", "LOAD_NAME")
    codes = [py_func.__code__]
    while codes:
        code = codes.pop(0)
        for ins in dis.get_instructions(code):
            if ins.opname in ops and ins.argval == name and ins.positions and ins.positions.lineno:
                return f"{shown_path(code.co_filename)}:{ins.positions.lineno}"
        codes += [c for c in code.co_consts if isinstance(c, types_.CodeType)]
    return ""


def _compiled(strat: Strategy, spec: str, user: bool = False) -> Strategy:
    """strat, compiled for the decision signature; Numba's message if it does not compile.

    A user's function is compiled for the signature's arguments and its return type checked: cast
    to the signature's int64, a float (`n / 2`) would play a truncated index without a word."""
    # Plain Python compiles nothing (sim.guard names a float it returns); a batched strategy is
    # Python, its shape and actions checked as it plays (sim.batched).
    user = user and not JIT_DISABLED and strat.batched is None
    try:
        if user:
            strat.dispatcher.compile(DECIDE_SIG.args)
    except Exception as e:
        msg = str(e).strip()
        py_func = getattr(strat.dispatcher, "py_func", None)
        if isinstance(e, AttributeError) and getattr(e, "obj", None) is not None and py_func is not None:
            # A misspelt helper (kit.colour_crosed): Numba looks it up as it reads the code, and
            # lets Python's error through without a line.
            reason = f"AttributeError: {msg}{misspelt_hint(e, {})}"
            where = _reads(py_func, e.name, attribute=True)
            msg = ""    # the first line says it all
        elif not isinstance(e, NumbaError):   # not the strategy's code: say what failed, as it is
            raise StrategyCompileError(f"strategy {spec!r} could not be compiled: {type(e).__name__}: "
                                       f"{msg}") from None
        else:
            reason, where = _gist(msg)
            undefined = _UNDEFINED.search(reason)
            if undefined and py_func is not None:   # Numba names no line for an undefined name
                where = where or _reads(py_func, undefined[1], attribute=False)
                reason += misspelt_hint(NameError(name=undefined[1]), py_func.__globals__)
        # Named without its folders when the line says where (it leads, with the file's path).
        name = spec
        if where and user:
            head, _, rest = spec.partition(":")
            name = f"{Path(head).name}:{rest}"
        room = FIRST_LINE - len("Error: ")   # as the command line prints it
        first = (f"{where}: " if where else "") + f"strategy {name!r} does not compile: {reason}"
        if len(first) > room and where:   # the file's name alone: its path is in the message below
            first = f"{Path(where).name}: strategy {name!r} does not compile: {reason}"
        if len(first) > room:
            first = first[:room - 3] + "..."
        raise StrategyCompileError(first + ("\n" + msg if msg else "")) from None
    if user:
        returns = strat.dispatcher.overloads[DECIDE_SIG.args].signature.return_type
        if not isinstance(returns, types.Integer):
            raise StrategyCompileError(
                f"strategy {spec!r} returns {returns}, not an integer: it must return the index of its choice "
                "(0 <= i < n) or -1 to pass")
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
        hint = "" if "." in head else did_you_mean(head, REGISTRY)   # not for file.py or package.module
        unknown = ValueError(f"unknown strategy {spec!r}" + (hint or (
            f": built-in strategies are {', '.join(REGISTRY)}; "
            "a user strategy is path/to/file.py:function or package.module:function")))
        if not rest:
            raise unknown
        func, _, ptext = rest.partition(":")
        try:
            strat, file, key = _load_user(head, func, spec, file)
        except ValueError:
            if hint and importlib.util.find_spec(head) is None:   # heuristc:solo_joker=1
                raise unknown from None
            raise
        strat = _as_played(strat, key, checked)
        params, _ = _parse_params(ptext, spec)
    vector = strat.param_vector(params)
    return Resolved(spec, _compiled(strat, spec, user=head not in REGISTRY), vector, file)


# --- labels ----------------------------------------------------------------------------------

def _label_forms(r: Resolved) -> list[str]:
    """The labels of a resolved strategy, shortest first: a built-in's spec; a user's `@strategy`
    name, then file.py:function with 0, 1, 2, ... of its folders; its full spec last. Each keeps
    the spec's parameters."""
    head, _, rest = r.spec.partition(":")
    if head in REGISTRY:
        named = r.strategy.label_of(r.file) if r.strategy.label_of is not None and r.file else None
        return [named, r.spec] if named and named != r.spec else [r.spec]
    func, _, ptext = rest.partition(":")
    tail = f":{ptext}" if ptext else ""
    forms = []
    py_func = getattr(r.strategy.dispatcher, "py_func", None)
    if r.strategy.name not in (func, f"{head}:{func}", getattr(py_func, "__name__", None)):
        forms.append(r.strategy.name + tail)   # named by its author: @strategy(name=...)
    if head.endswith(".py"):
        parts = Path(head).parts
        forms += [f"{Path(*parts[-k:]).as_posix()}:{func}{tail}" for k in range(1, len(parts) + 1)]
    forms.append(r.spec)
    return list(dict.fromkeys(forms))


def _identity(r: Resolved) -> tuple:
    """What tells two strategies apart: its file (or spec head), function and parameters."""
    head, _, rest = r.spec.partition(":")
    func = "" if head in REGISTRY else rest.partition(":")[0]
    return (r.file or head, func, tuple(np.asarray(r.params).tolist()))


def labels(resolved) -> list[str]:
    """How summaries, datasets and reports name each of `resolved` (Resolved strategies): a built-in
    by its spec, a user's strategy by its @strategy name, else file.py:function without its
    folders, parameters kept. Different strategies that would share a label get longer ones
    (more of their folders, at last their full specs); the same strategy named twice, one."""
    forms = [_label_forms(r) for r in resolved]
    ids = [_identity(r) for r in resolved]
    level = [0] * len(resolved)
    while True:
        owners: dict[str, set] = {}
        for f, i, lv in zip(forms, ids, level):
            owners.setdefault(f[min(lv, len(f) - 1)], set()).add(i)
        shared = {name for name, who in owners.items() if len(who) > 1}
        if not shared:
            return [f[min(lv, len(f) - 1)] for f, lv in zip(forms, level)]
        moved = False
        for k, (f, lv) in enumerate(zip(forms, level)):
            if f[min(lv, len(f) - 1)] in shared and lv < len(f) - 1:
                level[k] += 1
                moved = True
        if not moved:   # two specs that are the same text yet different strategies: cannot happen
            return [r.spec for r in resolved]
