"""Your game against the bots: a game you step through from Python, with learned's hints, the
cost of each of your moves, and the game saved as a dataset every command reads.

    g = Game(players=4, opponents="learned", seed=5, game=0)    # you are seat 0
    g.choices()      # DataFrame: one row per legal choice now, index the choice (-1: pass)
    g.hint()         # DataFrame: every choice ranked by learned's value; row 1 is learned's own choice
    g.play(i)        # your choice i; the bots play up to your next decision (ValueError if illegal)
    g.over, g.roll, g.scores(), g.last_loss, g.losses
    g.save()         # the dataset folder (results/play-YYYYmmdd-HHMMSS), rewritten after every move
    g.view()         # everything the play page draws, as plain JSON data
    g = resume(path) # the game of a saved folder, at the decision it stopped at

Several people at one screen (pass-and-play): Game(players=3, people=2, names=["Anna", "Ben"])
seats the people at 0..people-1 and bots at the rest; g.seat says whose decision it is (the
rules' order: the active player, then the passive ones), and g.play takes it for that seat.

Game g of seed s has the dice of `run`'s game g of seed s, and the bots decide as in `run` (seats
not rotated; sim.runs.game.GameInProgress underneath), so a player who takes hint()'s first row
every time plays `run -s learned`'s game move for move (tests/sim/play/test_game.py).

The hint is learned's view of the decision as `analyse --game` shows it: every distinct placement
(at its fewest '!') and passing, valued by learned's action value for the table's size and rules
(strategies.advice: the very numbers `analyse` judges by). Learned's own choice is found by
calling its decision function on the state, as the game loop does (solo: its look-ahead placer,
then the engine's `placed` for the dice; at a table: decide_table, dice denial included), so the
first row names the dice pair it takes. The loss of a move is `analyse`'s: the value of learned's
best choice by value minus that of the move (at a table the active player's dice denial is not in
the value, so learned's own choice may show a small loss there, as in `analyse`).

The game's folder (sim.runs.defaults.PLAY_FOLDER) holds play.json, the game's settings and your
moves so far (Game.record), rewritten after every move, which `resume` replays. Once the game is
over it is also a dataset of one game: game g of its seed, in a chunk of its own (chunk_size 1,
games g + 1, only chunk g stored), seat 0 played by `recorded:moves=moves.json` (strategies.recorded:
your moves, from the file beside the manifest, found there wherever the folder is moved) and the
others by the opponents' specs, so that summary, replay, analyse and report rebuild it as any run.
"""
from __future__ import annotations

import contextlib
import json
import secrets
import time
from pathlib import Path

import numpy as np

from .. import numba_cache
from ..rules import rules_dict
from ..sheets import COLOURS, parse_sheet
from ..state import CAND_CDIE, CAND_COST, CAND_NDIE, CAND_SUB, MAX_SEATS
from ..tables import build_tables
from ..runs.chunk import games_table, players_table, turns_table
from ..runs.dataset import LocalStore, write_chunk, write_json
from ..runs.defaults import MAX_ROLLS, PLAY_FOLDER, PLAY_LABEL, PLAY_OPPONENTS, PLAY_PLAYERS, SHEET
from ..runs.game import GameInProgress, IllegalChoice
from ..runs.gamelog import describe, mask_cells
from ..runs.settings import Settings, check_int

__all__ = ["Game", "IllegalChoice", "PageGame", "resume"]

#: The columns of choices(); hint() adds rank, value, loss and learned.
CHOICE_COLUMNS = ("colour_die", "number_die", "colour", "number", "cells", "jokers", "pass")
#: The file that rebuilds a game (Game.record): written after every move; the play page's session
#: adds keys of its own (its coach), which a record keeps.
RECORD_FILE = "play.json"
RECORD_FORMAT = "encore-sim-play"
#: The moves file the saved dataset's recorded seat plays (strategies.recorded), in the folder.
MOVES_FILE = "moves.json"


class Game:
    """A game you play as seat 0 against `opponents` (a strategy spec for every other seat, or a
    list of one per seat; default learned) or against bots of `level` (strategies.levels: its
    number or name). `seed` None draws a fresh one. `folder`: a dataset folder the game is saved to
    after every move (None: only when save() is called). `practice`: your moves may be taken back
    (take_back), which marks the game practice.

    `people` > 1 (or `names`, one per person): that many people at one screen, seats
    0..people-1, each by their name (default "Player 1", ...); the bots then hold the seats after
    theirs (`opponents` one spec for all of them, or one per bot seat)."""

    def __init__(self, players: int = PLAY_PLAYERS, opponents=None, seed: int | None = None, game: int = 0,
                 sheet=SHEET, rules=None, level=None, max_rolls: int = MAX_ROLLS, folder=None,
                 practice: bool = False, people: int | None = None, names=None):
        players = check_int("players", players, 1, MAX_SEATS)
        self.people = people_names(people, names, players)   # [] for the one person of a game: "You"
        n = max(1, len(self.people))
        self.level, specs = _opponents(opponents, level, players, n)
        seed = secrets.randbits(32) if seed is None else seed
        self.gip = GameInProgress(seed, game, [None] * n + specs, sheet=sheet, rules=rules, max_rolls=max_rolls,
                                  label=list(self.people) or PLAY_LABEL, observed=False)
        self.players, self.seed, self.game = players, self.gip.seed, self.gip.game
        self.sheet, self.rules, self.max_rolls = self.gip.sheet, self.gip.rules, self.gip.max_rolls
        self.opponents = tuple(self.gip.specs[n:])      # canonical specs
        self.labels = self.gip.labels
        self.names = seat_names(self.opponents, self.level, self.people)
        self.practice = bool(practice)  # take-backs allowed (Game.take_back): the game is then practice
        self.takebacks = 0
        self.py_tab = build_tables(self.sheet, self.rules)
        from strategies.advice import Advisor
        from strategies.learned import MissingWeights
        try:
            self.advisor, self.no_advice = Advisor(self.sheet, players, self.rules), None
        except MissingWeights as e:     # a sheet or rules learned has no weights for: play on, without hints
            self.advisor, self.no_advice = None, e.message()
        from .view import Awards
        self.awards = Awards(players)
        self.awards.watch(self.gip)
        self.moves: list[dict] = []     # the people's, in the order taken: as the moves files hold them
        self.move_seats: list[int] = []  # whose each of them is
        self.losses: list[dict] = []    # the coach's word on each of them (play's return)
        self._advice = None             # (decision, strategies.advice.Advice) of the decision now
        self.folder = None
        if folder is not None:
            self.save(folder)

    # --- the state -------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.gip.over

    @property
    def roll(self) -> int:
        """The roll being played (the last one once over)."""
        return self.gip.roll

    @property
    def seat(self) -> int | None:
        """The person's seat deciding now (0 where you play alone); None once the game is over."""
        return self.gip.seat

    @property
    def seats(self) -> list[int]:
        """The people's seats: [0] where you play alone."""
        return list(range(max(1, len(self.people))))

    def moves_of(self, seat: int) -> list[dict]:
        """The moves of the person at `seat`, one per roll, as their moves file holds them."""
        return [m for m, s in zip(self.moves, self.move_seats) if s == seat]

    def losses_of(self, seat: int) -> list[dict]:
        """The coach's words on the moves of the person at `seat`."""
        return [w for w in self.losses if w["seat"] == seat]

    @property
    def active(self) -> bool:
        """Whether you are the roll's active player."""
        return self.gip.active

    @property
    def decisions(self) -> int:
        """How many decisions you have taken: the page's check against stale requests."""
        return len(self.moves)

    def count(self) -> int:
        """Your legal choices now (0..count()-1; -1 passes besides); 0 once the game is over."""
        return len(self.gip.choices())

    def scores(self) -> list[int]:
        """Each seat's score: final once over, else what it would be if the game ended now."""
        return self.gip.scores()

    def choices(self):
        """Your legal choices now as a DataFrame: index `choice` (what play() takes; -1 passes),
        columns colour_die, number_die (the dice, 0-based), colour, number, cells ("H6 H7"), jokers
        ('!' spent), pass. Empty once the game is over."""
        import pandas as pd
        rows = [] if self.over else [_choice(self.py_tab, -1)] + [
            _choice(self.py_tab, i, row) for i, row in enumerate(self.gip.choices())]
        return _frame(pd, rows, "choice", CHOICE_COLUMNS)

    def hint(self):
        """This decision's choices ranked by learned's value, as a DataFrame indexed by rank: rank
        1 is learned's own choice (its dice pair), then every other distinct placement (at its
        fewest '!', made by the first dice pair that offers it) and passing, best value first.
        Columns: choice (what play() takes), those of choices(), value (learned's action value),
        loss (learned's best value minus this one's: analyse's number), learned (its choice)."""
        import pandas as pd
        rows = [{**r, "cells": " ".join(r["cells"])} for r in self.hint_view()]
        return _frame(pd, rows, "rank", ("choice",) + CHOICE_COLUMNS + ("value", "loss", "learned"))

    def hint_view(self) -> list[dict]:
        """hint()'s rows as plain JSON data (cells as a list of names); [] once the game is over.
        ValueError (one line) where learned has no weights for the game's sheet and rules."""
        if self.over:
            return []
        adv = self._advise()
        cands = self.gip.choices()
        # Each distinct placement once, at its fewest '!', by the first dice pair that offers it:
        # the rows of analyse's ranking (learned.rank_placements), passing first as there.
        first: dict[int, int] = {}
        for i, row in enumerate(cands):
            sub, cost = int(row[CAND_SUB]), int(row[CAND_COST])
            if sub not in first or cost < cands[first[sub], CAND_COST]:
                first[sub] = i
        ranked = [-1] + [first[sub] for sub in sorted(first)]
        values = np.array([adv.value(i) for i in ranked])
        order = [ranked[k] for k in np.argsort(-values, kind="mergesort")]   # ties as analyse breaks them
        mine = adv.learned
        same = cands[mine, CAND_SUB] if mine >= 0 else -1
        order = [mine] + [i for i in order if (cands[i, CAND_SUB] if i >= 0 else -1) != same]
        return [{"rank": k + 1, "choice": i, **_choice(self.py_tab, i, cands[i] if i >= 0 else None),
                 "value": adv.value(i), "loss": adv.loss(i), "learned": k == 0} for k, i in enumerate(order)]

    def _advise(self):
        """learned's view of your decision now (strategies.advice), once per decision."""
        if self.advisor is None:
            raise ValueError(f"no hints in this game: {self.no_advice}")
        if self._advice is None or self._advice[0] != self.decisions:
            g = self.gip
            cands = g.choices()
            self._advice = (self.decisions, self.advisor.advise(g.st, g.ps, g.bb, cands, len(cands), g.tab))
        return self._advice[1]

    # --- playing ---------------------------------------------------------------------------

    def play(self, choice) -> dict:
        """Take choice `choice` (an index of choices(); -1 passes); the bots then play up to your
        next decision, and the game is saved if it has a folder. IllegalChoice (a ValueError, one
        line) and nothing changed if it is not one of your legal choices now.

        Returns the coach's word on the move (also g.losses[-1]): its roll, your choice, learned's
        choice and its best by value, and loss: what the move cost against that best (None where
        learned has no weights for the game)."""
        g = self.gip
        if g.seat is None:
            raise IllegalChoice("the game is over: there is no decision to take")
        cands = g.choices()
        n = len(cands)
        if isinstance(choice, bool) or not isinstance(choice, (int, np.integer)) or not -1 <= choice < n:
            raise IllegalChoice(f"choice {choice!r} is not a legal choice at roll {g.roll}: an index "
                                f"0..{n - 1} of your {n} choices, or -1 to pass")
        choice = int(choice)
        word = {"decision": self.decisions + 1, "seat": g.seat, "roll": g.roll, "active": g.active,
                "choice": _choice(self.py_tab, choice, cands[choice] if choice >= 0 else None),
                "loss": None, "value": None, "learned": None, "best": None, "best_value": None}
        if self.advisor is not None:
            adv = self._advise()
            word.update(loss=adv.loss(choice), value=adv.value(choice),
                        learned=_choice(self.py_tab, adv.learned, cands[adv.learned] if adv.learned >= 0 else None),
                        best=_choice(self.py_tab, adv.best, cands[adv.best] if adv.best >= 0 else None),
                        best_value=adv.value(adv.best))
        move = _move(word["choice"])
        g.play(choice)
        self.moves.append(move)
        self.move_seats.append(word["seat"])
        self.losses.append(word)
        self._advice = None
        self.awards.watch(g, word["roll"])
        if self.folder is not None:
            self.save()
        return word

    def take_back(self) -> None:
        """The last move taken back (practice only: the caller checks), whoever's it was: the game
        is played again from its record without it, so the same dice come back and the bots decide
        as before. IllegalChoice if no move was made yet."""
        if not self.moves:
            raise IllegalChoice("no move of yours to take back")
        record = self.record()
        record["moves"] = record["moves"][:-1]
        again = Game.from_record(record)
        folder = self.folder
        self.__dict__.update(again.__dict__)
        self.takebacks += 1
        self.folder = folder
        if folder is not None:
            self.save()

    @property
    def practised(self) -> bool:
        """Whether the game is a practice game: a move of it was taken back."""
        return self.takebacks > 0

    def warm(self, lock=None) -> None:
        """learned's judge compiled (its first use costs seconds with an empty cache), on copies of the
        state taken under `lock`: safe beside a move in another thread, and nothing of the game changes."""
        with lock or contextlib.nullcontext():
            g = self.gip
            if self.advisor is None or g.seat is None:
                return
            st, ps, bb, cands, tab = g.st.copy(), g.ps.copy(), g.bb.copy(), g.choices(), g.tab
        self.advisor.advise(st, ps, bb, cands, len(cands), tab)

    @property
    def last_seat(self) -> int | None:
        """The seat of the last move taken (whose a take-back would undo); None before the first."""
        return self.move_seats[-1] if self.move_seats else None

    @property
    def last_loss(self) -> float | None:
        """What your last move cost against learned's best choice (analyse's loss); None before it."""
        return self.losses[-1]["loss"] if self.losses else None

    # --- what the page reads -----------------------------------------------------------------

    def settings(self) -> dict:
        """The game's settings as plain data: players, seed, game, sheet, rules, level, labels."""
        return {"players": self.players, "seed": self.seed, "game": self.game, "sheet": self.sheet.name,
                "rules": self.rules.text, "level": self.level, "opponents": list(self.opponents),
                "labels": list(self.labels), "names": list(self.names), "max_rolls": self.max_rolls, "you": 0,
                "people": list(self.people), "seats": self.seats,
                "practice": self.practice, "practised": self.practised, "takebacks": self.takebacks}

    def view(self, hint: bool = False) -> dict:
        """Everything the play page draws, as plain JSON data (sim.play.view.page_view: the
        sheet, every seat's boxes, awards and score, the dice and which are yours, your choices,
        the roll log, each move also in words), with the settings, the coach's words on your moves,
        and with `hint` hint_view()."""
        from .view import page_view, sheet_view
        view = page_view(self.gip, self.awards, self.py_tab, self.names)
        for roll in view["log"]:    # each move in words too, as `replay` words it
            for m in roll["moves"]:
                m["text"] = f"{self.names[m['seat']]}: {describe(m)}"
        # At one screen a person sees the coach's words on their own moves alone: another's passive
        # move of this roll is not to be seen before the roll ends.
        me = self.seat if self.seat is not None else 0
        losses = self.losses_of(me) if self.people and not self.over else self.losses
        view.update(you=me, sheet=sheet_view(self.sheet, self.rules), settings=self.settings(),
                    decisions=self.decisions, losses=losses, last_loss=losses[-1]["loss"] if losses else None,
                    last_seat=self.last_seat,
                    folder=None if self.folder is None else str(self.folder),
                    hints=self.advisor is not None, no_hints=self.no_advice)
        if hint and not self.over and self.advisor is not None:
            view["hint"] = self.hint_view()
        return view

    # --- saving ------------------------------------------------------------------------------

    def record(self) -> dict:
        """The game as plain JSON data that rebuilds it (Game.from_record): its settings and your
        moves so far."""
        people = {"people": list(self.people)} if self.people else {}
        return {"format": RECORD_FORMAT, "version": 1, "players": self.players, "seed": self.seed,
                "game": self.game, "opponents": list(self.opponents), "level": self.level, **people,
                "sheet": {"name": self.sheet.name, "text": self.sheet.text}, "rules": self.rules.text,
                "max_rolls": self.max_rolls, "label": PLAY_LABEL, "practice": self.practice,
                "takebacks": self.takebacks, "moves": list(self.moves)}

    @classmethod
    def from_record(cls, record: dict, folder=None) -> "Game":
        """The game of a record (Game.record), its moves replayed; ValueError (one line) if the
        record is not one, or its moves are not legal in its game. `folder`: as Game's."""
        if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
            raise ValueError(f"not the record of a game of play (format {RECORD_FORMAT!r})")
        try:
            sheet = parse_sheet(record["sheet"]["text"], record["sheet"]["name"])
            g = cls(players=record["players"], opponents=record["opponents"], seed=record["seed"],
                    game=record["game"], sheet=sheet, rules=record["rules"], max_rolls=record["max_rolls"],
                    names=record.get("people") or None)
            g.level = record.get("level")
            g.names = seat_names(g.opponents, g.level, g.people)
            g.practice, g.takebacks = bool(record.get("practice", False)), int(record.get("takebacks", 0))
            moves = record["moves"]
        except (KeyError, TypeError) as e:
            raise ValueError(f"the record of the game is damaged: {type(e).__name__}: {e}") from None
        if not isinstance(moves, list):
            raise ValueError("the record of the game is damaged: its moves are not a list")
        for r, move in enumerate(moves, 1):
            g.play(g._choice_of(move, r))
        if folder is not None:
            g.save(folder)
        return g

    def _choice_of(self, move, r: int) -> int:
        """The index of choices() that makes `move` (as the moves file holds it) now."""
        if self.over:
            raise ValueError(f"the record holds a move for roll {r}, after the end of its game")
        if isinstance(move, dict) and move.get("pass") is True:
            return -1
        for i, row in enumerate(self.gip.choices()):
            if isinstance(move, dict) and _move(_choice(self.py_tab, i, row)) == move:
                return i
        raise ValueError(f"the record's move {move!r} of roll {r} is not a legal choice of its game")

    def save(self, path=None) -> Path:
        """Write the game to the folder `path` (default: the game's folder, or a new one named by
        sim.runs.defaults.PLAY_FOLDER), which it is then saved to after every move too; returns
        it. The folder holds play.json (Game.record: what resume reads) and, once the game is
        over, the game as a dataset that summary, replay, analyse and report read. ValueError if
        the folder holds anything but this game."""
        folder = Path(path) if path is not None else self.folder or Path(time.strftime(PLAY_FOLDER))
        if folder != self.folder:
            _check_folder(folder, self)
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        _write_record(folder / RECORD_FILE, self.record())
        if self.over:
            self._write_dataset(folder)
        return folder

    def _write_dataset(self, folder: Path) -> None:
        """The finished game as the dataset of one game: game g of its seed alone in chunk g
        (chunk_size 1), seat 0 played by `recorded` from MOVES_FILE. The game is played again from
        that manifest's line-up, and must be this very game (else nothing is written)."""
        from strategies.recorded import write_moves
        from ..runs.api import check_chunk, play_chunk
        from ..runs.runner import git_revision, prepare, versions

        # Each person's seat plays their moves from a file of its own, named by the seat (a name
        # is the person's text, no file name), labelled by their name: their own row in results.
        specs, files = [], {}
        for seat in self.seats:
            name = moves_file(seat, self.people)
            write_moves(folder / name, self.labels[seat], self.moves_of(seat))
            specs.append(f"recorded:moves={name}")
            files[specs[-1]] = str((folder / name).resolve())
        settings = Settings.of(strategies=[*specs, *self.opponents], players=self.players, games=self.game + 1,
                               seed=self.seed, sheet=self.sheet, rotate=False, max_rolls=self.max_rolls, threads=1,
                               chunk_size=1, log_turns=True, rules=self.rules)
        stored, line, infos = prepare(settings, files)
        for seat in self.seats:     # found beside the manifest wherever the folder goes
            infos[seat]["in_dataset"] = moves_file(seat, self.people)
        chunk = play_chunk(self.seed, self.game, 1, line, players=self.players, sheet=self.sheet,
                           max_rolls=self.max_rolls, rotate=False, log_turns=True, rules=self.rules)
        check_chunk(chunk)
        mine = self.gip.chunk()
        if not (np.array_equal(chunk.log, mine.log) and np.array_equal(chunk.dice, mine.dice)
                and np.array_equal(chunk.seats, mine.seats)):
            raise RuntimeError("the saved game replays to another game: a bug, please report it")
        store = LocalStore(folder)
        for name in ("games", "players", "turns"):
            store.makedirs(name)
        write_chunk(store, self.game, {"games": games_table(chunk, self.sheet.name), "players": players_table(chunk),
                                       "turns": turns_table(chunk, self.py_tab)})
        now = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        write_json(store, {
            "format": "encore-sim-dataset", "format_version": 1, "status": "complete",
            "command": self._command(), "settings": stored, "rules": rules_dict(self.rules),
            "sheet": {"name": self.sheet.name, "text": self.sheet.text}, "strategies": infos,
            "chunks": self.game + 1, "games_done": 1, "threads": 1, "bounds_checked": True,
            "versions": versions(), "git_revision": git_revision(), "kernel_sources": numba_cache.GAMES_DIGEST,
            "started": now, "finished": now, "error": None,
            # What a reader of the folder needs to know that it is a person's game, and whose seat.
            # "seats" and "labels": every person's (pass-and-play); "seat" and "label" the first's.
            "play": {"game": self.game, "seat": 0, "label": self.labels[0], "level": self.level,
                     "seats": self.seats, "labels": [self.labels[s] for s in self.seats], "people": list(self.people),
                     "names": list(self.names), "practice": self.practised, "takebacks": self.takebacks},
        })

    def _command(self) -> str:
        """The call that starts this game (the manifest's "command")."""
        opponents = f"level={self.level!r}" if self.level is not None else f"opponents={list(self.opponents)!r}"
        if self.people:
            opponents += f", names={list(self.people)!r}"
        return (f"encore_sim.game(players={self.players}, {opponents}, seed={self.seed}, game={self.game}, "
                f"sheet={self.sheet.name!r}, rules={self.rules.text!r})")


def moves_file(seat: int, people) -> str:
    """The moves file of the person at `seat`: MOVES_FILE for the one person of a game (as games
    saved before pass-and-play have it), moves-SEAT.json at one screen."""
    return f"moves-{seat}.json" if people else MOVES_FILE


#: The name the play page's session first knew the game by.
PageGame = Game


def resume(path) -> Game:
    """The game saved in the folder `path` (play.json, by Game.save or the play page after every
    move), rebuilt by replaying its moves: at the decision it stopped at, saved there from now on.
    ValueError (one line) for a folder that holds no such game."""
    folder = Path(path)
    file = folder / RECORD_FILE
    if not file.is_file():
        raise ValueError(f"{folder} holds no game of play (no {RECORD_FILE})")
    try:
        record = json.loads(file.read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"{file} cannot be read: {e}") from None
    g = Game.from_record(record)
    g.folder = folder
    return g


# --- helpers -------------------------------------------------------------------------------

def _opponents(opponents, level, players: int, people: int = 1) -> tuple:
    """(the level's name or None, a spec per seat after the people's) from `opponents` or `level`."""
    bots = players - people
    if level is not None:
        if opponents is not None:
            raise ValueError("give opponents or a level, not both")
        from strategies.levels import level_of
        lv = level_of(level)
        return lv.name, [lv.spec] * bots
    opponents = PLAY_OPPONENTS if opponents is None else opponents
    if isinstance(opponents, str):
        return None, [opponents] * bots
    opponents = list(opponents)
    if len(opponents) == 1:
        return None, opponents * bots
    if len(opponents) != bots:
        raise ValueError(f"{len(opponents)} opponents for {players} players ({people} of them people): give one "
                         f"for every bot's seat ({bots}), or one for all")
    return None, opponents


#: The most people at one screen, and the longest name the page shows of one.
MAX_PEOPLE, MAX_NAME = 6, 24


def people_names(people, names, players: int) -> list[str]:
    """The names of the people at one screen ([] for a game of one person, who is "You"): `names`
    as given, else "Player 1".. for `people`. ValueError (one line) for a count or a name that
    cannot be: names must tell the people apart in the results, where each is a strategy's label."""
    if names is not None:
        if isinstance(names, str):
            names = names.split(",")
        names = [n.strip() if isinstance(n, str) else n for n in names]
        if people is not None and people < len(names):
            raise ValueError(f"{people} people but {len(names)} names: give one name per person, or fewer")
        if people is not None:      # the people without a name given are "Player K"
            names += [f"Player {k}" for k in range(len(names) + 1, people + 1)]
        people = len(names)
    if people is None or people == 1 and names is None:
        return []
    if isinstance(people, bool) or not isinstance(people, int) or not 1 <= people <= min(players, MAX_PEOPLE):
        raise ValueError(f"people must be 1..{min(players, MAX_PEOPLE)} (the seats of the table), got {people!r}")
    names = names or [f"Player {k}" for k in range(1, people + 1)]
    seen = set()
    for n in names:
        if not isinstance(n, str) or not n or len(n) > MAX_NAME or not n.isprintable():
            raise ValueError(f"a person's name is 1..{MAX_NAME} printable characters, got {str(n)[:40]!r}")
        key = n.casefold()
        if key in seen:
            raise ValueError(f"two people are called {n!r}: each needs a name of their own")
        if key == "you" or key.startswith("bot ") or key.split(":")[0].endswith(".py") or ":" in n:
            raise ValueError(f"{n!r} cannot be a person's name: it reads as a bot's or as 'you'")
        from strategies import REGISTRY
        if key in {k.casefold() for k in REGISTRY}:
            raise ValueError(f"{n!r} is a built-in strategy's name: a person needs another")
        seen.add(key)
    return names if people > 1 or names else []


def seat_names(opponents, level=None, people=()) -> list[str]:
    """What the page calls each seat: "You" (or the people's names), then the bots by their level's
    name or their strategy's ("club"; "Bot 2 (club)" where there are several): a spec's parameters
    are for its tooltip."""
    def short(spec: str) -> str:
        name, _, rest = spec.partition(":")
        return rest.split(",")[0] if name.endswith(".py") and rest else name
    mine = list(people) or ["You"]
    bots = [level if level is not None else short(spec) for spec in opponents]
    return mine + (bots if len(bots) == 1 else [f"Bot {s} ({b})" for s, b in enumerate(bots, len(mine))])


def _choice(tab, i: int, row=None) -> dict:
    """Choice i as data: its dice, colour, number, boxes and '!' (a pass when i is -1)."""
    if i < 0:
        return {"choice": -1, "colour_die": None, "number_die": None, "colour": None, "number": None, "cells": [],
                "jokers": 0, "pass": True}
    cd, nd, sub, cost = (int(row[k]) for k in (CAND_CDIE, CAND_NDIE, CAND_SUB, CAND_COST))
    return {"choice": i, "colour_die": cd, "number_die": nd, "colour": COLOURS[int(tab.colour[sub])],
            "number": int(tab.size[sub]), "cells": mask_cells(tab.mask[sub]), "jokers": cost, "pass": False}


def _move(choice: dict) -> dict:
    """A choice as the moves file holds it (strategies.recorded)."""
    if choice["pass"]:
        return {"pass": True}
    return {k: choice[k] for k in ("colour_die", "number_die", "cells", "jokers")}


def _frame(pd, rows: list[dict], index: str, columns):
    """The rows as a DataFrame indexed by `index`, in `columns`, dice and numbers as nullable ints."""
    frame = pd.DataFrame([{k: r[k] for k in (index, *columns)} for r in rows], columns=[index, *columns])
    for col in ("colour_die", "number_die", "number"):
        frame[col] = frame[col].astype("Int64")
    frame["cells"] = [" ".join(c) if isinstance(c, list) else c for c in frame["cells"]]
    return frame.set_index(index)


def _write_record(path: Path, record: dict) -> None:
    """play.json, keeping the keys others added to it (the play page's coach), written whole and
    renamed over the old one."""
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError):
        old = {}
    merged = {**(old if isinstance(old, dict) else {}), **record}
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(merged, indent=1) + "\n")
    tmp.replace(path)


def _check_folder(folder: Path, game: Game) -> None:
    """ValueError unless `folder` is new, empty, or holds this game (its play.json's settings)."""
    if not folder.exists():
        return
    if not folder.is_dir():
        raise ValueError(f"{folder} exists and is not a folder")
    if not any(folder.iterdir()):
        return
    try:
        record = json.loads((folder / RECORD_FILE).read_text())
    except (OSError, ValueError):
        record = None
    mine = game.record()
    same = isinstance(record, dict) and all(record.get(k) == mine.get(k) for k in
                                            ("format", "players", "seed", "game", "opponents", "sheet", "rules",
                                             "people"))
    if not same:
        raise ValueError(f"{folder} is not empty and holds no record of this game: save it to a folder of its own")
