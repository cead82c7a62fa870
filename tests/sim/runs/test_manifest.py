"""What a dataset's manifest says of its games (sim.runs.manifest): its sheet, its rules, its
strategies' files, and the arguments that resume it, each refused in one line when unusable."""
import hashlib
import json

import pytest

from sim.errors import SettingError
from sim.rules import RULEBOOK, parse_rules
from sim.runs.dataset import DatasetError
from sim.runs.manifest import (
    check_files, dataset_rules, manifest_files, manifest_rules, manifest_sheet, stored_run_args,
)
from sim.runs.runner import run
from sim.sheets import load_sheet


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("manifest") / "ds"
    run(out, games=30, players=2, strategies=["greedy", "random"], rotate=True, seed=4, chunk_size=20,
        rules="joker-six")
    return out


def test_a_run_is_resumed_with_the_arguments_it_was_started_with(dataset):
    args = stored_run_args(dataset)
    assert {k: args[k] for k in ("games", "players", "strategies", "rotate", "seed", "chunk_size", "rules")} == {
        "games": 30, "players": 2, "strategies": ["greedy", "random"], "rotate": True, "seed": 4, "chunk_size": 20,
        "rules": parse_rules("joker-six").text}
    assert args["sheet"] == load_sheet("standard") != load_sheet("blue")


def test_a_dataset_is_read_under_its_own_rules(dataset):
    manifest = json.loads((dataset / "manifest.json").read_text())
    rules = parse_rules("joker-six")
    assert manifest_rules(manifest) == dataset_rules(manifest) == dataset_rules(manifest, "joker-six") == rules
    with pytest.raises(SettingError) as e:
        dataset_rules(manifest, "")
    assert e.value.text.startswith("{rules} rulebook contradicts the dataset, played under the rules joker-six")
    assert manifest_rules({"settings": {}}) == RULEBOOK           # a dataset from before rule variants
    with pytest.raises(DatasetError, match="^the manifest's rules are unusable"):
        manifest_rules({"settings": {"rules": "no-such-rule"}})


def test_the_manifest_s_sheet_is_its_own_text(dataset):
    manifest = json.loads((dataset / "manifest.json").read_text())
    assert manifest_sheet(manifest) == load_sheet("standard")
    for broken in ({}, {"sheet": {"name": "x"}}, {"sheet": {"name": "x", "text": "gggg"}}):
        with pytest.raises(DatasetError, match="^the manifest's sheet is unusable"):
            manifest_sheet(broken)


def test_a_strategy_file_gone_or_changed_is_refused(tmp_path):
    mine = tmp_path / "mine.py"
    mine.write_text("x = 1\n")
    info = {"spec": "mine.py:pick", "file": str(mine), "sha256": hashlib.sha256(mine.read_bytes()).hexdigest()}
    manifest = {"strategies": [info, {"spec": "greedy"}, "not a dict"]}
    assert manifest_files(manifest) == {"mine.py:pick": str(mine)}
    check_files(manifest)
    mine.write_text("x = 2\n")
    with pytest.raises(ValueError, match=r"has changed since the run, so its games cannot be replayed"):
        check_files(manifest)
    mine.unlink()
    with pytest.raises(ValueError, match=r"^the file of strategy 'mine.py:pick' \(.*mine.py\) is gone$"):
        check_files(manifest)
