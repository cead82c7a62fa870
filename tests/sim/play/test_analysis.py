"""The analysis of a person's game (sim.play.analysis): where their play places them on the levels'
scale. A game that takes learned's choice every roll is rated the top level, a game of random
legal choices the bottom one; the analysis and `analyse -f json` say so, and a practice game says it is one."""
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from sim.play.analysis import game_analysis
from sim.play.game import Game
from strategies.levels import LEVELS, LEVEL_LOSS, level_of_loss, rating

ROOT = Path(__file__).resolve().parents[3]


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
