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

Game g of seed s has the dice of `run`'s game g of seed s, and the bots decide as in `run` (seats
not rotated; sim.runs.game.GameInProgress underneath), so a player who takes hint()'s first row
every time plays `run -s learned`'s game move for move (tests/test_playgame.py).

The hint is learned's view of the decision as `analyse --game` shows it: every distinct placement
(at its fewest '!') and passing, valued by learned's action value for the table's size and rules
(strategies.advice: the very numbers `analyse` judges by). Learned's own choice is found by
calling its decision function on the state, as the game loop does (solo: its look-ahead placer,
then the engine's `placed` for the dice; at a table: decide_table, dice denial included), so the
first row names the dice pair it takes. The loss of a move is `analyse`'s: the value of learned's
best choice by value minus that of the move (at a table the active player's dice denial is not in
the value, so learned's own choice may show a small loss there, as in `analyse`).

The folder (sim.runs.defaults.PLAY_FOLDER) is a dataset of one game: game g of its seed, in a
chunk of its own (chunk_size 1, games g + 1, only chunk g stored), its seats played by
`recorded:moves=moves.json` (strategies.recorded: your moves, from the file beside the manifest)
and the opponents' specs. Mid-game it holds the manifest (status "running") and moves.json, which
`resume` replays; at the end the game's tables, which summary, replay, analyse and report read.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .game import GameInProgress, IllegalChoice
from .defaults import MAX_ROLLS, PLAY_FOLDER, PLAY_LABEL, PLAY_OPPONENTS, PLAY_PLAYERS, SHEET
from ..state import CAND_CDIE, CAND_COST, CAND_NDIE, CAND_SUB, MAX_SEATS, PS_JOKERS
from ..sheets import COLOURS
from ..tables import build_tables
from .gamelog import mask_cells

__all__ = ["Game", "IllegalChoice", "PageGame", "resume"]

#: The columns of choices() and hint() (hint adds rank, value, loss, learned).
CHOICE_COLUMNS = ("colour_die", "number_die", "colour", "number", "cells", "jokers", "pass")


class Game:
    """A game you play as seat 0 against `opponents` (a strategy spec for every other seat, or a
    list of one per seat) or against bots of `level` (strategies.levels: a number or a name).

    `seed` None draws a fresh one. `folder`: the dataset folder to save the game to after every
    move (None: saved only by save())."""

    def __init__(self, players: int = PLAY_PLAYERS, opponents=None, seed: int | None = None, game: int = 0,
                 sheet=SHEET, rules=None, level=None, max_rolls: int = MAX_ROLLS, folder=None):
        raise NotImplementedError("sim.runs.playgame.Game: being written (issue 56)")

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
        """Your seat (0) while it is yours to decide; None once the game is over."""
        return self.gip.seat

    @property
    def active(self) -> bool:
        """Whether you are the roll's active player."""
        return self.gip.active

    def scores(self) -> list[int]:
        """Each seat's score: final once over, else what it would be if the game ended now."""
        return self.gip.scores()

    def choices(self):
        """Your legal choices now as a DataFrame: index `choice` (what play() takes; -1 passes),
        columns colour_die, number_die (the dice, 0-based), colour, number, cells ("H6 H7"), jokers
        ('!' spent), pass. Empty once the game is over."""
        raise NotImplementedError

    def hint(self):
        """This decision's choices ranked by learned's value, as a DataFrame: rank 1 is learned's
        own choice (with its dice pair), then every other distinct placement (at its fewest '!',
        made by the first dice pair that offers it) and passing, best value first. Columns: choice
        (what play() takes), the columns of choices(), value, loss (learned's best value minus
        this one's: analyse's number) and learned (True on learned's choice)."""
        raise NotImplementedError

    def hint_view(self) -> list[dict]:
        """hint()'s rows as plain JSON data (cells as a list of names)."""
        raise NotImplementedError

    def play(self, choice) -> None:
        """Take choice `choice` (an index of choices(); -1 passes); the bots then play up to your
        next decision, and the game is saved if it has a folder. IllegalChoice (a ValueError, one
        line) and nothing changed if it is not one of your legal choices now."""
        raise NotImplementedError

    @property
    def decisions(self) -> int:
        """How many decisions you have taken: the page's check against stale requests."""
        return len(self.moves)

    def count(self) -> int:
        """Your legal choices now (0..count()-1; -1 passes besides); 0 once the game is over."""
        return len(self.gip.choices())

    def settings(self) -> dict:
        """The game's settings as plain data: players, seed, game, sheet, rules, level, labels."""
        raise NotImplementedError

    def record(self) -> dict:
        """The game as plain JSON data that rebuilds it (Game.from_record): its settings and your
        moves so far."""
        raise NotImplementedError

    @classmethod
    def from_record(cls, record: dict, folder=None) -> "Game":
        """The game of a record (Game.record), its moves replayed; ValueError (one line) if the
        record is not one, or its moves are not legal in its game."""
        raise NotImplementedError

    @property
    def last_loss(self) -> float | None:
        """What your last move cost against learned's best choice (analyse's loss); None before it."""
        return self.losses[-1]["loss"] if self.losses else None

    # --- saving -----------------------------------------------------------------------------

    def save(self, path=None) -> Path:
        """Write the game to the dataset folder `path` (default: the game's folder, or a new one
        named by sim.runs.defaults.PLAY_FOLDER), which it is then saved to after every move;
        returns it. ValueError if `path` holds something else than this game."""
        raise NotImplementedError

    def view(self, hint: bool = False) -> dict:
        """Everything the play page draws, as plain JSON data: the sheet's layout, every seat's
        sheet and score, the dice and which are yours, your choices, the roll log, the coach's
        losses; with `hint`, hint_view() too."""
        raise NotImplementedError


def resume(path) -> Game:
    """The game saved in the folder `path` (by Game.save or the autosave after every move),
    rebuilt by replaying its moves: at the decision it stopped at, saved there from now on.
    ValueError (one line) for a folder that holds no such game."""
    raise NotImplementedError


#: The name the play page's session first knew the game by.
PageGame = Game
