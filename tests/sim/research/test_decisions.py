"""One game's decisions ranked (sim.research.decisions): the sheets rebuilt before each decision
are those the deciding seat saw, and learned's own game shows every choice of its ranked first.
The view against the analysis of a whole dataset is tests/sim/research/test_analyse.py's."""
import json

import numpy as np
import pytest

from sim import engine
from sim.research.decisions import before_each, decisions
from sim.runs.api import play_chunk
from sim.runs.runner import run
from sim.sheets import load_sheet
from sim.state import MAX_CANDS, CAND_SIZE, PS_BOXES, PS_JOKERS
from sim.tables import kernel_tables


def test_each_decision_is_rebuilt_as_the_deciding_seat_saw_it():
    """At every state before_each yields, the engine offers the seat the choices the log counted,
    and after the last the sheets hold the boxes and '!' the game ended with."""
    sheet = load_sheet("standard")
    tab = kernel_tables(sheet)
    chunk = play_chunk(12, 3, 1, ["greedy", "random", "heuristic"], sheet=sheet, log_turns=True)
    log = chunk.log
    cands = np.zeros((MAX_CANDS, CAND_SIZE), np.int64)
    rows = []
    for row, st, ps, bb in before_each(tab, 12, 3, 3, 200, log):
        assert engine.legal_choices(st, ps, bb, tab, cands) == log[row, engine.LOG_CHOICES], row
        rows.append(row)
    assert rows == list(range(len(log)))
    assert ps[:3, PS_BOXES].tolist() == chunk.seats[0, :, PS_BOXES].tolist()
    assert ps[:3, PS_JOKERS].tolist() == chunk.seats[0, :, PS_JOKERS].tolist()


@pytest.fixture(scope="module")
def learned(tmp_path_factory):
    out = tmp_path_factory.mktemp("decisions") / "learned"
    run(out, games=3, players=1, strategies=["learned"], seed=2)
    return out


def test_learned_s_own_choices_are_ranked_first_and_lose_nothing(learned):
    v = decisions(learned, 1)
    assert (v.game, v.players, v.seats, v.judge) == (1, 1, ["learned"], "learned")
    assert [d["roll"] for d in v.decisions] == list(range(1, 31))
    for d in v.decisions:
        first = d["options"][0]
        assert first["played"] and first["learned"] and d["loss"] == d["value_loss"] == 0
        assert [o["rank"] for o in d["options"]] == list(range(1, len(d["options"]) + 1))
        values = [o["value"] for o in d["options"]]
        assert values == sorted(values, reverse=True)
        assert sum(o["pass"] for o in d["options"]) <= 1 and len(d["options"]) <= min(d["ranked"], 10)
    text = v.text()
    assert text.count("\nRoll ") == 30 and text.count("(learned played it)") == 30
    assert json.loads(json.dumps(v.to_dict()))["decisions"][0]["roll"] == 1


def test_a_roll_or_seat_picks_its_decision_and_one_off_the_game_is_refused(learned):
    (d,) = decisions(learned, 2, roll=7).decisions
    assert d["roll"] == 7 and d["seat"] == 0
    for kw, message in (({"game": 3}, "game must be 0..2, got 3"), ({"game": 0, "seat": 1}, "seat must be 0..0"),
                        ({"game": 0, "roll": 31}, "game 0 of")):
        with pytest.raises(ValueError, match=message):
            decisions(learned, **kw)
