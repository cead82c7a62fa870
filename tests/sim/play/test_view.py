"""What the play page shows (sim.play.view): the first or later value each completion got, and of
a roll in progress the active seat's move alone (a passive seat decides without seeing another's)."""
from types import SimpleNamespace

import numpy as np

from sim.play.view import Awards, dice_view, page_view, sheet_view
from sim.rules import RULEBOOK, parse_rules
from sim.runs.game import GameInProgress
from sim.sheets import load_sheet
from sim.state import (
    COLOUR_JOKER, MAX_SEATS, NUMBER_JOKER, PS_COLOURS, PS_COLS, PS_SIZE, ST_AVAIL, ST_COLOURS_TAKEN, ST_COLS_TAKEN,
    ST_DICE, ST_SIZE,
)
from sim.tables import build_tables


def table(players):
    return SimpleNamespace(players=players, ps=np.zeros((MAX_SEATS, PS_SIZE), np.int64), st=np.zeros(ST_SIZE, np.int64))


def test_a_completion_is_first_unless_taken_in_an_earlier_roll():
    g = table(3)
    awards = Awards(3)
    g.ps[0, PS_COLS] = 1 << 4           # roll 1: seats 0 and 1 complete column E together, seat 1 blue
    g.ps[1, PS_COLS] = 1 << 4
    g.ps[1, PS_COLOURS] = 1 << 2
    g.st[ST_COLS_TAKEN], g.st[ST_COLOURS_TAKEN] = 1 << 4, 1 << 2
    awards.watch(g)
    g.ps[2, PS_COLS] = 1 << 4           # roll 2: seat 2 completes E and blue after them
    g.ps[2, PS_COLOURS] = 1 << 2
    awards.watch(g)
    assert awards.columns == [{4: "first"}, {4: "first"}, {4: "later"}]
    assert awards.colours == [{}, {2: "first"}, {2: "later"}]
    again = Awards.from_dict(awards.to_dict(), 3, taken=(1 << 4, 1 << 2))
    assert (again.columns, again.colours) == (awards.columns, awards.colours)


def test_solo_every_completion_is_first():
    g = table(1)
    awards = Awards(1)
    g.st[ST_COLS_TAKEN] = 0b11
    awards.watch(g)
    g.ps[0, PS_COLS] = 0b11
    awards.watch(g)
    assert awards.columns == [{0: "first", 1: "first"}]


def test_the_sheet_and_dice_as_the_page_draws_them():
    sheet = load_sheet("blue")
    v = sheet_view(sheet, parse_rules("star-penalty=3"))
    assert v["name"] == "blue" and v["star_penalty"] == 3 and v["jokers"] == RULEBOOK.jokers
    assert len(v["boxes"]) == 7 and all(len(row) == 15 for row in v["boxes"])
    assert sum(map(sum, v["stars"])) == int(sheet.star.sum())
    st = np.zeros(ST_SIZE, np.int64)
    st[ST_DICE:ST_DICE + 6] = [COLOUR_JOKER, 1, -1, NUMBER_JOKER, 4, -1]
    st[ST_AVAIL] = 0b001010
    assert dice_view(st, 1) == {"colour": ["joker", "yellow"], "number": ["joker", 4],
                                "colour_available": [False, True], "number_available": [True, False]}


def test_a_roll_in_progress_shows_the_active_seat_s_move_alone():
    g = GameInProgress(6, 3, [None, None, None])
    tab = build_tables(g.sheet, g.rules)
    awards = Awards(3)
    passive_seen = 0
    while not g.over:
        v = page_view(g, awards, tab)
        assert v["seat"] == g.seat and v["you_active"] == g.active and not v["over"]
        assert len(v["choices"]) == len(g.choices()) and [s["score"] for s in v["seats"]] == g.scores()
        (now,) = [r for r in v["log"] if r["roll"] == v["roll"]]
        if g.active:
            assert now["moves"] == []
        else:       # a passive seat decides: of this roll, the active seat's move alone is shown
            assert [m["seat"] for m in now["moves"]] == [v["active_seat"]]
            passive_seen += 1
        g.play(0 if len(g.choices()) else -1)
    assert passive_seen > 10
    v = page_view(g, awards, tab)
    assert v["over"] and v["dice"] is None and v["choices"] == []
    assert all(len(r["moves"]) == 3 for r in v["log"])
