"""sim/play/game.py: your game against the bots, through es.game.

Following hint()'s first row every roll is `run -s learned`'s game move for move (solo, and at a
table of learned seats not rotated); a game saved mid-way resumes to the same game; a finished
game's folder is a dataset that summary, replay, analyse and report read, from wherever it is
moved; the coach's losses are analyse's; an illegal choice raises one line and changes nothing."""
import json
import shutil

import numpy as np
import pytest

import encore_sim as es
from sim.runs.api import play_chunk
from sim.play.game import Game, IllegalChoice, resume
from sim.state import PS_SCORE
from invoking import invoke


def same_game(g: Game, chunk) -> bool:
    mine = g.gip.chunk()
    return (np.array_equal(mine.dice, chunk.dice) and np.array_equal(mine.log, chunk.log)
            and np.array_equal(mine.seats, chunk.seats))


def follow_hints(g: Game) -> Game:
    while not g.over:
        h = g.hint()
        assert h.iloc[0]["learned"] and h.index[0] == 1 and not h["learned"].iloc[1:].any()
        g.play(int(h.iloc[0]["choice"]))
    return g


@pytest.mark.parametrize("game", [0, 7])
def test_following_the_hints_solo_is_run_s_learned_game(game):
    g = follow_hints(es.game(players=1, seed=21, game=game))
    chunk = play_chunk(21, game, 1, ["learned"], players=1, log_turns=True)
    assert same_game(g, chunk)
    assert g.scores() == chunk.seats[0, :, PS_SCORE].tolist()
    # Solo, learned's choice is the best by its value: it loses nothing by analyse's measure.
    assert len(g.losses) == 30 and all(w["loss"] == 0.0 for w in g.losses)


def test_following_the_hints_at_a_table_of_learned_is_run_s_game():
    for game in (0, 3):
        g = follow_hints(Game(players=4, opponents="learned", seed=5, game=game))
        chunk = play_chunk(5, game, 1, ["learned"] * 4, players=4, rotate=False, log_turns=True)
        assert same_game(g, chunk)
        assert g.scores() == chunk.seats[0, :, PS_SCORE].tolist()


def test_choices_and_hint_frames():
    g = Game(players=3, seed=2, game=1)
    c = g.choices()
    assert c.index.name == "choice" and c.index[0] == -1 and bool(c.loc[-1, "pass"])
    assert list(c.index[1:]) == list(range(g.count()))
    assert list(c.columns) == ["colour_die", "number_die", "colour", "number", "cells", "jokers", "pass"]
    row = c.loc[0]
    assert len(row["cells"].split()) == row["number"] and row["colour"] in ("green", "yellow", "blue", "red", "orange")
    h = g.hint()
    # Every distinct placement once (at its fewest '!') and passing; values best first after learned's.
    assert h["pass"].sum() == 1 and not h.duplicated(["cells"]).any()
    assert (np.diff(h["value"].to_numpy()[1:]) <= 0).all()
    assert np.allclose(h["loss"], h["value"].max() - h["value"])
    assert set(h["choice"]) <= set(c.index)
    json.dumps(g.view(hint=True))     # the page's data is plain JSON


def test_an_illegal_choice_raises_one_line_and_changes_nothing():
    g = Game(players=2, seed=0, game=0)
    g.play(0)
    before = (g.choices(), g.scores(), g.roll, g.decisions, [a.copy() for a in (g.gip.st, g.gip.ps, g.gip.bb)])
    n = g.count()
    for bad in (n, -2, 1.5, "0", True, None):
        with pytest.raises(ValueError, match="not a legal choice") as e:
            g.play(bad)
        assert "\n" not in str(e.value)
    assert before[0].equals(g.choices()) and before[1:4] == (g.scores(), g.roll, g.decisions)
    assert all(np.array_equal(a, b) for a, b in zip(before[4], (g.gip.st, g.gip.ps, g.gip.bb)))
    with pytest.raises(ValueError, match="opponents for 4 players"):
        Game(players=4, opponents=["greedy", "random"])
    with pytest.raises(ValueError, match="not both"):
        Game(players=2, opponents="greedy", level=1)
    with pytest.raises(ValueError, match="unknown level"):
        Game(players=2, level=9)


def random_game(g: Game, rng, moves=None) -> Game:
    while not g.over and (moves is None or g.decisions < moves):
        g.play(int(rng.integers(-1, g.count())))
    return g


def test_a_resumed_game_continues_as_the_game_it_was(tmp_path):
    folder = tmp_path / "g"
    g = Game(players=3, opponents=["greedy", "tempered:temp=0.5"], seed=8, game=4, folder=folder)
    random_game(g, np.random.default_rng(5), moves=7)
    h = resume(folder)
    assert (h.decisions, h.roll, h.scores(), h.labels) == (g.decisions, g.roll, g.scores(), g.labels)
    assert h.choices().equals(g.choices()) and h.losses == g.losses
    a, b = random_game(g, np.random.default_rng(6)), random_game(h, np.random.default_rng(6))
    assert same_game(a, b.gip.chunk())
    with pytest.raises(ValueError, match="holds no game"):
        resume(tmp_path)
    with pytest.raises(ValueError, match="not empty"):
        Game(players=2, seed=1).save(folder)


def test_a_random_game_saved_is_a_dataset_every_command_reads_wherever_it_goes(tmp_path):
    from sim.play.analysis import game_analysis

    g = random_game(Game(players=4, seed=3, game=2), np.random.default_rng(2))
    assert g.over and len(g.losses) == g.roll
    saved = g.save(tmp_path / "game")
    moved = tmp_path / "moved"
    shutil.move(saved, moved)
    out = invoke("summary", str(moved))
    assert out.exit_code == 0, out.output
    # a person's game: their seat alone is counted, the bots' seats are no games of it
    assert "you" in out.output and "learned" not in out.output and "1 game: no interval" in out.output
    out = invoke("replay", str(moved), "--game", "2")
    assert out.exit_code == 0 and "0=you" in out.output, out.output
    out = invoke("analyse", str(moved))
    assert out.exit_code == 0 and "you, seat 0" in out.output, out.output
    out = invoke("analyse", str(moved), "--game", "2", "--roll", "3")
    assert out.exit_code == 0, out.output
    out = invoke("report", str(moved), "--out", str(tmp_path / "report.html"))
    assert out.exit_code == 0, out.output
    # The coach's loss of every move is analyse's.
    a = game_analysis(moved)
    assert a["scores"][0] == {"seat": 0, "label": "you", "score": g.scores()[0], "winner": a["you_won"]}
    assert [r["roll"] for r in a["rolls"]] == [w["roll"] for w in g.losses]
    assert np.allclose([r["loss"] for r in a["rolls"]], [w["loss"] for w in g.losses])
    assert a["loss_total"] == pytest.approx(sum(w["loss"] for w in g.losses))
    assert a["mistakes"] and a["mistakes"][0]["loss"] == max(r["loss"] for r in a["rolls"])
    assert any(o["played"] for o in a["mistakes"][0]["view"]["options"])
    json.dumps(a)


def test_a_solo_game_analysed_has_its_rating_band_and_luck(tmp_path):
    from sim.play.analysis import game_analysis

    g = random_game(Game(players=1, seed=4, level="club", folder=tmp_path / "solo"), np.random.default_rng(0))
    a = game_analysis(g.folder)
    assert a["band"]["rating"] and a["score"] == g.scores()[0] and a["winners"] == [0]
    assert len(a["rolls"]) == 30 and all(r["luck"] is not None for r in a["rolls"])
    assert a["luck_total"] == pytest.approx(sum(r["luck"] for r in a["rolls"]))


def test_recorded_plays_its_file_and_refuses_another_game_s(tmp_path):
    from sim.runs.api import StrategyError, check_chunk
    from strategies.recorded import MovesError, read_moves

    g = random_game(Game(players=2, opponents="greedy", seed=9, game=1), np.random.default_rng(3))
    folder = g.save(tmp_path / "g")
    moves = str(folder / "moves.json")
    assert read_moves(moves)["player"] == "you" and len(read_moves(moves)["moves"]) == g.roll
    again = play_chunk(9, 1, 1, [f"recorded:moves={moves}", "greedy"], players=2, log_turns=True)
    assert same_game(g, again) and again.labels == ("you", "greedy")
    other = play_chunk(9, 2, 1, [f"recorded:moves={moves}", "greedy"], players=2)    # another game's dice
    with pytest.raises(StrategyError, match="recorded:moves=.*seat 0"):
        check_chunk(other)
    (tmp_path / "bad.json").write_text('{"format": "encore-sim-moves", "version": 1, "player": "you", '
                                       '"moves": [{"colour_die": 5}]}')
    with pytest.raises(MovesError, match="bad.json, roll 1: 'colour_die' must be an integer 0..2"):
        play_chunk(9, 1, 1, [f"recorded:moves={tmp_path / 'bad.json'}", "greedy"], players=2)
    # A changed moves file is no longer the dataset's game: the commands that replay it say so.
    (folder / "moves.json").write_text((folder / "moves.json").read_text().replace('"jokers": 0', '"jokers": 1', 1))
    out = invoke("replay", str(folder), "--game", "1")
    assert out.exit_code != 0 and "has changed since the run" in out.output
