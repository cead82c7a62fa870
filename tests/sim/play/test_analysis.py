"""Your game analysed (sim.play.analysis): the rulebook's rating of a solo score, a folder that
holds no finished game of `play` refused in one line, and where a person's play places them on the
levels' scale: a game that takes learned's choice every roll is rated the top level, a game of
random legal choices the bottom one; the analysis and `analyse -f json` say so."""
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from sim.play.analysis import game_analysis, solo_band
from sim.play.game import Game
from sim.runs.runner import run
from strategies.levels import LEVELS, LEVEL_LOSS, level_of_loss, rating

ROOT = Path(__file__).resolve().parents[3]


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


def played(folder: Path, players: int, seed: int, choose) -> dict:
    g = Game(players=players, opponents="greedy", seed=seed, game=1, folder=folder)
    while not g.over:
        g.play(choose(g))
    return game_analysis(folder)


@pytest.mark.parametrize("players", [1, 3])
def test_learned_s_choices_rate_top_and_random_choices_bottom(tmp_path, players):
    best = played(tmp_path / "best", players, 8, lambda g: g.hint_view()[0]["choice"])
    rng = random.Random(players)
    worst = played(tmp_path / "random", players, 8, lambda g: rng.randrange(-1, g.count()))
    assert best["rating"]["level"] == LEVELS[-1].number and best["rating"]["name"] == "learned", best["rating"]
    assert worst["rating"]["level"] == 1 and worst["rating"]["name"] == LEVELS[0].name, worst["rating"]
    assert worst["rating"]["loss_per_decision"] == pytest.approx(worst["loss_per_decision"])
    assert not best["practice"] and best["names"][0] == "You"
    out = subprocess.run([sys.executable, str(ROOT / "cli.py"), "analyse", str(tmp_path / "random"), "-f", "json"],
                         capture_output=True, text=True, check=True)
    a = json.loads(out.stdout)
    assert {k: a["rating"][k] for k in ("level", "name")} == {"level": 1, "name": LEVELS[0].name}
    assert {r["strategy"] for r in a["rows"]} == {"you"}     # the person's seat, not the bots'
    for command in ("summary", "analyse"):
        out = subprocess.run([sys.executable, str(ROOT / "cli.py"), command, str(tmp_path / "random")],
                             capture_output=True, text=True, check=True).stdout
        assert "1 game: no interval" in out and "nan" not in out and "1 games" not in out, out
        assert "greedy" not in out, out          # the bots' seats are no games of the person's


def test_the_scale_places_each_level_s_own_loss_at_that_level():
    for players, k in ((1, 0), (4, 1)):
        for lv in LEVELS:
            assert level_of_loss(LEVEL_LOSS[lv.number][k], players) == lv
        assert level_of_loss(10.0, players) == LEVELS[0] and level_of_loss(0.0, players) == LEVELS[-1]
    r = rating(LEVEL_LOSS[3][0], 0.5, 1)
    assert r["low"] < 3 < r["high"] and r["level"] == 3 and "club" in r["words"]
    assert rating(LEVEL_LOSS[3][0], float("nan"), 1)["low"] == 3


def test_the_levels_own_bots_are_rated_their_own_level_in_most_of_their_games(tmp_path):
    """Solo games of three levels' bots, each game rated alone by its decisions' mean loss (as a
    person's game is): most of each level's games fall at its own level (docs/levels.md)."""
    import pyarrow.parquet as pq
    from sim.research.analyse import analyse
    for lv in (LEVELS[0], LEVELS[2], LEVELS[4]):
        out = tmp_path / lv.name
        run(out, games=40, players=1, strategies=[lv.spec], seed=9400, log_turns=True)
        analyse(out, threads=1, mistakes=0, decisions_out=tmp_path / f"{lv.name}.parquet")
        rows = pq.read_table(tmp_path / f"{lv.name}.parquet", columns=["game", "loss"]).to_pandas()
        rated = [rating(loss, None, 1)["level"] for loss in rows.groupby("game")["loss"].mean()]
        assert len(rated) == 40 and rated.count(lv.number) > len(rated) / 2, (lv.name, rated)
