"""The commands of your game (sim.commands.play): `play` refuses bad settings before it serves or
makes anything, and `game` is the same game stepped from Python."""
import pytest

import sim.play.server as server
from sim.commands.base import Default
from sim.commands.play import game, play
from sim.errors import SettingError


class Socket:
    closed = False

    def close(self):
        self.closed = True


@pytest.fixture
def served(monkeypatch):
    """play's socket and server, recorded instead of opened."""
    seen = {"sockets": [], "served": []}

    def listen(port):
        seen["sockets"].append(Socket())
        return seen["sockets"][-1]
    monkeypatch.setattr(server, "listen", listen)
    monkeypatch.setattr(server, "serve", lambda session, sock, **kw: seen["served"].append(session))
    return seen


def test_a_resumed_game_takes_no_settings_of_its_own(served, tmp_path):
    with pytest.raises(SettingError) as e:
        play(resume=tmp_path, players=3, seed=4, sheet=Default("blue"), out=tmp_path / "x")
    assert e.value.text == ("{resume} continues a game with its own settings: leave out {players}, {seed}, {out}")
    with pytest.raises(SettingError, match="^opponents and level exclude each other"):
        play(opponents="greedy", level="easy")
    assert served == {"sockets": [], "served": []}       # refused before a port was taken


def test_a_full_folder_is_refused_and_the_port_let_go(served, tmp_path):
    (tmp_path / "kept.txt").write_text("")
    with pytest.raises(SettingError, match="is not an empty folder: a new game needs a folder of its own"):
        play(out=tmp_path, players=1)
    assert served == {"sockets": [], "served": []}       # refused before a port was taken


def test_a_game_is_served_in_its_folder_and_the_same_game_is_stepped_from_python(served, tmp_path):
    play(out=tmp_path / "page", players=2, opponents="greedy", seed=3, game=1, browser=False, say=None)
    (starting,) = served["served"]
    assert starting.state()["preparing"]["stages"][0]["seconds"] is None     # served before anything is prepared
    starting.start().thread.join()          # as serve starts it, once the address is out
    assert starting.error is None and starting.state()["preparing"] is None
    session = starting.session
    g = game(players=2, opponents="greedy", seed=3, game=1, out=tmp_path / "python")
    assert (session.game.seed, session.game.game, session.game.opponents) == (g.seed, g.game, g.opponents)
    assert session.game.view()["dice"] == g.view()["dice"]
    assert (tmp_path / "python").is_dir() and any((tmp_path / "python").iterdir())
