"""Your game analysed (sim.play.analysis): the rulebook's rating of a solo score, and a folder that
holds no finished game of `play` refused in one line."""
import json

import pytest

from sim.play.analysis import game_analysis, solo_band
from sim.runs.runner import run


@pytest.mark.parametrize("score, band", [
    (55, ("> 40", "4")), (41, ("> 40", "4")), (40, ("37-40", "3.5")), (17, ("17-20", "2")), (1, ("1-4", "0.5")),
    (0, ("0", "0")), (-22, ("< 0", "-")),
])
def test_a_solo_score_s_band(score, band):
    b = solo_band(score)
    assert (b["scores"], b["stars"]) == band and b["rating"]


def test_every_score_has_one_band():
    labels = [solo_band(s)["scores"] for s in range(-40, 80)]
    # bands are runs of scores, never coming back: each label appears in one stretch
    stretches = [labels[0]] + [b for a, b in zip(labels, labels[1:]) if a != b]
    assert len(stretches) == len(set(stretches))


def test_a_folder_without_a_finished_game_of_play_is_refused(tmp_path):
    run(tmp_path / "run", games=3, players=1, strategies=["greedy"])
    with pytest.raises(ValueError, match="holds no game of play"):
        game_analysis(tmp_path / "run")
    manifest = tmp_path / "run" / "manifest.json"
    m = json.loads(manifest.read_text())
    m["play"] = {"game": 7, "seat": 0, "label": "you"}        # its game's chunk is not there
    manifest.write_text(json.dumps(m))
    with pytest.raises(ValueError, match="the game is not over"):
        game_analysis(tmp_path / "run")
