"""Command-line interface of encore-sim (the `encore-sim` console script).

A thin Click shell over the commands layer (sim.commands): each command parses its options,
calls its function there and prints the result. Option defaults are the layer's
(sim.runs.defaults); every bad input ends in a one-line `Error: ...` on stderr and exit code 2,
naming settings by their flags.
"""
from __future__ import annotations

import functools
import importlib.util
import io
import json
import os
import re
import shlex
import signal
import sys
from pathlib import Path

import click


def _defaults():
    """sim.runs.defaults, read without importing the package `sim`: that imports Numba, and
    `--python` must disable its compiling before (defaults.py itself imports nothing). Registered
    under its name, so that the commands layer later finds this same module."""
    name = "sim.runs.defaults"
    if name not in sys.modules:
        path = Path(__file__).resolve().parent / "sim" / "runs" / "defaults.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name]


defaults = _defaults()

EXIT_USAGE = 2
#: Set by entry(): this process is the encore-sim program (not a test invoking main()), so it
#: decides what Ctrl-C does (sim.runs.interrupts).
_PROGRAM = False


def _fail(message: str, code: int = EXIT_USAGE, details: bool = False):
    """`Error: <first line>` on stderr and exit; with `details`, the message's further lines
    follow, indented (Numba's message for a strategy that does not compile)."""
    lines = str(message).strip().splitlines() or ["unknown error"]
    click.echo(f"Error: {lines[0]}", err=True)
    if details:
        for line in lines[1:]:
            click.echo(f"  {line}".rstrip(), err=True)
    sys.exit(code)


# Click 8.2 raises this for a bare `encore-sim`; 8.1 prints the help itself and returns 0.
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


class _Group(click.Group):
    """A group whose usage errors are one line too (no usage block)."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _NO_ARGS_IS_HELP as e:
            click.echo(e.ctx.get_help() if e.ctx else str(e))
            sys.exit(0)
        except click.ClickException as e:
            _fail(e.format_message(), e.exit_code if e.exit_code else EXIT_USAGE)
        except click.Abort as e:
            click.echo("Aborted.", err=True)
            # Ctrl-C: 130 like `run` (and the shell's 128 + SIGINT); a declined prompt: 1
            sys.exit(130 if isinstance(e.__cause__, KeyboardInterrupt) else 1)
        sys.exit(rv if isinstance(rv, int) else 0)


def _words(e) -> str:
    """An error's line as the command line says it: a setting the layers name `{max_rolls}` is
    `--max-rolls`, or the command's argument in capitals (PATH, DATASET)."""
    from sim.errors import Worded, flag_name
    if not isinstance(e, Worded):
        return str(e)
    ctx = click.get_current_context(silent=True)
    arguments = {p.name for p in ctx.command.params if isinstance(p, click.Argument)} if ctx else set()
    return e.words(lambda name, on: name.upper() if name in arguments else flag_name(name, on))


def _errors(fn):
    """Turn the API's errors into one-line messages with exit code 2."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if _PROGRAM:
            from sim.runs import interrupts   # light: sim.runs.api (the kernels) is not imported with it
            interrupts.install()   # Ctrl-C: exit 130 at once, except where the work finishes it itself
        try:
            return fn(*args, **kwargs)
        except BrokenPipeError:  # e.g. `encore-sim replay ... | head`
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        except Exception as e:
            # Not imported up front: importing sim.runs.api loads (or compiles) the kernels, which the
            # command announces first (_announce_compiling); unimported, they raised nothing.
            api, registry = sys.modules.get("sim.runs.api"), sys.modules.get("strategies.registry")
            if not isinstance(e, (ValueError, OSError) + ((api.StrategyError,) if api else ())):
                raise
            _fail(_words(e) or type(e).__name__,
                  details=registry is not None and isinstance(e, registry.StrategyCompileError))
    return wrapper


def _progress_enabled(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


def _announce_compiling(enabled: bool):
    """On a terminal, say so before the project's kernels compile: with an empty cache a
    command is silent for a minute or more otherwise.

    Must run before anything imports sim.runs.api: importing it loads, or compiles, the batch
    kernel. Nothing is printed when everything is cached; a user's strategy is cached too, per
    version of its file, and says so the first time. Returns the numba event listener (None if
    not enabled).
    """
    if not enabled:
        return None
    from numba.core import event

    import sim
    from sim.guard import users_function
    from sim.numba_cache import cache_folder

    class Notice(event.Listener):
        said = False
        users = set()

        def on_start(self, ev):
            fn = getattr(ev.data.get("dispatcher"), "py_func", None)
            module = getattr(fn, "__module__", None) or ""
            target = users_function(fn)
            if target is not None:
                name = f"{Path(target.__code__.co_filename).name}:{target.__name__}"
                if name not in self.users:
                    self.users.add(name)
                    click.echo(USER_NOTICE.format(name=name), err=True)
                return
            if self.said or module.partition(".")[0] not in ("sim", "strategies"):
                return
            self.said = True
            if cold:
                click.echo(COLD_NOTICE, err=True)
            else:   # a built-in strategy first played with this version (learned), analyse's kernels, ...
                click.echo(WARM_NOTICE.format(name=_compiled_name(module)), err=True)

        def on_end(self, ev):
            pass

    # The batch kernel's own file, not its module: importing sim.batch compiles it.
    cold = not any(Path(cache_folder(Path(sim.__file__).parent / "batch.py")).glob("*.nbi"))
    listener = Notice()
    event.register("numba:compile", listener)
    return listener


def _compiled_name(module: str) -> str:
    """What a compile notice calls the code of `module` a user meets compiling."""
    layer, _, name = module.rpartition(".")
    if layer == "sim.research":
        return "the analysis kernels"
    if layer == "sim.training":
        return "the training kernels"
    return f"the {name} strategy" if layer == "strategies" else name


# The notices' figures are the cold-start CPU times of docs/performance.md ("Compile time"): a
# busy machine multiplies the wall time.
COLD_NOTICE = ("Compiling the simulator (first run of this version only: 8-30 s of one core's time, "
               "longer on a busy machine)...")
WARM_NOTICE = "Compiling {name} (its first use with this version only: 5-30 s of one core's time)..."
USER_NOTICE = "Compiling {name} (once per version of its file: a few seconds)..."


class _Seed(click.ParamType):
    """A root seed: an integer, or `random` for a fresh one (printed with the results)."""
    name = "SEED"

    def convert(self, value, param, ctx):
        if isinstance(value, int) or value is None:
            return value
        if str(value).strip().lower() == "random":
            import secrets
            return secrets.randbits(32)
        try:
            return int(value)
        except ValueError:
            self.fail(f"{value!r} is not an integer or 'random'", param, ctx)


SEED = _Seed()


class _Count(click.ParamType):
    """A count: an integer, written 1000000, 1_000_000 or 1e6 (a whole mantissa and a power of ten;
    1.5e3 is refused: a count is exact, and a decimal point says it may not be)."""
    name = "integer"
    _FORM = re.compile(r"^[+-]?\d+(?:_\d+)*(?:[eE]\+?\d+)?$")

    def convert(self, value, param, ctx):
        if isinstance(value, int) or value is None:
            return value
        text = str(value).strip()
        if not self._FORM.match(text):
            self.fail(f"{value!r} is not a valid integer (a count is written 1000000, 1_000_000 or 1e6)", param, ctx)
        mantissa, _, exponent = text.lower().partition("e")
        if int(exponent or 0) > 18:   # far beyond any count, and 10 ** a huge one takes long to compute
            self.fail(f"{value!r} is too large", param, ctx)
        return int(mantissa) * 10 ** int(exponent or 0)


COUNT = _Count()
#: --unchecked, on the commands that play strategies (run, compare, replay).
UNCHECKED = click.option(
    "--unchecked", is_flag=True,
    help="Compile users' strategies (-s file.py:function) without bounds checking: faster, but an index out "
         "of range reads or writes memory it does not own instead of stopping the run with its file and line.")


def _set_python(ctx, param, value):
    # Numba reads its environment once, when imported: so it is set while the options are parsed,
    # before the command imports anything (a process that has imported Numba is refused: _python).
    # One thread: a run then plays on the main thread, where breakpoint() and Ctrl-C act at once.
    if value and "numba" not in sys.modules:
        os.environ.update(NUMBA_DISABLE_JIT="1", NUMBA_NUM_THREADS="1")
    return value


#: --python, on the commands that play strategies (run, compare, replay).
PYTHON = click.option(
    "--python", "python", is_flag=True, is_eager=True, callback=_set_python,
    help="Compile nothing (NUMBA_DISABLE_JIT=1): strategies run as plain Python, so print(), breakpoint() and "
         "debuggers work in yours. The same games, hundreds of times slower (docs/strategies.md).")


def _python(python: bool, **excluded) -> None:
    """Check --python against the options given with it (name=value: each must be unset) and
    against this process, which must not have compiled anything yet."""
    if not python:
        return
    for name, value in excluded.items():
        if value:
            raise ValueError(f"--python cannot be combined with --{name.replace('_', '-')}: "
                             + _PYTHON_EXCLUDES[name])
    from sim.nbinternals import JIT_DISABLED
    if not JIT_DISABLED:
        raise ValueError("--python needs a fresh process: this one has loaded Numba with compiling on "
                         "(run the encore-sim command, or set NUMBA_DISABLE_JIT=1 before importing sim)")


_PYTHON_EXCLUDES = {
    "scheduler": "it plays in this process, not on a cluster",
    "unchecked": "Python checks every index",
    "threads": "it plays on one thread",
}
# Options several commands share, each declared once (a command may say more in its help); their
# defaults are the commands layer's (sim.runs.defaults).

def _sheet_option(help="Built-in sheet name or sheet file."):
    return click.option("--sheet", default=defaults.SHEET, show_default=True, help=help)


def _max_rolls_option(help="Roll cap for tables: a game still running then ends, flagged as capped."):
    return click.option("--max-rolls", type=int, default=defaults.MAX_ROLLS, show_default=True, help=help)


def _threads_option(help="Numba threads [default: all cores]."):
    return click.option("--threads", "-j", type=int, default=None, help=help)


def _quiet_option(help="No progress line or compiling notice."):
    return click.option("--quiet", "-q", is_flag=True, help=help)


def _seed_option(help="Root seed: game g of a seed is the same game in every command.", default=defaults.SEED):
    return click.option("--seed", type=SEED, default=default,
                        help=f"{help} [default: {default}; 'random': a fresh one]")


def _games_option(help: str, default=None):
    return click.option("--games", "-n", type=COUNT, default=default, show_default=default is not None, help=help)


def _game_option(help: str, default=None, **attrs):
    return click.option("--game", "-g", type=COUNT, default=default, help=help, **attrs)


def _chunk_size_option(help: str):
    return click.option("--chunk-size", type=COUNT, default=None, help=help)


def _weights_option(help: str):
    return click.option("--weights", default=None, metavar="W.npz", help=help)


def _players_option(help="1 = solo, 2..6 = tables.", default=defaults.PLAYERS):
    return click.option("--players", "-p", type=int, default=default, show_default=default is not None, help=help)


def _strategy_option(help="Strategy spec, once per seat or once for all seats (repeatable) "
                          f"[default: {defaults.RUN_STRATEGY}]. NAME[:k=v,..] or path/file.py:function[:k=v,..]."):
    return click.option("--strategy", "-s", "strategy", multiple=True, help=help)


def _opponents_option(default: str):
    return click.option("--opponents", multiple=True,
                        help="Opponents' strategy at tables, for every opponent seat; given once per opponent seat "
                             "(players - 1 times), a mixed table in that order after the candidate "
                             f"[default: {default}].")


def _rotate_option(help="Rotate the strategies over the seats from game to game."):
    return click.option("--rotate/--no-rotate", default=defaults.ROTATE, show_default=True, help=help)


def _out_option(help="Write to FILE instead of stdout.", file: bool = True, **attrs):
    """--out / -o: a file (as `output`), or with file=False a folder or URL (as `out`)."""
    if file:
        return click.option("--out", "-o", "output", type=click.Path(dir_okay=False, path_type=Path), default=None,
                            help=help, **attrs)
    return click.option("--out", "-o", type=str, default=None, help=help, **attrs)


def _format_option(choices, help, default=defaults.FORMAT):
    return click.option("--format", "-f", "fmt", type=click.Choice(choices), default=default,
                        show_default=default is not None, help=help)


class _RulesText(click.ParamType):
    """--rules: comma-separated rule variants (sim.rules), parsed into a sim.rules.Rules; one that
    names its sheet too (sheet=NAME_OR_FILE) into a sim.rules.RuleSet."""
    name = "VARIANTS"

    def convert(self, value, param, ctx):
        from sim.rules import Rules, RuleSet, parse_rule_set
        if isinstance(value, (Rules, RuleSet)):
            return value
        try:
            given = parse_rule_set(value)
        except ValueError as e:
            self.fail(str(e).removeprefix("rules: "), param, ctx)   # click names the option itself
        return given.rules if given.sheet is None else given


RULES = _RulesText()


class _RuleSetsText(click.ParamType):
    """compare-rules' rule sets: a --rules text (it may name its sheet), or a range or grid of
    them (`jokers=6..12:2`), checked here and kept as text (sim.rules.expand_sweep)."""
    name = "RULES"

    def convert(self, value, param, ctx):
        from sim.rules import expand_sweep, parse_rule_set
        if not isinstance(value, str):
            return value
        try:
            for point in expand_sweep(value):
                parse_rule_set(point)
        except ValueError as e:
            self.fail(str(e).removeprefix("rules: "), param, ctx)
        return value
RULES_HELP = ("Rule variants, comma-separated (what it does not name is the rulebook's): joker-six, pass-penalty=N, "
              "star-penalty=N, end-colours=N, solo-rolls=N, free-rolls=N, jokers=N, colour-bonus=F/L, "
              "column-points=F/L:...:F/L (15 columns). docs/rules.md, \"Variants\".")
DATASET_RULES_HELP = ("Check that the dataset was played under these rule variants (a dataset's games are read under "
                      "its own rules: --rules may be left out).")


def _rules_option(help=RULES_HELP):
    # No default: a command reading a dataset takes the dataset's rules when --rules is not named,
    # and refuses a --rules that contradicts them (even `--rules rulebook`); one that plays games
    # plays the rulebook (None to the API).
    option = click.option("--rules", type=RULES, default=None,
                          help=help + " A sheet=NAME_OR_FILE among them is the sheet played (as --sheet).")

    def apply(fn):
        @functools.wraps(fn)
        def with_sheet(*args, **kwargs):
            from sim.rules import RuleSet
            given = kwargs.get("rules")
            if isinstance(given, RuleSet):
                if "sheet" not in kwargs:
                    _fail("--rules: sheet= cannot be given here: a dataset's games were played on its own sheet")
                ctx = click.get_current_context()
                if ctx.get_parameter_source("sheet") is not click.core.ParameterSource.DEFAULT \
                        and str(kwargs["sheet"]) != given.sheet:
                    _fail(f"--rules names the sheet {given.sheet} and --sheet {kwargs['sheet']}: give one of them")
                kwargs["sheet"], kwargs["rules"] = given.sheet, given.rules
                # given, as --sheet would be (_given passes only what the command line gave)
                ctx.set_parameter_source("sheet", click.core.ParameterSource.COMMANDLINE)
            return fn(*args, **kwargs)
        return option(with_sheet)
    return apply


TRAIN = click.option(
    "--train", is_flag=True,
    help="Where `learned` has no weights for the sheet, players and rules played (a rule variant, your sheet), "
         "train them first (from the rulebook's weights; progress shown), keep them in the weights store and go on.")


def _options(*options):
    """Several options as one decorator."""
    def apply(fn):
        for option in reversed(options):
            fn = option(fn)
        return fn
    return apply


def _say(quiet: bool):
    """How the commands layer announces training on demand: a line on stderr, unless --quiet."""
    return None if quiet else lambda line: click.echo(line, err=True)


def _given(ctx, **params) -> dict:
    """The parameters the command line gave, leaving out those at their defaults: the commands
    layer (sim.commands) fills those in (a resumed run takes them from its manifest, a
    replay of a dataset refuses them)."""
    default = click.core.ParameterSource.DEFAULT
    return {k: v for k, v in params.items() if ctx.get_parameter_source(k) != default}


def _players_lines(specs, sheet, players, rules) -> list[str]:
    from sim.sheets import load_sheet
    from strategies.adaptation import players_block
    return players_block(specs, load_sheet(sheet), players, rules)


@click.group(cls=_Group)
@click.version_option(package_name="encore-sim")
@click.option("--profile-compile", is_flag=True, hidden=True,
              help="After the command, where its compile time went, per function (docs/performance.md).")
@click.option("--weights-store", type=click.Path(file_okay=False), envvar="ENCORE_SIM_WEIGHTS", default=None,
              metavar="DIR", help="The folder of your trained weights, where `train` writes and `learned` looks "
                                  "after the shipped ones [env ENCORE_SIM_WEIGHTS; default: your user data folder, "
                                  "see `encore-sim weights`].")
@click.pass_context
def main(ctx, profile_compile, weights_store) -> None:
    """Monte Carlo simulator of the dice game Encore! (Noch mal!)."""
    if weights_store:
        os.environ["ENCORE_SIM_WEIGHTS"] = weights_store   # strategies.store reads it, in every process of the run
    if profile_compile:
        from sim.runs.compileprofile import CompileProfile
        profile = CompileProfile()
        ctx.call_on_close(lambda: (profile.close(), click.echo(profile.report(), err=True)))
    if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
        # pyarrow's default mimalloc pool keeps freed chunk buffers in a long run; the system
        # allocator returns them, as fast (docs/performance.md).
        os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"


def _chunk_help(sizes: dict, more: str = "") -> str:
    return f"[default: {sizes['solo']:,} solo, {sizes['table']:,} at tables{more}]"


# --- run ------------------------------------------------------------------------

@main.command()
@_games_option("Games to play.", defaults.RUN_GAMES)
@_players_option("Seats, 1 = solo game, 2..6 [default: one per --strategy; one strategy: the solo game].", None)
@_strategy_option()
@_rotate_option()
@_sheet_option()
@_seed_option()
@_threads_option("Numba threads [default: all cores; with --scheduler: per task, default 1].")
@_chunk_size_option("Games per Parquet file " + _chunk_help(defaults.RUN_CHUNK, "; less with --log-turns") + ".")
@_out_option("Dataset folder, or a filesystem URL (file://, s3://, ...) [default: results/run-YYYYmmdd-HHMMSS].",
             file=False)
@_max_rolls_option("Roll cap for tables.")
@click.option("--log-turns", is_flag=True, help="Also write the per-decision turns table.")
@click.option("--trace", is_flag=True,
              help="Also write the trace table: every seat's expected score and chance of winning after every "
                   "roll (docs/trace.md); the games are replayed for it.")
@click.option("--resume", is_flag=True,
              help="Finish an interrupted run in --out; options not given are taken from its manifest.")
@click.option("--force", is_flag=True, help="Replace an existing dataset in --out.")
@_quiet_option("No progress line, compiling notice or summary.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the chunks as tasks on a Dask cluster (tcp://host:8786), or 'local' / 'local:N' "
                   "for N worker processes on this machine. Needs encore-sim[dask].")
@click.option("--retries", type=int, default=defaults.RETRIES, show_default=True,
              help="With --scheduler: retries of a chunk whose task failed.")
@_rules_option(RULES_HELP + " With --resume: the run's own, or left out.")
@UNCHECKED
@PYTHON
@TRAIN
@click.pass_context
@_errors
def run(ctx, games, players, strategy, rotate, sheet, seed, threads, chunk_size, out, max_rolls, log_turns,
        trace, resume, force, quiet, scheduler, retries, rules, unchecked, python, train):
    """Play many games in parallel and write them to a Parquet dataset.

    Without options: 100,000 solo games of greedy, seed 0.
    """
    _python(python, scheduler=scheduler, unchecked=unchecked, threads=threads is not None and threads > 1)
    _announce_compiling(_progress_enabled(quiet))
    from sim import commands
    from sim.runs import runner
    from sim.runs.dataset import MANIFEST, open_store
    out = commands.run_folder(out, resume)
    given = _given(ctx, games=games, players=players, strategy=list(strategy), rotate=rotate, sheet=sheet, seed=seed,
                   chunk_size=chunk_size, max_rolls=max_rolls, log_turns=log_turns, rules=rules)
    command = "encore-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:]) \
        if Path(sys.argv[0]).name.startswith("encore-sim") else None
    try:
        r = commands.run(out, **given, threads=threads, resume=resume, force=force, unchecked=unchecked,
                         scheduler=scheduler, retries=retries, progress=_progress_enabled(quiet), command=command,
                         train=train, say=_say(quiet), trace=trace)
    except KeyboardInterrupt:
        if not open_store(out).is_file(MANIFEST):   # interrupted before the run created anything
            click.echo("Aborted.", err=True)
        else:
            click.echo(f"Interrupted: finished chunks are kept in {out}; finish with "
                       f"`encore-sim run --out {shlex.quote(str(out))} --resume`", err=True)
        _exit_interrupted()
    except runner.RunFailed as e:   # the run itself broke (a cluster's task or scheduler), not its input
        _fail(_words(e), 1)
    if not quiet:
        from sim.runs.summary import format_table
        s = commands.summary(r.out)
        click.echo(format_table(s))
        settings = r.settings
        if not settings.rules.is_rulebook:   # who answered the variant, and whether they read it
            click.echo("\n" + "\n".join(_players_lines(settings.strategies, settings.sheet, settings.players,
                                                         settings.rules)))
        path = shlex.quote(str(r.out))
        more = f"figures: encore-sim report {path}"
        if settings.players > 1 and "seat" not in s.stats:
            more = f"per seat: encore-sim summary {path} --by seat; " + more
        click.echo(f"\nDataset: {r.out}  ({more})")


# --- the designer's measures -----------------------------------------------------------

MEASURES = click.option(
    "--measures", is_flag=True,
    help="Also the designer's measures (docs/design.md): score sd, margin, ties, game length's sd and quantiles, "
         "win rate and win share by seat, seat gap, the active player's gain, completion, with 95% CIs. In csv, "
         "the measures' table alone.")


def _measures_fields(result) -> dict:
    """A JSON output's "measures" (a row per side, metric and who) and "not_measured" fields, when measured."""
    if getattr(result, "measures", None) is None:
        return {}
    return {"measures": json.loads(result.measures.to_json(orient="records")),
            "not_measured": result.not_measured}


def _emit_measures(table, lacking, fmt="csv", output=None) -> None:
    """The measures as csv (or parquet); what they lack on stderr (stdout is the table)."""
    from sim.runs.measures import missing_line
    _emit(table, fmt, output)
    line = missing_line(lacking)
    if line:
        click.echo(line, err=True)


# --- summary ----------------------------------------------------------------------

def _wide(summary):
    """Statistics with the solo rating-band shares as extra columns (machine formats)."""
    stats = summary.stats
    if summary.bands is None:
        return stats
    keys = ["strategy", "seat"] if "seat" in stats else ["strategy"]
    b = summary.bands.assign(col="band " + summary.bands["score"])
    wide = b.pivot_table(index=keys, columns="col", values="share", sort=False).reset_index()
    wide.columns.name = None
    return stats.merge(wide, on=keys, how="left")


def _emit(df, fmt, output, extra_json=None):
    if fmt == "csv":
        text = df.to_csv(index=False)
    elif fmt == "json":
        records = json.loads(df.to_json(orient="records"))
        text = json.dumps({**(extra_json or {}), "rows": records}, indent=2) + "\n"
    elif fmt == "parquet":
        if output is None and sys.stdout.isatty():
            raise ValueError("--format parquet writes binary data: give --out FILE or redirect stdout")
        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        if output is None:
            sys.stdout.buffer.write(buf.getvalue())
            sys.stdout.flush()
        else:
            from sim.runs.dataset import atomic_write_bytes
            atomic_write_bytes(Path(output), buf.getvalue())
        return
    else:
        text = df
    if output is None:
        click.echo(text, nl=not str(text).endswith("\n"))
    else:
        from sim.runs.dataset import atomic_write_bytes
        atomic_write_bytes(Path(output), (str(text) if str(text).endswith("\n") else f"{text}\n").encode())


@main.command()
@click.argument("path", type=str)
@click.option("--by", type=click.Choice(["strategy", "seat"]), default=defaults.SUMMARY_BY,
              help="A row per strategy, or per strategy and seat [default: per seat when one strategy "
                   "holds every seat of a table, as `run` prints it; else per strategy].")
@_format_option(["table", "csv", "json", "parquet"], "table: for reading; csv, json, parquet: every column, for "
                                                      "programs.")
@_out_option()
@click.option("--output", "output_old", type=click.Path(dir_okay=False, path_type=Path), default=None,
              hidden=True)  # its name before -o meant --out in every command
@_rules_option(DATASET_RULES_HELP)
@MEASURES
@_errors
def summary(path, by, fmt, output, output_old, rules, measures):
    """Statistics of a dataset written by `encore-sim run` (a folder or a filesystem URL).

    "games" counts the games a strategy played; when it held several seats of a game, its
    mean, quantiles and win rate are over its seat results (the "seats" column). Aggregated
    chunk by chunk in row batches: memory does not grow with the dataset. Games played under rule
    variants say so: a line before the table, a "rules" column (and in JSON field) in the others.
    """
    from sim import commands
    from sim.runs.summary import format_table
    output = output or output_old
    s = commands.summary(path, by=by, rules=rules, measures=measures)
    # A traced dataset's summary says how its games unfolded; --measures gives those among the rest.
    trace = None if measures else _trace_table(path, s.manifest)
    if fmt == "table":
        text = format_table(s)
        if measures:
            from sim.runs.measures import format_measures
            text += "\n\n" + format_measures(s.measures, s.not_measured)
        elif trace is not None:
            from sim.runs.trace import summary_text
            text += "\n\n" + summary_text(trace)
        _emit(text, "table", output)
    elif fmt in ("csv", "parquet") and measures:
        _emit_measures(s.measures, s.not_measured, fmt, output)
    else:
        _emit(_with_rules(_wide(s), s.rules), fmt, output, {"settings": s.manifest.get("settings"),
                                                            "games_done": s.manifest.get("games_done"),
                                                            "status": s.manifest.get("status"),
                                                            **_rules_field(s.rules), **_measures_fields(s),
                                                            **({} if trace is None else
                                                               {"trace": json.loads(trace.to_json(orient="records"))})})


def _trace_table(path, manifest):
    """The trace's measures aggregated (sim.runs.trace.trace_summary) of a dataset played with
    --trace, else None."""
    if not (manifest.get("settings") or {}).get("trace"):
        return None
    from sim.runs.trace import has_trace, trace_measures, trace_summary
    return trace_summary(trace_measures(path)) if has_trace(path) else None


def _with_rules(df, rules):
    """A summary's rows with a "rules" column (the --rules text) when not the rulebook's: a
    program reading rows from several datasets tells the rules apart; a rulebook dataset's rows
    stay as they were before rule variants."""
    return df if rules.is_rulebook else df.assign(rules=rules.text)


def _rules_field(rules) -> dict:
    """A JSON output's "rules" field (every number, sim.rules.rules_dict) when not the rulebook's."""
    from sim.rules import rules_dict
    return {} if rules.is_rulebook else {"rules": rules_dict(rules)}


# --- compare ------------------------------------------------------------------------

def _paired_options(each: str, target: str):
    """The options compare and compare-rules share: how many games (or until what interval), which
    games, and the output; `each` names what plays the games (a strategy, a rule set)."""
    return _options(
        _games_option(f"Games per {each} [default: {defaults.COMPARE_GAMES:,}]. Not with --until-ci."),
        click.option("--until-ci", type=float, default=None,
                     help=f"Instead of --games: play until {target}, or --max-games. Checked after 1,000 games, "
                          "then after batches sized by the games the current half-width predicts; the output "
                          "says whether the target was reached."),
        click.option("--max-games", type=COUNT, default=None,
                     help="With --until-ci: stop after this many games even if the target is not reached "
                          f"[default: {defaults.COMPARE_MAX_GAMES:,}]."),
        _seed_option(f"Root seed: every {each} plays the same games of it (game g of a seed is the same game in "
                     "every command)."),
        _sheet_option(), _max_rolls_option(), _threads_option(),
        _chunk_size_option("Most games per batch " + _chunk_help(defaults.COMPARE_CHUNK) + "; --until-ci checks "
                           "after every batch."),
        _format_option(["table", "csv", "json"], "table: for reading; csv, json: every row and column, for programs."),
        _quiet_option(),
    )


def _report_option(help: str):
    return click.option("--report", "report_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        metavar="FILE.html", help=help)


def _reported(report_file, quiet: bool):
    if report_file is not None and not quiet:   # on stderr: stdout may be csv or json
        click.echo(f"Report: {report_file}", err=True)


@main.command()
@click.argument("strategies", nargs=-1, required=True)
@_players_option()
@_opponents_option("the first strategy")
@_paired_options("strategy", "every score difference's 95% CI half-width is below this many points")
@_report_option("Also write an HTML report: the paired differences as a forest plot and the score distributions.")
@_rules_option(RULES_HELP + " Every strategy plays under them.")
@MEASURES
@click.option("--trace", is_flag=True,
              help="Also the measures of the per-roll trace (lead changes, drama, decided roll, comebacks, luck: "
                   "docs/trace.md), paired as the others; each candidate's games are replayed for it (slower).")
@UNCHECKED
@PYTHON
@TRAIN
@_errors
def compare(strategies, players, opponents, games, until_ci, max_games, seed, sheet, max_rolls, threads,
            chunk_size, fmt, quiet, report_file, rules, measures, trace, unchecked, python, train):
    """Compare strategies on common random numbers (the same dice), paired against the first.

    Either --games N, or --until-ci X (at most --max-games; giving --games too is an error):
    the output's last line then says whether the target was reached or --max-games stopped
    the comparison first (--format json: "stop"; csv: a warning on stderr if not reached).
    The exit code is 0 either way.

    Example: encore-sim compare greedy random --games 20000
    """
    _python(python, unchecked=unchecked, threads=threads is not None and threads > 1)
    _announce_compiling(_progress_enabled(quiet))
    from sim import commands
    from sim.experiments.compare import format_table, stop_message
    result = commands.compare(*strategies, players=players, opponents=opponents or None, games=games, seed=seed,
                              until_ci=until_ci, max_games=max_games, chunk_size=chunk_size, sheet=sheet,
                              max_rolls=max_rolls, threads=threads, report=report_file,
                              progress=_progress_enabled(quiet), unchecked=unchecked, rules=rules, train=train,
                              say=_say(quiet), measures=measures, trace=trace)
    if fmt == "table":
        click.echo(format_table(result))
        if rules is not None and not rules.is_rulebook:
            click.echo("\n" + "\n".join(_players_lines(list(strategies) + list(opponents or ()), sheet,
                                                         result.settings["players"], rules)))
    elif fmt == "csv" and (measures or trace):
        _emit_measures(result.measures, result.not_measured)
    else:
        _emit(result.table, fmt, None, {"games": result.games, "settings": result.settings,
                                        "stop": result.stop, **_measures_fields(result)})
        if fmt == "csv" and result.stop is not None and not result.stop["target_reached"]:
            click.echo(f"Warning: {stop_message(result)}", err=True)
    _reported(report_file, quiet)


def _players_comment(result) -> str:
    """Who played each rule set, as the csv's first lines: comments (`#`), which
    pandas.read_csv(..., comment="#") skips."""
    lines = [f"{label}: {line}" for label, played in result.played_by.items() for line in played]
    return "".join(f"# Players under {line}\n" for line in lines)


def _with_adaptation(result):
    """compare-rules' table for csv: its rows (part "rules"), then the adaptation check's (part
    "adaptation": mean_a is the players with A's weights, mean_b with B's own, diff the gain)."""
    import pandas as pd
    table = result.table.assign(part="rules")
    t = result.adaptation
    if t is None or not len(t):
        return table
    rows = t.rename(columns={"unadapted": "mean_a", "adapted": "mean_b", "gain": "diff", "gain_ci_low": "diff_ci_low",
                             "gain_ci_high": "diff_ci_high"}).assign(part="adaptation")
    return pd.concat([table, rows], ignore_index=True)[list(table.columns)]


@main.command("compare-rules")
@click.argument("rules", nargs=-1, required=True, type=_RuleSetsText(), metavar="RULES...")
@_strategy_option("Strategy spec, once per seat or once for all seats (repeatable), as in `run` "
                  f"[default: {defaults.RUN_STRATEGY}].")
@_players_option("Seats, 1 = solo game, 2..6 [default: one per --strategy; one strategy: the solo game].", None)
@_rotate_option("Rotate the strategies over the seats from game to game, as `run` does.")
@_paired_options("rule set", "every rule set's mean score difference (all seats) has a 95% CI half-width "
                             "below this many points")
@_report_option("Also write an HTML report drawing the paired differences, the score's parts, the win rate by seat, "
                "the game lengths and the score distributions.")
@click.option("--check-adaptation/--no-check-adaptation", default=defaults.CHECK_ADAPTATION, show_default=True,
              help="Also play each B's games with learned's weights of A's rules, to show what B's own weights "
                   "gain (near 0: the players did not adapt to B).")
@MEASURES
@click.option("--by", default=None, metavar="METRIC",
              help="Rank the rule sets (the points of a range or grid) by this metric or measure, smallest first: "
                   "rolls, score, margin, score_sd, ties, seat_gap, ... (docs/design.md).")
@click.option("--versus", default=defaults.SWEEP_VERSUS, show_default=True, metavar="METRIC",
              help="With --by: the second measure shown beside it, and the report's figure's other axis; the "
                   "Pareto front has the smaller --by and the larger --versus.")
@click.option("--descending", is_flag=True, help="With --by: largest first (and larger is better on the front).")
@click.option("--skill", is_flag=True,
              help="Also the skill ladder under each rule set: random, greedy, heuristic and learned, each against "
                   "the next in duels of two on the same games (skill_step; docs/design.md).")
@click.option("--ladder", default=None, metavar="A,B,...",
              help="With --skill: the strategies of the ladder, weakest first [default: random,greedy,heuristic,"
                   "learned].")
@click.option("--trace", is_flag=True,
              help="Also the measures of the per-roll trace (lead changes, drama, decided roll, comebacks, luck: "
                   "docs/trace.md), paired as the others; each rule set's games are replayed for it (slower).")
@UNCHECKED
@PYTHON
@TRAIN
@click.pass_context
@_errors
def compare_rules(ctx, rules, strategy, players, rotate, games, until_ci, max_games, seed, sheet, max_rolls, threads,
                  chunk_size, fmt, quiet, report_file, check_adaptation, measures, by, versus, descending, skill,
                  ladder, trace, unchecked, python, train):
    """What a rule change does: the same strategies on the same dice under each rule set, paired.

    RULES are rule sets, each a --rules text (comma-separated variants; `rulebook` for none): the
    first is A, each other a B compared with it game by game; one alone is compared with the
    rulebook. A rule set may name its sheet too (`sheet=mysheet.txt,joker-six`): two sheets are
    compared as two rule sets are, on the same dice; a range or grid (`jokers=6..12:2`) is a sweep,
    its points ranked with --by (docs/design.md). Per rule set B: mean score, game length, win rate
    by seat, '!' used, columns and colours completed, passes, star penalty, ... under A and B, and
    the mean of the games' differences B - A with a 95% t interval (docs/variants.md). Each rule set
    is played by its own players: `learned` with weights trained under its rules (--train trains
    those it lacks), and the output says what played each, warns of a strategy that ignores a
    change, and measures what B's own weights gain over A's under B (--check-adaptation).

    Example: encore-sim compare-rules rulebook joker-six -s learned -p 4 --train
    """
    _python(python, unchecked=unchecked, threads=threads is not None and threads > 1)
    _announce_compiling(_progress_enabled(quiet))
    from sim import commands
    from sim.experiments.rulescompare import format_table, stop_message
    result = commands.compare_rules(*rules, **_given(ctx, strategy=list(strategy)), games=games, players=players,
                                    seed=seed, sheet=sheet, rotate=rotate, max_rolls=max_rolls, threads=threads,
                                    chunk_size=chunk_size, until_ci=until_ci, max_games=max_games,
                                    report=report_file, progress=_progress_enabled(quiet), unchecked=unchecked,
                                    check_adaptation=check_adaptation, train=train, say=_say(quiet),
                                    measures=measures, by=by, versus=versus, descending=descending,
                                    skill=tuple(s.strip() for s in ladder.split(",")) if ladder and skill else skill,
                                    trace=trace)
    if fmt == "table":
        click.echo(format_table(result))
    elif fmt == "csv" and result.ranking is not None:
        click.echo(_players_comment(result), nl=False)
        _emit(result.ranking, "csv", None)
    elif fmt == "csv" and result.measures is not None:
        click.echo(_players_comment(result), nl=False)
        _emit_measures(result.measures, result.not_measured)
    else:
        adaptation = None if result.adaptation is None else json.loads(result.adaptation.to_json(orient="records"))
        if fmt == "csv":
            click.echo(_players_comment(result), nl=False)
        _emit(_with_adaptation(result) if fmt == "csv" else result.table, fmt, None,
              {"games": result.games, "rules": result.labels,
                                        "settings": result.settings, "stop": result.stop,
                                        "played_by": result.played_by, "warnings": result.warnings,
                                        "adaptation": adaptation, **_measures_fields(result),
                                        **({} if result.ranking is None else
                                           {"ranking": json.loads(result.ranking.to_json(orient="records"))})})
        for w in result.warnings if fmt == "csv" else ():
            click.echo(w, err=True)
        if fmt == "csv" and result.stop is not None and not result.stop["target_reached"]:
            click.echo(f"Warning: {stop_message(result)}", err=True)
    _reported(report_file, quiet)


# --- report ------------------------------------------------------------------------

@main.command("report")
@click.argument("dataset", type=str)
@_out_option("HTML file to write [default: DATASET.html beside the dataset folder].", metavar="FILE.html")
@click.option("--figures", "figures_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              metavar="DIR", help="Also write each figure as a PNG file into DIR (created if missing), for slides.")
@_format_option(["html", "png"], "png: the same as --figures DIR (which it needs).", default=None)
@click.option("--analyse", "analyse_too", is_flag=True,
              help="Also `encore-sim analyse` the dataset (by learned's value): loss per game by stage, score "
                   "against luck.")
@_quiet_option("No progress line.")
@_rules_option(DATASET_RULES_HELP)
@_errors
def report_command(dataset, output, figures_dir, fmt, analyse_too, quiet, rules):
    """Write a self-contained HTML report of a dataset: settings, summary, figures.

    One file, nothing loaded from the network: it opens offline and can be mailed.
    Aggregated chunk by chunk like `summary`, so datasets larger than memory work.
    """
    _announce_compiling(_progress_enabled(quiet))
    from sim import commands
    r = commands.report(dataset, out=output, figures=figures_dir, format=fmt, analyse=analyse_too,
                        progress=_progress_enabled(quiet), rules=rules)
    click.echo(f"Report: {r.html}  ({len(r.figures)} figures)")
    if r.pngs:
        click.echo(f"Figures: {len(r.pngs)} PNG files in {figures_dir}")


# --- tune ------------------------------------------------------------------------

@main.command()
@click.argument("spec")
@click.option("--param", "param", multiple=True, metavar="NAME=LO..HI",
              help="A parameter of SPEC to search, within LO..HI (repeatable).")
@_players_option()
@_opponents_option("SPEC")
@click.option("--objective", type=click.Choice(["score", "win"]), default=defaults.TUNE_OBJECTIVE, show_default=True,
              help="Mean score, or win rate (tables).")
@click.option("--budget", type=COUNT, default=defaults.TUNE_BUDGET, show_default=True,
              help="Games the whole search may play (a table counts once); the validation is extra.")
@_seed_option("Root seed of the search's games.")
@click.option("--validate-games", type=COUNT, default=None,
              help="Games the best and the start spec each play on the validation seed; 0 = no validation "
                   + _chunk_help(defaults.TUNE_VALIDATE_GAMES) + ".")
@click.option("--validation-seed", type=int, default=None, help="[default: --seed + 1]; must differ from --seed.")
@click.option("--trial-games", type=COUNT, default=None,
              help="Games per candidate and iteration [default: from the budget, about 15 iterations per "
                   "parameter, at least 30].")
@_sheet_option()
@_max_rolls_option()
@_threads_option()
@_out_option("New or empty folder for trials.parquet and tune.json.", file=False)
@_format_option(["table", "json"], "table: a line per iteration as it goes; json: one object at the end.")
@_quiet_option()
@_rules_option(RULES_HELP + " The search and its validation play under them.")
@TRAIN
@_errors
def tune(spec, param, players, opponents, objective, budget, seed, validate_games, validation_seed, trial_games,
         sheet, max_rolls, threads, out, fmt, quiet, rules, train):
    """Search SPEC's parameters for the best mean score (or win rate) with CMA-ES.

    All candidates of an iteration play the same games; the result, the search distribution's
    mean, then plays SPEC on a seed the search never used (paired difference, 95% CI).
    Ctrl-C prints the best so far.

    Example: encore-sim tune heuristic:solo_joker=0 --param solo_joker=0..3 --param solo_colour=0..2
    """
    _announce_compiling(_progress_enabled(quiet))
    from sim import commands
    from sim.runs import interrupts
    from sim.experiments import tune as t

    def each(result):
        if not result.history:   # set up: from now on Ctrl-C stops the search with its best so far
            interrupts.set_mode(interrupts.RAISE)
        if fmt == "table":
            click.echo(t.format_iteration(result, result.history[-1]) if result.history else t.format_header(result))

    try:
        result = commands.tune(spec, param=list(param), players=players, opponents=opponents or None,
                               objective=objective, budget=budget, seed=seed, validate_games=validate_games,
                               validation_seed=validation_seed, trial_games=trial_games, sheet=sheet,
                               max_rolls=max_rolls, threads=threads, out=out, progress=_progress_enabled(quiet),
                               rules=rules, train=train, on_iteration=each, say=_say(quiet))
    except t.TuneInterrupted as e:
        click.echo(json.dumps(e.result.to_dict(), indent=2) if fmt == "json" else t.format_best(e.result))
        _exit_interrupted()
    if fmt == "json":
        click.echo(json.dumps(result.to_dict(), indent=2))
        return
    click.echo(t.format_best(result))
    if result.validation is not None:
        click.echo("\n" + t.format_validation(result))
    if out is not None:
        click.echo(f"\nTrials: {Path(out) / 'trials.parquet'}, result: {Path(out) / 'tune.json'}")


# --- replay ------------------------------------------------------------------------

@main.command()
@click.argument("path", required=False)
@_game_option("Game number.", required=True)
@_strategy_option("Without PATH: strategy per seat, or one for all, as given to `run`.")
@_seed_option("Without PATH: the root seed, as given to `run`.")
@_players_option("Without PATH: seats [default: one per --strategy, as in `run`].", None)
@_rotate_option("Without PATH: the seats of game N as `run --rotate` (its default) gives them.")
@_sheet_option("Without PATH: built-in sheet name or file.")
@_max_rolls_option("Without PATH: roll cap for tables.")
@click.option("--json", "as_json", is_flag=True, help="Print the engine's game log as JSON.")
@click.option("--every-roll", is_flag=True, help="Draw the sheets after every roll, not only at the end.")
@click.option("--trace", is_flag=True, help="Each seat's chance of winning, expected score and luck after every "
              "roll (shown without asking for a dataset played with run --trace).")
@_rules_option(RULES_HELP + " With PATH: the dataset's own, or left out.")
@UNCHECKED
@PYTHON
@click.pass_context
@_errors
def replay(ctx, path, game, strategy, seed, players, rotate, sheet, max_rolls, as_json, every_roll, trace, rules,
           unchecked, python):
    """Replay one game exactly, roll by roll: game N of a dataset (PATH --game N), or game N
    of what `run` would play with the same --seed and --strategy options (and --rules). A
    dataset's game is played under the dataset's rules, named in the first line when they are
    not the rulebook's.

    \b
    Example: game 4 of   encore-sim run --seed 7 -s greedy -s random -s heuristic
    is                   encore-sim replay --seed 7 --game 4 -s greedy -s random -s heuristic
    """
    _python(python, unchecked=unchecked)
    _announce_compiling(sys.stderr.isatty())
    from sim import commands
    from sim.runs.replay import render
    r = commands.replay(path, game=game, **_given(ctx, strategy=list(strategy), seed=seed, players=players,
                                                  rotate=rotate, sheet=sheet, max_rolls=max_rolls),
                        unchecked=unchecked, rules=rules, trace=trace)
    if as_json:
        click.echo(json.dumps(r.log, indent=1))
    else:
        click.echo(render(r.log, r.sheet, every_roll=every_roll, trace=r.trace))
        if r.stored is not None and r.problem is None:
            click.echo("\nScores equal the ones stored in the dataset.")
        elif path is not None and r.stored is None:
            click.echo("\nThe dataset holds no scores for this game yet (its chunk is not finished).")
    if r.problem:
        _fail(r.problem, 1)


# --- moves ------------------------------------------------------------------------

@main.command()
@_sheet_option()
@click.option("--crossed", default="", help="Boxes already crossed, comma separated, e.g. H1,H2,G2.")
@click.option("--colour", required=True, help="green, yellow, blue, red or orange.")
@click.option("--number", type=int, required=True, help="1..5; 6 with --rules joker-six (a number joker's 6).")
@_rules_option()
@_errors
def moves(sheet, crossed, colour, number, rules):
    """List the legal placements of a colour and number on a sheet with some boxes crossed."""
    _announce_compiling(sys.stderr.isatty())
    from sim import commands
    click.echo(commands.moves(colour=colour, number=number, crossed=crossed, sheet=sheet, rules=rules).text())


# --- train ------------------------------------------------------------------------

@main.command()
@_sheet_option()
@_players_option("1 = the solo game.")
@_games_option(f"Training games [default: solo {defaults.TRAIN_GAMES:,}; tables "
               + ", ".join(f"{g:,} ({p}{' players' if p == 2 else ''})" for p, g in defaults.TRAIN_TABLE_GAMES.items())
               + "; docs/variants.md, \"Training time\", says how long they take].")
@_seed_option("Root seed of the training dice (no other command's default plays its games).", defaults.TRAIN_SEED)
@_threads_option("Numba threads [default: all cores]; the weights do not depend on it.")
@click.option("--init", default=None, metavar="W.npz",
              help="Continue training these weights (same sheet and players; any rules: a variant may start from "
                   "the rulebook's) [default: start afresh].")
@click.option("--step", type=float, nargs=2, default=defaults.TRAIN_STEP, show_default=True, metavar="START END",
              help="Step size at the start and at the end of the run, falling linearly.")
@_out_option("Weights file to write (.npz), replaced if it exists [default: the weights store's file for the sheet, "
             "players and rules, where `learned` finds them].", file=False)
@_quiet_option()
@_rules_option(RULES_HELP + " The weights are for games under them.")
@_errors
def train(sheet, players, games, seed, threads, init, step, out, quiet, rules):
    """Train the weights of `learned` for a sheet by self-play.

    By default into your weights store (`encore-sim weights` lists it), where `learned` finds
    them for the same sheet, players and rules without a weights= parameter. The shipped
    weights are made by `encore-sim train --sheet NAME --out strategies/data/learned-NAME.npz`
    for each built-in sheet, continued by the same command with `--init` that file `--games
    8000000 --seed 77 --step 0.03 0.003`, and `encore-sim train --players N --out
    strategies/data/learned-standard-Np.npz` for tables of 2-6 (docs/training.md).
    Interrupted, it writes nothing. Its --seed is 7, not 0 like every other command's, so
    that the default comparisons never play the games it learned from.
    """
    _announce_compiling(_progress_enabled(quiet))
    from sim import commands
    from sim.runs import interrupts
    if _PROGRAM:
        interrupts.install("Interrupted: no weights were written.")
    try:
        w = commands.train(sheet=sheet, players=players, games=games, seed=seed, threads=threads, init=init,
                           step=step, out=out, progress=_progress_enabled(quiet), rules=rules, say=_say(quiet))
    except KeyboardInterrupt:
        click.echo("\nInterrupted: no weights were written.", err=True)
        _exit_interrupted()
    if not quiet:
        variants = not w.rules.is_rulebook
        what = (f"weights for {'the solo game' if w.players == 1 else f'{w.players} players'} on sheet {sheet}"
                f"{f', under the rules {w.rules.text}' if variants else ''}")
        run_rules = f" --rules {shlex.quote(w.rules.text)}" if variants else ""
        if w.in_store:
            click.echo(f"Wrote {w.file}: {what}, in your weights store. `learned` plays them wherever it plays "
                       f"these rules on this sheet and table (e.g. encore-sim run -s learned"
                       f"{'' if w.players == 1 else f' -p {w.players}'}{run_rules}).")
        else:
            # Weights trained under variants are for games under them: the command to play them says so.
            click.echo(f"Wrote {out}: {what}. Play them with --strategy learned:weights={shlex.quote(out)}"
                       + run_rules)


@main.command("weights")
@_format_option(["table", "csv", "json"], "table: for reading; csv, json: for programs.")
@_errors
def weights_command(fmt):
    """List `learned`'s weights: the shipped ones and those in your weights store.

    Per file: where it comes from (shipped, or yours), the sheet, players and rules it was
    trained for, its training games, when, from which weights, and its path. `learned` plays
    the shipped file for a sheet, table size and rules if there is one, else yours.
    """
    import pandas as pd
    from sim import commands
    w = commands.weights()
    df = pd.DataFrame(w.rows(), columns=w.columns())
    if fmt != "table":
        _emit(df, fmt, None, {"store": str(w.folder)})
        return
    shown = df.assign(players=[("solo" if p == 1 else str(p)) if p else "?" for p in df["players"]],
                      games=[f"{g:,}" if g == g and g is not None else "" for g in df["games"]],
                      file=[Path(f).name if src == "shipped" else f for src, f in zip(df["source"], df["file"])])
    click.echo(shown.fillna("").to_string(index=False))
    mine = sum(df["source"] == "yours")
    click.echo(f"\nWeights store: {w.folder} ({mine} file{'s' if mine != 1 else ''}"
               f"{'' if w.folder.is_dir() else ', not made yet'}; set ENCORE_SIM_WEIGHTS or "
               "--weights-store to use another). Shipped files are in the installed package, read-only.")
    if "problem" in df:
        for f, p in zip(df["file"], df["problem"]):
            if p == p and p:
                click.echo(f"Warning: {f}: {p}", err=True)


# --- bound ------------------------------------------------------------------------

@main.command()
@_games_option("Solo games (0..games-1).", defaults.BOUND_GAMES)
@_seed_option("Root seed of the dice.", defaults.BOUND_SEED)
@_sheet_option()
@click.option("--beam", "-b", type=COUNT, default=defaults.BOUND_BEAM, show_default=True,
              help="States kept after each roll: a wider beam finds more, slower (docs/research.md says how "
                   "long it takes).")
@_weights_option("learned's weights file [default: the shipped ones of the sheet].")
@_threads_option("Numba threads [default: all cores]; the results do not depend on it.")
@_quiet_option("No progress line.")
@_rules_option(RULES_HELP + " Both the bound and learned play under them.")
@_errors
def bound(games, seed, sheet, beam, weights, threads, quiet, rules):
    """The clairvoyant bound of the solo game, and `learned` as a percentage of it.

    For each game, a beam search with all 30 rolls known finds the best score it can
    (sim.research.clairvoyant); `learned` plays the same dice. Prints both means, the
    percentage and their score breakdowns.
    """
    _announce_compiling(_progress_enabled(quiet))
    from sim import commands
    h = commands.bound(games=games, seed=seed, sheet=sheet, beam=beam, weights=weights, threads=threads,
                       progress=_progress_enabled(quiet), rules=rules)
    click.echo(h.report())


# --- analyse ------------------------------------------------------------------------

@main.command()
@click.argument("dataset", type=str)
@click.option("--strategy", "-s", default=None, metavar="LABEL",
              help="Only the seats this strategy played (its label in the dataset) [default: every seat].")
@click.option("--rollouts", "-r", type=COUNT, default=defaults.ANALYSE_ROLLOUTS, show_default=True,
              help="Solo: judge by this many taxed rollouts of learned from both choices on the same dice "
                   "(even), not by learned's value alone; on learned's own games, also one step of policy "
                   "improvement over it (--top).")
@click.option("--top", type=int, default=defaults.ANALYSE_TOP, show_default=True,
              help="With --rollouts, on learned's own games: its best choices rolled out at every decision.")
@_games_option("Only the first N games [default: all finished ones].")
@click.option("--mistakes", type=int, default=defaults.ANALYSE_MISTAKES, show_default=True,
              help="Largest mistakes listed.")
@_weights_option("The judge's weights file [default: learned's shipped ones for the dataset's sheet and players].")
@_format_option(["table", "json", "parquet"], "table: for reading; json: the rows and mistakes; parquet: one row "
                                              "per decision (needs -o).")
@_out_option()
@_threads_option("Numba threads [default: all cores]; the results do not depend on it.")
@_quiet_option()
@_game_option("Show this game's decisions instead, every legal choice ranked by learned's action value (the best "
              "10 and the one played) with the loss of the choice made.")
@click.option("--roll", type=int, default=None, help="With --game: only this roll's decisions.")
@click.option("--seat", type=int, default=None, help="With --game: only this seat's decisions.")
@_rules_option(DATASET_RULES_HELP)
@UNCHECKED
@TRAIN
@_errors
def analyse(dataset, strategy, rollouts, top, games, mistakes, weights, fmt, output, threads, quiet, game, roll, seat,
            rules, unchecked, train):
    """Where each strategy of a dataset loses its points against `learned`, and how much was luck.

    Replays the dataset's games from its manifest and judges every decision against learned's
    choice: loss = learned's action value of its choice minus that of the choice made (by its
    value; by rollouts with --rollouts), per game by kind and stage of the game with 95% CIs;
    luck = what a roll's dice were worth beyond their average (solo); the largest mistakes,
    each a game to `encore-sim replay`.

    With --game N (and --roll R, --seat S): that game's decisions one by one, every legal choice
    ranked by learned's action value (with --rollouts, also rolled out), the one played and
    learned's marked, and the loss of the choice made.
    """
    from sim.errors import SettingError
    if game is not None and fmt == "parquet":
        raise SettingError("{game} shows one game's decisions as a table or JSON: {format} table or {format} json")
    if fmt == "parquet" and output is None:
        raise SettingError("{format} parquet writes one row per decision: give {out} FILE")
    _announce_compiling(_progress_enabled(quiet))
    from sim import commands
    from sim.runs import interrupts
    if output is not None and fmt != "parquet":   # (the layer checks a Parquet file of decisions)
        commands.check_file(output)
    try:
        with interrupts.raising():      # the analysis removes its unfinished Parquet file itself
            a = commands.analyse(dataset, strategy=strategy, rollouts=rollouts, top=top, games=games,
                                 mistakes=mistakes, weights=weights, threads=threads, game=game, roll=roll, seat=seat,
                                 decisions_out=output if fmt == "parquet" else None,
                                 progress=_progress_enabled(quiet), unchecked=unchecked, rules=rules, train=train,
                                 say=_say(quiet))
    except KeyboardInterrupt:
        click.echo("Interrupted: nothing was written.", err=True)
        _exit_interrupted()
    if fmt == "parquet":
        if not quiet:
            click.echo(f"Wrote {output}: one row per decision of {a.games:,} games", err=True)
        return
    _emit(json.dumps(a.to_dict(), indent=1) + "\n" if fmt == "json" else a.text(), "table", output)


# --- strategies ---------------------------------------------------------------------

@main.command("strategies")
@_errors
def list_strategies():
    """List the built-in strategies with their parameters."""
    from sim import commands
    for name, s in commands.strategies().items():
        click.echo(f"{name:<12} {s.description}")
        for k, v in s.params.items():
            click.echo(f"{'':<12}   {k} = {v:g}")


# --- play ----------------------------------------------------------------------------

@main.command("play")
@_players_option("Players at the table, you included (1 = the solo game).", default=defaults.PLAY_PLAYERS)
@click.option("--opponents", "opponents", multiple=True, metavar="SPEC",
              help="The bots' strategy: once for every other seat, or once per other seat [default: "
                   f"{defaults.PLAY_OPPONENTS}].")
@click.option("--level", default=None, help="Bots of this level instead (docs/levels.md): a number or a name.")
@_sheet_option()
@_rules_option()
@click.option("--seed", type=SEED, default=None, help="Root seed: game g of a seed has `run`'s dice of game g of "
                                                      "that seed [default: a fresh one].")
@_game_option("The game's number of the seed.", default=defaults.PLAY_GAME, show_default=True)
@_max_rolls_option()
@_out_option("The game's folder, kept after every move and a dataset at the end [default: "
             "results/play-YYYYmmdd-HHMMSS].", file=False)
@click.option("--resume", "resume_path", default=None, metavar="FOLDER",
              help="Continue the game kept in FOLDER (its own settings).")
@click.option("--coach", type=click.FloatRange(0, 100), default=None, metavar="POINTS",
              help="Turn the coach on: after each of your moves it says what the move cost against learned's "
                   "best, when that is more than POINTS (the page can change it).")
@click.option("--review", "review_path", default=None, metavar="FOLDER",
              help="Step through the finished game kept in FOLDER, roll by roll, with its analysis.")
@click.option("--practice", is_flag=True, help="Practice mode: take back any of your moves and try another on the "
                                             "same dice (the game is then marked practice; the page can switch it).")
@click.option("--people", type=click.IntRange(2, defaults.PLAY_MAX_PLAYERS), default=None, metavar="N",
              help="Pass-and-play: N people at one screen (seats 1..N), the page handing over between them; bots "
                   f"hold the other seats of --players [default: {defaults.PLAY_PLAYERS} seats, or N and one per "
                   "--opponents].")
@click.option("--names", default=None, metavar="NAME,NAME",
              help="The people's names, in seat order (pass-and-play) [default: Player 1, Player 2, ...].")
@click.option("--port", type=click.IntRange(1, 65535), default=None,
              help="Serve on 127.0.0.1:PORT [default: a free port].")
@click.option("--no-browser", is_flag=True, help="Only print the URL (the first line of output); open no browser.")
@click.pass_context
@_errors
def play(ctx, players, opponents, level, sheet, rules, seed, game, max_rolls, out, resume_path, review_path, coach,
         practice, people, names, port, no_browser):
    """Play a game against the bots in your browser, with hints, a coach and your game analysed.

    Serves one page on 127.0.0.1 until Ctrl-C: its URL, with its secret token, is the one line printed
    on stdout (docs/play.md). The game is kept after every move: --resume FOLDER continues it.
    """
    _announce_compiling(_progress_enabled(False))
    from sim.commands import play as run_play
    given = _given(ctx, players=players, opponents=list(opponents), level=level, sheet=sheet, rules=rules, seed=seed,
                   game=game, max_rolls=max_rolls, people=people, names=names)
    run_play(**given, out=out, resume=resume_path, review=review_path, coach=coach, practice=practice, port=port, browser=not no_browser,
             say=click.echo, note=lambda line: click.echo(line, err=True))


def _exit_interrupted():
    """Exit as a command interrupted by Ctrl-C (130) or SIGTERM (143) exits, its work finished."""
    from sim.runs import interrupts
    sys.exit(interrupts.exit_code())


def _abort_at_once(signum, frame):
    # Until sim.runs.interrupts takes over (importing it imports Numba): nothing needs finishing yet.
    os.write(2, b"Aborted.\n")
    os._exit(128 + signum)


def entry() -> None:
    """The `encore-sim` program: main(), with Ctrl-C or SIGTERM an interruption at any moment
    (sim.runs.interrupts)."""
    global _PROGRAM
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _abort_at_once)
    _PROGRAM = True
    main()


if __name__ == "__main__":
    entry()
