"""The settings of a set of games, validated once: one object that the API (sim.runs.api.play_chunk),
the runner, compare, replay and the command line share.

    s = Settings.of(strategies=["greedy", "random"], games=10_000, seed=7)   # ValueError if anything is wrong
    s.players, s.sheet (a sim.sheets.Sheet), s.threads, s.seats(game), ...

Every check that was once written out in each of them is here, with the one message it gives.
What a command does not take stays None (compare seats its candidates itself: no `strategies`;
a run's chunk size defaults by the number of players).
"""
from __future__ import annotations

import numbers
import secrets
from dataclasses import dataclass, replace

import numba

from .defaults import MAX_ROLLS, ROTATE, RUN_CHUNK, RUN_CHUNK_TURNS, SEED, SHEET
from ..errors import SettingError, setting
from ..rules import RULEBOOK, Rules, parse_rules
from ..sheets import Sheet, load_sheet
from ..state import MAX_SEATS, seat_slot

DEFAULT_MAX_ROLLS = MAX_ROLLS
MAX_SEED = 2**64 - 1
MAX_GAMES = 2**40
#: A game's number: game g of seed s is the same game wherever it is played, in any chunk.
MAX_GAME_INDEX = 2**62
MAX_CHUNK = 10_000_000
ROLL_CAP = 100_000
#: Rollouts of one decision (encore-sim analyse, the policy improvement step).
MAX_ROLLOUTS = 1_000_000
#: Settings that determine the rows of a dataset (its manifest's "settings"); --resume requires
#: them all equal.
STORED = ("games", "players", "strategies", "rotate", "seed", "sheet", "max_rolls", "log_turns", "chunk_size", "rules")


def check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    """value as an int in lo..hi, or a ValueError naming the argument."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise SettingError(f"{setting(name)} must be an integer, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        bounds = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise SettingError(f"{setting(name)} must be {bounds}, got {value}")
    return int(value)


def check_threads(threads) -> int:
    """Numba threads as an int in 1..every core Numba has; None is all of them."""
    max_threads = numba.config.NUMBA_NUM_THREADS
    return max_threads if threads is None else check_int("threads", threads, 1, max_threads)


def default_chunk_size(players: int, log_turns: bool) -> int:
    """A run's games per chunk (Parquet file) when not given."""
    return (RUN_CHUNK_TURNS if log_turns else RUN_CHUNK)["solo" if players == 1 else "table"]


@dataclass(frozen=True)
class Settings:
    """What to play and how, validated (Settings.of)."""
    players: int
    seed: int
    sheet: Sheet
    strategies: tuple = ()          # per seat, or one for every seat; () where the command seats them
    games: int | None = None
    rotate: bool = False            # as it acts: only with several strategies at a table
    max_rolls: int = DEFAULT_MAX_ROLLS
    threads: int = 1                # Numba threads
    chunk_size: int | None = None
    log_turns: bool = False
    checked: bool = True            # users' strategies compiled with bounds checking (sim.guard)
    rules: Rules = RULEBOOK         # the rule variants played (sim.rules)

    @classmethod
    def of(cls, strategies=(), players=None, games=None, seed=SEED, sheet=SHEET, rotate=ROTATE,
           max_rolls=DEFAULT_MAX_ROLLS, threads=None, chunk_size=None, log_turns=False, checked=True,
           rules=None) -> Settings:
        """Validated settings; ValueError (one line, naming the option) for the first bad one.

        `strategies`: specs (or a sim.runs.api.Lineup's specs), one per seat or one for all.
        `players` defaults to one seat per strategy. `seed` None draws a fresh one. `threads`
        None is every core Numba has. `rules`: a sim.rules.Rules or a --rules text ("pass-penalty=1,
        joker-six"); None is the rulebook."""
        if isinstance(strategies, str):
            strategies = [strategies]
        strategies = tuple(strategies)
        if strategies and not 1 <= len(strategies) <= MAX_SEATS:
            raise ValueError(f"give 1..{MAX_SEATS} strategies (one per seat, or one for all seats), "
                             f"got {len(strategies)}")
        players = check_int("players", (len(strategies) or 1) if players is None else players, 1, MAX_SEATS)
        if strategies and len(strategies) not in (1, players):
            raise ValueError(f"{len(strategies)} strategies for {players} players: give one per seat, "
                             "or one for all seats")
        return cls(
            players=players,
            seed=secrets.randbits(32) if seed is None else check_int("seed", seed, 0, MAX_SEED),
            sheet=load_sheet(sheet),
            strategies=strategies,
            games=None if games is None else check_int("games", games, 1, MAX_GAMES),
            rotate=bool(rotate) and players > 1 and len(strategies) > 1,
            max_rolls=check_int("max-rolls", max_rolls, 1, ROLL_CAP),
            threads=check_threads(threads),
            chunk_size=None if chunk_size is None else check_int("chunk-size", chunk_size, 1, MAX_CHUNK),
            log_turns=bool(log_turns),
            checked=bool(checked),
            rules=parse_rules(rules),
        )

    @classmethod
    def from_manifest(cls, manifest: dict, sheet: Sheet, checked: bool = True) -> Settings:
        """The settings a dataset was played with (its manifest's "settings", and its sheet);
        ValueError if they are unusable."""
        st = manifest.get("settings") or {}
        try:
            return cls.of(strategies=st["strategies"], players=st["players"], games=st["games"], seed=st["seed"],
                          sheet=sheet, rotate=st["rotate"], max_rolls=st.get("max_rolls", DEFAULT_MAX_ROLLS),
                          chunk_size=st.get("chunk_size"), log_turns=st.get("log_turns", False), checked=checked,
                          rules=st.get("rules", ""))
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"the manifest's settings are unusable: {type(e).__name__}: {e}") from None

    def seats(self, game: int) -> list:
        """The strategy of each seat in game number `game` (seats rotated as the kernels rotate them)."""
        if len(self.strategies) == 1:
            return list(self.strategies) * self.players
        return [self.strategies[getattr(seat_slot, "py_func", seat_slot)(s, game, self.players, self.rotate)] for s in range(self.players)]

    def stored(self, specs=None) -> dict:
        """The manifest's "settings": those that determine a dataset's rows (STORED), with the
        strategies as `specs` (their canonical specs, once resolved) if given."""
        out = {"games": self.games, "players": self.players,
               "strategies": list(self.strategies if specs is None else specs), "rotate": self.rotate,
               "seed": self.seed, "sheet": self.sheet.name, "max_rolls": self.max_rolls,
               "log_turns": self.log_turns, "chunk_size": self.chunk_size, "rules": self.rules.text}
        assert tuple(out) == STORED
        return out

    def with_(self, **changes) -> Settings:
        """A copy with `changes` (already valid values: defaults a command fills in)."""
        return replace(self, **changes)
