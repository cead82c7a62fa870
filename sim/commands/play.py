"""The commands of your game against the bots: `play` (the page, served from 127.0.0.1) and `game`
(the same game stepped from Python)."""
from __future__ import annotations

import datetime as _dt
import sys
from pathlib import Path

from ..errors import SettingError
from ..runs import defaults as D
from .base import Default, value


# --- play -------------------------------------------------------------------------------------

def play(*, players=Default(D.PLAY_PLAYERS), opponents=Default(None), level=Default(None), seed=Default(None),
         game=Default(D.PLAY_GAME), sheet=Default(D.SHEET), rules=Default(None), max_rolls=Default(D.MAX_ROLLS),
         out=None, resume=None,
         coach: float | None = None, port: int | None = None, browser: bool = True, say=print,
         note=None) -> None:
    """Play a game against the bots on a page in the browser, served from 127.0.0.1 until Ctrl-C
    (sim.play.server): you are seat 0 of `players`, against `opponents` (one spec for every
    other seat, or one per seat) or bots of `level`; `seed` None: a fresh one. The game is kept in
    `out` [default: sim.runs.defaults.PLAY_FOLDER] after every move; `resume` continues the game
    of such a folder, with its own settings. `coach`: the loss in points above which the page's
    coach speaks (None: it starts off). say(url) prints the page's address, note(line) how to resume."""
    note = note or (lambda line: print(line, file=sys.stderr))
    from ..play.game import Game, resume as resume_game
    from ..play.server import listen, serve
    from ..play.session import PlaySession

    if resume is not None:
        given = [name for name, v in (("players", players), ("opponents", opponents), ("level", level),
                                      ("seed", seed), ("game", game), ("sheet", sheet), ("rules", rules),
                                      ("max_rolls", max_rolls))
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
                     game=value(game), sheet=value(sheet), rules=value(rules), max_rolls=value(max_rolls))
            session = PlaySession.start(g, folder, analyse=_game_analysis, coach=coach)
    except BaseException:
        sock.close()
        raise
    serve(session, sock, browser=browser, say=say,
          tell=lambda: note(f"Your game is kept in {session.folder} after every move: stop with Ctrl-C, continue "
                            f"with encore-sim play --resume {session.folder}"))


def _game_analysis(folder) -> dict:
    """The finished game's analysis for the play page (imported when a game ends, not before)."""
    from sim.play.analysis import game_analysis
    return game_analysis(folder)


# --- your game, from Python -------------------------------------------------------------------

def game(*, players: int = D.PLAY_PLAYERS, opponents=None, level=None, seed: int | None = None,
         game: int = D.PLAY_GAME, sheet=D.SHEET, rules=None, max_rolls: int = D.MAX_ROLLS, out=None):
    """Your game against the bots, stepped from Python (sim.play.game.Game): you are seat 0 of
    `players`, against `opponents` (one spec for every other seat, or one per seat; default
    learned) or bots of `level` (strategies.levels); `seed` None: a fresh one. `out`: a folder
    the game is saved in after every move (as `play` keeps it). ValueError (one line) for bad settings."""
    from ..play.game import Game
    return Game(players=players, opponents=opponents, seed=seed, game=game, sheet=sheet, rules=rules, level=level,
                max_rolls=max_rolls, folder=out)
