"""encore_sim, the commands for notebooks: each function takes its command's options under their
names and returns what the layer below computes, as a DataFrame."""
import inspect
import json

import numpy as np
import pandas as pd
import pytest

import encore_sim as es
from cli import main
from sim.experiments.compare import compare
from sim.runs.summary import summarise
from sim.research.analyse import analyse
from sim.research.decisions import decisions
from invoking import invoke

#: Keywords a function takes that its command has no option for: in Python a progress bar is asked
#: for (the command shows one unless --quiet).
PYTHON_ONLY = {"progress"}


@pytest.fixture(scope="module")
def ds(tmp_path_factory):
    out = tmp_path_factory.mktemp("nb") / "ds"
    df = es.run(out, strategy=["heuristic", "greedy"], games=30, seed=4)
    assert df.attrs["dataset"] == str(out)
    return out


#: Functions of the notebook module that are no command: decoders of what the frames hold.
HELPERS = {"available_dice"}
#: Functions that make objects a command has no counterpart of: the learning environments.
ENVIRONMENTS = {"env", "vector_env", "aec_env"}


@pytest.mark.parametrize("name", sorted(set(es.__all__) - HELPERS - ENVIRONMENTS))
def test_every_keyword_is_an_option_of_its_command(name):
    # compare_rules is compare-rules; game is play's game, without the page
    command = main.commands["play" if name == "game" else name.replace("_", "-")]
    options = {p.name for p in command.params if not p.opts[0].startswith("--")}     # arguments
    options |= {p.opts[0][2:].replace("-", "_") for p in command.params if p.opts[0].startswith("--")}
    keywords = {k for k, p in inspect.signature(getattr(es, name)).parameters.items()
                if p.kind is not p.VAR_POSITIONAL}
    assert keywords - PYTHON_ONLY <= options | {"dataset", "path"}, keywords - options


def test_run_and_summary_are_the_summary_of_the_dataset(ds):
    s = summarise(ds, by_seat=False)
    got = es.summary(ds)
    pd.testing.assert_frame_equal(got, s.stats)
    assert got.attrs["games"] == 30 and sorted(got["strategy"]) == ["greedy", "heuristic"]
    pd.testing.assert_frame_equal(es.summary(ds, by="seat"), summarise(ds, by_seat=True).stats)
    with pytest.raises(ValueError, match="by must be 'strategy' or 'seat'"):
        es.summary(ds, by="game")


def test_compare_is_compare_s_table_and_takes_a_mixed_table(ds):
    got = es.compare("heuristic", "greedy", players=3, opponents=["random", "greedy"], games=40, seed=2)
    want = compare(["heuristic", "greedy"], players=3, opponents=["random", "greedy"], games=40, seed=2)
    pd.testing.assert_frame_equal(got, want.table)
    assert got.attrs["games"] == 40 and "against random, greedy" in got.attrs["headline"]


def test_analyse_its_rows_parts_and_mistakes_and_the_decision_view(ds):
    a = analyse(ds, threads=1)
    got = es.analyse(ds, threads=1)
    assert list(got["strategy"]) == [r["strategy"] for r in a.rows]
    assert np.allclose(got["loss_per_game"], [r["loss_per_game"] for r in a.rows])
    stages = got.attrs["by_stage"]
    for r in a.rows:
        seat = stages["seat"].isna() if r["seat"] is None else stages["seat"] == r["seat"]   # None: every seat
        mine = stages[(stages["strategy"] == r["strategy"]) & seat]
        assert dict(zip(mine["stage"], mine["loss_per_game"])) == {k: v["loss_per_game"] for k, v in r["by_stage"].items()}
    m = got.attrs["mistakes"]
    assert list(m["loss"]) == [x["loss"] for x in a.mistakes] and len(m) == 10
    view = es.analyse(ds, game=int(m["game"][0]), roll=int(m["roll"][0]), seat=int(m["seat"][0]))
    (d,) = decisions(ds, int(m["game"][0]), roll=int(m["roll"][0]), seat=int(m["seat"][0])).decisions
    assert list(view["value"]) == [o["value"] for o in d["options"]]
    assert view["loss"].eq(d["loss"]).all() and d["loss"] == pytest.approx(m["loss"][0])
    assert view["played"].sum() == 1 and view["learned"].sum() == 1
    with pytest.raises(ValueError, match="roll and seat pick decisions of the game"):
        es.analyse(ds, roll=3)


def test_replay_is_the_game_the_command_replays(ds):
    r = es.replay(ds, game=5)
    out = invoke("replay", str(ds), "--game", "5", "--json").output
    log = json.loads(out)
    assert r.attrs["log"] == log and r.attrs["stored_scores_equal"]
    assert len(r) == sum(len(x["moves"]) for x in log["rolls"])
    assert list(r.attrs["result"]["score"]) == [x["score"] for x in log["result"]]
    assert set(r["strategy"]) == {"heuristic", "greedy"}
    again = es.replay(game=5, strategy=["heuristic", "greedy"], seed=4)
    assert again.attrs["log"] == log


def test_report_writes_the_html_and_lists_its_figures(ds, tmp_path):
    r = es.report(ds, out=tmp_path / "r.html", figures=tmp_path / "png")
    assert r.attrs["html"] == str(tmp_path / "r.html") and (tmp_path / "r.html").is_file()
    assert len(r) >= 4 and all((tmp_path / "png").joinpath(p).is_file() for p in r["png"])
