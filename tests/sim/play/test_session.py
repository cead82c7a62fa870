"""One person's game on the play page (sim.play.session), over a stand-in game: every request
checked before anything changes, the game kept after every move, the analysis run once it ends."""
import json

import pytest

from sim.errors import SettingError
from sim.play.session import ANALYSIS_FILE, STATE_FILE, PlaySession, Refused


class StandIn:
    """A game of `moves` decisions, each with three choices; what PlaySession asks of a game."""

    def __init__(self, moves=2):
        self.moves, self.decisions, self.taken, self.saved = moves, 0, [], []

    over = property(lambda self: self.decisions >= self.moves)

    def count(self):
        return 3

    def play(self, i):
        self.taken.append(i)
        self.decisions += 1
        return {"choice": i}

    def record(self):
        return {"taken": list(self.taken)}

    def view(self):
        return {"over": self.over}

    def settings(self):
        return {"players": 1}

    def hint_view(self):
        return ["hint"]

    def save(self, folder):
        self.saved.append(folder)


def move(s, choice=0, **changes):
    return {"game": s.id, "decision": s.game.decisions, "choice": choice, **changes}


def test_a_move_is_played_kept_and_answered_with_the_new_state(tmp_path):
    s = PlaySession.start(StandIn(), tmp_path / "g", coach=2.5)
    state = s.play(move(s, 2))
    assert state["decision"] == 1 and state["last_move"] == {"choice": 2} and state["game"] == s.id
    kept = json.loads((tmp_path / "g" / STATE_FILE).read_text())
    assert kept == {"taken": [2], "coach": {"on": True, "threshold": 2.5}}
    assert s.hint(s.id, 1) == {"game": s.id, "decision": 1, "choices": ["hint"]}


@pytest.mark.parametrize("body, status, text", [
    ("not a dict", 400, "bad request: the body must be"),
    ({"game": "x", "decision": 0, "choice": 0}, 409, "another game"),
    ({"decision": 1}, 409, "stale request: it answers decision 1, the game is at decision 0"),
    ({"decision": True}, 400, "'decision' must be an integer"),
    ({"choice": 3}, 422, "choice 3 is not a legal choice: decision 0 has 3 choices (0..2) and passing (-1)"),
    ({"choice": -2}, 422, "choice -2 is out of range"),
    ({"choice": 1.0}, 400, "'choice' must be an integer"),
    ({"extra": 1}, 400, "bad request: the body must be"),
])
def test_a_bad_request_is_refused_and_changes_nothing(tmp_path, body, status, text):
    s = PlaySession.start(StandIn(), tmp_path / "g")
    before = (tmp_path / "g" / STATE_FILE).read_text()
    with pytest.raises(Refused) as e:
        s.play(body if not isinstance(body, dict) or "game" in body else move(s, **body))
    assert e.value.status == status and text in e.value.message
    assert s.game.taken == [] and (tmp_path / "g" / STATE_FILE).read_text() == before


def test_the_end_saves_the_game_and_analyses_it_once(tmp_path):
    analysed = []
    s = PlaySession.start(StandIn(moves=1), tmp_path / "g", analyse=lambda f: analysed.append(f) or {"loss": 1.5})
    s.play(move(s))
    s.wait(10)
    assert s.game.saved == [tmp_path / "g"] and analysed == [tmp_path / "g"]
    assert s.state()["analysis"] == {"status": "done", "loss": 1.5}
    assert json.loads((tmp_path / "g" / ANALYSIS_FILE).read_text()) == {"loss": 1.5}
    with pytest.raises(Refused, match="the game is over"):
        s.play(move(s))
    again = PlaySession.resume(tmp_path / "g", lambda folder: StandIn(moves=0), analyse=analysed.append)
    assert again.state()["analysis"]["status"] == "done" and analysed == [tmp_path / "g"]   # read back, not redone


def test_a_failed_analysis_is_shown_in_one_line(tmp_path):
    def fails(folder):
        raise RuntimeError("no judge\ndetails")
    s = PlaySession.start(StandIn(moves=0), tmp_path / "g", analyse=fails)
    s.wait(10)
    assert s.state()["analysis"] == {"status": "failed", "error": "no judge"}


def test_the_coach_is_set_checked_and_kept_for_a_resumed_game(tmp_path):
    s = PlaySession.start(StandIn(), tmp_path / "g")
    assert s.coach == {"on": False, "threshold": 1.0}
    for bad, status in (({"game": s.id, "on": 1, "threshold": 2}, 400), ({"game": s.id, "on": True, "threshold": 101}, 422),
                        ({"game": "x", "on": True, "threshold": 2}, 409)):
        with pytest.raises(Refused) as e:
            s.set_coach(bad)
        assert e.value.status == status
    s.set_coach({"game": s.id, "on": True, "threshold": 3})
    assert PlaySession.resume(tmp_path / "g", lambda folder: StandIn()).coach == {"on": True, "threshold": 3.0}
    assert PlaySession.resume(tmp_path / "g", lambda folder: StandIn(), coach=0.5).coach == {"on": True,
                                                                                             "threshold": 0.5}


def test_a_folder_must_be_empty_for_a_new_game_and_hold_one_to_resume(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    with pytest.raises(SettingError, match="is not an empty folder"):
        PlaySession.start(StandIn(), tmp_path / "full")
    with pytest.raises(SettingError) as e:
        PlaySession.resume(tmp_path / "full", lambda folder: StandIn())
    assert e.value.text.endswith(f"holds no game of `play` to {{resume}} (no {STATE_FILE} in it)")
    (tmp_path / "full" / STATE_FILE).write_text("{damaged")
    with pytest.raises(SettingError, match="is damaged: not JSON"):
        PlaySession.resume(tmp_path / "full", lambda folder: StandIn())
