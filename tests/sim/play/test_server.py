"""encore-sim play's server (sim.play.server, sim.play.session): who may play the game,
and what a bad request changes (nothing).

The server runs in this process on a free port of 127.0.0.1, over a real game (a greedy opponent);
requests go through http.client, so that every header (Host, Origin, Content-Type) is the test's
to set. After every refusal the game's state, as the page sees it and as its folder keeps it, is
what it was before."""
import http.client
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from sim.play.game import Game, resume as resume_game
from sim.play.server import Server
from sim.play.session import STATE_FILE, PlaySession, Refused

ROOT = Path(__file__).resolve().parents[3]


class Client:
    """Requests to a running Server: path relative to its token's root unless `raw`."""

    def __init__(self, server: Server):
        self.server = server
        self.port = server.port
        self.root = f"/{server.token}/"

    def send(self, method, path, body=None, headers=None, raw=False):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)   # a cold cache compiles the hint first
        h = {"Host": f"127.0.0.1:{self.port}"}
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        conn.request(method, path if raw else self.root + path, body=body, headers=h)
        r = conn.getresponse()
        data = r.read()
        conn.close()
        return r.status, dict((k.lower(), v) for k, v in r.getheaders()), data

    def state(self) -> dict:
        status, _, data = self.send("GET", "api/state")
        assert status == 200, data
        return json.loads(data)


@pytest.fixture(scope="module")
def game_server(tmp_path_factory):
    """A 2-player game against greedy, served; its folder inside a folder of its own (to see that
    nothing is written beside it)."""
    home = tmp_path_factory.mktemp("play-server")
    folder = home / "game"
    session = PlaySession.start(Game(players=2, opponents="greedy", seed=3, game=1), folder)
    server = Server(session).start()
    yield session, Client(server), home
    server.stop()


def snapshot(session, client):
    """What a refused request must leave as it was: the page's state, the kept file, the game's arrays."""
    g = session.game.gip
    return (client.state(), (session.folder / STATE_FILE).read_text(),
            [a.copy().tolist() for a in (g.st, g.ps, g.bb, g.sp)])


def one_line(data: bytes) -> str:
    text = data.decode()
    assert text.endswith("\n") and text.count("\n") == 1, text
    return text.strip()


def test_the_server_listens_on_loopback_alone(game_server):
    session, client, _ = game_server
    assert client.server.sock.getsockname()[0] == "127.0.0.1"
    assert client.server.url.startswith(f"http://127.0.0.1:{client.port}/")
    assert len(client.server.token) >= 32     # 24 random bytes, base64


@pytest.mark.parametrize("path", ["/", "/api/state", "/play.js", "/{wrong}/", "/{wrong}/api/state", "/{prefix}/",
                                  "/{token}x/api/state", "//{token}/api/state"])
def test_a_request_without_the_token_is_refused(game_server, path):
    session, client, _ = game_server
    token = client.server.token
    path = path.format(wrong="A" * len(token), prefix=token[:-1], token=token)
    before = snapshot(session, client)
    for method, body in (("GET", None), ("POST", {"game": session.id, "decision": session.game.decisions,
                                                  "choice": -1})):
        status, headers, data = client.send(method, path, body, raw=True)
        assert status == 403, (path, data)
        assert "token" in one_line(data)
    assert snapshot(session, client) == before


def test_another_host_is_refused_dns_rebinding(game_server):
    session, client, _ = game_server
    before = snapshot(session, client)
    for host in ("evil.example", f"evil.example:{client.port}", "127.0.0.1", f"127.0.0.1:{client.port + 1}",
                 f"localhost.evil.example:{client.port}"):
        status, _, data = client.send("GET", "api/state", headers={"Host": host})
        assert status == 403 and "127.0.0.1:PORT" in one_line(data), host
    status, _, _ = client.send("GET", "api/state", headers={"Host": f"localhost:{client.port}"})
    assert status == 200
    assert snapshot(session, client) == before


def test_a_move_from_another_site_is_refused(game_server):
    session, client, _ = game_server
    before = snapshot(session, client)
    move = {"game": session.id, "decision": session.game.decisions, "choice": -1}
    for headers, code in (({"Origin": "http://evil.example"}, 403), ({"Origin": "null"}, 403),
                          ({"Origin": f"http://127.0.0.1:{client.port + 1}"}, 403),
                          ({"Sec-Fetch-Site": "cross-site"}, 403), ({"Sec-Fetch-Site": "same-site"}, 403),
                          ({"Content-Type": "text/plain"}, 415),
                          ({"Content-Type": "application/x-www-form-urlencoded"}, 415)):
        status, _, data = client.send("POST", "api/play", move, headers=headers)
        assert status == code, (headers, data)
        one_line(data)
    assert snapshot(session, client) == before


def test_bad_moves_are_refused_with_one_line_and_change_nothing(game_server):
    session, client, home = game_server
    before = snapshot(session, client)
    g, d = session.id, session.game.decisions
    n = session.game.count()
    other = "0" * len(g) if g != "0" * len(g) else "1" * len(g)
    cases = [
        ({"game": g, "decision": d, "choice": n}, 422, "not a legal choice"),           # a choice not offered
        ({"game": g, "decision": d, "choice": -2}, 422, "out of range"),
        ({"game": g, "decision": d, "choice": 1.0}, 400, "integer"),
        ({"game": g, "decision": d, "choice": "0"}, 400, "integer"),
        ({"game": g, "decision": d, "choice": True}, 400, "integer"),
        ({"game": g, "decision": d, "choice": None}, 400, "integer"),
        ({"game": g, "decision": d - 1, "choice": -1}, 409, "stale"),                   # a decision already taken
        ({"game": g, "decision": d + 1, "choice": -1}, 409, "stale"),
        ({"game": other, "decision": d, "choice": -1}, 409, "another game"),            # another game's id
        ({"game": g, "decision": d}, 400, "body must be"),                              # malformed bodies
        ({"game": g, "decision": d, "choice": -1, "extra": 1}, 400, "body must be"),
        ([g, d, -1], 400, "body must be"),
    ]
    for body, code, words in cases:
        status, _, data = client.send("POST", "api/play", body)
        assert status == code and words in one_line(data), (body, status, data)
    for raw, code in (("{not json", 400), ("\xff", 400), ("x" * 5000, 413)):
        status, _, data = client.send("POST", "api/play", raw, headers={"Content-Type": "application/json"})
        assert status == code, (raw[:10], data)
        one_line(data)
    for method in ("PUT", "DELETE", "PATCH"):
        status, _, data = client.send(method, "api/play", {"game": g, "decision": d, "choice": -1})
        assert status == 405
        one_line(data)
    status, _, data = client.send("GET", f"api/hint?game={g}&decision={d + 3}")
    assert status == 409 and "stale" in one_line(data)
    status, _, data = client.send("GET", "api/nothing")
    assert status == 404
    one_line(data)
    assert snapshot(session, client) == before


def test_a_good_move_is_played_kept_and_cannot_be_sent_twice(game_server):
    session, client, home = game_server
    state = client.state()
    status, _, data = client.send("GET", f"api/hint?game={state['game']}&decision={state['decision']}")
    assert status == 200
    best = json.loads(data)["choices"][0]
    move = {"game": state["game"], "decision": state["decision"], "choice": best["choice"]}
    status, _, data = client.send("POST", "api/play", move,
                                  headers={"Origin": f"http://127.0.0.1:{client.port}", "Sec-Fetch-Site": "same-origin"})
    assert status == 200, data
    after = json.loads(data)
    assert after["decision"] == state["decision"] + 1
    assert after["last_move"]["loss"] == pytest.approx(0, abs=1e-9)
    kept = json.loads((session.folder / STATE_FILE).read_text())
    assert len(kept["moves"]) == after["decision"]
    before = snapshot(session, client)
    status, _, data = client.send("POST", "api/play", move)         # a double click: the same move again
    assert status == 409 and "stale" in one_line(data)
    assert snapshot(session, client) == before
    # nothing written beside the game's folder
    assert sorted(p.name for p in home.iterdir()) == ["game"]


def test_without_practice_no_move_is_taken_back_once_its_next_dice_are_seen(game_server):
    session, client, home = game_server
    state = client.state()
    if state["decision"] == 0:      # a move of yours to take back
        status, _, _ = client.send("POST", "api/play", {"game": state["game"], "decision": 0, "choice": -1})
        assert status == 200
    before = snapshot(session, client)
    g, d = session.id, session.game.decisions
    assert not before[0]["settings"]["practice"]
    status, _, data = client.send("POST", "api/undo", {"game": g, "decision": d})
    assert status == 403 and "practice" in one_line(data)
    for body in ({"game": g}, {"game": g, "decision": d, "choice": -1}, [g, d]):
        status, _, data = client.send("POST", "api/undo", body)
        assert status == 400 and "body must be" in one_line(data)
    status, _, data = client.send("GET", "api/undo")
    assert status == 405
    assert snapshot(session, client) == before


def test_practice_takes_a_move_back_to_the_same_dice_and_marks_the_game(tmp_path):
    folder = tmp_path / "game"
    s = PlaySession.start(Game(players=2, opponents="greedy", seed=6, game=3), folder)
    first = s.state()
    with pytest.raises(Exception, match="practice"):
        s.take_back({"game": s.id, "decision": 0})
    s.set_practice({"game": s.id, "on": True})
    with pytest.raises(Exception, match="no move"):
        s.take_back({"game": s.id, "decision": 0})
    moves = [c["choice"] for c in s.game.hint_view()[:2]]
    played = s.play({"game": s.id, "decision": 0, "choice": moves[0]})
    second = s.play({"game": s.id, "decision": 1, "choice": -1})
    back = s.take_back({"game": s.id, "decision": 2})
    assert back["decision"] == 1 and back["dice"] == played["dice"] and back["seats"] == played["seats"]
    back = s.take_back({"game": s.id, "decision": 1})
    assert back["dice"] == first["dice"] and back["seats"] == first["seats"] and back["log"] == first["log"]
    other = s.play({"game": s.id, "decision": 0, "choice": moves[1]})
    assert other["seats"][0]["crossed"] != played["seats"][0]["crossed"] and other["dice"] == played["dice"]
    kept = json.loads((folder / STATE_FILE).read_text())
    assert kept["practice"] and kept["takebacks"] == 2 and len(kept["moves"]) == 1
    again = PlaySession.resume(folder, resume_game)
    assert again.state()["settings"]["practised"] and again.state()["seats"] == other["seats"]
    assert second["decision"] == 2


def test_the_address_comes_before_the_game_compiles(tmp_path):
    """With an empty compile cache the page is served at once: the address printed after 3 s of CPU
    at most (the command's own, read from /proc, so a busy machine does not matter), and the page
    then says what it prepares until the game is ready."""
    import os
    import time
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "empty-cache"), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "play", "--players", "1", "--no-browser", "--out",
                             str(tmp_path / "game")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        url = proc.stdout.readline().strip()
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        assert url.startswith("http://127.0.0.1:") and cpu <= 3.0, (url, cpu)
        port, token = url.split(":")[2].split("/")[:2]
        conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
        conn.request("GET", f"/{token}/api/state", headers={"Host": f"127.0.0.1:{port}"})
        first = json.loads(conn.getresponse().read())
        stages = first["preparing"]["stages"]
        assert [x["key"] for x in stages] == ["game", "hints"] and not stages[-1]["done"], first
        assert "seats" not in first        # the game is not made yet: its kernels compile in the background
        end = time.monotonic() + 600
        while time.monotonic() < end:
            conn.request("GET", f"/{token}/api/state", headers={"Host": f"127.0.0.1:{port}"})
            state = json.loads(conn.getresponse().read())
            if "seats" in state:
                break
            time.sleep(0.5)
        assert state["roll"] == 1 and state["decision"] == 0
        conn.close()
    finally:
        proc.terminate()
        proc.wait(30)


def test_the_page_is_served_with_its_protections(game_server):
    session, client, _ = game_server
    status, headers, data = client.send("GET", "")
    assert status == 200 and b'<script src="play.js"' in data
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["referrer-policy"] == "no-referrer" and headers["x-frame-options"] == "DENY"
    assert headers["cache-control"] == "no-store"
    for name, kind in (("play.js", "text/javascript"), ("play.css", "text/css"), ("favicon.svg", "image/svg+xml")):
        status, headers, _ = client.send("GET", name)
        assert status == 200 and headers["content-type"].startswith(kind)
    status, headers, _ = client.send("GET", f"/{client.server.token}", raw=True)
    assert status == 308 and headers["location"].endswith(f"/{client.server.token}/")


def test_a_game_is_resumed_where_it_stopped(tmp_path):
    folder = tmp_path / "game"
    first = PlaySession.start(Game(players=1, seed=4, game=2), folder, coach=0.25)
    for _ in range(3):
        first.play({"game": first.id, "decision": first.game.decisions, "choice": first.game.hint_view()[0]["choice"]})
    was = first.state()
    again = PlaySession.resume(folder, resume_game)
    now = again.state()
    assert again.id != first.id
    assert now["decision"] == 3 and now["coach"] == {"on": True, "threshold": 0.25}
    for key in ("seats", "dice", "choices", "log", "roll"):
        assert now[key] == was[key], key
    with pytest.raises(ValueError, match="no game of `play`"):
        PlaySession.resume(tmp_path, resume_game)


def _cli(*args, timeout=60, cwd=None):
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), "play", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)


@pytest.mark.parametrize("args, words", [
    (["--opponents", "greedy", "--level", "1"], "exclude each other"),
    (["--resume", "nowhere", "--seed", "3"], "leave out --seed"),
    (["--port", "0"], "--port"),
    (["--players", "7"], "--players"),
    (["--coach", "-1"], "--coach"),
])
def test_bad_options_are_one_line_and_exit_2(args, words, tmp_path):
    out = _cli(*args, "--no-browser", cwd=tmp_path)
    assert out.returncode == 2, out
    assert out.stderr.count("\n") == 1 and words in out.stderr, out.stderr
    assert out.stdout == ""


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        out = _cli("--players", "1", "--port", str(busy.getsockname()[1]), "--no-browser", cwd=tmp_path)
    assert out.returncode == 2 and out.stderr.startswith("Error: cannot listen"), out.stderr
    assert out.stderr.count("\n") == 1 and not list(tmp_path.iterdir())     # no game folder made


def test_a_finished_game_is_saved_analysed_and_resumed_with_its_analysis(tmp_path):
    from sim.play.analysis import game_analysis as _game_analysis
    folder = tmp_path / "game"
    s = PlaySession.start(Game(players=1, seed=2, game=0), folder, analyse=_game_analysis)
    while not s.game.over:
        s.play({"game": s.id, "decision": s.game.decisions, "choice": -1})
    s.wait(300)
    a = s.state()["analysis"]
    assert a["status"] == "done" and a["decisions"] == 30 and a["score"] == s.state()["seats"][0]["score"]
    assert {"manifest.json", "play.json", "analysis.json"} <= {p.name for p in folder.iterdir()}
    again = PlaySession.resume(folder, resume_game, analyse=_game_analysis)   # read back, not redone
    assert again.state()["analysis"] == a and again.state()["over"]
    # stepped through: each decision's sheet as it was, with its loss and luck from the analysis
    first, last = again.review(0), again.review(29)
    assert first["roll"] == 1 and first["seats"][0]["crossed"] == [] and first["review"]["yours"]["pass"]
    assert last["roll"] == 30 and last["review"]["loss"] == a["rolls"][29]["loss"]
    assert last["review"]["luck"] == a["rolls"][29]["luck"] and not last["over"]
    # solo, the trace's expected final score before the roll: -22 points now, more to come
    assert first["review"]["chances"]["solo"] and first["review"]["chances"]["roll"] == 0
    assert first["review"]["chances"]["seats"][0]["expected_score"] > -22
    with pytest.raises(Refused, match="out of range"):
        again.review(30)
    (folder / "analysis.json").unlink()                                     # stopped while analysing
    again = PlaySession.resume(folder, resume_game, analyse=_game_analysis)
    again.wait(300)
    assert again.state()["analysis"] == a


def test_the_page_knows_the_tables_largest_size():
    from sim.runs.defaults import PLAY_MAX_PLAYERS
    from sim.state import MAX_SEATS
    assert PLAY_MAX_PLAYERS == MAX_SEATS


def test_the_review_of_a_table_game_gives_each_seats_chance_of_winning(tmp_path, monkeypatch):
    """Served as the page asks for it: every seat's chance before the roll, from the game's trace."""
    from sim.play.analysis import game_analysis
    from sim.runs.trace import game_trace
    from sim.state import PS_SCORE, PS_WINNER
    s = PlaySession.start(Game(players=3, opponents="greedy", seed=5, game=0), tmp_path / "game",
                          analyse=game_analysis)
    while not s.game.over:
        s.play({"game": s.id, "decision": s.game.decisions, "choice": 0 if s.game.count() else -1})
    s.wait(300)
    server = Server(s).start()
    try:
        client = Client(server)
        seen = []
        for d in (0, s.game.decisions // 2, s.game.decisions - 1):
            status, _, data = client.send("GET", f"api/review?decision={d}")
            assert status == 200, data
            seen.append(json.loads(data)["review"]["chances"])
        assert client.send("GET", "api/review?decision=x")[0] == 400
        # the home page's list and its review of a saved game: by its folder's name alone
        status, _, data = client.send("GET", "api/games")
        assert status == 200 and [(g["folder"], g["over"], g["players"]) for g in json.loads(data)] == [("game", True, 3)]
        status, _, data = client.send("GET", "api/saved?folder=game&decision=1")
        saved = json.loads(data)
        assert status == 200 and saved["review"]["decision"] == 1 and saved["saved"]["players"] == 3
        assert saved["review"]["chances"] == s.review(1)["review"]["chances"]
        for bad in ("..", "../game", "nothing", "%2Fetc"):
            status, _, data = client.send("GET", f"api/saved?folder={bad}&decision=0")
            assert status == 404 and one_line(data).startswith("no finished game"), data
        assert client.send("GET", "api/saved?folder=game&decision=x", headers={"Host": "evil.example"})[0] == 403
    finally:
        server.stop()
    c = s.game.gip.chunk()
    trace = game_trace(s.game.seed, 0, 3, c.log, scores=c.seats[0, :, PS_SCORE], winners=c.seats[0, :, PS_WINNER])
    for chances in seen:
        assert not chances["solo"] and [x["seat"] for x in chances["seats"]] == [0, 1, 2]
        assert abs(sum(x["win_prob"] for x in chances["seats"]) - 1) < 1e-6
        rows = trace[trace["roll"] == chances["roll"]].sort_values("seat")
        assert [x["win_prob"] for x in chances["seats"]] == pytest.approx(list(rows["win_prob"]))
    assert seen[0]["roll"] == 0 and seen[0]["seats"][0]["name"] != seen[0]["seats"][1]["name"]
    assert seen[-1]["roll"] == s.game.losses[-1]["roll"] - 1
    # from the next game's page, and from the home page while that game is still being prepared
    nxt = PlaySession.start(Game(players=1, seed=1), tmp_path / "next")
    assert nxt.saved_review("game", 0)["review"]["chances"] == seen[0]
    with pytest.raises(Refused, match="no finished game"):
        nxt.saved_review("nothing", 0)
    from sim.play.session import Starting
    assert [g["folder"] for g in Starting(lambda stage: None, root=tmp_path).games()] == ["game", "next"]
    # a game whose win model is not kept (another sheet or rules): no chances, and no fit of minutes
    import sim.runs.trace as trace_module
    monkeypatch.setattr(trace_module, "fit_model", lambda *a, **k: pytest.fail("the review fitted a win model"))
    monkeypatch.setattr(trace_module.winmodel, "shipped", lambda: {})
    monkeypatch.setattr(trace_module.winmodel, "stored_path", lambda *a: tmp_path / "no-model.json")
    again = PlaySession.resume(tmp_path / "game", resume_game)
    assert again.review(0)["review"]["chances"] is None and again.review(0)["review"]["decision"] == 0
