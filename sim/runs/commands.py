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
    """call(), training the weights `learned` lacks first where `train` (strategies.training.ondemand);
    without it, the missing weights' error tells how to ask for that."""
    if train:
        from strategies.training.ondemand import with_training
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


# --- play -------------------------------------------------------------------------------------

def play(*, players=Default(D.PLAY_PLAYERS), opponents=Default(None), level=Default(None), seed=Default(None),
         game=Default(0), sheet=Default(D.SHEET), rules=Default(None), out=None, resume=None,
         coach: float | None = None, port: int | None = None, browser: bool = True, say=print,
         note=None) -> None:
    """Play a game against the bots on a page in the browser, served from 127.0.0.1 until Ctrl-C
    (sim.runs.playserver): you are seat 0 of `players`, against `opponents` (one spec for every
    other seat, or one per seat) or bots of `level`; `seed` None: a fresh one. The game is kept in
    `out` [default: sim.runs.defaults.PLAY_FOLDER] after every move; `resume` continues the game
    of such a folder, with its own settings. `coach`: the loss in points above which the page's
    coach speaks (None: it starts off). say(url) prints the page's address, note(line) how to resume."""
    note = note or (lambda line: print(line, file=sys.stderr))
    from .playgame import Game, resume as resume_game
    from .playserver import listen, serve
    from .playsession import PlaySession

    if resume is not None:
        given = [name for name, v in (("players", players), ("opponents", opponents), ("level", level),
                                      ("seed", seed), ("game", game), ("sheet", sheet), ("rules", rules))
                 if not isinstance(v, Default)] + (["out"] if out is not None else [])
        if given:
            raise SettingError("{resume} continues a game with its own settings: leave out "
                               + ", ".join("{" + g + "}" for g in given))
    elif not isinstance(opponents, Default) and not isinstance(level, Default):
        raise SettingError("{opponents} and {level} exclude each other: bots of a level, or the strategies named")
    sock = listen(port)     # before the game: a port in use is refused before a game folder is made
    try:
        if resume is not None:
            session = PlaySession.resume(Path(resume), resume_game, analyse=_game_analysis, coach=coach)
        else:
            folder = Path(out) if out is not None else Path(_dt.datetime.now().strftime(D.PLAY_FOLDER))
            PlaySession.check_new(folder)
            g = Game(players=value(players), opponents=value(opponents), level=value(level), seed=value(seed),
                     game=value(game), sheet=value(sheet), rules=value(rules))
            session = PlaySession.start(g, folder, analyse=_game_analysis, coach=coach)
    except BaseException:
        sock.close()
        raise
    serve(session, sock, browser=browser, say=say,
          tell=lambda: note(f"Your game is kept in {session.folder} after every move: stop with Ctrl-C, continue "
                            f"with encore-sim play --resume {session.folder}"))


def _game_analysis(folder) -> dict:
    """The finished game's analysis for the play page (imported when a game ends, not before)."""
    from strategies.research.playanalysis import game_analysis
    return game_analysis(folder)


# --- your game, from Python -------------------------------------------------------------------

def game(*, players: int = D.PLAY_PLAYERS, opponents=None, level=None, seed: int | None = None, game: int = 0,
         sheet=D.SHEET, rules=None, max_rolls: int = D.MAX_ROLLS, folder=None):
    """Your game against the bots, stepped from Python (sim.runs.playgame.Game): you are seat 0 of
    `players`, against `opponents` (one spec for every other seat, or one per seat; default
    learned) or bots of `level` (strategies.levels); `seed` None: a fresh one. `folder`: saved
    there after every move. ValueError (one line) for bad settings."""
    from .playgame import Game
    return Game(players=players, opponents=opponents, seed=seed, game=game, sheet=sheet, rules=rules, level=level,
                max_rolls=max_rolls, folder=folder)
