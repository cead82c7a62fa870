"""encore-sim from Python, for notebooks: one import, every result a pandas DataFrame.

    import encore_sim as es
    es.run("results/demo", strategy=["heuristic", "greedy"], games=10_000)   # the summary, as `run` prints it
    es.summary("results/demo", by="seat")
    es.compare("heuristic", "greedy", players=2, games=5_000)
    es.compare_rules("rulebook", "pass-penalty=1", strategy="heuristic", players=4)   # a row per metric
    es.analyse("results/demo")                    # the loss per strategy; .attrs["mistakes"], ["by_stage"], ...
    es.analyse("results/demo", game=3, roll=5)     # every choice of one decision, ranked
    es.replay("results/demo", game=3)              # the moves; .attrs["text"] draws the sheets
    g = es.game(players=4, opponents="learned")    # your game: g.choices(), g.hint(), g.play(i), g.save()

Each function is its command (`encore-sim run`, `summary`, ...; `compare_rules` is `compare-rules`)
with the command's options as keyword arguments under the same names (`--games` is `games=`,
`--strategy` is `strategy=`, one name or a list, `--rules` is `rules=`, a text or a sim.rules.Rules),
the same defaults, and the same checks: both call the same function of sim.commands, whose
signature each function here takes. Bad input raises ValueError with the line the command would
print, naming keywords where the command names flags. What the command prints beside its table is
in the frame's `.attrs` (a dict: the dataset's path, the settings, further frames, the command's
text). This module only shapes the layer's results into frames.
"""
from __future__ import annotations

import inspect
from pathlib import Path

import pandas as pd

from sim import commands

__all__ = ["run", "summary", "compare", "compare_rules", "tune", "train", "replay", "analyse", "report", "bound",
           "moves", "strategies", "weights", "available_dice", "game", "env", "vector_env", "aec_env"]


def _frame(rows, **attrs) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    df.attrs.update(attrs)
    return df


def _call(name: str, args: tuple, kwargs: dict) -> str:
    """How a command was called from Python, as a manifest records it."""
    shown = [repr(str(a) if isinstance(a, Path) else a) for a in args]
    shown += [f"{k}={str(v) if isinstance(v, Path) else v!r}" for k, v in kwargs.items()]
    return f"encore_sim.{name}({', '.join(shown)})"


def _signature_of(command, drop=("command", "say"), returns=pd.DataFrame):
    """The notebook function of `command` takes its keywords, with its defaults (sim.commands)."""
    def wrap(fn):
        sig = inspect.signature(command)
        fn.__signature__ = sig.replace(parameters=[p for n, p in sig.parameters.items() if n not in drop],
                                       return_annotation=returns)
        return fn
    return wrap


def _say(options: dict):
    """Training on demand announces itself where a progress display is asked for."""
    return print if options.get("progress") else None


@_signature_of(commands.run)
def run(out=None, **options) -> pd.DataFrame:
    """`encore-sim run`: play the games into the dataset `out` [default: a new folder
    results/run-TIMESTAMP] under `rules` (None: the rulebook) and return its summary (summary()'s
    frame); attrs["dataset"] is the dataset's path. With `resume`, a run in `out` is finished with
    its own settings: those not given are its manifest's. `train`: train the weights `learned`
    lacks first (the command's --train). The manifest records this call."""
    r = commands.run(out, **options, command=_call("run", (out,) if out is not None else (), options),
                     say=_say(options))
    return summary(r.out)


@_signature_of(commands.summary)
def summary(path, **options) -> pd.DataFrame:
    """`encore-sim summary PATH`: a row per strategy (by="seat": and seat; by default per seat
    where one strategy holds every seat, as `run` prints it). attrs: dataset, games, manifest,
    "rules" (the --rules text the games were played under, "" for the rulebook) and solo "bands"
    (the rating bands, a frame). `rules`, if given, must be the dataset's. `measures`: attrs
    "measures" (the designer's measures of its games, a frame; docs/design.md) and "not_measured"."""
    s = commands.summary(path, **options)
    return _frame(s.stats, dataset=str(path), games=s.games, manifest=s.manifest, rules=s.rules.text, bands=s.bands,
                  **_measured(s))


@_signature_of(commands.compare)
def compare(*strategies, **options) -> pd.DataFrame:
    """`encore-sim compare A B ...`: a row per strategy, its mean and its paired difference from
    the first (at tables, win rates too), every strategy under `rules` (None: the rulebook).
    `opponents`: one spec, or one per opponent seat. attrs: games, settings, stop (with until_ci),
    headline, and with `report` the HTML file written. `train`: train the weights `learned` lacks
    first. `measures`: attrs "measures" (the designer's measures of each candidate's games, a frame)
    and "not_measured"."""
    from sim.experiments.compare import headline
    result = commands.compare(*strategies, **options, say=_say(options))
    return _frame(result.table, games=result.games, settings=result.settings, stop=result.stop,
                  headline=headline(result), **_report(options), **_measured(result))


def _report(options: dict) -> dict:
    return {} if options.get("report") is None else {"report": str(options["report"])}


@_signature_of(commands.compare_rules)
def compare_rules(*rules, **options) -> pd.DataFrame:
    """`encore-sim compare-rules A B ...`: the line-up `strategy` (one name, or one per seat) on the
    same games under each rule set (A first; one alone against the rulebook); a row per rule set B,
    who (the game, all seats, a strategy, a seat) and metric: the means under A and B and the mean
    of the games' differences B - A with its 95% CI. attrs: games, rules, settings, stop (with
    until_ci), headline, played_by (per rule set, what played each strategy), warnings,
    adaptation (a frame: with check_adaptation, what B's own weights gain over A's under B), and
    with `report` the HTML file written. `train`: train the weights `learned` lacks first.
    `measures` (and `skill`: the skill ladder): attrs "measures", a frame of the designer's
    measures (docs/design.md), a row per rule set, metric and who, and "not_measured". A range
    (`"jokers=6..12"`) is its points; `by`: attrs "ranking", the points ranked."""
    from sim.experiments.rulescompare import headline
    result = commands.compare_rules(*rules, **options, say=_say(options))
    return _frame(result.table, games=result.games, rules=result.labels, settings=result.settings, stop=result.stop,
                  headline=headline(result), played_by=result.played_by, warnings=result.warnings,
                  adaptation=result.adaptation, **_report(options), **_measured(result))


def _measured(result) -> dict:
    """attrs of the designer's measures and of a sweep's ranking, where asked."""
    out = {} if result.measures is None else {"measures": result.measures, "not_measured": result.not_measured}
    if getattr(result, "ranking", None) is not None:
        out["ranking"] = result.ranking
    return out


@_signature_of(commands.tune, drop=("on_iteration", "say"))
def tune(spec, **options) -> pd.DataFrame:
    """`encore-sim tune SPEC --param NAME=LO..HI ...`: a row per iteration of the search (the
    search distribution's mean it played, its objective with 95% CI, the best candidate). attrs:
    best_spec, best_params, start_spec, start_params, validation (the best spec against the start
    spec on the validation seed; None with validate_games=0), settings, games, status, "trials" (a
    frame: a row per candidate played) and "text" (the result as the command prints it)."""
    from sim.experiments.tune import format_best, format_validation
    r = commands.tune(spec, **options, say=_say(options))
    text = format_best(r) + ("" if r.validation is None else "\n\n" + format_validation(r))
    return _frame(r.history, best_spec=r.best_spec, best_params=r.best_params, start_spec=r.start_spec,
                  start_params=r.start_params, validation=r.validation, settings=r.settings, games=r.games,
                  status=r.status, trials=r.trials(), text=text)


@_signature_of(commands.train)
def train(**options) -> pd.DataFrame:
    """`encore-sim train`: train `learned`'s weights by self-play into your weights store (or the
    file `out`); a row: the file written, its sheet, players, rules and whether it is the store's."""
    w = commands.train(**options)
    return _frame([{"file": str(w.file), "sheet": w.sheet, "players": w.players, "rules": w.rules.text,
                    "in_store": w.in_store}])


@_signature_of(commands.analyse, drop=("decisions_out", "say"))
def analyse(dataset, **options) -> pd.DataFrame:
    """`encore-sim analyse DATASET`: a row per strategy (and seat, at tables) with its loss per game
    and per decision against learned's choice, its luck, ... (the JSON rows' figures). attrs:
    "mistakes" (a frame: the largest, each with the decision view's arguments), "by_stage" and
    "by_kind" (frames: loss per game by strategy, seat and part), and the analysis's settings.

    With `game` (and `roll`, `seat`): that game's decision view instead, a row per choice shown
    (the best 10 and the one played of every decision) with its rank, value (and `rolled`), whether
    it was played or is learned's, the dice, boxes and '!' of it, and its decision's loss.

    The games are judged under the dataset's rules; `rules`, if given, must be those."""
    a = commands.analyse(dataset, **options, say=_say(options))
    if options.get("game") is None:
        return _analysis(a)
    rows = [{"game": a.game, "roll": d["roll"], "seat": d["seat"], "strategy": d["strategy"], "dice": d["dice"],
             **{k: o[k] for k in o if k not in ("pass",)}, "passed": o["pass"], "choice": _describe(o),
             "loss": d["loss"]}
            for d in a.decisions for o in d["options"]]
    return _frame(rows, dataset=a.dataset, seed=a.seed, sheet=a.sheet, players=a.players, rollouts=a.rollouts,
                  judge=a.judge, seats=a.seats, text=a.text())


def _analysis(a) -> pd.DataFrame:
    data = a.to_dict()
    parts = {key: _frame([{"strategy": r["strategy"], "seat": r["seat"], key[3:]: part, **figures}
                          for r in data["rows"] for part, figures in r[key].items()])
             for key in ("by_stage", "by_kind")}
    rows = [{k: v for k, v in r.items() if k not in ("by_stage", "by_kind", "score_by_luck")} for r in data["rows"]]
    mistakes = _frame([{**{k: m[k] for k in ("game", "roll", "seat", "strategy", "loss", "value_loss", "dice")},
                        "played": _describe(m["chosen"]), "learned": _describe(m["best"])}
                       for m in data["mistakes"]])
    return _frame(rows, **{k: data[k] for k in ("dataset", "players", "sheet", "seed", "games", "rollouts", "judge")},
                  mistakes=mistakes, **parts, text=a.text())


def available_dice(available: int) -> dict:
    """The dice a seat could use, from a move's `available` (the turns table's, replay()'s):
    {"colour": [colour die indices], "number": [number die indices]} into that roll's dice lists."""
    from sim.runs.schema import available_dice as decode
    return decode(available)


def _describe(choice: dict) -> str:
    from sim.runs.gamelog import describe
    return describe(choice)


@_signature_of(commands.report)
def report(dataset, **options) -> pd.DataFrame:
    """`encore-sim report DATASET`: write the HTML report [default: DATASET.html beside it]; a row
    per figure (its title, and with `figures`, a folder, its PNG). attrs["html"]: the report's path.
    `rules`, if given, must be the dataset's."""
    r = commands.report(dataset, **options)
    pngs = [str(p) for p in r.pngs] or [None] * len(r.figures)
    return _frame({"figure": r.figures, "png": pngs}, html=str(r.html))


@_signature_of(commands.replay)
def replay(path=None, **options) -> pd.DataFrame:
    """`encore-sim replay [PATH] --game N`: a row per move of the game (roll, dice, seat, its
    strategy, what it crossed and the '!' it spent), named and typed as the dataset's turns table
    (`active`: the active player's move, `passed`, `available`: available_dice() decodes it).
    attrs: "log" (the game log, sim.runs.api.play_game's format), "result" (a frame: the final
    scores), "text" (the replay as the command prints it: print(df.attrs["text"])), and with a
    dataset "stored_scores_equal". A dataset's game is played under its rules (`rules`, if given,
    must be those); without one, under `rules`."""
    from sim.runs.replay import render
    r = commands.replay(path, **options)
    log, names = r.log, r.log["labels"]
    # the names and types of the dataset's turns table: `active` true for the active player's move,
    # `passed` for a move that crossed nothing (the log's "pass")
    rows = [{"roll": x["roll"], "active": m["seat"] == x["active"], "colour_dice": x["dice"]["colour"],
             "number_dice": x["dice"]["number"], "strategy": names[m["seat"]],
             **{("passed" if k == "pass" else k): v for k, v in m.items()}}
            for x in log["rolls"] for m in x["moves"]]
    attrs = {"log": log, "result": _frame(log["result"]), "text": render(log, r.sheet)}
    if r.stored is not None:
        attrs["stored_scores_equal"] = r.problem is None
    return _frame(rows, **attrs)


@_signature_of(commands.bound)
def bound(**options) -> pd.DataFrame:
    """`encore-sim bound`: a row per solo game, the clairvoyant bound's score (a beam search with
    every roll known) and `learned`'s on the same dice. attrs: "ratio" and "ratio_ci" (learned's
    mean over the bound's, its 95% half-width), "breakdown" (a frame: the score's parts, both
    means), seed, sheet, beam, rules and "text" (the report as the command prints it)."""
    h = commands.bound(**options)
    ratio, ratio_ci = h.ratio()
    breakdown = _frame([{"part": name, "bound": b, "learned": lrn} for name, b, lrn in h.breakdown()])
    return _frame({"game": range(h.games), "bound": h.bound, "learned": h.learned}, ratio=ratio, ratio_ci=ratio_ci,
                  breakdown=breakdown, seed=h.seed, sheet=h.sheet, beam=h.beam, rules=h.rules, text=h.report())


@_signature_of(commands.moves)
def moves(**options) -> pd.DataFrame:
    """`encore-sim moves --colour C --number N`: a row per legal placement (its cells) on the sheet
    with the boxes `crossed` (a list of cell names, or a comma-separated text). attrs["text"]: the
    sheet drawn and the placements, as the command prints them."""
    m = commands.moves(**options)
    return _frame({"cells": m.placements}, colour=m.colour, number=m.number, crossed=m.crossed, text=m.text())


@_signature_of(commands.strategies)
def strategies() -> pd.DataFrame:
    """`encore-sim strategies`: a row per built-in strategy, its description and parameters (a dict
    of their defaults)."""
    return _frame([{"strategy": name, "description": s.description, "params": dict(s.params)}
                   for name, s in commands.strategies().items()])


@_signature_of(commands.weights)
def weights() -> pd.DataFrame:
    """`encore-sim weights`: a row per weights file `learned` can play, shipped or in your weights
    store: its sheet, players, rules, training games, when, from which weights, its path.
    attrs["store"]: the weights store's folder."""
    w = commands.weights()
    return _frame(pd.DataFrame(w.rows(), columns=w.columns()), store=str(w.folder))


@_signature_of(commands.game, returns="sim.play.game.Game")
def game(**options):
    """Your game against the bots: a sim.play.game.Game in which you are seat 0 (not a frame:
    a game in progress). g.choices() and g.hint() are DataFrames; g.play(i) takes choice i and the
    bots play up to your next decision; g.over, g.roll, g.scores(), g.last_loss; g.save() writes a
    dataset that every function here reads. `encore-sim play` shows the same game on a page."""
    return commands.game(**options)


# --- learning environments (the `rl` extra: pip install 'encore-sim[rl]'; docs/agents.md) -----------

@_signature_of(commands.env, returns="gymnasium.Env")
def env(*args, **options):
    """A gymnasium.Env of one seat: the solo game, or a table against built-in strategies
    (sim.agents.envs.EncoreEnv). reward: "score", "final" or "margin". Game g of `seed` has run's
    game g's dice."""
    return commands.env(*args, **options)


@_signature_of(commands.vector_env, returns="gymnasium.vector.VectorEnv")
def vector_env(*args, **options):
    """A gymnasium.vector.VectorEnv of num_envs games stepped in one compiled call, autoreset
    (sim.agents.envs.EncoreVectorEnv)."""
    return commands.vector_env(*args, **options)


@_signature_of(commands.aec_env, returns="pettingzoo.AECEnv")
def aec_env(*args, **options):
    """A PettingZoo AEC environment whose agents are the seats (sim.agents.aec.EncoreAEC): the active
    seat first, then the passive seats, whose choices apply together."""
    return commands.aec_env(*args, **options)
