"""encore-sim's commands, one function each: the layer under both front ends.

`cli.py` parses a command line, calls the function of its command and prints the result;
`encore_sim.py` calls the same function and turns its result into DataFrames. What a command
decides (its defaults, the checks that span several settings, the output folder a run gets, the
settings a resumed run keeps) is decided here, once, so that the two front ends cannot disagree.

Errors are SettingError (sim.errors) wherever they concern a setting: each front end names the
setting its own way (`--force` on the command line, `force=True` in Python).

A keyword whose default is a Default is a setting a resumed run keeps from its manifest when the
caller does not give it: the caller's value, even equal to the default, wins.
"""
from __future__ import annotations

import datetime as _dt
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import SettingError
from . import defaults as D


class Default:
    """A keyword's default, told apart from the same value given by the caller."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self) -> str:     # a signature shows the value, as for any default
        return repr(self.value)


def value(x):
    """x, or the value of a Default."""
    return x.value if isinstance(x, Default) else x


def default(fn, name: str):
    """The default of keyword `name` of command `fn` (for a front end's help and option defaults)."""
    return value(inspect.signature(fn).parameters[name].default)


def _trained(call, train: bool, threads, progress: bool, say):
    """call(), training the weights `learned` lacks first where `train` (sim.runs.training.ondemand);
    without it, the missing weights' error tells how to ask for that."""
    if train:
        from sim.runs.training.ondemand import with_training
        return with_training(call, threads=threads, progress=progress, say=say)
    try:
        return call()
    except ValueError as e:
        # Not imported up front: a command that plays no `learned` never loads it.
        learned = sys.modules.get("strategies.learned")
        if learned is not None and isinstance(e, learned.MissingWeights):
            raise SettingError(e.message(train="{train=True}")) from None
        raise


# --- run ------------------------------------------------------------------------------

@dataclass(frozen=True)
class RunResult:
    """What `run` made: the dataset's folder (or URL), its final manifest and settings."""
    out: object
    manifest: dict
    settings: object       # sim.runs.settings.Settings


def run_folder(out=None, resume: bool = False):
    """The dataset a run writes: `out` (a folder, or a filesystem URL as it is), else a new folder
    named by the time (sim.runs.defaults.RUN_FOLDER); a resumed run must name its own."""
    from .dataset import is_url
    if out is None:
        if resume:
            raise SettingError("{resume} needs {out}, the folder of the run to finish")
        return Path(_dt.datetime.now().strftime(D.RUN_FOLDER))
    return out if is_url(str(out)) else Path(out)


def run(out=None, *, games=Default(D.RUN_GAMES), players=Default(None), strategy=Default(D.RUN_STRATEGY),
        rotate=Default(D.ROTATE), sheet=Default(D.SHEET), seed=Default(D.SEED), chunk_size=Default(None),
        max_rolls=Default(D.MAX_ROLLS), log_turns=Default(False), rules=Default(None),
        threads: int | None = None, resume: bool = False, force: bool = False, progress: bool = False,
        unchecked: bool = False, scheduler: str | None = None, retries: int = 3, train: bool = False,
        command: str | None = None, say=None) -> RunResult:
    """Play `games` games into the dataset `out` [default: a new folder, sim.runs.defaults.RUN_FOLDER] and return
    what was made. `strategy`: one spec or a list, one per seat or one for every seat. With
    `resume`, a run in `out` is finished with its own settings: those not given here are its
    manifest's, those given must equal them. `command`: how the caller was called, recorded in
    the manifest. `train`: train the weights `learned` lacks first; `say(line)` announces it."""
    from . import runner
    from .dataset import MANIFEST, open_store
    from .manifest import stored_run_args
    from .settings import Settings

    if resume and force:
        raise SettingError("{resume} and {force} exclude each other")
    out = run_folder(out, resume)
    args = {"games": games, "players": players, "strategies": strategy, "rotate": rotate, "seed": seed,
            "chunk_size": chunk_size, "max_rolls": max_rolls, "log_turns": log_turns, "sheet": sheet,
            "rules": rules}
    if resume and open_store(out).is_file(MANIFEST):
        stored = stored_run_args(out)
        args = {k: stored[k] if isinstance(v, Default) else v for k, v in args.items()}
    args = {k: value(v) for k, v in args.items()}
    if isinstance(args["strategies"], str):
        args["strategies"] = [args["strategies"]]

    def play():
        settings = Settings.of(**args, threads=runner.task_threads(threads, scheduler), checked=not unchecked)
        manifest = runner.run(out, settings=settings, resume=resume, force=force, progress=progress,
                              command=command, scheduler=scheduler, retries=retries)
        return RunResult(out, manifest, settings)

    return _trained(play, train, threads, progress, say)


# --- compare and compare-rules -------------------------------------------------------------

def compare(*strategies, players: int = 1, opponents=None, games: int | None = None, until_ci: float | None = None,
            max_games: int | None = None, seed=D.SEED, sheet=D.SHEET, max_rolls: int = D.MAX_ROLLS,
            threads: int | None = None, chunk_size: int | None = None, progress: bool = False,
            unchecked: bool = False, rules=None, train: bool = False, say=None):
    """The candidates (the first is the baseline) on the same games, paired: sim.runs.compare's
    Comparison. `games` [default: sim.runs.defaults.COMPARE_GAMES] or `until_ci` (at most
    `max_games`); `opponents`: one spec for every opponent seat, or one per opponent seat."""
    from .compare import compare as play
    return _trained(lambda: play(list(strategies), players=players, opponents=opponents, games=games, seed=seed,
                                 until_ci=until_ci, max_games=max_games, chunk_size=chunk_size, sheet=sheet,
                                 max_rolls=max_rolls, threads=threads, progress=progress, checked=not unchecked,
                                 rules=rules), train, threads, progress, say)


def compare_rules(*rules, strategy=D.RUN_STRATEGY, players: int | None = None, rotate: bool = D.ROTATE,
                  games: int | None = None, until_ci: float | None = None, max_games: int | None = None,
                  seed=D.SEED, sheet=D.SHEET, max_rolls: int = D.MAX_ROLLS, threads: int | None = None,
                  chunk_size: int | None = None, progress: bool = False, unchecked: bool = False,
                  check_adaptation: bool = True, train: bool = False, say=None):
    """The line-up `strategy` (one spec, or one per seat) on the same games under each rule set
    (the first is A; one alone is compared with the rulebook): sim.runs.rulescompare's
    RulesComparison."""
    from .rulescompare import compare_rules as play
    strategies = [strategy] if isinstance(strategy, str) else list(strategy)
    return _trained(lambda: play(strategies, list(rules), games=games, players=players, seed=seed, sheet=sheet,
                                 rotate=rotate, max_rolls=max_rolls, threads=threads, chunk_size=chunk_size,
                                 until_ci=until_ci, max_games=max_games, progress=progress, checked=not unchecked,
                                 check_adaptation=check_adaptation), train, threads, progress, say)
