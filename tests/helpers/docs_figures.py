"""The figures the docs quote, each computed afresh: `<!-- figure NAME -->...<!-- /figure -->`
in a Markdown file must hold what NAME returns (tests/helpers/docs_check.py compares and rewrites).

Timings are never measured here: they come from docs/bench.json, the record of the last
`python -m bench.bench --all --record docs/bench.json`, with its machine, date and load; run that,
then `python -m tests.helpers.docs_check --update`, to quote a new measurement. Everything else is
played: deterministic for its seed, so the same code gives the same text.
"""
from __future__ import annotations

import datetime as dt
import functools
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "docs" / "bench.json"
FIGURES = {}


def figure(name: str) -> str:
    if name not in FIGURES:
        raise KeyError(f"no figure {name!r} in tests/helpers/docs_figures.py (known: {', '.join(sorted(FIGURES))})")
    return FIGURES[name]()


def register(name: str, slow: bool = False, learned: bool = False):
    """Register fn as figure `name`; `slow`: takes more than a few seconds (left out by
    --fast); `learned`: plays `learned`, whose weights are retrained apart (--skip-learned)."""
    def wrap(fn):
        fn.slow, fn.learned = slow, learned
        FIGURES[name] = fn
        return fn
    return wrap


# --- the dataset's schema ----------------------------------------------------------------

@register("schema")
def schema() -> str:
    from sim.runs.schema import markdown
    return markdown(("games", "players", "turns"))


# --- timings, from the benchmark's record --------------------------------------------------

@functools.cache
def bench() -> dict:
    return json.loads(BENCH.read_text())


def rate(workload: str) -> float:
    rows = {r["workload"]: r for r in bench()["results"]}
    if workload not in rows:
        raise KeyError(f"docs/bench.json has no row {workload!r}: record it with python -m bench.bench --all "
                       "--record docs/bench.json")
    return rows[workload]["value"]


def _when() -> str:
    day = dt.datetime.strptime(bench()["date"].split()[0], "%Y-%m-%d")
    return f"{day.day} {day:%B %Y}"


def _machine() -> str:
    b = bench()
    m = b["machine"]
    load = b["load"]
    return (f"{m['cpu']}, {m['cores']} vCPUs; Python {m['python']}, numba {m['numba']}, numpy {m['numpy']}; "
            f"{_when()}, load average {min(load['start'][0], load['end'][0]):.1f}–"
            f"{max(load['start'][0], load['end'][0]):.1f} from other jobs")


@register("bench-machine")
def bench_machine() -> str:
    return _machine()


def _about(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


@register("bench-first-run")
def first_run() -> str:
    return _about(rate("first run, empty Numba cache"))


@register("make-run-time")
def make_run_time() -> str:
    """make run's 100,000 games on 2 cores, from the one-core rate of its table."""
    one_core = rate("4 players, learned, lookahead, heuristic, greedy (make run), 1 thread")
    return (f"`make bench --all` plays {one_core:,.0f} of its games a second on one core: "
            f"{_about(100_000 / one_core)} of play on one core, down to half that on two idle ones")


@register("bench-plugin")
def plugin() -> str:
    inline, called = rate("solo, greedy, 1 thread"), rate("solo, greedy called as a user's file, 1 thread")
    return f"{called / inline:.2f} of the inlined `greedy` ({called:,.0f} against {inline:,.0f} solo games/s)"


@register("python-speed")
def python_speed() -> str:
    """--python's solo games/s against the compiled ones measured with them (their targets)."""
    rows = {r["workload"]: r for r in bench()["results"]}
    parts = []
    for name, label in (("greedy", "`greedy`"), ("greedy called as a user's file", "`greedy` written as a user's file")):
        row = rows[f"solo, {name}, --python, 1 thread"]
        parts.append(f"{row['value']:,.0f} solo games a second of {label} ({row['target'] / row['value']:,.0f} times "
                     "fewer than compiled)")
    # Rows measured apart from the rest of the record say when, and the machine's load then.
    row = rows["solo, greedy, --python, 1 thread"]
    when = f"{row['date']}, load average {row['load']:.1f}" if "date" in row else _when()
    return f"{parts[0]} and {parts[1]}, on one core of the benchmark's machine ({when})"


@register("training-time")
def training_time() -> str:
    """How long train's defaults and training on demand take, from make bench's training rows."""
    from sim.training.ondemand import WARM_GAMES
    from sim.training.solo import DEFAULT_GAMES as SOLO_GAMES
    from sim.training.table import DEFAULT_GAMES as TABLE_GAMES
    rows = {r["workload"]: r for r in bench()["results"]}
    solo = next(r for w, r in rows.items() if w.startswith("training, solo,"))
    four = next(r for w, r in rows.items() if w.startswith("training, 4 players,"))
    six = next(r for w, r in rows.items() if w.startswith("training, 4 players under joker-six,"))
    threads = solo["workload"].rsplit(", ", 1)[1]
    lines = [f"| training | games | games/s ({threads}) | time |", "|---|---|---|---|"]
    for label, games, r in (("`train` solo (default)", SOLO_GAMES, solo),
                            ("`train --players 4` (default)", TABLE_GAMES[4], four),
                            ("`train --players 4 --rules joker-six` (default)", TABLE_GAMES[4], six),
                            ("on demand, solo (warm)", WARM_GAMES[1], solo),
                            ("on demand, 4 players (warm)", WARM_GAMES[4], four),
                            ("on demand, 4 players under joker-six (warm)", WARM_GAMES[4], six)):
        lines.append(f"| {label} | {games:,} | {r['value']:,} | {_about(games / r['value'])} |")
    machine = bench()["machine"]
    return "\n".join(lines) + (f"\n\nMeasured by `make bench BENCH=--training` ({machine['cpu']}, {machine['cores']} vCPUs; "
                               f"{solo['date']}, load average {solo['load']:.1f}); the first training of a "
                               "version also compiles its kernels (about 10-30 s of CPU).")


@register("bench-table")
def bench_table() -> str:
    lines = ["| workload | measured | target | ratio | took |", "|---|---|---|---|---|"]
    for r in bench()["results"]:
        value = "error" if r["value"] is None else f"{r['value']:,} {r['unit']}".replace(" x", "×")
        target = "" if r.get("target") is None else f"{r['target']:,}"
        ratio = "" if r.get("ratio") is None else f"{r['ratio']:.2f}"
        lines.append(f"| {r['workload']} | {value} | {target} | {ratio} | {r.get('seconds', 0):.0f} s |")
    return "\n".join(lines)


@register("bench-sizing")
def sizing() -> str:
    lines = ["| games | games/s per core | core-hours per 10^9 games | 10^9 games on 32 cores | on 256 cores |",
             "|---|---|---|---|---|"]
    for label, workload in (("solo, greedy", "solo, greedy, 1 thread"), ("4 players, greedy", "4 players, greedy, 1 thread"),
                            ("4 players, heuristic", "4 players, heuristic, 1 thread")):
        r = rate(workload)
        core_s = 1e9 / r
        lines.append(f"| {label} | {r:,.0f} | {core_s / 3600:.3g} | {_about(core_s / 32)} | {_about(core_s / 256)} |")
    return "\n".join(lines)


# --- played figures ------------------------------------------------------------------

SOLO_SEED, SOLO_GAMES = 1, 10_000


@functools.cache
def _compare(strategies: tuple, players=1, opponents=None, games=SOLO_GAMES, seed=SOLO_SEED):
    from sim.experiments.compare import compare
    return compare(list(strategies), players=players, opponents=opponents, games=games, seed=seed)


def _diff(result, row: int) -> str:
    """Row's paired score difference against the first strategy, with its 95% CI."""
    r = result.table.iloc[row]
    return f"{r['diff']:+.2f} ({r['diff_ci_low']:+.2f}..{r['diff_ci_high']:+.2f})"


def _diff_text(r) -> str:
    return f"{r['diff']:+.2f}, {r['diff_ci_low']:+.2f}..{r['diff_ci_high']:+.2f}"


@register("top4", slow=True)
def top4() -> str:
    r = _compare(("lookahead", "lookahead:top=4"))
    return f"{_diff(r, 1)} points on {SOLO_GAMES:,} games of seed {SOLO_SEED}"


BUILTINS = (("random", "uniform over the legal choices and pass"),
            ("greedy", "most boxes now; on a tie fewest jokers"),
            ("heuristic", "one-move evaluation of the sheet after each choice (below)"),
            ("lookahead", "`heuristic`, plus the exact expectation over the next roll's dice for the `top` best "
                          "choices"),
            ("learned", "one-ply search on a learned afterstate value (below), per sheet; at tables a value of "
                        "the margin"))


@register("builtins", slow=True, learned=True)
def builtins() -> str:
    names = tuple(n for n, _ in BUILTINS) + ("learned:top=2",)
    r = _compare(names).table.set_index("strategy")
    rows = ["| name | what it does | solo mean (30 rolls), 95% CI | speed, solo, 1 core |", "|---|---|---|---|"]
    for name, what in BUILTINS:
        mean = f"{r.loc[name, 'mean']:.2f} (±{r.loc[name, 'ci_high'] - r.loc[name, 'mean']:.2f})"
        if name == "learned":
            mean += f"; `top=2`: {r.loc['learned:top=2', 'mean']:.2f}"
        speed = f"{rate(f'solo, {name}, 1 thread'):,.0f} games/s"
        if name in ("random", "greedy"):
            speed += " (run inline by the engine)"
        rows.append(f"| `{name}` | {what} | {mean} | {speed} |")
    return "\n".join(rows)


CLOSE_CALLS = ("learned", "learned:top=2,close=0.1", "learned:top=2,close=0.25", "learned:top=2",
               "learned:top=5,close=0.25")


@register("learned-close", slow=True, learned=True)
def learned_close() -> str:
    res = _compare(CLOSE_CALLS)
    rows = ["| spec | solo mean, 95% CI | - `learned` (paired, 95% CI) |", "|---|---|---|"]
    for i, name in enumerate(CLOSE_CALLS):
        x = res.table.iloc[i]
        diff = "" if i == 0 else _diff(res, i)
        rows.append(f"| `{name}` | {x['mean']:.2f} ({x['ci_low']:.2f}..{x['ci_high']:.2f}) | {diff} |")
    return "\n".join(rows)


TABLE_GAMES = 4_000


@register("table-wins", slow=True)
def table_wins() -> str:
    vs_greedy = _compare(("greedy", "heuristic", "lookahead"), players=4, games=TABLE_GAMES)
    vs_heuristic = _compare(("heuristic", "lookahead"), players=4, games=TABLE_GAMES)
    head = _compare(("heuristic", "lookahead"), players=2, games=TABLE_GAMES)
    w = lambda res, i: f"{res.table.iloc[i]['win_rate']:.1%}"   # noqa: E731
    return (f"At 4-player tables with seats rotated ({TABLE_GAMES:,} games of seed {SOLO_SEED}), `heuristic` wins "
            f"{w(vs_greedy, 1)} of games against three `greedy`, `lookahead` {w(vs_greedy, 2)}; `lookahead` wins "
            f"{w(vs_heuristic, 1)} against three default `heuristic` players and {w(head, 1)} head to head.")


TUNED_SOLO = "heuristic:solo_joker=1.848,solo_colour=1.436"
TUNED_TABLE = "heuristic:multi_joker=2.272,multi_colour=0.806,deny=0.673,end=11.09"


@register("tuned-solo-seed11", slow=True)
def tuned_solo() -> str:
    r = _compare(("heuristic", TUNED_SOLO), games=20_000, seed=11).table
    return (f"On 20,000 games of seed 11 the result scores {r.iloc[1]['mean']:.2f} and the default "
            f"{r.iloc[0]['mean']:.2f} (paired {_diff_text(r.iloc[1])}).")


@register("tuned-table-vs-heuristic", slow=True)
def tuned_table() -> str:
    r = _compare(("heuristic", TUNED_TABLE), players=4, opponents="heuristic", games=5_000, seed=3).table
    t = r.iloc[1]
    return (f"it wins {t['win_rate']:.1%} against the default's {r.iloc[0]['win_rate']:.1%} (paired "
            f"{t['win_diff']:+.1%}, {t['win_diff_ci_low']:+.1%}..{t['win_diff_ci_high']:+.1%})")


# --- learned at tables on every sheet ------------------------------------------------------

SHEET_NAMES = ("standard", "red", "blue", "green", "orange", "yellow")
#: Games per table size of the learned-tables figure (4 players: as many as the issue's check).
SHEET_TABLE_GAMES = {2: 1_500, 4: 1_500, 6: 1_000}


def _learned_against_lookahead(players: int, sheet, games: int, learned: str = "learned", seed: int = SOLO_SEED):
    from sim.experiments.compare import compare
    return compare(["lookahead", learned], players=players, games=games, seed=seed, sheet=sheet).table.iloc[1]


@register("learned-tables", slow=True, learned=True)
def learned_tables() -> str:
    sizes = tuple(SHEET_TABLE_GAMES)
    rows = ["| sheet | " + " | ".join(f"{p} players ({1 / p:.0%}; {SHEET_TABLE_GAMES[p]:,} games)" for p in sizes)
            + " |", "|---" * (len(sizes) + 1) + "|"]
    for sheet in SHEET_NAMES:
        cells = []
        for p in sizes:
            r = _learned_against_lookahead(p, sheet, SHEET_TABLE_GAMES[p])
            cells.append(f"{r['win_rate']:.1%} ({r['win_ci_low']:.1%}..{r['win_ci_high']:.1%})")
        rows.append(f"| {sheet} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


@register("table-weights-elsewhere", slow=True, learned=True)
def table_weights_elsewhere() -> str:
    """The standard sheet's 4-player weights relabelled as red's (the file records its sheet,
    and learned refuses another's), played on red against red's own."""
    import importlib.resources
    import tempfile

    import numpy as np

    from sim.sheets import load_sheet
    from strategies import learned as L
    games = SHEET_TABLE_GAMES[4]
    with tempfile.TemporaryDirectory() as tmp:
        with importlib.resources.as_file(L.shipped_file(load_sheet("standard"), 4)) as std, \
                importlib.resources.as_file(L.shipped_file(load_sheet("red"), 4)) as red:
            z, r = dict(np.load(std)), np.load(red)
            z["sheet"], z["sheet_name"] = r["sheet"], r["sheet_name"]
        moved = Path(tmp) / "standard-as-red.npz"
        np.savez(moved, **z)
        elsewhere = _learned_against_lookahead(4, "red", games, f"learned:weights={moved}", seed=0)
    own = _learned_against_lookahead(4, "red", games, seed=0)
    return (f"the standard sheet's 4-player\nweights played on the red sheet win {elsewhere['win_rate']:.1%} of "
            f"{games:,} games against three `lookahead`, where red's own\nwin {own['win_rate']:.1%}")


UNSEEN_SEED = 3535


def unseen_sheet_text(seed: int = UNSEEN_SEED) -> str:
    """The sheet `python tests/helpers/sheetgen.py --seed SEED` prints, made as the text says: by
    the helper's command line, in a process of its own (run as a module of this checkout)."""
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "tests.helpers.sheetgen", "--seed", str(seed)], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout


@register("unseen-sheet", slow=True)
def unseen_sheet() -> str:
    """Table weights for a sheet no one has seen (tests/helpers/sheetgen.py), trained by the default
    command: about 7 minutes on one core."""
    import subprocess
    import sys
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        sheet, weights = Path(tmp) / f"sheet-{UNSEEN_SEED}.txt", Path(tmp) / "W.npz"
        sheet.write_text(unseen_sheet_text())
        subprocess.run([sys.executable, "-m", "cli", "train", "--sheet", str(sheet), "--players", "4", "-j", "1",
                        "-q", "--out", str(weights)], cwd=ROOT, check=True)
        r = _learned_against_lookahead(4, str(sheet), SHEET_TABLE_GAMES[4], f"learned:weights={weights}", seed=0)
    return (f"on a sheet made by `python tests/helpers/sheetgen.py --seed {UNSEEN_SEED}`, the default `train --players 4` "
            f"makes weights that win {r['win_rate']:.1%} "
            f"({r['win_ci_low']:.1%}..{r['win_ci_high']:.1%}) of {SHEET_TABLE_GAMES[4]:,} games against three "
            "`lookahead` (parity 25%).")


# --- the strategy kit ----------------------------------------------------------------

@register("kit-reference")
def kit_reference() -> str:
    """docs/kit.md's reference: every helper of strategies.kit, its signature and docstring."""
    import inspect
    from strategies import kit
    out = []
    for title, names in kit.SECTIONS:
        out += [f"### {title}", ""]
        for name in names:
            fn = getattr(kit, name)
            py = getattr(fn, "py_func", fn)
            doc = inspect.cleandoc(py.__doc__ or "")
            out += [f"#### `kit.{name}{inspect.signature(py)}`", "", doc, ""]
    return "\n".join(out).rstrip() + "\n"


#: The example strategies of docs/strategies.md (docs/examples/), with what the guide says of each.
KIT_EXAMPLES = (("rule_of_thumb", "boxes near H first, stars count, '!' only for 5 boxes"),
                ("look_ahead", "one-move look-ahead: now + the mean best reply over the next roll's 25 dice pairs"),
                ("on_learned", "one-ply on `learned`'s value of the sheet after each choice"))
KIT_SOLO = (33, 2_000)       # seed, games
KIT_TABLE = (34, 1_000)      # seed, games: 4 players, each example against 3 `heuristic`


def kit_example_spec(name: str) -> str:
    return f"{ROOT / 'docs' / 'examples' / name}.py:choose"


@register("kit-examples", slow=True, learned=True)
def kit_examples() -> str:
    specs = tuple(kit_example_spec(n) for n, _ in KIT_EXAMPLES)
    solo = _compare(specs, games=KIT_SOLO[1], seed=KIT_SOLO[0]).table
    table = _compare(specs, players=4, opponents="heuristic", games=KIT_TABLE[1], seed=KIT_TABLE[0]).table
    rows = [f"| example | what it does | solo mean (95% CI), {KIT_SOLO[1]:,} games of seed {KIT_SOLO[0]} | "
            f"4 players against 3 `heuristic`, {KIT_TABLE[1]:,} games of seed {KIT_TABLE[0]}: win rate, mean score |",
            "|---|---|---|---|"]
    for i, (name, what) in enumerate(KIT_EXAMPLES):
        s, t = solo.iloc[i], table.iloc[i]
        rows.append(f"| `docs/examples/{name}.py` | {what} | {s['mean']:.2f} ({s['ci_low']:.2f}..{s['ci_high']:.2f}) | "
                    f"{t['win_rate']:.1%}, {t['mean']:.2f} |")
    return "\n".join(rows)


# --- encore-sim analyse ---------------------------------------------------------------------

ANALYSE_GAMES, ANALYSE_ROLLOUTS = 3_000, 16


@functools.cache
def _analysed(spec: str, rollouts: int = 0):
    """The analysis of ANALYSE_GAMES solo games of `spec` (seed SOLO_SEED, no --log-turns)."""
    import tempfile

    from sim.runs.runner import run
    from sim.runs.settings import Settings
    from sim.research.analyse import analyse
    with tempfile.TemporaryDirectory() as d:
        run(Path(d) / "ds", settings=Settings.of(strategies=[spec], games=ANALYSE_GAMES, seed=SOLO_SEED))
        return analyse(Path(d) / "ds", rollouts=rollouts, mistakes=0).rows[0]


def _pm(row, key, ci=None) -> str:
    return f"{row[key]:.2f} ± {row[ci or key + '_ci']:.2f}"


@register("analyse-identity", slow=True, learned=True)
def analyse_identity() -> str:
    rows = ["| strategy | `learned` − its score, same dice | the same less both players' luck | loss per game, "
            f"{ANALYSE_ROLLOUTS} rollouts | by `learned`'s value alone | the value's bias |",
            "|---|---|---|---|---|---|"]
    for spec in ("heuristic", "lookahead", "greedy", "learned"):
        v = _analysed(spec)
        rolled = _analysed(spec, ANALYSE_ROLLOUTS) if spec in ("heuristic", "lookahead") else None
        loss = _pm(rolled, "loss_per_game", "loss_ci") if rolled else "(not run)"
        bias = f"{v['value_loss_per_game'] - v['learned_gap_taxed']:+.2f}"
        rows.append(f"| `{spec}` | {_pm(v, 'learned_gap')} | {_pm(v, 'learned_gap_taxed')} | {loss} | "
                    f"{_pm(v, 'value_loss_per_game', 'value_loss_ci')} | {bias} |")
    return "\n".join(rows)


@register("analyse-luck", slow=True, learned=True)
def analyse_luck() -> str:
    parts = [f"`{spec}` {_analysed(spec)['luck_per_game']:+.2f} ± {_analysed(spec)['luck_ci']:.2f} "
             f"(sd {_analysed(spec)['luck_sd']:.1f})" for spec in ("heuristic", "lookahead", "greedy", "learned")]
    return ", ".join(parts)


@register("analyse-games")
def analyse_games() -> str:
    return f"{ANALYSE_GAMES:,} solo games of seed {SOLO_SEED} of each strategy"


# --- play's levels (docs/levels.md) ----------------------------------------------------------------

@register("levels", slow=True, learned=True)
def levels() -> str:
    from bench.levels import measure
    return measure()


@register("level-loss")
def level_loss() -> str:
    """The levels' loss per decision the play page rates a person by (strategies.levels.LEVEL_LOSS)."""
    from strategies.levels import LEVEL_LOSS, LEVELS
    rows = ["| level | loss per decision, solo | at 4 players, against 3 `learned` |", "|---|---|---|"]
    rows += [f"| {lv.number} {lv.name} | {LEVEL_LOSS[lv.number][0]:.3f} | {LEVEL_LOSS[lv.number][1]:.3f} |"
             for lv in LEVELS]
    return "\n" + "\n".join(rows) + "\n"


# --- the trace (docs/trace.md) ---------------------------------------------------------------

@register("trace-schema")
def trace_schema() -> str:
    from sim.runs.schema import markdown
    return markdown(("trace",))


#: The calibration table's tables: (players, rules) on the standard sheet, and its unseen games.
TRACE_CALIBRATION = ((2, ""), (4, ""), (6, ""), (4, "end-colours=3"))
TRACE_CALIBRATION_GAMES = 20_000


@register("trace-calibration", slow=True, learned=True)
def trace_calibration() -> str:
    from sim.runs.trace import calibration
    cals = [calibration("standard", p, r, TRACE_CALIBRATION_GAMES) for p, r in TRACE_CALIBRATION]
    head = ["predicted"] + [f"{p} players{', ' + r if r else ''}" for p, r in TRACE_CALIBRATION]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for k in range(10):
        cells = [cals[0]["decile"][k]]
        for c in cals:
            row = c.iloc[k]
            cells.append("–" if row["rows"] == 0 else
                         f"{row['predicted']:.1f} / {row['observed']:.1f} ± {row['ci']:.1f} ({row['rows']:,})")
        out.append("| " + " | ".join(cells) + " |")
    worst = max((c["predicted"] - c["observed"]).abs().max() for c in cals)
    out.append("")
    out.append(f"The largest gap between a decile's mean predicted chance and its observed win rate: {worst:.1f} "
               "points.")
    return "\n".join(out)
