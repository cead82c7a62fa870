"""Searching a strategy's parameters for the best mean score or win rate (`encore-sim tune`).

    tune("heuristic:solo_joker=0", ["solo_joker=0..3", "solo_colour=0..2"], budget=120_000) -> TuneResult

The optimiser is CMA-ES (the `cma` package), on the parameters scaled to 0..1 within their ranges:
it ranks the candidates of an iteration and moves a search distribution towards the better ones,
so it needs no gradient and tolerates noise. It starts at the start spec's values (clipped into
the ranges) with a step of 0.3 of each range.

Common random numbers: in iteration k all candidates play the same games, numbers k*n .. k*n+n-1
of the search's root seed (at a table each candidate sits with the same opponents, rotated through
the seats as in `compare`), so their ranking compares them on identical dice. Every iteration plays
new games, so the search does not fit itself to one sample of dice.

Besides the population, every iteration plays the distribution's current mean on the same games:
the mean is what the search proposes (CMA-ES's recommendation under noise: it averages many noisy
rankings, where the best single candidate is mostly the luckiest), and this line shows its progress.
The result is the mean after the last iteration.

Budget: iterations * (population + 1) * games per candidate <= budget; a game at a table counts
once however many seats it has. The validation afterwards is not part of the budget: the best
spec and the start spec play `validate_games` games each on another root seed (by default seed + 1),
which the search never played, and `compare`'s paired difference with its 95% CI says how much
better the result is, free of the search's selection.
"""
from __future__ import annotations

import dataclasses
import io
import math
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np
import pandas as pd

from ..runs import api, interrupts
from ..runs.api import MAX_SEED, check_int
from ..runs.settings import MAX_GAMES, Settings
from .compare import candidate_results, opponent_seats, opponents_text
from .compare import compare as run_compare
from ..runs.defaults import MAX_ROLLS, PLAYERS, SEED, SHEET, TUNE_BUDGET, TUNE_OBJECTIVE, TUNE_VALIDATE_GAMES
from ..runs.dataset import atomic_write_bytes, json_safe, write_json
from ..runs.progress import Progress
from ..errors import SettingError
from ..runs.summary import mean_ci



def _import_cma():
    """The cma package, without the optional packages it imports for what tune does not use:
    matplotlib.pyplot (its plots) and scipy.stats (a rank correlation for its surrogate models).
    They took 2-3 s of a tune's start; cma does without them when they are missing, and so it
    does here (its search is the same: they enter neither its sampling nor its updates)."""
    blocked = [name for name in ("matplotlib.pyplot", "scipy.stats") if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None   # `import` raises ImportError, which cma expects of a missing package
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # cma warns at import that matplotlib (for its plots) is missing
            import cma
    finally:
        for name in blocked:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    return cma


cma = _import_cma()

DEFAULT_BUDGET = TUNE_BUDGET
#: Most candidates per iteration (--popsize).
MAX_POPSIZE = 10_000
#: Games each strategy plays in the validation, solo and at tables.
DEFAULT_VALIDATE_GAMES = TUNE_VALIDATE_GAMES
#: Fewest games a candidate plays per iteration when the games are chosen from the budget.
MIN_TRIAL_GAMES = 100
#: Fewest iterations a search may have: fewer cannot move the distribution anywhere.
MIN_ITERATIONS = 3
#: Initial step, in units of each parameter's range (CMA-ES's advice: about a quarter to a third).
SIGMA0 = 0.3
OBJECTIVES = ("score", "win")

_RANGE = re.compile(r"^\s*([^=\s]+)\s*=\s*(\S+?)\s*\.\.\s*(\S+)\s*$")


@dataclass(frozen=True)
class ParamRange:
    name: str
    lo: float
    hi: float


def parse_range(text: str) -> ParamRange:
    """"NAME=LO..HI" as a ParamRange; a ValueError names what is wrong."""
    m = _RANGE.match(text) if isinstance(text, str) else None
    if m is None:
        raise SettingError(f"bad {{param}} {text!r}: expected NAME=LO..HI, e.g. solo_joker=0..3")
    try:
        lo, hi = float(m[2]), float(m[3])
    except ValueError:
        raise SettingError(f"bad {{param}} {text!r}: LO and HI must be numbers, e.g. solo_joker=0..3") from None
    return _checked(ParamRange(m[1], lo, hi))


def _checked(r: ParamRange) -> ParamRange:
    if not (math.isfinite(r.lo) and math.isfinite(r.hi)):
        raise SettingError(f"bad {{param}} {r.name}={r.lo:g}..{r.hi:g}: the range must be finite")
    if not r.lo < r.hi:
        raise SettingError(f"bad {{param}} {r.name}={r.lo:g}..{r.hi:g}: LO must be below HI")
    return r


def _ranges(params) -> list[ParamRange]:
    """--param strings, or a dict name -> (lo, hi), as ParamRanges."""
    if isinstance(params, str):
        params = [params]
    if isinstance(params, dict):
        out = []
        for name, bounds in params.items():
            try:
                lo, hi = (float(b) for b in bounds)
            except (TypeError, ValueError):
                raise ValueError(f"bad range for parameter {name!r}: expected (lo, hi), got {bounds!r}") from None
            out.append(_checked(ParamRange(str(name), lo, hi)))
    else:
        out = [p if isinstance(p, ParamRange) else parse_range(p) for p in params]
    seen = set()
    for r in out:
        if r.name in seen:
            raise SettingError(f"{{param}} {r.name} given twice")
        seen.add(r.name)
    return out


def format_value(value: float, r: ParamRange) -> str:
    """value rounded to a thousandth of its range (so a spec stays readable and replays exactly)."""
    decimals = max(0, -math.floor(math.log10((r.hi - r.lo) / 1000) + 1e-9))   # 100.1 - 100 is 0.0999...
    text = f"{round(value, decimals):.{decimals}f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text in ("-0", "") else text


def spec_with(spec: str, values: dict[str, str]) -> str:
    """`spec` with its parameters `values` (name -> text) set, others (and a file parameter) kept."""
    from strategies import REGISTRY
    head, _, rest = spec.strip().rstrip(":").partition(":")
    if head in REGISTRY:
        base, text = head, rest
    else:   # path/file.py:function[:params] or package.module:function[:params]
        func, _, text = rest.partition(":")
        base = f"{head}:{func}"
    items = [item for item in text.split(",") if item.strip() and item.partition("=")[0].strip() not in values]
    items += [f"{k}={v}" for k, v in values.items()]
    return f"{base}:{','.join(items)}"


@dataclass
class TuneResult:
    """What a search found. `history` has one dict per iteration, `trials()` one row per candidate
    played; `validation` is None when it was skipped (validate_games=0) or interrupted."""
    start_spec: str
    best_spec: str
    best_params: dict[str, float]
    start_params: dict[str, float]
    ranges: list[ParamRange]
    settings: dict
    games: int = 0
    history: list[dict] = field(default_factory=list)
    trial_rows: list[dict] = field(default_factory=list)
    validation: dict | None = None
    status: str = "running"
    #: the validation's sim.experiments.compare.Comparison (its table and settings)
    comparison: object = None

    def trials(self) -> pd.DataFrame:
        return pd.DataFrame(self.trial_rows, columns=_trial_columns(self.ranges))

    def to_dict(self) -> dict:
        return json_safe({
            "status": self.status,
            "start_spec": self.start_spec,
            "best_spec": self.best_spec,
            "best_params": self.best_params,
            "start_params": self.start_params,
            "ranges": {r.name: [r.lo, r.hi] for r in self.ranges},
            "settings": self.settings,
            "games": self.games,
            "iterations": len(self.history),
            "history": self.history,
            "validation": self.validation,
            "warnings": edge_warnings(self),
        })

    def write(self, out) -> None:
        """trials.parquet and tune.json into folder `out`, each written atomically."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        buf = io.BytesIO()
        self.trials().to_parquet(buf, index=False)
        atomic_write_bytes(out / "trials.parquet", buf.getvalue())
        write_json(out / "tune.json", self.to_dict())


class TuneInterrupted(KeyboardInterrupt):
    """Ctrl-C during a search; `.result` holds the best so far (status "interrupted")."""

    def __init__(self, result: TuneResult):
        super().__init__("interrupted")
        self.result = result


def _trial_columns(ranges) -> list[str]:
    return (["iteration", "kind", "candidate", "spec"] + [f"param_{r.name}" for r in ranges]
            + ["seed", "first_game", "games", "mean", "sd", "ci_low", "ci_high", "score", "win_rate"])


def _check_out(out) -> Path | None:
    if out is None:
        return None
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SettingError(f"output folder {out} is not empty: give {{out}} a new or empty folder" if out.is_dir()
                           else f"{out} is not a folder: give {{out}} a new or empty folder")
    return out


def default_trial_games(budget: int, per_iteration: int, dims: int) -> int:
    """Games per candidate and iteration: the budget spread over about 15 iterations per parameter
    (at least 30; CMA-ES needs of the order of 10 * dims iterations to settle), at least MIN_TRIAL_GAMES."""
    iterations = max(30, 15 * dims)
    return max(MIN_TRIAL_GAMES, budget // (per_iteration * iterations))


@dataclass(frozen=True)
class _Checked:
    """tune()'s arguments once checked: what the search and its validation play."""
    players: int
    seed: int
    sheet: object
    max_rolls: int
    threads: int
    rules: object
    objective: str
    budget: int
    validate_games: int
    validation_seed: int
    out: Path | None


def _checked_arguments(start, opponents, objective, budget, validate_games, validation_seed, out,
                       settings: Settings) -> _Checked:
    """The arguments that need no strategy resolved, checked: SettingError (or ValueError) names the
    first one wrong, before any game."""
    if not isinstance(start, str):
        raise ValueError("tune needs the start strategy as a spec string (NAME[:k=v,..] or file.py:function), "
                         "so that the result is a spec too")
    players, seed = settings.players, settings.seed
    budget = check_int("budget", budget, 1, MAX_GAMES)
    if objective not in OBJECTIVES:
        raise SettingError(f"{{objective}} must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if players == 1 and objective == "win":
        raise SettingError("{objective} win needs {players} 2..6 (the solo game is always won)")
    if players == 1 and opponents is not None:
        raise SettingError("{opponents} needs {players} 2..6 (the solo game has none)")
    validate_games = DEFAULT_VALIDATE_GAMES["solo" if players == 1 else "table"] if validate_games is None else \
        check_int("validate-games", validate_games, 0, MAX_GAMES)
    validation_seed = (seed + 1) % (MAX_SEED + 1) if validation_seed is None else \
        check_int("validation-seed", validation_seed, 0, MAX_SEED)
    if validation_seed == seed:
        raise SettingError(f"the validation seed must differ from the search's seed {seed}: give {{validation_seed}} "
                           "another (the validation plays games the search has not seen)")
    return _Checked(players, seed, settings.sheet, settings.max_rolls, settings.threads, settings.rules, objective,
                    budget, validate_games, validation_seed, _check_out(out))


class _Search:
    """One search: the start spec's line-up, CMA-ES over its parameters scaled to 0..1, the games
    each iteration plays, and the result so far. Set up by set_up(), stepped by iteration()."""

    def __init__(self, checked: _Checked, resolved, ranges, start_params, base, opponents, popsize, trial_games):
        self.checked, self.resolved, self.ranges, self.base = checked, resolved, ranges, base
        self.column = {name: i for i, name in enumerate(resolved.strategy.params)}
        dims = len(ranges)
        # cma fails on one dimension (its limits on the steps raise in 4.5; its docs advise against 1-D):
        # one parameter gets a second, dummy coordinate that no candidate reads.
        cma_dims = max(2, dims)
        lam = check_int("popsize", popsize, 2, MAX_POPSIZE) if popsize is not None else 4 + int(3 * math.log(cma_dims))
        self.per_iteration = lam + 1
        budget = checked.budget
        self.n = n = default_trial_games(budget, self.per_iteration, dims) if trial_games is None else \
            check_int("trial-games", trial_games, 1, MAX_GAMES)
        self.iterations = budget // (self.per_iteration * n)
        if self.iterations < MIN_ITERATIONS:
            raise SettingError(f"{{budget}} {budget:,} is too small: {MIN_ITERATIONS} iterations of {lam} candidates "
                               f"and their mean at {n:,} games each need "
                               f"{MIN_ITERATIONS * self.per_iteration * n:,} games")
        self.lo = np.array([r.lo for r in ranges])
        self.width = np.array([r.hi for r in ranges]) - self.lo
        x0 = np.clip((np.array([start_params[r.name] for r in ranges]) - self.lo) / self.width, 0.0, 1.0)
        x0 = np.concatenate((x0, [0.5] * (cma_dims - dims)))
        # The generator is our own, so the search depends on the seed alone and leaves numpy's global one alone.
        rng = np.random.default_rng([checked.seed, 0x7475_6E65])
        self.es = cma.CMAEvolutionStrategy(list(x0), SIGMA0, {
            "bounds": [0, 1], "popsize": lam, "randn": lambda *shape: rng.standard_normal(shape),
            "seed": np.nan, "verbose": -9, "verb_disp": 0, "verb_log": 0})
        settings = {"players": checked.players, "opponents": opponents, "objective": checked.objective,
                    "budget": budget, "seed": checked.seed, "validation_seed": checked.validation_seed,
                    "validate_games": checked.validate_games, "sheet": checked.sheet.name,
                    "max_rolls": checked.max_rolls, "optimizer": f"CMA-ES (cma {cma.__version__})", "popsize": lam,
                    "trial_games": n, "iterations_planned": self.iterations, "sigma0": SIGMA0}
        if not checked.rules.is_rulebook:   # named only when they are not the rulebook: older outputs stay as they were
            settings["rules"] = checked.rules.text
        self.result = TuneResult(resolved.spec, resolved.spec, dict(start_params), start_params, ranges, settings)
        self.bar = None

    @classmethod
    def set_up(cls, start: str, params, opponents, popsize, trial_games, checked: _Checked) -> _Search:
        """The start spec resolved, its parameters' ranges checked against those it has, and the
        line-up every candidate plays in (every spec resolves before any game)."""
        from strategies import resolve
        from strategies.interface import unknown_params
        resolved = resolve(start)
        known = resolved.strategy.params
        if not known:
            raise ValueError(f"strategy {resolved.spec!r} has no parameters to tune")
        ranges = _ranges(params)
        if not ranges:
            raise SettingError(f"give the parameters to tune as {{param}} NAME=LO..HI ({resolved.spec!r} has: "
                               f"{', '.join(known)})")
        unknown = [r.name for r in ranges if r.name not in known]
        if unknown:
            raise ValueError(f"strategy {resolved.spec!r} " + unknown_params(unknown, known))
        start_values = dict(zip(known, map(float, resolved.params)))
        start_params = {r.name: start_values[r.name] for r in ranges}
        rest = [] if checked.players == 1 else opponent_seats(opponents, checked.players, resolved.spec)
        opponents = None if checked.players == 1 else rest[0] if len(set(rest)) == 1 else rest
        base = api.lineup([resolved.spec] + rest, sheet=checked.sheet, rules=checked.rules)
        return cls(checked, resolved, ranges, start_params, base, opponents, popsize, trial_games)

    def values_of(self, x) -> dict[str, str]:
        """A point of the 0..1 search space as parameter values, each as its spec writes it."""
        x = np.clip(np.asarray(x, float), 0.0, 1.0)
        return {r.name: format_value(self.lo[i] + x[i] * self.width[i], r) for i, r in enumerate(self.ranges)}

    def set_best(self) -> None:
        """The result is the search distribution's mean (see the module's docstring)."""
        vals = self.values_of(self.es.result.xfavorite)
        self.result.best_spec = spec_with(self.resolved.spec, vals)
        self.result.best_params = {k: float(v) for k, v in vals.items()}

    def objective(self, values, it, kind, index, first) -> float:
        """The mean objective of the candidate with parameters `values` on games first.. of the
        search's seed; its trial row recorded."""
        c, n, result = self.checked, self.n, self.result
        spec = spec_with(self.resolved.spec, values)
        # The candidate is the start's lineup with other numbers in slot 0's parameter row: they reach
        # the kernel as data, as learned's weights do, so no candidate loads or compiles anything.
        params = self.base.params.copy()
        for name, text in values.items():
            params[0, self.column[name]] = float(text)   # the value its spec says, as resolve() reads it
        line = dataclasses.replace(self.base, specs=(spec,) + self.base.specs[1:], params=params, labels=None)
        scores, wins = candidate_results(line, c.seed, first, n, c.players, c.sheet, c.max_rolls)
        y = (scores if c.objective == "score" else wins).astype(np.float64)
        m, sd, h = mean_ci(len(y), float(y.sum()), float((y * y).sum()))
        result.games += n
        result.trial_rows.append({
            "iteration": it, "kind": kind, "candidate": index, "spec": spec,
            **{f"param_{k}": float(v) for k, v in values.items()},
            "seed": c.seed, "first_game": first, "games": n, "mean": m, "sd": sd, "ci_low": m - h, "ci_high": m + h,
            "score": float(scores.mean()), "win_rate": float(wins.mean()) if c.players > 1 else float("nan")})
        self.bar.update(result.games)
        return m

    def iteration(self, it: int) -> None:
        """Iteration `it` (1-based): the distribution's mean and its candidates on the same new games,
        the candidates ranked into the distribution, a row of history."""
        es, n, result = self.es, self.n, self.result
        first = (it - 1) * n
        mean_values = self.values_of(es.result.xfavorite)
        spread = float(np.mean(es.stds[:len(self.ranges)]))   # of the distribution this iteration samples
        xs = es.ask()
        m = self.objective(mean_values, it, "mean", -1, first)
        row = result.trial_rows[-1]
        ys = [self.objective(self.values_of(x), it, "candidate", i, first) for i, x in enumerate(xs)]
        es.tell(xs, [-y for y in ys])   # cma minimises
        best = int(np.argmax(ys))
        result.history.append({
            "iteration": it, "games": result.games, "first_game": first, "trial_games": n,
            "mean_params": {k: float(v) for k, v in mean_values.items()}, "mean": m,
            "ci_low": row["ci_low"], "ci_high": row["ci_high"], "population_mean": float(np.mean(ys)),
            "best_candidate": ys[best],
            "best_candidate_params": {k: float(v) for k, v in self.values_of(xs[best]).items()},
            "spread": spread})
        self.set_best()

    def run(self, report, progress: bool) -> None:
        """Every iteration, then the validation; `report(result)` once set up and after each iteration."""
        if report:   # once it is called, Ctrl-C means "stop with the best so far" (cli.tune)
            report(self.result)
        self.bar = Progress(self.iterations * self.per_iteration * self.n, 0, enabled=progress)
        for it in range(1, self.iterations + 1):
            self.iteration(it)
            if report:
                if self.bar.enabled:
                    self.bar.stream.write("\r\033[K")   # the iteration's line replaces the progress line
                report(self.result)
        self.bar.close()
        self.result.status = "searched"
        if self.checked.validate_games:
            self.result.validation, self.result.comparison = validate(self.result, self.checked.validate_games,
                                                                      self.checked.threads, progress)
        self.result.status = "complete"

    def interrupted(self) -> TuneInterrupted:
        """Ctrl-C (or SIGTERM) during the search: the best so far, written where asked, in the
        exception to raise."""
        if self.bar is not None:
            self.bar.close()
        self.set_best()
        self.result.status = "interrupted"
        if self.checked.out is not None:
            self.result.write(self.checked.out)
        return TuneInterrupted(self.result)


def tune(start, params, players=PLAYERS, opponents=None, objective=TUNE_OBJECTIVE, budget=DEFAULT_BUDGET, seed=SEED,
         validate_games=None, validation_seed=None, trial_games=None, popsize=None, sheet=SHEET,
         max_rolls=MAX_ROLLS, threads=None, out=None, progress=False, report=None, rules=None,
         settings: Settings | None = None) -> TuneResult:
    """Search the parameters `params` ("NAME=LO..HI" strings, or a dict name -> (lo, hi)) of the
    strategy spec `start` for the best mean `objective` ("score", or "win" at a table).

    Solo (players=1) or at tables of `players` against `opponents` (default: the start spec).
    `report(result)` is called once the search is set up and after every iteration with the result
    so far. Ctrl-C raises TuneInterrupted carrying the best so far. With `out`, a folder that must
    be empty or new, trials.parquet and tune.json are written at the end (or on Ctrl-C). `rules`:
    the rule variants every game is played under (a sim.rules.Rules or a --rules text; None: the
    rulebook), the validation's too. `settings` (sim.runs.settings.Settings, validated) stands for
    `players`, `seed`, `sheet`, `max_rolls`, `threads` and `rules`.
    """
    if settings is None and isinstance(start, str):
        settings = Settings.of(players=players, seed=seed, sheet=sheet, max_rolls=max_rolls, threads=threads,
                               rules=rules)
    checked = _checked_arguments(start, opponents, objective, budget, validate_games, validation_seed, out, settings)
    search = _Search.set_up(start, params, opponents, popsize, trial_games, checked)
    numba.set_num_threads(checked.threads)
    try:
        search.run(report, progress)
    except BaseException as e:
        if not interrupts.interrupted(e):
            raise
        raise search.interrupted() from None
    if checked.out is not None:
        search.result.write(checked.out)
    return search.result


def validate(result: TuneResult, games: int, threads=None, progress=False):
    """The best spec against the start spec on the validation seed: (both means and the paired
    difference of the objective with 95% CIs, as plain data; sim.experiments.compare's Comparison)."""
    st = result.settings
    cmp = run_compare([result.start_spec, result.best_spec], players=st["players"], opponents=st["opponents"],
                      games=games, seed=st["validation_seed"], sheet=st["sheet"], max_rolls=st["max_rolls"],
                      threads=threads, progress=progress, rules=st.get("rules"))
    start, best = (cmp.table.iloc[i].to_dict() for i in range(2))
    if st["objective"] == "score":
        keys = ("mean", "diff", "diff_ci_low", "diff_ci_high", "significant")
    else:
        keys = ("win_rate", "win_diff", "win_diff_ci_low", "win_diff_ci_high", "win_significant")
    return json_safe({"seed": cmp.seed, "games": cmp.games, "objective": st["objective"],
                   "start_mean": start[keys[0]], "best_mean": best[keys[0]], "difference": best[keys[1]],
                   "ci_low": best[keys[2]], "ci_high": best[keys[3]], "significant": best[keys[4]],
                   "start": start, "best": best}), cmp


# --- text output ---------------------------------------------------------------------

def _objective_text(objective: str, value: float) -> str:
    return f"{value:.2f}" if objective == "score" else f"{value:.1%}"


def format_header(result: TuneResult) -> str:
    st = result.settings
    where = "solo" if st["players"] == 1 else \
        f"{st['players']} players, rotated through the seats against {opponents_text(st['opponents'], st['players'])}"
    what = "score" if st["objective"] == "score" else "win rate"
    ranges = ", ".join(f"{r.name} {r.lo:g}..{r.hi:g}" for r in result.ranges)
    if st.get("rules"):
        where += f", under the rules {st['rules']}"
    return (f"Tuning {result.start_spec} ({where}) for the mean {what}: {ranges}\n"
            f"{st['optimizer']}: {st['iterations_planned']:,} iterations of {st['popsize']} candidates and their mean "
            f"at {st['trial_games']:,} games each (budget {st['budget']:,} games); in each iteration all play the "
            f"same new games of seed {st['seed']}\n\n"
            f"{'iter':>4} {'games':>9} {'spread':>6}  {'the mean: ' + what + ' (95% CI)':<27} "
            f"{'best of ' + str(st['popsize']):>10}  the mean's parameters")


def format_iteration(result: TuneResult, rec: dict) -> str:
    ob = result.settings["objective"]
    text = [_objective_text(ob, rec[k]) for k in ("mean", "ci_low", "ci_high")]
    ci = f"{text[0]} ({text[1]}..{text[2]})"
    params = " ".join(f"{k}={v:g}" for k, v in rec["mean_params"].items())
    return (f"{rec['iteration']:>4} {rec['games']:>9,} {rec['spread']:>6.3f}  {ci:<27} "
            f"{_objective_text(ob, rec['best_candidate']):>10}  {params}")


def format_best(result: TuneResult) -> str:
    how = {"interrupted": "Interrupted. Best so far", "complete": "Best", "searched": "Best"}[result.status]
    text = (f"{how} (the search distribution's mean after {len(result.history)} iterations, "
            f"{result.games:,} games): {result.best_spec}")
    if result.history and result.history[-1]["mean_params"] != result.best_params:
        # The table's rows show the mean each iteration played; the last ranking has moved it since.
        text += ("\n(Not the last row's parameters: those are the mean the last iteration played; ranking that "
                 "iteration's candidates moved it here.)")
    return "\n".join([text, *(f"Warning: {w}" for w in edge_warnings(result))])


#: A parameter within this share of its range from an edge ended on the edge (edge_warnings).
EDGE = 0.05


def edge_warnings(result: TuneResult) -> list[str]:
    """A line for each best parameter within EDGE of its range's ends: the best value may lie beyond."""
    out = []
    for r in result.ranges:
        v = result.best_params.get(r.name)
        if v is None:
            continue
        side = "low" if v - r.lo <= EDGE * (r.hi - r.lo) else "high" if r.hi - v <= EDGE * (r.hi - r.lo) else None
        if side:
            out.append(f"{r.name}={v:g} ended at the {side} edge of its range {r.lo:g}..{r.hi:g}: the best value may "
                       f"lie beyond it; search a range that holds it inside (--param {r.name}=LO..HI)")
    return out


def format_validation(result: TuneResult) -> str:
    from .compare import format_table
    v = result.validation
    text = (f"Validation on seed {v['seed']}, which the search did not play: the best spec against the start spec\n"
            + format_table(result.comparison))
    ob = result.settings["objective"]
    diff = (f"{v['difference']:+.2f} points ({v['ci_low']:+.2f}..{v['ci_high']:+.2f})" if ob == "score" else
            f"{v['difference']:+.1%} ({v['ci_low']:+.1%}..{v['ci_high']:+.1%})")
    return text + f"\n\n{'Mean score' if ob == 'score' else 'Win rate'}: {_objective_text(ob, v['start_mean'])} -> " \
                  f"{_objective_text(ob, v['best_mean'])}, paired difference {diff}, 95% CI."
