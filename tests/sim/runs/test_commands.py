"""sim.runs.commands: one layer under both front ends. The command line and the notebook module
give the same results and the same errors for the same inputs, each in its own words; every
default is defined once."""
import ast
import inspect
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import cli
import encore_sim as es
from sim.errors import SettingError, flag_name
from sim.runs import commands, defaults
from sim.runs.dataset import read_manifest
from sim.runs.runner import run as runner_run

ROOT = Path(__file__).resolve().parents[3]


def invoke(*args):
    return CliRunner().invoke(cli.main, [str(a) for a in args])


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


def test_the_front_ends_take_the_commands_defaults():
    layer = inspect.signature(commands.run).parameters
    notebook = inspect.signature(es.run).parameters
    assert set(notebook) == set(layer) - {"command", "say"}
    for name, p in notebook.items():
        assert p.default is layer[name].default, name      # the layer's own object: not written again
    options = {p.name: p for p in cli.run.params}
    for name in ("games", "players", "rotate", "sheet", "seed", "max_rolls", "chunk_size"):
        assert options[name].default == commands.default(commands.run, name), name
    assert f"[default: {defaults.RUN_STRATEGY}]" in options["strategy"].help


def _literal_defaults(path: Path):
    """(function, parameter, value) of each int or str literal default of a def in `path`."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.args + node.args.kwonlyargs
            values = [None] * (len(node.args.args) - len(node.args.defaults)) + node.args.defaults + \
                node.args.kw_defaults
            for a, v in zip(args, values):
                if isinstance(v, ast.Constant) and not isinstance(v.value, bool) and isinstance(v.value, (int, str)):
                    yield node.name, a.arg, v.value


#: Settings whose defaults sim.runs.defaults owns, by the name of the parameter or option.
OWNED = {"games": {defaults.RUN_GAMES, defaults.COMPARE_GAMES}, "max_games": {defaults.COMPARE_MAX_GAMES},
         "seed": {defaults.SEED}, "sheet": {defaults.SHEET}, "max_rolls": {defaults.MAX_ROLLS},
         "strategy": {defaults.RUN_STRATEGY}, "strategies": {defaults.RUN_STRATEGY}}


def test_no_default_of_the_commands_is_written_a_second_time():
    """A default sim.runs.defaults owns is written as a literal nowhere else: not as a parameter's
    default in the source, nor as a click option's."""
    found = []
    for path in [ROOT / "cli.py", ROOT / "encore_sim.py", *(ROOT / "sim").rglob("*.py"),
                 *(ROOT / "strategies").rglob("*.py")]:
        if path.name == "defaults.py":
            continue
        found += [f"{path.name}: {f}({a}={v!r})" for f, a, v in _literal_defaults(path) if v in OWNED.get(a, ())]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("option") and node.args:
                name = str(getattr(node.args[0], "value", "")).lstrip("-").replace("-", "_")
                for kw in node.keywords:
                    if kw.arg == "default" and isinstance(kw.value, ast.Constant) and \
                            kw.value.value in OWNED.get(name, ()):
                        found.append(f"{path.name}: option --{name} default={kw.value.value!r}")
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
