"""sim.commands: one layer under both front ends. The command line and the notebook module
give the same results and the same errors for the same inputs, each in its own words; every
default is defined once."""
import ast
import inspect
import json
import re
from pathlib import Path

import click
import numpy as np
import pandas as pd
import pytest

import cli
import encore_sim as es
from sim.errors import SettingError, flag_name
from sim import commands
from sim.runs import defaults
from sim.runs.dataset import read_manifest
from sim.runs.runner import run as runner_run
from invoking import invoke

ROOT = Path(__file__).resolve().parents[2]


def _interrupted(out, **kwargs):
    """A run stopped by Ctrl-C after its first chunk of 20 games."""
    def stop(chunk, done):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runner_run(out, chunk_size=20, on_chunk=stop, **kwargs)


def test_resume_takes_the_runs_own_settings_from_python_as_from_the_command_line(tmp_path):
    settings = dict(games=60, strategies=["greedy", "random"], players=2, seed=4, rules="pass-penalty=1")
    for name in ("cli", "python"):
        _interrupted(tmp_path / name, **settings)
    r = invoke("run", "--out", tmp_path / "cli", "--resume", "-q")
    assert r.exit_code == 0, r.output
    df = es.run(tmp_path / "python", resume=True)          # once: "games is 100000 here but 60"
    assert df.attrs["dataset"] == str(tmp_path / "python")
    for part in ("players", "games"):
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "cli" / part),
                                      pd.read_parquet(tmp_path / "python" / part))
    # a setting given must be the run's own, both ways, each in its words
    r = invoke("run", "--out", tmp_path / "cli", "--resume", "--games", 70)
    assert r.exit_code == 2 and "Error: cannot resume" in r.output and "--games is 70 here but 60" in r.output
    with pytest.raises(ValueError, match="games is 70 here but 60 in its manifest") as e:
        es.run(tmp_path / "python", resume=True, games=70)
    assert "--games" not in str(e.value)


@pytest.mark.parametrize("cli_args, keywords, cli_words, python_words", [
    (["--resume", "--force", "--out", "X"], dict(out="X", resume=True, force=True),
     "--resume and --force exclude each other", "resume and force exclude each other"),
    (["--resume"], dict(resume=True), "--resume needs --out", "resume needs out"),
    (["--games", "0"], dict(games=0), "--games must be 1..", "games must be 1.."),
    (["--players", "9"], dict(players=9), "--players must be 1..6, got 9", "players must be 1..6, got 9"),
    (["--max-rolls", "0"], dict(max_rolls=0), "--max-rolls must be 1..", "max_rolls must be 1.."),
    (["--rules", "penalty=1"], dict(rules="penalty=1"), "Invalid value for '--rules': unknown rule variant 'penalty'",
     "rules: unknown rule variant 'penalty'"),
])
def test_errors_name_the_flag_on_the_command_line_and_the_keyword_in_python(tmp_path, cli_args, keywords,
                                                                             cli_words, python_words):
    r = invoke("run", *cli_args)
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1 and cli_words in r.output, r.output
    with pytest.raises(ValueError) as e:
        es.run(**keywords)
    assert python_words in str(e.value) and "--" not in str(e.value).split(":")[0]


def test_a_full_folder_is_refused_in_each_front_ends_words(tmp_path):
    out = tmp_path / "ds"
    es.run(out, games=10)
    r = invoke("run", "--out", out, "-n", 10)
    assert r.exit_code == 2 and "use --resume to finish the run in it, or --force to replace it" in r.output
    with pytest.raises(ValueError, match="use resume=True to finish the run in it, or force=True to replace it"):
        es.run(out, games=10)


def test_the_manifest_records_the_python_call(tmp_path):
    es.run(tmp_path / "nb", games=10, seed=3)
    assert read_manifest(tmp_path / "nb")["command"] == f"encore_sim.run({str(tmp_path / 'nb')!r}, games=10, seed=3)"


def test_setting_errors_render_their_tokens():
    e = SettingError("{max_games} needs {until_ci}; use {force=True}, not {a b} or {Games}")
    assert str(e) == "max_games needs until_ci; use force=True, not {a b} or {Games}"
    assert e.words(flag_name) == "--max-games needs --until-ci; use --force, not {a b} or {Games}"


@pytest.mark.parametrize("name", sorted({**commands.COMMANDS, **commands.SERVED}))
def test_the_front_ends_take_the_commands_defaults(name):
    """The notebook function of a command has the layer's keywords with the layer's default objects;
    the command line's options default to the same values (read from sim.runs.defaults)."""
    fn = {**commands.COMMANDS, **commands.SERVED}[name]
    layer = inspect.signature(fn).parameters
    # play's notebook twin is game: the same game, without the page
    notebook = inspect.signature(es.game if name == "play" else getattr(es, fn.__name__)).parameters
    if name == "play":
        layer = {**inspect.signature(commands.game).parameters}
    assert set(notebook) <= set(layer)
    for key, p in notebook.items():
        assert p.default is layer[key].default, key      # the layer's own object: not written again
    checked = []
    for option in cli.main.commands[name].params:
        key = option.opts[0].lstrip("-").replace("-", "_")     # the keyword of --max-rolls is max_rolls
        unset = type(option.default).__name__ == "Sentinel"     # click 8.3's: a flag off, an option without one
        if isinstance(option, click.Option) and not (option.multiple or option.required or unset) and key in layer:
            assert option.default == commands.default(fn, key), (name, key)
            checked.append(key)
    assert name in ("strategies", "weights") or checked


def test_every_command_has_one_function_in_each_front_end():
    assert set(commands.COMMANDS) | set(commands.SERVED) == set(cli.main.commands)
    assert {f.__name__ for f in commands.COMMANDS.values()} == set(es.__all__) - {"available_dice", "game", "env", "vector_env", "aec_env"}
    assert f"[default: {defaults.RUN_STRATEGY}]" in {p.name: p for p in cli.run.params}["strategy"].help


def _literal(node):
    """The value of a literal default (a number, text, flag or tuple of them), else None."""
    if isinstance(node, (ast.Constant, ast.Tuple)):
        try:
            return ast.literal_eval(node)
        except ValueError:
            return None
    return None


def _literal_defaults(path: Path):
    """(function or class, name, value) of each literal default of a def, and of each literal
    class attribute (a dataclass's field), in `path`."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.args + node.args.kwonlyargs
            values = [None] * (len(node.args.args) - len(node.args.defaults)) + node.args.defaults + \
                node.args.kw_defaults
            for a, v in zip(args, values):
                yield node.name, a.arg, _literal(v)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.value is not None:
                    yield node.name, item.target.id, _literal(item.value)


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b


#: Defaults sim.runs.defaults owns, by the name of the parameter or option that takes them.
OWNED = {"games": {defaults.RUN_GAMES, defaults.COMPARE_GAMES, defaults.BOUND_GAMES, defaults.TRAIN_GAMES},
         "max_games": {defaults.COMPARE_MAX_GAMES}, "seed": {defaults.SEED, defaults.TRAIN_SEED, defaults.BOUND_SEED},
         "sheet": {defaults.SHEET}, "max_rolls": {defaults.MAX_ROLLS}, "strategy": {defaults.RUN_STRATEGY},
         "strategies": {defaults.RUN_STRATEGY}, "rotate": {defaults.ROTATE}, "retries": {defaults.RETRIES},
         "check_adaptation": {defaults.CHECK_ADAPTATION}, "budget": {defaults.TUNE_BUDGET},
         "objective": {defaults.TUNE_OBJECTIVE}, "top": {defaults.ANALYSE_TOP}, "mistakes": {defaults.ANALYSE_MISTAKES},
         "beam": {defaults.BOUND_BEAM}, "step": {defaults.TRAIN_STEP}, "alpha": {defaults.TRAIN_STEP[0]},
         "alpha_end": {defaults.TRAIN_STEP[1]}, "format": {defaults.FORMAT}, "fmt": {defaults.FORMAT}}
#: Names too common to own everywhere (a seat count, rollouts): owned in the front ends and the commands.
OWNED_ABOVE = {"players": {defaults.PLAYERS}, "rollouts": {defaults.ANALYSE_ROLLOUTS}}


def _owned(name: str, value, above: bool) -> bool:
    return any(_same(value, v) for v in OWNED.get(name, set()) | (OWNED_ABOVE.get(name, set()) if above else set()))


def test_no_default_of_the_commands_is_written_a_second_time():
    """A default sim.runs.defaults owns is written as a literal nowhere else: not as a parameter's
    default or a class field in the source, nor as a click option's default, nor as a number in an
    option's help."""
    found = []
    for path in [ROOT / "cli.py", ROOT / "encore_sim.py", *(ROOT / "sim").rglob("*.py"),
                 *(ROOT / "strategies").rglob("*.py")]:
        if path.name == "defaults.py":
            continue
        name = path.relative_to(ROOT).as_posix()
        above = path.parent.name == "commands" or path.parent == ROOT
        found += [f"{name}: {f}({a}={v!r})" for f, a, v in _literal_defaults(path) if _owned(a, v, above)]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("option") and node.args:
                names = [str(getattr(a, "value", "")) for a in node.args]
                option = max(names, key=len).split("/")[0].lstrip("-").replace("-", "_")
                for kw in node.keywords:
                    if kw.arg == "default" and _owned(option, _literal(kw.value), True):
                        found.append(f"{name}: option --{option} default={_literal(kw.value)!r}")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    re.search(r"\[default: [\d.]", node.value):
                found.append(f"{name}: a default in a text: {node.value!r}")
    assert not found, "\n".join(found)


def test_python_frames_name_things_as_the_datasets_do(tmp_path):
    """replay()'s frame and the turns table: the same names and types (`passed`, `active`), and
    `available` decoded the same way in both."""
    es.run(tmp_path / "t", strategy=["greedy", "random"], players=2, games=3, log_turns=True, seed=5)
    turns = pd.read_parquet(tmp_path / "t" / "turns")
    turns = turns[turns["game"] == 1].reset_index(drop=True)
    moves = es.replay(tmp_path / "t", game=1)
    for column in ("roll", "seat", "active", "passed", "available", "cells", "jokers"):
        assert [pd.api.types.is_bool_dtype(f[column]) for f in (turns, moves)] == \
            [pd.api.types.is_bool_dtype(turns[column])] * 2, column
        assert [list(x) if hasattr(x, "__len__") and not isinstance(x, str) else x for x in moves[column]] == \
            [list(x) if hasattr(x, "__len__") and not isinstance(x, str) else x for x in turns[column]], column
    assert "pass" not in moves
    for mask, row in zip(turns["available"], turns.itertuples()):
        dice = es.available_dice(mask)
        assert all(0 <= i < len(row.colour_dice) for i in dice["colour"])
        assert all(0 <= i < len(row.number_dice) for i in dice["number"])
        if not row.passed:      # the dice a move used were among those it could use
            assert row.colour_die in dice["colour"] and row.number_die in dice["number"]
    assert es.available_dice(0b101011) == {"colour": [0, 1], "number": [0, 2]}
    with pytest.raises(ValueError, match="available must be a 6-bit mask"):
        es.available_dice(64)


# --- every command both ways --------------------------------------------------------------

@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A small two-player dataset with its turns table."""
    out = tmp_path_factory.mktemp("both") / "ds"
    es.run(out, strategy=["greedy", "random"], games=24, seed=6, log_turns=True)
    return out


def _ok(*args) -> str:
    r = invoke(*args)
    assert r.exit_code == 0, r.output
    return r.stdout


def _rows_equal(rows: list[dict], frame: pd.DataFrame, columns) -> None:
    """JSON rows (as a command writes them) and a frame's: the same values, NaN and null alike."""
    assert len(rows) == len(frame)
    for row, (_, want) in zip(rows, frame.iterrows()):
        for c in columns:
            a, b = row[c], want[c]
            if isinstance(b, (float, np.floating)) or a is None:
                assert (a is None and pd.isna(b)) or a == pytest.approx(b, rel=1e-9), (c, a, b)
            else:
                assert a == b, (c, a, b)


def both_run(tmp, ds):
    options = dict(games=30, players=3, strategy=["greedy", "random", "greedy"], rotate=False, sheet="blue", seed=5,
                   chunk_size=10, max_rolls=60, log_turns=True, rules="pass-penalty=1", threads=1)
    _ok("run", "-n", 30, "-p", 3, "-s", "greedy", "-s", "random", "-s", "greedy", "--no-rotate", "--sheet", "blue",
        "--seed", 5, "--chunk-size", 10, "--max-rolls", 60, "--log-turns", "--rules", "pass-penalty=1", "-j", 1,
        "-o", tmp / "cli", "-q")
    es.run(tmp / "py", **options)
    assert read_manifest(tmp / "cli")["settings"] == read_manifest(tmp / "py")["settings"]
    for part in ("games", "players", "turns"):
        pd.testing.assert_frame_equal(pd.read_parquet(tmp / "cli" / part), pd.read_parquet(tmp / "py" / part))


def both_summary(tmp, ds):
    rows = json.loads(_ok("summary", ds, "--by", "seat", "-f", "json"))["rows"]
    frame = es.summary(ds, by="seat")
    _rows_equal(rows, frame, frame.columns)


def both_compare(tmp, ds):
    rows = json.loads(_ok("compare", "greedy", "random", "-p", 2, "--opponents", "random", "-n", 60, "--seed", 2,
                          "--max-rolls", 90, "--chunk-size", 25, "-f", "json", "-j", 1))["rows"]
    frame = es.compare("greedy", "random", players=2, opponents="random", games=60, seed=2, max_rolls=90,
                       chunk_size=25, threads=1)
    _rows_equal(rows, frame, frame.columns)
    got = json.loads(_ok("compare", "greedy", "random", "--until-ci", 50, "--max-games", 40, "-f", "json"))
    assert got["stop"] == es.compare("greedy", "random", until_ci=50, max_games=40).attrs["stop"]


def both_compare_rules(tmp, ds):
    rows = json.loads(_ok("compare-rules", "rulebook", "pass-penalty=1", "-s", "greedy", "-s", "random", "-n", 40,
                          "--seed", 3, "--no-rotate", "--no-check-adaptation", "-f", "json"))["rows"]
    frame = es.compare_rules("rulebook", "pass-penalty=1", strategy=["greedy", "random"], games=40, seed=3,
                             rotate=False, check_adaptation=False)
    _rows_equal(rows, frame, frame.columns)


def both_tune(tmp, ds):
    got = json.loads(_ok("tune", "heuristic:solo_joker=0", "--param", "solo_joker=0..3", "--budget", 600,
                         "--trial-games", 20, "--validate-games", 40, "--validation-seed", 9, "--seed", 2, "-j", 1,
                         "-f", "json", "--out", tmp / "cli"))
    frame = es.tune("heuristic:solo_joker=0", param=["solo_joker=0..3"], budget=600, trial_games=20,
                    validate_games=40, validation_seed=9, seed=2, threads=1, out=tmp / "py")
    assert got["best_spec"] == frame.attrs["best_spec"] and got["validation"] == frame.attrs["validation"]
    assert [h["mean"] for h in got["history"]] == list(frame["mean"])
    pd.testing.assert_frame_equal(pd.read_parquet(tmp / "cli" / "trials.parquet"), frame.attrs["trials"])


def both_train(tmp, ds):
    _ok("train", "--games", 30, "--seed", 3, "--step", 0.4, 0.1, "-j", 1, "-q", "-o", tmp / "cli.npz")
    frame = es.train(games=30, seed=3, step=(0.4, 0.1), threads=1, out=tmp / "py.npz")
    assert frame.loc[0, "file"] == str(tmp / "py.npz") and not frame.loc[0, "in_store"]
    with np.load(tmp / "cli.npz") as a, np.load(tmp / "py.npz") as b:
        assert set(a.files) == set(b.files)
        for key in set(a.files) - {"trained"}:
            assert np.array_equal(a[key], b[key]), key


def both_replay(tmp, ds):
    assert json.loads(_ok("replay", ds, "--game", 3, "--json")) == es.replay(ds, game=3).attrs["log"]
    log = json.loads(_ok("replay", "--game", 2, "-s", "greedy", "-s", "random", "--seed", 4, "--no-rotate", "-p", 2,
                         "--sheet", "blue", "--max-rolls", 80, "--rules", "joker-six", "--json"))
    assert log == es.replay(game=2, strategy=["greedy", "random"], seed=4, rotate=False, players=2, sheet="blue",
                            max_rolls=80, rules="joker-six").attrs["log"]


def both_analyse(tmp, ds):
    got = json.loads(_ok("analyse", ds, "--mistakes", 3, "-n", 20, "-s", "greedy", "-j", 1, "-f", "json"))
    frame = es.analyse(ds, mistakes=3, games=20, strategy="greedy", threads=1)
    _rows_equal(got["rows"], frame, ["strategy", "seat", "loss_per_game", "games"])
    assert [m["game"] for m in got["mistakes"]] == list(frame.attrs["mistakes"]["game"])
    view = json.loads(_ok("analyse", ds, "--game", 1, "--seat", 0, "-f", "json"))
    frame = es.analyse(ds, game=1, seat=0)
    assert [o["value"] for d in view["decisions"] for o in d["options"]] == list(frame["value"])


def both_report(tmp, ds):
    printed = _ok("report", ds, "-o", tmp / "cli.html", "--figures", tmp / "cli", "-f", "png")
    frame = es.report(ds, out=tmp / "py.html", figures=tmp / "py", format="png")
    assert f"({len(frame)} figures)" in printed and frame.attrs["html"] == str(tmp / "py.html")
    assert sorted(p.name for p in (tmp / "cli").iterdir()) == sorted(Path(p).name for p in frame["png"])


def both_bound(tmp, ds):
    printed = _ok("bound", "-n", 2, "--beam", 4, "--seed", 3, "--sheet", "red", "-j", 1)
    frame = es.bound(games=2, beam=4, seed=3, sheet="red", threads=1)
    assert printed.splitlines()[:-1] == frame.attrs["text"].splitlines()[:-1]   # the last line: its time


def both_moves(tmp, ds):
    printed = _ok("moves", "--colour", "red", "--number", 6, "--crossed", "H1,H2", "--rules", "joker-six")
    frame = es.moves(colour="red", number=6, crossed=["H1", "H2"], rules="joker-six")
    assert printed == frame.attrs["text"] + "\n" and len(frame) == int(printed.split("\n\n")[-1].split()[0])


def both_strategies(tmp, ds):
    printed = _ok("strategies")
    assert [line.split()[0] for line in printed.splitlines() if not line.startswith(" ")] == \
        list(es.strategies()["strategy"])


def both_weights(tmp, ds):
    got = json.loads(_ok("weights", "-f", "json"))
    frame = es.weights()
    assert got["store"] == frame.attrs["store"]
    _rows_equal(got["rows"], frame, frame.columns)


BOTH = {name: globals()["both_" + name.replace("-", "_")] for name in commands.COMMANDS}


@pytest.mark.parametrize("name", sorted(BOTH))
def test_each_command_gives_the_same_results_both_ways(name, table, tmp_path):
    """Each command's documented options on the command line and as the notebook function's keywords:
    the same games, numbers and files."""
    BOTH[name](tmp_path, table)


#: (the command line, the same call in Python) of an error each command refuses.
ERRORS = [
    (["run", "--resume", "--force", "--out", "X"], lambda ds: es.run("X", resume=True, force=True)),
    (["summary", "{ds}", "--rules", "joker-six"], lambda ds: es.summary(ds, rules="joker-six")),
    (["compare", "greedy", "random", "--max-games", "300"], lambda ds: es.compare("greedy", "random", max_games=300)),
    (["compare-rules", "rulebook", "joker-six", "-p", "9"], lambda ds: es.compare_rules("rulebook", "joker-six",
                                                                                        players=9)),
    (["tune", "heuristic", "--param", "solo_joker=0..3", "--objective", "win"],
     lambda ds: es.tune("heuristic", param=["solo_joker=0..3"], objective="win")),
    (["tune", "heuristic", "--param", "solo_joker=0..3", "--validation-seed", "0"],
     lambda ds: es.tune("heuristic", param=["solo_joker=0..3"], validation_seed=0)),
    (["train", "--players", "9"], lambda ds: es.train(players=9)),
    (["replay", "{ds}", "--game", "1", "--seed", "3"], lambda ds: es.replay(ds, game=1, seed=3)),
    (["replay", "--game", "1"], lambda ds: es.replay(game=1)),
    (["analyse", "{ds}", "--roll", "3"], lambda ds: es.analyse(ds, roll=3)),
    (["analyse", "{ds}", "--rollouts", "4"], lambda ds: es.analyse(ds, rollouts=4)),
    (["report", "{ds}", "-f", "png"], lambda ds: es.report(ds, format="png")),
    (["bound", "-n", "0"], lambda ds: es.bound(games=0)),
    (["moves", "--colour", "red", "--number", "9"], lambda ds: es.moves(colour="red", number=9)),
]


def _in_keywords(line: str) -> str:
    """A command line's error in Python's words: --max-rolls is max_rolls, PATH is path."""
    line = re.sub(r"--([a-z][a-z0-9-]*)", lambda m: m[1].replace("-", "_"), line)
    return re.sub(r"\b(PATH|DATASET|SPEC)\b", lambda m: m[1].lower(), line)


@pytest.mark.parametrize("args, call", ERRORS, ids=lambda x: " ".join(x[:2]) if isinstance(x, list) else "")
def test_each_command_refuses_the_same_input_both_ways_each_in_its_words(args, call, table):
    r = invoke(*[a.format(ds=table) for a in args])
    assert r.exit_code == 2 and r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1, r.output
    line = r.stderr.removeprefix("Error: ").rstrip("\n")
    with pytest.raises(ValueError) as e:
        call(table)
    words = str(e.value)
    assert "--" in line and "--" not in words, (line, words)           # flags there, keywords here
    assert _in_keywords(line) == words.replace("=True", ""), (line, words)
