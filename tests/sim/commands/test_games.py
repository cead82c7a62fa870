"""The commands that play games and show the game's pieces (sim.commands.games): where a run
goes, what a resumed run and a replay take from a dataset, and the legal placements listed."""
import datetime as dt
import re
from pathlib import Path

import pytest

from sim.commands.base import Default
from sim.commands.games import compare_rules, moves, replay, run, run_folder, strategies
from sim.errors import SettingError
from sim.runs.defaults import RUN_FOLDER


def test_a_run_s_folder():
    folder = run_folder()
    assert isinstance(folder, Path) and dt.datetime.strptime(str(folder), RUN_FOLDER)
    assert run_folder("results/x") == Path("results/x")
    assert run_folder("memory://bucket/ds") == "memory://bucket/ds"          # a URL as it is
    with pytest.raises(SettingError) as e:
        run_folder(None, resume=True)
    assert e.value.text == "{resume} needs {out}, the folder of the run to finish"


def test_a_resumed_run_keeps_its_own_settings_where_none_are_given(tmp_path):
    out = tmp_path / "ds"
    first = run(out, games=Default(30), strategy=["greedy", "random"], seed=5, chunk_size=10, rotate=False)
    assert first.manifest["games_done"] == 30
    again = run(out, resume=True, games=30)          # strategies, seed, chunks: the manifest's
    assert again.settings.stored() == first.settings.stored() and again.settings.chunk_size == 10
    with pytest.raises(SettingError) as e:
        run(out, resume=True, seed=6)
    assert e.value.text.endswith("{seed} is 6 here but 5 in its manifest")
    with pytest.raises(SettingError, match="exclude each other"):
        run(out, resume=True, force=True)


def test_a_replay_plays_a_dataset_s_game_with_the_dataset_s_settings_alone(tmp_path):
    out = tmp_path / "ds"
    run(out, games=5, strategy="greedy", players=2, seed=3)
    r = replay(out, game=4)
    assert r.problem is None and [s["score"] for s in r.stored] == [s["score"] for s in r.log["result"]]
    assert replay(game=4, strategy="greedy", players=2, seed=3).log == r.log
    with pytest.raises(SettingError) as e:
        replay(out, game=4, seed=3)
    assert e.value.text.startswith("{seed} cannot be combined with {path}")
    with pytest.raises(SettingError, match="give a dataset"):
        replay(game=0)


def test_moves_lists_the_legal_placements_drawn_on_the_sheet():
    m = moves(colour="yellow", number=2, crossed="H7, H6")
    assert m.crossed == ["H7", "H6"] and m.placements and all(len(p) == 2 for p in m.placements)
    text = m.text()
    assert f"{len(m.placements)} legal placements of yellow 2:" in text
    assert re.search(r"^  7 .*\[y\]", text, re.M)           # H7, a yellow box, drawn crossed
    assert "(a number joker: each costs 1 !)" in moves(colour="green", number=6, rules="joker-six").text()


def test_strategies_are_the_built_ins_by_name():
    found = strategies()
    assert {"greedy", "random", "learned", "heuristic"} <= set(found)
    assert all(s.description for s in found.values())


@pytest.fixture
def no_stored_weights(tmp_path, monkeypatch):
    from strategies import store
    monkeypatch.setenv(store.ENV, str(tmp_path / "store"))


def test_without_train_a_sheet_learned_has_no_weights_for_is_played_by_the_stand_in(tmp_path, no_stored_weights):
    """No error: the stand-in plays learned's seats on both sides, on the same dice as naming it,
    and one line says what --train would add, and how long it would take."""
    from sheetgen import random_sheet
    from sim.runs.defaults import STAND_IN
    mine = tmp_path / "mine.txt"
    mine.write_text(random_sheet(5).text)
    got = compare_rules("rulebook", f"sheet={mine}", strategy=["learned", "greedy"], games=40, threads=1)
    same = compare_rules("rulebook", f"sheet={mine}", strategy=[STAND_IN, "greedy"], games=40, threads=1)
    assert got.table.equals(same.table) and got.measures.equals(same.measures)
    assert [line.split(":")[0] for line in got.played_by["sheet=mine"]] == [STAND_IN, "greedy"]
    notes = [w for w in got.warnings if "--train" in w]
    assert len(notes) == 1 and "\n" not in notes[0]
    assert notes[0].startswith("Note: `learned` has no weights for 2 players on sheet 'mine', so heuristic played")
    assert "from scratch" in notes[0] and "minutes on 1 core" in notes[0]
    assert not [w for w in same.warnings if "--train" in w]


def test_without_train_an_unshipped_rule_set_names_each_training_it_lacks(no_stored_weights):
    got = compare_rules("jokers=9", "jokers=10", strategy="learned", players=2, games=20, threads=1)
    note = [w for w in got.warnings if "--train" in w]
    assert len(note) == 1 and note[0].count("learned-standard-2p.npz") == 2
    assert "under the rules jokers=9; 2 players on sheet 'standard' under the rules jokers=10" in note[0]


def test_the_command_line_prints_the_one_line_and_exits_0(tmp_path, no_stored_weights):
    from invoking import invoke
    from sheetgen import random_sheet
    mine = tmp_path / "mine.txt"
    mine.write_text(random_sheet(5).text)
    r = invoke("compare-rules", "rulebook", f"sheet={mine}", "-s", "learned", "-p", "2", "-n", "20", "-j", "1", "-q")
    assert r.exit_code == 0, r.output
    assert len([line for line in r.output.splitlines() if "--train" in line]) == 1
