"""The commands that play games: run, compare, compare-rules, replay; and those that show the game's
pieces: moves, strategies."""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from pathlib import Path

from ..errors import SettingError
from ..runs import defaults as D
from .base import Default, given, trained, value


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
    from ..runs.dataset import is_url
    if out is None:
        if resume:
            raise SettingError("{resume} needs {out}, the folder of the run to finish")
        return Path(_dt.datetime.now().strftime(D.RUN_FOLDER))
    return out if is_url(str(out)) else Path(out)


def run(out=None, *, games=Default(D.RUN_GAMES), players=Default(None), strategy=Default(D.RUN_STRATEGY),
        rotate=Default(D.ROTATE), sheet=Default(D.SHEET), seed=Default(D.SEED), chunk_size=Default(None),
        max_rolls=Default(D.MAX_ROLLS), log_turns=Default(False), rules=Default(None),
        threads: int | None = None, resume: bool = False, force: bool = False, progress: bool = False,
        unchecked: bool = False, scheduler: str | None = None, retries: int = D.RETRIES, train: bool = False,
        command: str | None = None, say=None, trace: bool = False) -> RunResult:
    """Play `games` games into the dataset `out` [default: a new folder, sim.runs.defaults.RUN_FOLDER] and return
    what was made. `strategy`: one spec or a list, one per seat or one for every seat. With
    `resume`, a run in `out` is finished with its own settings: those not given here are its
    manifest's, those given must equal them. `command`: how the caller was called, recorded in
    the manifest. `train`: train the weights `learned` lacks first; `say(line)` announces it.
    `trace`: then write the dataset's trace table (sim.runs.trace: every seat's chances after
    every roll), in a pass of its own that replays the games."""
    from ..runs import runner
    from ..runs.dataset import MANIFEST, open_store
    from ..runs.manifest import stored_run_args
    from ..runs.settings import Settings

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

    r = trained(play, train, threads, progress, say)
    if trace:
        from ..runs.trace import trace_dataset
        if say is not None:
            say("Tracing every seat's chances after every roll (the games replayed) ...")
        r.manifest["trace"] = trained(lambda: trace_dataset(r.out, checked=not unchecked, say=say), train, threads,
                                      progress, say)
    return r


# --- compare and compare-rules -------------------------------------------------------------

def compare(*strategies, players: int = D.PLAYERS, opponents=None, games: int | None = None,
            until_ci: float | None = None, max_games: int | None = None, seed=D.SEED, sheet=D.SHEET,
            max_rolls: int = D.MAX_ROLLS, threads: int | None = None, chunk_size: int | None = None, report=None,
            progress: bool = False, unchecked: bool = False, rules=None, train: bool = False, say=None,
            measures: bool = False, trace: bool = False):
    """The candidates (the first is the baseline) on the same games, paired: sim.experiments.compare's
    Comparison. `games` [default: sim.runs.defaults.COMPARE_GAMES] or `until_ci` (at most
    `max_games`); `opponents`: one spec for every opponent seat, or one per opponent seat.
    `report`: an HTML file to write too (checked before any game is played). `measures`: the
    designer's measures of each candidate's games too (sim.runs.measures); `trace`: with them the
    measures of the games' per-roll trace (lead changes, drama, decided roll, comebacks, luck)."""
    from ..experiments.compare import compare as play
    return _reported(lambda: play(list(strategies), players=players, opponents=opponents, games=games, seed=seed,
                                  until_ci=until_ci, max_games=max_games, chunk_size=chunk_size, sheet=sheet,
                                  max_rolls=max_rolls, threads=threads, progress=progress, checked=not unchecked,
                                  rules=rules, measures=measures, trace=trace), report, "compare_report", train, threads,
                     progress, say)


def _reported(play, report, writer: str, train: bool, threads, progress: bool, say):
    """play() (training on demand), and with `report` its HTML report written by sim.report.report's
    `writer`: the file is checked before any game is played."""
    if report is not None:
        from ..report.report import check_output
        check_output(report)
    result = trained(play, train, threads, progress, say)
    if report is not None:
        from ..report import report as reports    # not at the top: it loads matplotlib
        getattr(reports, writer)(result, report)
    return result


def compare_rules(*rules, strategy=D.RUN_STRATEGY, players: int | None = None, rotate: bool = D.ROTATE,
                  games: int | None = None, until_ci: float | None = None, max_games: int | None = None,
                  seed=D.SEED, sheet=D.SHEET, max_rolls: int = D.MAX_ROLLS, threads: int | None = None,
                  chunk_size: int | None = None, report=None, progress: bool = False, unchecked: bool = False,
                  check_adaptation: bool = D.CHECK_ADAPTATION, train: bool = False, say=None,
                  measures: bool = False, skill=False, by: str | None = None, versus: str = D.SWEEP_VERSUS,
                  descending: bool = False, trace: bool = False):
    """The line-up `strategy` (one spec, or one per seat) on the same games under each rule set
    (the first is A; one alone is compared with the rulebook): sim.experiments.rulescompare's
    RulesComparison. `report`: an HTML file to write too. `measures`: the designer's measures of
    each rule set's games too (sim.runs.measures); `skill`: the skill ladder under each (True,
    or the strategies weakest first). A rule set given as a range or grid (`jokers=6..12:2`) is
    its points; `by`: rank the rule sets by this metric or measure (smallest first, largest with
    `descending`), beside `versus` (RulesComparison.ranking, sim.experiments.sweep). `trace`: the
    measures of the per-roll trace too (sim.runs.trace), each rule set's games replayed for them."""
    from ..experiments.rulescompare import METRICS, compare_rules as play
    from ..experiments.sweep import check_by, ranked
    strategies = [strategy] if isinstance(strategy, str) else list(strategy)
    if by is not None:
        check_by(by, versus)
        if by not in METRICS or versus not in METRICS:
            measures = True          # a designer's measure: measured to be ranked by

    def compared(specs=strategies):
        return play(specs, list(rules), games=games, players=players, seed=seed, sheet=sheet, rotate=rotate,
                    max_rolls=max_rolls, threads=threads, chunk_size=chunk_size, until_ci=until_ci,
                    max_games=max_games, progress=progress, checked=not unchecked,
                    check_adaptation=check_adaptation, measures=measures, skill=skill, trace=trace)

    def stood_in():
        result = compared() if train else _without_weights(compared, strategies, rules, sheet, threads, unchecked)
        return result if by is None else ranked(result, by, versus, descending)
    return _reported(stood_in, report, "rules_report", train, threads, progress, say)


def _without_weights(compared, strategies, rules, sheet, threads, unchecked):
    """compared(), or where `learned` lacks weights for a rule set or sheet (and --train is not
    given), compared() with D.STAND_IN in each of its seats under every rule set (the sides stay
    paired, and every measure but `learned`'s own is given), and one line in its warnings naming
    what --train would add and how long that would take (sim.training.ondemand)."""
    from strategies.adaptation import plays_weights
    from strategies.learned import MissingWeights, weights_file, weights_rules
    from strategies.registry import resolve
    from ..experiments.rulescompare import sides_of
    from ..training.ondemand import Need, offer
    try:
        return compared()
    except MissingWeights as e:
        players = e.players
    specs = [D.STAND_IN if plays_weights(r) and r.file is None else x
             for x, r in ((x, resolve(x, checked=not unchecked)) for x in strategies)]
    result = compared(specs)
    needs = [Need(x.sheet, players, weights_rules(x.rules, players)) for x in sides_of(list(rules), sheet)]
    needs = list(dict.fromkeys(n for n in needs if weights_file(n.sheet, players, n.rules) is None))
    result.warnings.append(f"Note: `learned` has no weights for {'; '.join(n.what for n in needs)}, so {D.STAND_IN} "
                           f"played its seats under every rule set; --train would play `learned` itself, training "
                           + "; ".join(f"{n.what} first: {offer(n, threads)}" for n in needs))
    return result


# --- replay ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Replay:
    """A game replayed: its log (sim.runs.api.play_game's), the sheet it was played on, and with
    a dataset the scores it stores (None: its chunk is not finished, or no dataset) and how the
    replay differs from them (None: it does not)."""
    log: dict
    sheet: object          # sim.sheets.Sheet
    stored: list | None
    problem: str | None
    trace: object = None   # the game's rows of the trace table (a DataFrame), if asked or the dataset has one


def replay(path=None, *, game: int, strategy=Default(None), seed=Default(D.SEED), players=Default(None),
           rotate=Default(D.ROTATE), sheet=Default(D.SHEET), max_rolls=Default(D.MAX_ROLLS), unchecked: bool = False,
           rules=None, trace: bool = False) -> Replay:
    """Game `game` of the dataset at `path`, played again under its own settings and rules (`rules`,
    if given, must be those); without a dataset, game `game` of what `run` plays with the same
    `strategy` (one spec, or one per seat), `seed`, `players`, ... under `rules`. With `trace`, or
    a dataset that has its trace table, every seat's chances after every roll too."""
    from ..runs.replay import check_stored, from_dataset, game_of
    from ..runs.settings import Settings
    if path is not None:
        extra = given(seed=seed, strategy=strategy, players=players, rotate=rotate, sheet=sheet, max_rolls=max_rolls)
        if extra:
            raise SettingError(f"{{{extra[0]}}} cannot be combined with {{path}}: a dataset's games are replayed "
                               "with its own settings")
        log, sheet_obj, stored = from_dataset(path, game, checked=not unchecked, rules=rules)
        from ..runs.trace import dataset_game_trace
        rows = dataset_game_trace(path, game)
        if rows is None and trace:
            from ..runs.dataset import read_manifest
            from ..runs.manifest import manifest_files, manifest_sheet
            from ..runs.trace import settings_game_trace
            manifest = read_manifest(path)
            rows = settings_game_trace(Settings.from_manifest(manifest, manifest_sheet(manifest), not unchecked),
                                       game, manifest_files(manifest))
    else:
        strategy = value(strategy)
        if not strategy:
            raise SettingError("give a dataset {path}, or {strategy} (once per seat, or once for all) and {seed}")
        s = Settings.of(strategies=[strategy] if isinstance(strategy, str) else strategy, players=value(players),
                        seed=value(seed), sheet=value(sheet), rotate=value(rotate), max_rolls=value(max_rolls),
                        checked=not unchecked, rules=rules)
        sheet_obj, log, stored = s.sheet, game_of(s, game), None
        rows = None
        if trace:
            from ..runs.trace import settings_game_trace
            rows = settings_game_trace(s, game)
    return Replay(log, sheet_obj, stored, check_stored(log, stored), rows)


# --- moves and strategies --------------------------------------------------------------

@dataclass(frozen=True)
class Moves:
    """The legal placements of a colour and number on a sheet with `crossed` boxes."""
    sheet: object          # sim.sheets.Sheet
    crossed: list          # cell names
    colour: str
    number: int
    rules: object          # sim.rules.Rules
    placements: list       # each a sorted list of cell names

    def text(self) -> str:
        """The sheet drawn with its crossed boxes, and the placements listed."""
        from ..sheets import parse_cell
        from ..runs.replay import draw_sheet, legend
        n = len(self.placements)
        # A 6 is a number joker's alone: each of these placements costs a '!'.
        paid = " (a number joker: each costs 1 !)" if self.number == 6 else ""
        return "\n".join([*draw_sheet(self.sheet, {parse_cell(c) for c in self.crossed}, self.rules),
                          legend(self.rules), "",
                          f"{n} legal placement{'s' if n != 1 else ''} of {self.colour} {self.number}{paid}:",
                          *("  " + " ".join(p) for p in self.placements)])


def moves(*, colour: str, number: int, crossed="", sheet=D.SHEET, rules=None) -> Moves:
    """The legal placements of `colour` `number` on `sheet` with the boxes `crossed` (cell names, a
    list or a comma-separated text) crossed, under `rules`."""
    from ..rules import parse_rules
    from ..sheets import load_sheet, parse_cell
    from ..runs.api import legal_placements
    sheet_obj, rules = load_sheet(sheet), parse_rules(rules)
    cells = [c.strip() for c in (crossed.split(",") if isinstance(crossed, str) else crossed) if c.strip()]
    places = legal_placements(cells, colour, number, sheet_obj, rules=rules)
    return Moves(sheet_obj, cells, colour, number, rules, [sorted(p, key=parse_cell) for p in places])


def strategies() -> dict:
    """The built-in strategies by name (strategies.registry's Strategy: description, parameters)."""
    from strategies import REGISTRY
    return dict(REGISTRY)
