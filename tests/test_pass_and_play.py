"""Several people at one screen (pass-and-play, issue 64): the rules' order of decisions with
several seats decided outside, each person's moves to their own seat, the server accepting a
decision for the seat whose turn it is alone, each person's coach, take-backs and analysis, and
the saved game read back as everybody's."""
import http.client
import json

import numpy as np
import pytest

from sim.play.analysis import game_analysis
from sim.play.game import Game, people_names, resume
from sim.play.server import Server
from sim.play.session import STATE_FILE, PlaySession, Refused, saved_games
from sim.runs.api import play_chunk
from sim.runs.dataset import read_manifest, read_part
from sim.state import PS_SCORE


def test_two_people_and_a_bot_in_the_rules_order_each_move_to_its_seat(tmp_path):
    g = Game(players=3, names=["Anna", "Ben"], opponents="greedy", seed=3, game=1)
    assert g.names == ["Anna", "Ben", "greedy"] and g.seats == [0, 1] and g.labels[:2] == ("Anna", "Ben")
    seen = []
    rng = np.random.default_rng(0)
    while not g.over:
        seat, roll, active = g.seat, g.roll, g.active
        seen.append((roll, seat, active))
        # the person deciding: the roll's active seat first, then the passive ones in seat order
        assert active == (seat == (roll - 1) % 3)
        choices = g.hint_view()
        word = g.play(int(choices[rng.integers(len(choices))]["choice"]) if rng.random() < 0.5 else -1)
        assert word["seat"] == seat and g.move_seats[-1] == seat
    for r in range(1, g.roll + 1):
        mine = [(s, a) for roll, s, a in seen if roll == r]
        if (r - 1) % 3 == 2:          # the bot is active: both people passive, Anna then Ben
            assert mine == [(0, False), (1, False)]
        else:
            act = (r - 1) % 3
            assert mine == [(act, True), (1 - act, False)]
    assert len(g.moves_of(0)) == len(g.moves_of(1)) == g.roll
    # The same game with each person's moves played by `recorded` from their own file: each move
    # went to the right seat, or the game would be another.
    folder = g.save(tmp_path / "g")
    manifest = read_manifest(folder)
    assert manifest["play"]["seats"] == [0, 1] and manifest["play"]["labels"] == ["Anna", "Ben"]
    assert [i["spec"] for i in manifest["strategies"]][:2] == ["recorded:moves=moves-0.json",
                                                                 "recorded:moves=moves-1.json"]
    assert json.loads((folder / "moves-1.json").read_text())["moves"] == g.moves_of(1)
    players = read_part(folder, "players", 1, ["seat", "strategy", "score"]).to_pylist()
    assert [(p["seat"], p["strategy"], p["score"]) for p in sorted(players, key=lambda p: p["seat"])] == \
        [(s, name, score) for s, (name, score) in enumerate(zip(["Anna", "Ben", "greedy"], g.scores()))]
    again = resume(folder)
    assert again.people == ["Anna", "Ben"] and again.scores() == g.scores() and again.move_seats == g.move_seats


def test_people_who_follow_the_hints_play_run_s_learned_game():
    g = Game(players=3, people=2, opponents="learned", seed=5, game=0)
    assert g.people == ["Player 1", "Player 2"]
    while not g.over:
        g.play(g.hint_view()[0]["choice"])
    chunk = play_chunk(5, 0, 1, ["learned"] * 3, players=3, rotate=False, log_turns=True)
    assert np.array_equal(g.gip.chunk().log, chunk.log) and g.scores() == chunk.seats[0, :, PS_SCORE].tolist()


@pytest.mark.parametrize("people, names, words", [
    (2, ["Anna", "anna"], "two people are called"),
    (None, ["Anna", "learned"], "built-in strategy"),
    (None, ["Anna", "You"], "cannot be a person's name"),
    (None, ["Anna", ""], "printable"),
    (7, None, "people must be"),
    (1, ["Anna", "Ben"], "give one name per person"),
])
def test_bad_people_are_one_line(people, names, words):
    with pytest.raises(ValueError, match=words):
        people_names(people, names, 6)


class Client:
    def __init__(self, server):
        self.port, self.root = server.port, f"/{server.token}/"

    def send(self, method, path, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        h = {"Host": f"127.0.0.1:{self.port}"}
        if body is not None:
            body, h["Content-Type"] = json.dumps(body), "application/json"
        conn.request(method, self.root + path, body=body, headers=h)
        r = conn.getresponse()
        data = r.read()
        conn.close()
        return r.status, data


def test_the_server_takes_a_decision_for_the_seat_whose_turn_it_is_alone(tmp_path):
    session = PlaySession.start(Game(players=3, names=["Anna", "Ben"], opponents="greedy", seed=3, game=1),
                                tmp_path / "game", coach=0.0)
    server = Server(session).start()
    try:
        c = Client(server)
        status, data = c.send("GET", "api/state")
        state = json.loads(data)
        assert status == 200 and state["seat"] == 0 and state["settings"]["people"] == ["Anna", "Ben"]
        kept = (tmp_path / "game" / STATE_FILE).read_text()
        base = {"game": state["game"], "decision": 0, "choice": -1}
        for body, code, words in (({**base, "seat": 1}, 409, "Anna (seat 0)"),     # Ben's sheet, Anna's turn
                                  (base, 400, "'seat' must name"),                  # the seat is required
                                  ({**base, "seat": "0"}, 400, "'seat' must name")):
            status, data = c.send("POST", "api/play", body)
            assert status == code and words in data.decode(), data
        status, data = c.send("GET", f"api/hint?game={state['game']}&decision=0&seat=1")
        assert status == 409, data
        assert (tmp_path / "game" / STATE_FILE).read_text() == kept and session.game.decisions == 0
        status, data = c.send("GET", f"api/hint?game={state['game']}&decision=0&seat=0")
        assert status == 200
        best = json.loads(data)["choices"][0]["choice"]
        status, data = c.send("POST", "api/play", {**base, "choice": best, "seat": 0})
        after = json.loads(data)
        assert status == 200 and after["seat"] == 1 and after["person"] == 1
        # Ben's state carries no word of Anna's move (a passive one of this roll may follow)
        assert after["last_move"] is None and all(w["seat"] == 1 for w in after["losses"])
        status, data = c.send("POST", "api/play", {"game": state["game"], "decision": 1, "choice": -1, "seat": 0})
        assert status == 409 and "Ben (seat 1)" in data.decode()
        # take-backs: practice only, and the last move's person alone
        status, data = c.send("POST", "api/undo", {"game": state["game"], "decision": 1, "seat": 0})
        assert status == 403
        status, _ = c.send("POST", "api/practice", {"game": state["game"], "on": True})
        assert status == 200
        status, data = c.send("POST", "api/undo", {"game": state["game"], "decision": 1, "seat": 1})
        assert status == 409 and "Anna (seat 0)" in data.decode()
        status, data = c.send("POST", "api/undo", {"game": state["game"], "decision": 1, "seat": 0})
        assert status == 200 and json.loads(data)["seat"] == 0 and session.game.decisions == 0
        # each person's coach: Ben's set while his turn leaves Anna's as it was
        c.send("POST", "api/play", {**base, "choice": best, "seat": 0})
        status, data = c.send("POST", "api/coach", {"game": state["game"], "on": False, "threshold": 3, "seat": 1})
        assert status == 200 and json.loads(data)["coach"] == {"on": False, "threshold": 3.0}
        assert session.coaches == {0: {"on": True, "threshold": 0.0}, 1: {"on": False, "threshold": 3.0}}
        status, data = c.send("POST", "api/coach", {"game": state["game"], "on": True, "threshold": 3, "seat": 0})
        assert status == 409
    finally:
        server.stop()
    again = PlaySession.resume(tmp_path / "game", resume)
    assert again.coaches == session.coaches and again.state()["seat"] == 1
    assert again.state()["seats"] == session.state()["seats"]


def test_a_finished_game_of_two_people_is_analysed_reviewed_and_listed_once(tmp_path):
    s = PlaySession.start(Game(players=3, names=["Anna", "Ben"], opponents="greedy", seed=4, game=0),
                          tmp_path / "game", analyse=game_analysis)
    while not s.game.over:
        seat = s.game.seat
        choice = s.game.hint_view()[0]["choice"] if seat == 0 else -1       # Ben passes throughout
        s.play({"game": s.id, "decision": s.game.decisions, "choice": choice, "seat": seat})
    s.wait(600)
    a = s.state()["analysis"]
    assert a["status"] == "done", a
    people = {p["name"]: p for p in a["people"]}
    assert set(people) == {"Anna", "Ben"} and people["Ben"]["seat"] == 1
    assert people["Anna"]["decisions"] == people["Ben"]["decisions"] == s.game.roll
    assert people["Ben"]["loss_per_decision"] > people["Anna"]["loss_per_decision"]
    assert all(r["chosen"]["pass"] for r in people["Ben"]["rolls"])
    assert set(a["ratings"]) == {"Anna", "Ben"}
    r = s.review(2, seat=1)
    assert r["review"]["seat"] == 1 and r["review"]["yours"]["pass"] and r["you"] == 1
    assert r["review"]["loss"] == people["Ben"]["rolls"][2]["loss"]
    with pytest.raises(Refused):
        s.review(0, seat=2)         # the bot's seat is no person's
    listed = saved_games(tmp_path)
    assert len(listed) == 1 and [p["name"] for p in listed[0]["people"]] == ["Anna", "Ben"]
    assert [p["score"] for p in listed[0]["people"]] == s.game.scores()[:2]


def test_who_plays_is_chosen_on_the_page_before_the_first_move(tmp_path):
    s = PlaySession.start(Game(players=4, opponents="greedy", seed=1, game=0), tmp_path / "game")
    state = s.set_people({"game": s.id, "names": ["Anna", "Ben", "Cleo"]})
    assert state["settings"]["people"] == ["Anna", "Ben", "Cleo"] and state["settings"]["opponents"] == ["greedy"]
    assert json.loads((tmp_path / "game" / STATE_FILE).read_text())["people"] == ["Anna", "Ben", "Cleo"]
    with pytest.raises(Refused, match="two people"):
        s.set_people({"game": s.id, "names": ["Anna", "anna"]})
    s.play({"game": s.id, "decision": 0, "choice": -1, "seat": 0})
    with pytest.raises(Refused, match="has begun"):
        s.set_people({"game": s.id, "names": ["Anna"]})
    assert s.game.people == ["Anna", "Ben", "Cleo"]


@pytest.mark.parametrize("args, words", [
    (["--people", "3", "--players", "2"], "--people must be 1..2"),
    (["--names", "Anna,anna"], "two people are called 'anna'"),
    (["--people", "2", "--names", "Anna,Ben,Cleo"], "give one name per person"),
    (["--people", "7"], "--people"),
    (["--resume", "nowhere", "--names", "Anna,Ben"], "leave out --names"),
])
def test_bad_people_options_are_one_line_and_exit_2(args, words, tmp_path):
    import subprocess
    import sys
    from pathlib import Path
    cli = Path(__file__).resolve().parents[1] / "cli.py"
    out = subprocess.run([sys.executable, str(cli), "play", *args, "--no-browser"], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and words in out.stderr, out.stderr
    assert out.stdout == "" and not list(tmp_path.iterdir())
