"""The commands of your game against the bots: `play` (the page, served from 127.0.0.1) and `game`
(the same game stepped from Python)."""
from __future__ import annotations

import datetime as _dt
import secrets
import sys
from pathlib import Path

from ..errors import SettingError
from ..runs import defaults as D
from .base import Default, value


# --- play -------------------------------------------------------------------------------------

def play(*, players=Default(D.PLAY_PLAYERS), opponents=Default(None), level=Default(None), seed=Default(None),
         game=Default(D.PLAY_GAME), sheet=Default(D.SHEET), rules=Default(None), max_rolls=Default(D.MAX_ROLLS),
         out=None, resume=None, review=None, people=Default(None), names=Default(None),
         coach: float | None = None, practice: bool = False, port: int | None = None, browser: bool = True,
         say=print, note=None) -> None:
    """Play a game against the bots on a page in the browser, served from 127.0.0.1 until Ctrl-C
    (sim.play.server): you are seat 0 of `players`, against `opponents` (one spec for every
    other seat, or one per seat) or bots of `level`; `seed` None: a fresh one. The game is kept in
    `out` [default: sim.runs.defaults.PLAY_FOLDER] after every move; `resume` continues the game
    of such a folder, with its own settings. `people` (2..6) or `names` (a list, or one text
    "Anna,Ben"): several people at one screen, seats 0..people-1, the bots after them (players
    [default: the most of PLAY_PLAYERS and the people, or the people and one seat per opponent
    given]); the page hands over between them. `coach`: the loss in points above which the page's
    coach speaks (None: it starts off). `practice`: take-backs allowed from the start. `review`: a finished
    game's folder, opened on its analysis to step through it roll by roll. say(url) prints the page's address, note(line) how to resume."""
    note = note or (lambda line: print(line, file=sys.stderr))
    if review is not None:
        if resume is not None:
            raise SettingError("{review} and {resume} exclude each other: a finished game, or one to continue")
        if not (Path(review) / "manifest.json").is_file():
            raise SettingError(f"{review} holds no finished game of `play` to {{review}}: continue it with {{resume}}")
        resume = review
    # Only what answers at once is imported here: the game's kernels compile in the background
    # (sim.play.session.Starting) while the page, already served, says what it prepares.
    from ..play.server import listen, serve
    from ..play.session import STATE_FILE, PlaySession, Starting, compile_ahead, wait_for

    many = 0
    if resume is not None:
        given = [name for name, v in (("players", players), ("opponents", opponents), ("level", level),
                                      ("seed", seed), ("game", game), ("sheet", sheet), ("rules", rules),
                                      ("max_rolls", max_rolls), ("people", people), ("names", names))
                 if not isinstance(v, Default)] + (["out"] if out is not None else [])
        if given:
            raise SettingError("{resume} continues a game with its own settings: leave out "
                               + ", ".join("{" + g + "}" for g in given))
        folder = Path(resume)
        if not (folder / STATE_FILE).is_file():
            raise SettingError(f"{folder} holds no game of `play` to {{resume}} (no {STATE_FILE} in it)")
    else:
        if not isinstance(opponents, Default) and not isinstance(level, Default):
            raise SettingError("{opponents} and {level} exclude each other: bots of a level, or the strategies named")
        n = value(players)
        many = _people(value(people), value(names))
        if many and isinstance(players, Default):
            bots = list(value(opponents) or []) if not isinstance(value(opponents), str) else []
            n = players = many + len(bots) if len(bots) > 1 else max(D.PLAY_PLAYERS, many)
        # sim.state's own check comes with the game, in the background: its import compiles
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= D.PLAY_MAX_PLAYERS:
            raise SettingError(f"{{players}} must be 1..{D.PLAY_MAX_PLAYERS}, got {n!r}")
        if value(level) is not None:
            from strategies.levels import level_of
            level_of(value(level))      # an unknown level is refused before the page is served
        if many:
            from ..play.game import people_names
            try:
                people_names(value(people), _names(value(names)), n)
            except ValueError as e:
                raise SettingError(str(e).replace("people must", "{people} must")) from None
        folder = Path(out) if out is not None else Path(_dt.datetime.now().strftime(D.PLAY_FOLDER))
        PlaySession.check_new(folder)
    sock = listen(port)     # before the game: a port in use is refused before a game folder is made

    settings = dict(players=value(players), opponents=value(opponents), level=value(level),
                    seed=value(seed) if value(seed) is not None else secrets.randbits(32), game=value(game),
                    sheet=value(sheet), rules=value(rules), max_rolls=value(max_rolls))
    if many:
        settings.update(people=value(people), names=_names(value(names)))

    def build(stage):
        """The session, once its kernels are compiled in a child process (compile_ahead), and a
        function that waits for learned's judge there."""
        stage("game")
        child = compile_ahead({"resume": str(folder)} if resume is not None else {"game": settings})
        from ..play.game import Game, resume as resume_game
        if child is not None:
            wait_for(child, "game")
        if resume is not None:
            session = PlaySession.resume(folder, resume_game, analyse=_game_analysis, coach=coach)
        else:
            session = PlaySession.start(Game(**settings, practice=practice), folder, analyse=_game_analysis,
                                        coach=coach)
        return session, (lambda: child is not None and wait_for(child, "hints")), (child.wait if child else lambda: None)

    serve(Starting(build, root=folder.parent), sock, browser=browser, say=say,
          tell=lambda: note(f"{'The' if many else 'Your'} game is kept in {folder} after every move: stop with Ctrl-C, continue "
                            f"with encore-sim play --resume {folder}"))


def _names(names):
    return names.split(",") if isinstance(names, str) else None if names is None else list(names)


def _people(people, names) -> int:
    """How many people play at the screen where `people` or `names` say (0: one, the usual game)."""
    if people is not None:
        return people
    return len(_names(names)) if names is not None else 0


def _game_analysis(folder) -> dict:
    """The finished game's analysis for the play page (imported when a game ends, not before)."""
    from sim.play.analysis import game_analysis
    return game_analysis(folder)


# --- your game, from Python -------------------------------------------------------------------

def game(*, players: int = D.PLAY_PLAYERS, opponents=None, level=None, seed: int | None = None,
         game: int = D.PLAY_GAME, sheet=D.SHEET, rules=None, max_rolls: int = D.MAX_ROLLS, out=None,
         people: int | None = None, names=None):
    """Your game against the bots, stepped from Python (sim.play.game.Game): you are seat 0 of
    `players`, against `opponents` (one spec for every other seat, or one per seat; default
    learned) or bots of `level` (strategies.levels); `seed` None: a fresh one. `out`: a folder
    the game is saved in after every move (as `play` keeps it). `people` (2..6) or `names` (one
    per person): several people at one screen, seats 0..people-1 (g.seat: whose decision it is).
    ValueError (one line) for bad settings."""
    from ..play.game import Game
    return Game(players=players, opponents=opponents, seed=seed, game=game, sheet=sheet, rules=rules, level=level,
                max_rolls=max_rolls, folder=out, people=people, names=names)
