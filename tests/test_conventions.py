"""What a new user meets first: the compiling notice, one convention for the commands' defaults,
replay reproducing run's games, summary saying what it counts, play_chunk's named columns."""
import json
import os
from pathlib import Path

import click
import numba
import pandas as pd
import pytest
from numba.core import event

import cli
from cli import main
from sim.runs.api import play_chunk
from sim.nbinternals import USER_MODULE_PREFIX
from sim.runs.dataset import read_manifest
from invoking import invoke
from terminal import Terminal

ROOT = Path(__file__).resolve().parents[1]


def first_line_on_a_terminal(args, env, timeout=120.0) -> str:
    """The first line `encore-sim ARGS` writes to a terminal (stdout and stderr on a pty); the
    process is then stopped: what it goes on to compile is not waited for."""
    with Terminal(args, env=env, every_stream=True) as t:
        t.read_until(lambda seen: b"\n" in seen, timeout)
    return t.text.splitlines()[0] if t.seen else ""


def test_a_cold_cache_is_announced_on_a_terminal(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "empty-cache"))
    line = first_line_on_a_terminal(["run", "-n", "100", "--out", str(tmp_path / "out")], env)
    assert line == cli.COLD_NOTICE


def test_the_notice_names_a_strategy_compiled_beside_a_warm_cache(tmp_path, monkeypatch, capsys):
    """The project's kernels are announced once, a user's strategy once per name (its twin and
    its watch compile together), and nothing in a pipe."""
    (tmp_path / "sim_x").mkdir()
    (tmp_path / "sim_x" / "engine.play.nbi").write_bytes(b"")
    monkeypatch.setattr("sim.numba_cache.cache_folder", lambda file: str(tmp_path / "sim_x"))
    assert cli._announce_compiling(False) is None

    def kernel(module):
        def f(x):
            return x + 1
        f.__module__ = module
        return numba.njit(f)

    listener = cli._announce_compiling(True)
    try:
        kernel(USER_MODULE_PREFIX + "mine_0123")(1)
        kernel(USER_MODULE_PREFIX + "mine_0123")(1)
        assert capsys.readouterr().err == cli.USER_NOTICE.format(name=f"{Path(__file__).name}:f") + "\n"
        kernel("strategies.fancy")(1)
        kernel("strategies.other")(1)
    finally:
        event.unregister("numba:compile", listener)
    assert capsys.readouterr().err == cli.WARM_NOTICE.format(name="the fancy strategy") + "\n"


@pytest.fixture(scope="module")
def table3(tmp_path_factory):
    out = tmp_path_factory.mktemp("table3") / "ds"
    r = invoke("run", "-n", 12, "--seed", 7, "-s", "greedy", "-s", "random", "-s", "heuristic", "-o", out, "-q")
    assert r.exit_code == 0, r.output
    return out


def test_replay_with_run_options_replays_runs_game(table3):
    """`replay --seed S --game N -s A -s B -s C` is game N of `run --seed S -s A -s B -s C`,
    whose seats rotate by default."""
    players = pd.read_parquet(table3 / "players")
    seats_moved = False
    for game in (4, 5):
        args = ["replay", "--seed", 7, "--game", game, "-s", "greedy", "-s", "random", "-s", "heuristic", "--json"]
        log = json.loads(invoke(*args).stdout)
        stored = players[players["game"] == game].sort_values("seat")
        assert log["strategies"] == stored["strategy"].to_list()
        assert [r["score"] for r in log["result"]] == stored["score"].to_list()
        fixed = json.loads(invoke(*args, "--no-rotate").stdout)
        seats_moved |= fixed["strategies"] != log["strategies"]
    assert seats_moved
    r = invoke("replay", table3, "--game", 4, "--no-rotate")
    assert r.exit_code == 2 and "--rotate cannot be combined with PATH" in r.stderr


def test_run_defaults_seed_0_and_one_seat_per_strategy(tmp_path):
    r = invoke("run", "-n", 50, "-s", "random", "-o", tmp_path / "a")
    assert r.exit_code == 0, r.output
    settings = read_manifest(tmp_path / "a")["settings"]
    assert settings["seed"] == 0 and settings["players"] == 1
    assert r.stdout.startswith("50 games of seed 0, solo,") and "--by seat" not in r.stdout
    r = invoke("run", "-n", 50, "--seed", "random", "-o", tmp_path / "b", "-q")
    seed = read_manifest(tmp_path / "b")["settings"]["seed"]
    assert r.exit_code == 0 and invoke("summary", tmp_path / "b").stdout.startswith(f"50 games of seed {seed},")
    r = invoke("run", "-n", 50, "--seed", "seven", "-o", tmp_path / "c")
    assert r.exit_code == 2 and "'seven' is not an integer or 'random'" in r.stderr


def test_summary_of_a_one_strategy_table_says_what_it_counts(tmp_path):
    out = tmp_path / "t"
    r = invoke("run", "-n", 200, "-p", 4, "-s", "greedy", "--seed", 3, "-o", out)
    assert r.exit_code == 0, r.output
    printed = invoke("summary", out).stdout
    assert printed == r.stdout[:len(printed)]   # run's summary: a row per seat, 200 games each
    lines = printed.splitlines()
    assert lines[2].split()[:3] == ["strategy", "seat", "games"] and [line.split()[1:3] for line in lines[3:7]] == \
        [[str(s), "200"] for s in range(4)]
    pooled = invoke("summary", out, "--by", "strategy").stdout
    header, row = pooled.splitlines()[2:4]
    cells = dict(zip(["strategy", "games", "seats/game"], row.split()))
    assert "seats/game" in header and cells == {"strategy": "greedy", "games": "200", "seats/game": "4"}
    assert " - " in row and "held every seat" in pooled   # no win rate of its own
    csv = pd.read_csv(pd.io.common.StringIO(invoke("summary", out, "--by", "strategy", "-f", "csv").stdout))
    assert csv.loc[0, "games"] == 200 and csv.loc[0, "seat_games"] == 800


def test_o_is_out_in_every_command_and_writes_atomically(tmp_path, table3):
    for command in main.commands.values():
        for p in command.params:
            if isinstance(p, click.Option) and "-o" in p.opts:
                assert "--out" in p.opts, command.name
    assert invoke("summary", table3, "-f", "csv", "-o", tmp_path / "s.csv").exit_code == 0
    assert pd.read_csv(tmp_path / "s.csv")["strategy"].to_list() == ["greedy", "heuristic", "random"]
    assert invoke("summary", table3, "--output", tmp_path / "old.csv", "-f", "csv").exit_code == 0  # the old name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.csv", "s.csv"]   # no temporary file left


def test_every_option_is_explained():
    missing = [f"{name} {p.opts[0]}" for name, command in main.commands.items() for p in command.params
               if isinstance(p, click.Option) and not p.hidden and not (p.help or "").strip()]
    assert missing == []


def test_replay_score_table_aligns_long_names():
    from sim.runs.replay import score_table
    result = [{"seat": s, "score": sc, "column_points": 10, "colour_points": 5, "jokers_left": 1, "star_penalty": 6,
               "boxes": 80, "winner": s == 0} for s, sc in enumerate((30, -4))]
    lines = score_table(result, ["heuristic:solo_joker=1.848,solo_colour=1.436,solo_star=0.25", "greedy"])
    for title, values in (("score", ["30", "-4"]), ("star penalty", ["6", "6"]), ("boxes", ["80", "80"])):
        end = lines[0].index(title) + len(title)   # right-aligned under its title
        assert [line[:end].split()[-1] for line in lines[1:]] == values


def test_play_chunk_results_have_the_datasets_columns(tmp_path):
    out = tmp_path / "ds"
    assert invoke("run", "-n", 30, "-p", 2, "-s", "greedy", "-s", "random", "--seed", 5, "--log-turns",
                  "-o", out, "-q").exit_code == 0
    chunk = play_chunk(5, 0, 30, ["greedy", "random"], rotate=True, log_turns=True)
    for table in ("games", "players", "turns"):
        pd.testing.assert_frame_equal(chunk.to_pandas(table), pd.read_parquet(out / table), check_like=False)
    with pytest.raises(ValueError, match="without log_turns"):
        play_chunk(5, 0, 3, ["greedy"]).to_arrow("turns")
