"""encore-sim from Python, for notebooks: one import, every result a pandas DataFrame.

    import encore_sim as es
    es.run("results/demo", strategy=["heuristic", "greedy"], games=10_000)   # the summary, as `run` prints it
    es.summary("results/demo", by="seat")
    es.compare("heuristic", "greedy", players=2, games=5_000)
    es.compare_rules("rulebook", "pass-penalty=1", strategy="heuristic", players=4)   # a row per metric
    es.analyse("results/demo")                    # the loss per strategy; .attrs["mistakes"], ["by_stage"], ...
    es.analyse("results/demo", game=3, roll=5)     # every choice of one decision, ranked
    es.replay("results/demo", game=3)              # the moves; .attrs["text"] draws the sheets

Each function is its command (`encore-sim run`, `summary`, ...; `compare_rules` is `compare-rules`)
with the command's options as keyword arguments under the same names (`--games` is `games=`,
`--strategy` is `strategy=`, one name or a list, `--rules` is `rules=`, a text or a sim.rules.Rules),
the same defaults, and the same checks: bad input raises ValueError with the line the command would
print. What the command prints beside its table is in the frame's
`.attrs` (a dict: the dataset's path, the settings, further frames). The layers below (sim.runs,
strategies.research) hold the work; this module only shapes their results into frames.
"""
from __future__ import annotations

import inspect
from pathlib import Path

import pandas as pd

from sim.runs import commands
from sim.runs.defaults import MAX_ROLLS, RUN_STRATEGY, SEED, SHEET

__all__ = ["run", "summary", "compare", "analyse", "report", "replay", "compare_rules", "available_dice"]


def _training(call, train: bool, threads=None, progress=False):
    """call(), with the weights `learned` lacks trained first where `train` (the commands' --train:
    strategies.training.ondemand); without it, the error names this module's keyword."""
    from strategies.learned import MissingWeights
    from strategies.training.ondemand import with_training
    try:
        return with_training(call, train=train, threads=threads, progress=progress,
                             say=print if progress else None)
    except MissingWeights as e:
        raise ValueError(e.message(train="train=True")) from None


def _frame(rows, **attrs) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    df.attrs.update(attrs)
    return df


def _call(name: str, args: tuple, kwargs: dict) -> str:
    """How a command was called from Python, as a manifest records it."""
    shown = [repr(str(a) if isinstance(a, Path) else a) for a in args]
    shown += [f"{k}={str(v) if isinstance(v, Path) else v!r}" for k, v in kwargs.items()]
    return f"encore_sim.{name}({', '.join(shown)})"


def _signature_of(command, drop=("command", "say")):
    """The notebook function of `command` takes its keywords, with its defaults (sim.runs.commands)."""
    def wrap(fn):
        sig = inspect.signature(command)
        fn.__signature__ = sig.replace(parameters=[p for n, p in sig.parameters.items() if n not in drop],
                                       return_annotation=pd.DataFrame)
        return fn
    return wrap


@_signature_of(commands.run)
def run(out=None, **options) -> pd.DataFrame:
    """`encore-sim run`: play the games into the dataset `out` [default: a new folder
    results/run-TIMESTAMP] under `rules` (None: the rulebook) and return its summary (summary()'s
    frame); attrs["dataset"] is the dataset's path. With `resume`, a run in `out` is finished with
    its own settings: those not given are its manifest's. `train`: train the weights `learned`
    lacks first (the command's --train). The manifest records this call."""
    r = commands.run(out, **options, command=_call("run", (out,) if out is not None else (), options),
                     say=print if options.get("progress") else None)
    return summary(r.out)


def summary(path, *, by: str | None = None, rules=None) -> pd.DataFrame:
    """`encore-sim summary PATH`: a row per strategy (by="seat": and seat; by default per seat
    where one strategy holds every seat, as `run` prints it). attrs: dataset, games, manifest,
    "rules" (the --rules text the games were played under, "" for the rulebook) and solo "bands"
    (the rating bands, a frame). `rules`, if given, must be the dataset's."""
    from sim.runs.summary import default_by_seat, summarise
    from sim.runs.dataset import read_manifest
    if by not in (None, "strategy", "seat"):
        raise ValueError(f"by must be 'strategy' or 'seat', got {by!r}")
    from sim.runs.manifest import dataset_rules
    manifest = read_manifest(path)
    dataset_rules(manifest, rules)
    by_seat = default_by_seat(manifest) if by is None else by == "seat"
    s = summarise(path, by_seat=by_seat)
    return _frame(s.stats, dataset=str(path), games=s.games, manifest=s.manifest, rules=s.rules.text, bands=s.bands)


def compare(*strategies, players: int = 1, opponents=None, games: int | None = None, until_ci: float | None = None,
            max_games: int | None = None, seed: int | None = SEED, sheet: str = SHEET, max_rolls: int = MAX_ROLLS,
            threads: int | None = None, chunk_size: int | None = None, report: str | Path | None = None,
            progress: bool = False, unchecked: bool = False, rules=None, train: bool = False) -> pd.DataFrame:
    """`encore-sim compare A B ...`: a row per strategy, its mean and its paired difference from
    the first (at tables, win rates too), every strategy under `rules` (None: the rulebook). `opponents`: one spec, or one per opponent seat. attrs:
    games, settings, stop (with until_ci), headline, and with `report` the HTML file written.
    `train`: train the weights `learned` lacks first."""
    from sim.runs import compare as c
    result = commands.compare(*strategies, players=players, opponents=opponents, games=games, seed=seed,
                              until_ci=until_ci, max_games=max_games, chunk_size=chunk_size, sheet=sheet,
                              max_rolls=max_rolls, threads=threads, progress=progress, unchecked=unchecked,
                              rules=rules, train=train, say=print if progress else None)
    attrs = {"games": result.games, "settings": result.settings, "stop": result.stop, "headline": c.headline(result)}
    if report is not None:
        from sim.runs.report import compare_report
        attrs["report"] = str(compare_report(result, report).html)
    return _frame(result.table, **attrs)


def analyse(dataset, *, strategy: str | None = None, rollouts: int = 0, top: int = 4, games: int | None = None,
            mistakes: int = 10, weights=None, threads: int | None = None, game: int | None = None,
            roll: int | None = None, seat: int | None = None, progress: bool = False,
            unchecked: bool = False, rules=None, train: bool = False) -> pd.DataFrame:
    """`encore-sim analyse DATASET`: a row per strategy (and seat, at tables) with its loss per game
    and per decision against learned's choice, its luck, ... (the JSON rows' figures). attrs:
    "mistakes" (a frame: the largest, each with the decision view's arguments), "by_stage" and
    "by_kind" (frames: loss per game by strategy, seat and part), and the analysis's settings.

    With `game` (and `roll`, `seat`): that game's decision view instead, a row per choice shown
    (the best 10 and the one played of every decision) with its rank, value (and `rolled`), whether
    it was played or is learned's, the dice, boxes and '!' of it, and its decision's loss.

    The games are judged under the dataset's rules; `rules`, if given, must be those."""
    from sim.runs.dataset import read_manifest
    from sim.runs.manifest import dataset_rules
    rules = dataset_rules(read_manifest(dataset), rules)
    if game is None:
        if roll is not None or seat is not None:
            raise ValueError("roll and seat pick decisions of the game given by game=N")
        from strategies.research.analyse import analyse as judge
        a = _training(lambda: judge(dataset, strategy=strategy, rollouts=rollouts, games=games, weights=weights,
                                    threads=threads, mistakes=mistakes, progress=progress, checked=not unchecked,
                                    top=top if rollouts else 0, rules=rules), train, threads, progress)
        data = a.to_dict()
        parts = {key: _frame([{"strategy": r["strategy"], "seat": r["seat"], key[3:]: part, **figures}
                              for r in data["rows"] for part, figures in r[key].items()])
                 for key in ("by_stage", "by_kind")}
        rows = [{k: v for k, v in r.items() if k not in ("by_stage", "by_kind", "score_by_luck")} for r in data["rows"]]
        mistakes_df = _frame([{**{k: m[k] for k in ("game", "roll", "seat", "strategy", "loss", "value_loss",
                                                     "dice")},
                               "played": _describe(m["chosen"]), "learned": _describe(m["best"])}
                              for m in data["mistakes"]])
        return _frame(rows, **{k: data[k] for k in ("dataset", "players", "sheet", "seed", "games", "rollouts",
                                                   "judge")}, mistakes=mistakes_df, **parts, text=a.text())
    from strategies.research.decisions import decisions
    v = _training(lambda: decisions(dataset, game, roll=roll, seat=seat, rollouts=rollouts, weights=weights,
                                    checked=not unchecked, rules=rules), train, threads, progress)
    rows = [{"game": v.game, "roll": d["roll"], "seat": d["seat"], "strategy": d["strategy"], "dice": d["dice"],
             **{k: o[k] for k in o if k not in ("pass",)}, "passed": o["pass"], "choice": _describe(o),
             "loss": d["loss"]}
            for d in v.decisions for o in d["options"]]
    return _frame(rows, dataset=v.dataset, seed=v.seed, sheet=v.sheet, players=v.players, rollouts=v.rollouts,
                  judge=v.judge, seats=v.seats, text=v.text())


def available_dice(available: int) -> dict:
    """The dice a seat could use, from a move's `available` (the turns table's, replay()'s):
    {"colour": [colour die indices], "number": [number die indices]} into that roll's dice lists."""
    from sim.runs.schema import available_dice as decode
    return decode(available)


def _describe(choice: dict) -> str:
    from sim.runs.report import describe
    return describe(choice)


def report(dataset, *, out=None, figures=None, analyse: bool = False, progress: bool = False,
           rules=None) -> pd.DataFrame:
    """`encore-sim report DATASET`: write the HTML report [default: DATASET.html beside it]; a row
    per figure (its title, and with `figures`, a folder, its PNG). attrs["html"]: the report's path.
    `rules`, if given, must be the dataset's."""
    from sim.runs.dataset import read_manifest
    from sim.runs.manifest import dataset_rules
    from sim.runs.report import report as write
    rules = dataset_rules(read_manifest(dataset), rules)
    analysis = None
    if analyse:
        from strategies.research.analyse import analyse as judge
        analysis = judge(dataset, progress=progress, rules=rules).to_dict()
    r = write(dataset, out, "png" if figures is not None else "html", figures, progress=progress, analysis=analysis)
    pngs = [str(p) for p in r.pngs] or [None] * len(r.figures)
    return _frame({"figure": r.figures, "png": pngs}, html=str(r.html))


def replay(path=None, *, game: int, strategy=None, seed: int = SEED, players: int | None = None, rotate: bool = True,
           sheet: str = SHEET, max_rolls: int = MAX_ROLLS, unchecked: bool = False, rules=None) -> pd.DataFrame:
    """`encore-sim replay [PATH] --game N`: a row per move of the game (roll, dice, seat, its
    strategy, what it crossed and the '!' it spent), named and typed as the dataset's turns table
    (`active`: the active player's move, `passed`, `available`: available_dice() decodes it). attrs: "log" (the game log, sim.runs.api.play_game's
    format), "result" (a frame: the final scores), "text" (the replay as the command prints it:
    print(df.attrs["text"])), and with a dataset "stored_scores_equal". A dataset's game is played
    under its rules (`rules`, if given, must be those); without one, under `rules`."""
    from sim.runs.replay import check_stored, from_dataset, game_of, render
    from sim.runs.settings import Settings
    stored = None
    if path is not None:
        log, sheet_obj, stored = from_dataset(path, game, checked=not unchecked, rules=rules)
    else:
        if not strategy:
            raise ValueError("give a dataset path, or strategy= (one spec, or one per seat) and seed=")
        s = Settings.of(strategies=[strategy] if isinstance(strategy, str) else strategy, players=players,
                        seed=seed, sheet=sheet, rotate=rotate, max_rolls=max_rolls, checked=not unchecked,
                        rules=rules)
        sheet_obj, log = s.sheet, game_of(s, game)
    names = log["labels"]
    # the names and types of the dataset's turns table: `active` true for the active player's move,
    # `passed` for a move that crossed nothing (the log's "pass")
    rows = [{"roll": r["roll"], "active": m["seat"] == r["active"], "colour_dice": r["dice"]["colour"],
             "number_dice": r["dice"]["number"], "strategy": names[m["seat"]],
             **{("passed" if k == "pass" else k): v for k, v in m.items()}}
            for r in log["rolls"] for m in r["moves"]]
    attrs = {"log": log, "result": _frame(log["result"]), "text": render(log, sheet_obj)}
    if stored is not None:
        attrs["stored_scores_equal"] = check_stored(log, stored) is None
    return _frame(rows, **attrs)


def compare_rules(*rules, strategy=RUN_STRATEGY, players: int | None = None, rotate: bool = True,
                  games: int | None = None, until_ci: float | None = None, max_games: int | None = None,
                  seed: int | None = SEED, sheet: str = SHEET, max_rolls: int = MAX_ROLLS, threads: int | None = None,
                  chunk_size: int | None = None, report: str | Path | None = None, progress: bool = False,
                  unchecked: bool = False, check_adaptation: bool = True, train: bool = False) -> pd.DataFrame:
    """`encore-sim compare-rules A B ...`: the line-up `strategy` (one name, or one per seat) on the
    same games under each rule set (A first; one alone against the rulebook); a row per rule set B,
    who (the game, all seats, a strategy, a seat) and metric: the means under A and B and the mean
    of the games' differences B - A with its 95% CI. attrs: games, rules, settings, stop (with
    until_ci), headline, played_by (per rule set, what played each strategy), warnings,
    adaptation (a frame: with check_adaptation, what B's own weights gain over A's under B), and
    with `report` the HTML file written. `train`: train the weights `learned` lacks first."""
    from sim.runs import rulescompare as rc
    result = commands.compare_rules(*rules, strategy=strategy, games=games, players=players, seed=seed, sheet=sheet,
                                    rotate=rotate, max_rolls=max_rolls, threads=threads, chunk_size=chunk_size,
                                    until_ci=until_ci, max_games=max_games, progress=progress,
                                    unchecked=unchecked, check_adaptation=check_adaptation, train=train,
                                    say=print if progress else None)
    attrs = {"games": result.games, "rules": result.labels, "settings": result.settings, "stop": result.stop,
             "headline": rc.headline(result), "played_by": result.played_by, "warnings": result.warnings,
             "adaptation": result.adaptation}
    if report is not None:
        from sim.runs.report import rules_report
        attrs["report"] = str(rules_report(result, report).html)
    return _frame(result.table, **attrs)


# --- learning environments (the `rl` extra: pip install 'encore-sim[rl]'; docs/agents.md) -----------

def env(players: int = 1, opponents=None, *, seat: int = 0, sheet: str = SHEET, rules=None, reward: str = "score",
        seed: int | None = None, max_rolls: int = MAX_ROLLS):
    """A gymnasium.Env of one seat (`seat`): the solo game, or a table of `players` whose other seats
    `opponents` play (one strategy spec, or a list; "greedy" unless told). reward: "score", "final"
    or "margin". Game g of `seed` has run's game g's dice (sim.runs.envs)."""
    from sim.runs.envs import EncoreEnv
    return EncoreEnv(players=players, opponents=opponents, seat=seat, sheet=sheet, rules=rules, reward=reward,
                     seed=seed, max_rolls=max_rolls)


def vector_env(num_envs: int, players: int = 1, opponents=None, *, seat: int = 0, sheet: str = SHEET, rules=None,
               reward: str = "score", seed: int | None = None, max_rolls: int = MAX_ROLLS,
               autoreset_mode=None, copy: bool = True):
    """A gymnasium.vector.VectorEnv of num_envs games (env's settings) stepped in one compiled call;
    autoreset_mode: gymnasium.vector.AutoresetMode (NEXT_STEP unless told)."""
    from gymnasium.vector import AutoresetMode
    from sim.runs.envs import EncoreVectorEnv
    return EncoreVectorEnv(num_envs, players=players, opponents=opponents, seat=seat, sheet=sheet, rules=rules,
                           reward=reward, seed=seed, max_rolls=max_rolls,
                           autoreset_mode=autoreset_mode or AutoresetMode.NEXT_STEP, copy=copy)


def aec_env(players: int = 4, *, sheet: str = SHEET, rules=None, reward: str = "score", seed: int | None = None,
            max_rolls: int = MAX_ROLLS):
    """A PettingZoo AEC environment whose agents are the seats (seat_0 ...): the roll's active seat
    acts first, then the passive seats, whose choices apply together (sim.runs.aec)."""
    from sim.runs.aec import EncoreAEC
    return EncoreAEC(players=players, sheet=sheet, rules=rules, reward=reward, seed=seed, max_rolls=max_rolls)


__all__ += ["env", "vector_env", "aec_env"]
