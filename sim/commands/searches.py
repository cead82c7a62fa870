"""The commands that search and train: tune (a strategy's parameters), train (learned's weights),
bound (the clairvoyant bound of the solo game), weights (the weights learned plays)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..runs import defaults as D
from .base import trained


def tune(spec: str, *, param=(), players: int = D.PLAYERS, opponents=None, objective: str = D.TUNE_OBJECTIVE,
         budget: int = D.TUNE_BUDGET, seed=D.SEED, validate_games: int | None = None,
         validation_seed: int | None = None, trial_games: int | None = None, sheet=D.SHEET,
         max_rolls: int = D.MAX_ROLLS, threads: int | None = None, out=None, progress: bool = False, rules=None,
         train: bool = False, on_iteration=None, say=None):
    """Search the parameters `param` ("NAME=LO..HI" texts, or a dict name -> (lo, hi)) of the
    strategy spec `spec` for the best mean `objective` with CMA-ES: sim.experiments.tune's TuneResult.
    `validate_games` [default: sim.runs.defaults.TUNE_VALIDATE_GAMES] on `validation_seed`
    [default: seed + 1]; `out`: a new or empty folder for trials.parquet and tune.json;
    `on_iteration(result)` once the search is set up and after every iteration."""
    from ..runs.settings import Settings
    from ..experiments.tune import tune as search
    settings = Settings.of(players=players, seed=seed, sheet=sheet, max_rolls=max_rolls, threads=threads,
                           rules=rules)
    return trained(lambda: search(spec, param, settings=settings, opponents=opponents, objective=objective,
                                  budget=budget, validate_games=validate_games, validation_seed=validation_seed,
                                  trial_games=trial_games, out=out, progress=progress, report=on_iteration),
                   train, threads, progress, say)


@dataclass(frozen=True)
class Trained:
    """Weights `train` wrote: the file, for which sheet (its name), players and rules, and
    whether it is the weights store's (where `learned` finds them)."""
    file: Path
    sheet: str
    players: int
    rules: object          # sim.rules.Rules
    in_store: bool


def train(*, sheet=D.SHEET, players: int = D.PLAYERS, games: int | None = None, seed: int = D.TRAIN_SEED,
          threads: int | None = None, init=None, step=D.TRAIN_STEP, out=None, progress: bool = False,
          rules=None, say=None) -> Trained:
    """Train `learned`'s weights for `sheet` and `players` under `rules` by self-play: `games`
    [default: sim.runs.defaults.TRAIN_GAMES solo, TRAIN_TABLE_GAMES at tables] from the weights
    `init` (or afresh), the step size falling from `step`'s first to its second; into `out`
    [default: the weights store's file for them]. Interrupted, it writes nothing. `say(line)`
    announces how long it will take, and where no progress line is shown, says how far it got
    every few seconds."""
    from sim.training.run import train_file
    from ..rules import parse_rules
    from ..sheets import load_sheet
    written = train_file(out, sheet=sheet, players=players, games=games, seed=seed, threads=threads,
                         progress=progress, init=init, step=step, rules=rules, lines=None if progress else say,
                         say=say)
    return Trained(Path(written), load_sheet(sheet).name, players, parse_rules(rules), out is None)


def bound(*, games: int = D.BOUND_GAMES, seed: int = D.BOUND_SEED, sheet=D.SHEET, beam: int = D.BOUND_BEAM,
          weights=None, threads: int | None = None, progress: bool = False, rules=None):
    """The clairvoyant bound of solo games 0..games-1 of `seed` (a beam search of width `beam`
    with every roll known) and `learned` on the same dice: sim.research.headroom's Headroom."""
    from sim.research.headroom import measure
    return measure(games, seed, sheet, beam, weights, threads, progress=progress, rules=rules)


#: The columns of a weights listing.
WEIGHTS_COLUMNS = ["source", "sheet", "players", "rules", "games", "trained", "from", "file"]


@dataclass(frozen=True)
class Weights:
    """`learned`'s weights files (strategies.store's entries: the shipped ones, then the store's),
    and the weights store's folder."""
    entries: list
    folder: Path

    def rows(self) -> list[dict]:
        """A row per file (WEIGHTS_COLUMNS, and "problem" for a file that cannot be read)."""
        return [{"source": e.source, "sheet": e.sheet, "players": e.players, "rules": e.rules, "games": e.games,
                 "trained": e.trained, "from": e.start, "file": str(e.file),
                 **({"problem": e.problem} if e.problem else {})} for e in self.entries]

    def columns(self) -> list[str]:
        return WEIGHTS_COLUMNS + (["problem"] if any(e.problem for e in self.entries) else [])


def weights() -> Weights:
    """The weights `learned` can play: shipped, and in the user's weights store."""
    from strategies import store
    return Weights(store.entries(), store.folder())
