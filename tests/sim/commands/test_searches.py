"""The commands that search and train (sim.commands.searches): what train reports it wrote, what
bound and tune hand on, and the weights `learned` can play, listed."""
from pathlib import Path

import pytest

import sim.research.headroom as headroom
import sim.training.run as training
from sim.commands.searches import WEIGHTS_COLUMNS, Trained, Weights, bound, train, tune, weights
from sim.rules import parse_rules
from strategies.store import Entry


def test_train_says_which_weights_it_wrote_and_whether_learned_finds_them(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(training, "train_file", lambda out, **kw: calls.append((out, kw)) or (out or tmp_path / "w.npz"))
    mine = train(sheet="blue", players=3, games=10, out=tmp_path / "mine.npz", rules="jokers=6")
    assert mine == Trained(tmp_path / "mine.npz", "blue", 3, parse_rules("jokers=6"), False)
    assert calls[0][1]["games"] == 10 and calls[0][1]["seed"] == 7      # train's own seed unless told
    assert train().in_store and calls[1][0] is None


def test_bound_and_tune_hand_their_settings_on(monkeypatch):
    calls = []
    monkeypatch.setattr(headroom, "measure", lambda *a, **kw: calls.append((a, kw)) or "measured")
    assert bound(games=12, beam=8, rules="jokers=6") == "measured"
    assert calls == [((12, 1, "standard", 8, None, None), {"progress": False, "rules": "jokers=6"})]
    with pytest.raises(ValueError, match="players"):
        tune("heuristic", param=["w_boxes=0..2"], players=9)


def test_the_weights_listing_marks_a_file_that_cannot_be_read(tmp_path):
    good = Entry("shipped", "standard", 1, "rulebook", 5_000_000, "2026-01-01 00:00", "", Path("a.npz"))
    bad = Entry("yours", "blue", 2, "jokers=6", None, "", "", Path("b.npz"), problem="not a weights file")
    listing = Weights([good], tmp_path)
    assert listing.columns() == WEIGHTS_COLUMNS and "problem" not in listing.rows()[0]
    assert listing.rows()[0]["file"] == "a.npz" and listing.rows()[0]["games"] == 5_000_000
    both = Weights([good, bad], tmp_path)
    assert both.columns() == WEIGHTS_COLUMNS + ["problem"]
    assert [r.get("problem") for r in both.rows()] == [None, "not a weights file"]


def test_the_shipped_weights_are_listed_with_the_store_s_folder(weights_store):
    w = weights()
    assert w.folder == weights_store
    shipped = [e for e in w.entries if e.source == "shipped"]
    assert ("standard", 1, "rulebook") in {(e.sheet, e.players, e.rules) for e in shipped}
    assert all(e.file.is_file() for e in shipped)
