"""The weights store (strategies.store) and training on demand (sim.training.ondemand):
train writes to the store by default, learned finds weights there after the shipped ones, a
damaged stored file is named and never passed over, and --train (train=True) trains what a
command lacks, stores it and goes on."""
import json
import os

import numpy as np
import pandas as pd
import pytest

import encore_sim as es
from sim.sheets import load_sheet
from strategies import learned as L
from strategies import store
from sim.training import ondemand
from invoking import invoke

SOLO_VARIANT = "star-penalty=3"     # changes the solo game's points: no weights ship for it


@pytest.fixture
def empty_store(tmp_path, monkeypatch):
    folder = tmp_path / "store"
    monkeypatch.setenv(store.ENV, str(folder))
    return folder


@pytest.fixture
def quick_warm_start(monkeypatch):
    """Training on demand with a few hundred games instead of its measured budget."""
    monkeypatch.setattr(ondemand, "WARM_GAMES", {p: 512 for p in range(1, 7)})


def test_the_store_folder_follows_the_environment_and_the_option(tmp_path, monkeypatch):
    monkeypatch.setenv(store.ENV, str(tmp_path / "mine"))
    assert store.folder() == tmp_path / "mine"
    monkeypatch.delenv(store.ENV)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert store.folder() == tmp_path / "xdg" / "encore-sim" / "weights"     # the platform's user data folder
    r = invoke("--weights-store", tmp_path / "given", "weights", "-f", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["store"] == str(tmp_path / "given")


def test_train_writes_to_the_store_and_learned_plays_them_without_weights(empty_store):
    r = invoke("train", "--rules", SOLO_VARIANT, "-n", 600, "-j", 1, "-q")
    assert r.exit_code == 0, r.output
    stored = empty_store / "learned-standard-star-penalty-3.npz"
    assert sorted(p.name for p in empty_store.iterdir()) == [stored.name]
    # learned under the variant now plays those weights: the same games as naming the file
    by_store = es.run(empty_store.parent / "a", strategy="learned", games=40, rules=SOLO_VARIANT)
    by_file = es.run(empty_store.parent / "b", strategy=f"learned:weights={stored}", games=40, rules=SOLO_VARIANT)
    assert by_store["mean"].iloc[0] == by_file["mean"].iloc[0]
    a = pd.read_parquet(empty_store.parent / "a" / "players")["score"]
    b = pd.read_parquet(empty_store.parent / "b" / "players")["score"]
    assert a.tolist() == b.tolist()
    # what the store lists
    r = invoke("weights", "-f", "json")
    rows = json.loads(r.output)["rows"]
    mine = [x for x in rows if x["source"] == "yours"]
    assert len(mine) == 1 and mine[0]["rules"] == SOLO_VARIANT and mine[0]["players"] == 1
    assert mine[0]["games"] == 600 and mine[0]["sheet"] == "standard" and mine[0]["trained"][:2] == "20"
    shipped = {(x["sheet"], x["players"], x["rules"]) for x in rows if x["source"] == "shipped"}
    assert ("standard", 4, "pass-penalty=1") in shipped and ("blue", 1, "rulebook") in shipped
    table = invoke("weights").output
    assert "yours" in table and stored.name in table and str(empty_store) in table


def test_the_shipped_weights_come_before_the_store(empty_store):
    """A stored file of the name of a shipped one is not played: the shipped file is."""
    empty_store.mkdir()
    (empty_store / "learned-standard.npz").write_bytes(b"not weights")
    sheet = load_sheet("standard")
    assert L.weights_file(sheet, 1)[1] == "shipped"
    L.weights_array(sheet)      # reads the shipped file, not the damaged one


def test_a_damaged_stored_file_is_named_and_not_passed_over(empty_store):
    empty_store.mkdir()
    bad = empty_store / "learned-standard-star-penalty-3.npz"
    bad.write_bytes(b"PK damaged")
    r = invoke("run", "-s", "learned", "--rules", SOLO_VARIANT, "-n", 10, "-o", empty_store.parent / "ds", "-q")
    assert r.exit_code == 2
    assert r.output.count("\n") == 1 and bad.name in r.output and "damaged" in r.output, r.output
    assert not (empty_store.parent / "ds").exists()
    # --train does not replace it either: the file is the problem, not missing weights
    r = invoke("run", "-s", "learned", "--rules", SOLO_VARIANT, "-n", 10, "-o", empty_store.parent / "ds", "-q",
               "--train")
    assert r.exit_code == 2 and bad.name in r.output and bad.read_bytes() == b"PK damaged"
    # a stored file for other rules under this one's name is named too
    L.save_weights(bad, np.zeros(L.weights_shape(1)), load_sheet("standard"), 1, 7, rules="star-penalty=4")
    r = invoke("run", "-s", "learned", "--rules", SOLO_VARIANT, "-n", 10, "-o", empty_store.parent / "ds", "-q")
    assert r.exit_code == 2 and bad.name in r.output and "star-penalty=4" in r.output, r.output


def test_an_unwritable_store_gets_one_line(tmp_path, monkeypatch):
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv(store.ENV, str(tmp_path / "a-file" / "store"))    # cannot be made, even by root
    r = invoke("train", "--rules", SOLO_VARIANT, "-n", 600, "-j", 1, "-q")
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert "cannot write the weights store" in r.output and "a-file" in r.output


def test_missing_weights_say_how_to_train_them_in_the_callers_words(empty_store, tmp_path):
    r = invoke("run", "-s", "learned", "--rules", SOLO_VARIANT, "-n", 10, "-o", tmp_path / "ds", "-q")
    assert r.exit_code == 2 and r.output.count("\n") == 1
    assert "add --train" in r.output and f"encore-sim train --rules {SOLO_VARIANT}`" in r.output, r.output
    with pytest.raises(ValueError, match=r"add train=True to train them now") as e:
        es.compare("learned", "greedy", rules=SOLO_VARIANT, games=10)
    assert "--train" not in str(e.value)
    # a sheet file is named by its path, not by a placeholder
    from sheetgen import random_sheet
    sheet = tmp_path / "mine.txt"
    sheet.write_text(random_sheet(3).text + "\n")
    text = L.MissingWeights(load_sheet(sheet), 4, L.RULEBOOK).message()
    assert f"--sheet {sheet}" in text and "SHEET" not in text, text


def test_train_trains_what_a_command_lacks_once(empty_store, tmp_path, quick_warm_start):
    r = invoke("run", "-s", "learned", "--rules", SOLO_VARIANT, "-n", 30, "-o", tmp_path / "a", "--train")
    assert r.exit_code == 0, r.output
    assert "Training `learned` for the solo game on sheet 'standard' under the rules star-penalty=3" in r.output
    assert "from the shipped rulebook weights learned-standard.npz, about " in r.output   # with its time
    assert "512/512 training games (100%)" in r.output   # progress as lines where stderr is no terminal
    stored = empty_store / "learned-standard-star-penalty-3.npz"
    with np.load(stored) as f:
        assert str(f["init_name"]) == "learned-standard.npz" and int(f["games"]) == 512
        assert str(f["rules"]) == SOLO_VARIANT
    # who played, under the variant
    assert f"learned: weights for {SOLO_VARIANT}, the solo game" in r.output and str(stored) in r.output
    again = invoke("run", "-s", "learned", "--rules", SOLO_VARIANT, "-n", 30, "-o", tmp_path / "b", "--train")
    assert again.exit_code == 0 and "Training" not in again.output
    a = pd.read_parquet(tmp_path / "a" / "players")["score"].tolist()
    assert a == pd.read_parquet(tmp_path / "b" / "players")["score"].tolist()
    # the notebook module's keyword does the same
    df = es.compare("learned", "greedy", rules="star-penalty=4", games=20, train=True)
    assert (empty_store / "learned-standard-star-penalty-4.npz").is_file() and len(df) == 2


def test_analyse_trains_its_judge(empty_store, tmp_path, quick_warm_start):
    """The judge is learned: a dataset of greedy under a variant needs learned's weights for it."""
    r = invoke("run", "-s", "greedy", "--rules", SOLO_VARIANT, "-n", 20, "-o", tmp_path / "ds", "-q")
    assert r.exit_code == 0, r.output
    r = invoke("analyse", tmp_path / "ds", "-q")
    assert r.exit_code == 2 and "add --train" in r.output, r.output
    r = invoke("analyse", tmp_path / "ds", "-q", "--train")
    assert r.exit_code == 0 and "greedy" in r.output, r.output
    assert (empty_store / "learned-standard-star-penalty-3.npz").is_file()


def test_a_warm_start_begins_at_the_rulebooks_weights(empty_store):
    """plan(): the rulebook's shipped weights of the same sheet and table, the measured budget;
    without weights to start from (a sheet of the user's), train's full defaults."""
    from sheetgen import random_sheet
    need = ondemand.Need(load_sheet("standard"), 4, L.weights_rules("joker-six", 4))
    init, games, step, how = ondemand.plan(need)[:4]
    assert init.name == "learned-standard-4p.npz" and games == ondemand.WARM_GAMES[4] and step == ondemand.WARM_STEP[2]
    assert f"{games:,} games from the shipped rulebook weights learned-standard-4p.npz" == how
    blue = ondemand.plan(ondemand.Need(load_sheet("blue"), 1, L.weights_rules("jokers=6", 1)))
    assert blue[0].name == "learned-blue.npz" and blue[1] == ondemand.WARM_GAMES[1] and blue[2] == ondemand.WARM_STEP[1]
    assert ondemand.plan(ondemand.Need(random_sheet(3), 1, L.weights_rules("jokers=6", 1)))[:3] == (None, None, None)


def test_an_interrupted_training_on_demand_stores_nothing(empty_store, tmp_path, monkeypatch, quick_warm_start):
    from sim.training import run as training_run

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(training_run, "train", interrupted)
    monkeypatch.setattr(ondemand, "train_file", lambda *a, **k: training_run.train_file(*a, **k))
    with pytest.raises(KeyboardInterrupt):
        ondemand.train_need(ondemand.Need(load_sheet("standard"), 1, L.weights_rules(SOLO_VARIANT, 1)))
    assert not [p for p in empty_store.iterdir() if not p.name.startswith(".write-check")]
    assert os.listdir(empty_store) == []
