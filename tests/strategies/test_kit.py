"""strategies.kit against the engine and the plain-Python reference of the rules (tests/helpers/reference.py),
on positions reached by random legal play, solo and at a table; rolls_left_estimate against the
lengths of real games; learned_value against learned's own moves."""
import os
import re
import subprocess
import sys
import traceback
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest

import reference as ref
from sim import engine
from sim.runs.api import play_chunk
from sim.sheets import cell_name, load_sheet
from sim.state import (
    CAND_CDIE, CAND_NDIE, CAND_SUB, COLOUR_JOKER, NUMBER_JOKER, PS_COL_POINTS, PS_COLOUR_POINTS, PS_COLOURS,
    PS_COLS, PS_JOKERS, PS_SCORE, ST_AVAIL, ST_DICE, ST_MAX_ROLLS, ST_PLAYERS, ST_ROLL, ST_SEAT, new_state,
)
from sim.tables import build_tables, from_words, kernel_tables
from strategies import kit

SHEET = load_sheet("standard")
TAB = build_tables("standard")
KTAB = kernel_tables("standard")
COL_LETTERS = "ABCDEFGHIJKLMNO"


def _cells(lo, hi):
    return {cell_name(c, r) for c, r in from_words(lo, hi)}


#: The reference's own account of a position (tests/helpers/reference.py, no engine data): every seat's
#: crossed cells, '!' left and points, and the columns and colours taken in earlier rolls.
Account = namedtuple("Account", "crossed jokers column_points colour_points columns_taken colours_taken solo")


def _cost(st, cands, i):
    """The '!' choice i spends, from the faces of its dice."""
    return (int(st[ST_DICE + cands[i, CAND_CDIE]] == COLOUR_JOKER)
            + int(st[ST_DICE + 3 + cands[i, CAND_NDIE]] == NUMBER_JOKER))


def _positions(players, rolls, seed):
    """(st, ps, bb, cands, n, account) for the active seat at the start of each roll after the first
    few, the game played by random legal choices (the engine's own kernels settle every roll, the
    reference settles its account)."""
    rng = np.random.default_rng(seed)
    st, ps, bb, cands = new_state()
    engine.reset(st, ps, bb, KTAB, players, 200)
    dice = 0b011011 if players == 1 else 0b111111
    crossed = [set() for _ in range(players)]
    jokers, column_points, colour_points = [ref.JOKERS_AT_START] * players, [0] * players, [0] * players
    columns_taken, colours_taken = set(), set()
    out = []
    for roll in range(1, rolls + 1):
        st[ST_ROLL] = roll
        faces = [int(rng.integers(0, 6)) for _ in range(3)] + [int(rng.integers(0, 6)) for _ in range(3)]
        st[ST_DICE:ST_DICE + 6] = faces
        before = [set(c) for c in crossed]
        for k in range(players):     # the active seat first, as in a game: nothing is pending then
            seat = (roll - 1 + k) % players
            st[ST_SEAT] = seat
            st[ST_AVAIL] = dice
            n = engine.legal_choices(st, ps, bb, KTAB, cands)
            if k == 0 and roll > 4:
                account = Account([set(c) for c in crossed], list(jokers), list(column_points), list(colour_points),
                                  set(columns_taken), set(colours_taken), players == 1)
                out.append(tuple(a.copy() for a in (st, ps, bb, cands)) + (n, account))
            if n and rng.random() < 0.9:
                i = int(rng.integers(0, n))
                engine.cross(ps, bb, KTAB, seat, cands[i, CAND_SUB], cands[i, 3], roll)
                crossed[seat] |= _cells(*TAB.mask[cands[i, CAND_SUB]])
                jokers[seat] -= _cost(st, cands, i)
        engine.settle_awards(st, ps, bb, KTAB)
        awards, columns_taken, colours_taken = ref.settle_roll("standard", before, crossed, columns_taken,
                                                               colours_taken, players == 1)
        for s, award in enumerate(awards):
            column_points[s] += award["column_points"]
            colour_points[s] += award["colour_points"]
    return out


# Random play rarely completes a colour within 30 rolls: the tables play on (past the natural end,
# which the helpers do not care about) so that some choices complete one, at the first or later value.
POSITIONS = [p for players, seed, rolls in ((1, 1, 30), (1, 2, 30), (3, 3, 70), (3, 4, 70))
             for p in _positions(players, rolls, seed)[::3]]


def _reference_award(account, seat, cells=frozenset()):
    """What crossing `cells` completes and scores for `seat`, by the reference alone."""
    (award,), _, _ = ref.settle_roll("standard", [account.crossed[seat]], [account.crossed[seat] | cells],
                                     account.columns_taken, account.colours_taken, account.solo)
    return award


def _reference_score(account, seat, cells=frozenset(), cost=0):
    """The seat's score if the game ended now (after crossing `cells` for `cost` '!'), by the
    reference's rules from its own account: no figure of the engine's enters it."""
    award = _reference_award(account, seat, cells)
    crossed = account.crossed[seat] | cells
    return ref.score(account.column_points[seat] + award["column_points"],
                     account.colour_points[seat] + award["colour_points"], account.jokers[seat] - cost,
                     ref.star_penalty(ref.load_sheet("standard"), crossed))


def test_a_choice_s_boxes_colour_size_stars_and_columns_are_its_cells():
    checked = 0
    for st, ps, bb, cands, n, account in POSITIONS:
        for i in range(n):
            sub = cands[i, CAND_SUB]
            cells = sorted(from_words(*TAB.mask[sub]))
            assert kit.placement(cands, i) == sub
            assert [kit.box(KTAB, cands, i, j) for j in range(kit.size(KTAB, cands, i))] == cells
            assert kit.size(KTAB, cands, i) == len(cells)
            assert {int(SHEET.colour[r, c]) for c, r in cells} == {kit.colour(KTAB, cands, i)}
            assert kit.stars(KTAB, cands, i) == sum(bool(SHEET.star[r, c]) for c, r in cells)
            assert kit.jokers_cost(cands, i) == cands[i, 3]
            cols = [c for c, _ in cells]
            assert kit.columns(KTAB, cands, i) == (min(cols), max(cols))
            assert [kit.boxes_in_column(KTAB, cands, i, c) for c in range(15)] == [cols.count(c) for c in range(15)]
            assert [kit.distance_from_h(c) for c in cols] == [abs(COL_LETTERS.index(ref.START_COLUMN) - c) for c in cols]
            checked += 1
    assert checked > 300


def test_completions_and_points_are_what_the_engine_settles():
    seen = {"column": 0, "colour": 0, "later": 0}
    for st, ps, bb, cands, n, account in POSITIONS:
        seat = st[ST_SEAT]
        for i in range(n):
            ps2, bb2, st2 = ps.copy(), bb.copy(), st.copy()
            engine.cross(ps2, bb2, KTAB, seat, cands[i, CAND_SUB], cands[i, 3], st[ST_ROLL])
            engine.settle_awards(st2, ps2, bb2, KTAB)
            new_cols = bin(int(ps2[seat, PS_COLS]) & ~int(ps[seat, PS_COLS])).count("1")
            new_colour = ps2[seat, PS_COLOURS] != ps[seat, PS_COLOURS]
            earned = (ps2[seat, PS_COL_POINTS] + ps2[seat, PS_COLOUR_POINTS]
                      - ps[seat, PS_COL_POINTS] - ps[seat, PS_COLOUR_POINTS])
            assert kit.columns_completed(st, ps, bb, KTAB, cands, i) == new_cols
            assert kit.completes_colour(st, ps, bb, KTAB, cands, i) == new_colour
            assert kit.points_now(st, ps, bb, KTAB, cands, i) == earned
            # the same, by the reference alone
            cells = _cells(*TAB.mask[cands[i, CAND_SUB]])
            award = _reference_award(account, seat, cells)
            assert new_cols == award["columns_first"] + award["columns_later"]
            assert new_colour == (award["colours_first"] + award["colours_later"] > 0)
            assert earned == award["column_points"] + award["colour_points"]
            gain = _reference_score(account, seat, cells, _cost(st, cands, i)) - _reference_score(account, seat)
            assert kit.score_gain(st, ps, bb, KTAB, cands, i) == gain
            seen["column"] += new_cols > 0
            seen["colour"] += bool(new_colour)
            seen["later"] += new_cols > 0 and earned < sum(TAB.col_first[c] for c in range(15)
                                                           if (ps2[seat, PS_COLS] & ~ps[seat, PS_COLS]) >> c & 1)
    assert seen["column"] > 10 and seen["colour"] > 0 and seen["later"] > 0, seen


def test_column_and_colour_points_follow_first_and_later_values():
    for st, ps, bb, cands, n, account in POSITIONS:
        solo = st[ST_PLAYERS] == 1
        for c in range(15):
            taken = not solo and st[9] >> c & 1      # ST_COLS_TAKEN
            expect = (ref.LATER_COLUMN_VALUES if taken else ref.FIRST_COLUMN_VALUES)[COL_LETTERS[c]]
            assert kit.column_points(st, KTAB, c) == expect
        for k in range(5):
            taken = not solo and st[10] >> k & 1     # ST_COLOURS_TAKEN
            assert kit.colour_points(st, k) == (ref.LATER_COLOUR_BONUS if taken else ref.FIRST_COLOUR_BONUS)


def test_any_seat_s_counts_are_its_crossed_cells():
    sheet = ref.load_sheet("standard")
    for st, ps, bb, cands, n, account in POSITIONS:
        assert kit.me(st) == st[ST_SEAT] and kit.players(st) == st[ST_PLAYERS]
        for seat in range(st[ST_PLAYERS]):
            crossed = _cells(bb[seat, 0], bb[seat, 1])
            for c in range(15):
                assert kit.column_crossed(bb, seat, c) == sum(f"{COL_LETTERS[c]}{r}" in crossed for r in ref.ROWS)
                for r in range(7):
                    assert kit.is_crossed(bb, seat, c, r) == (f"{COL_LETTERS[c]}{r + 1}" in crossed)
            for k, name in enumerate(ref.COLOURS):
                assert kit.colour_crossed(bb, KTAB, seat, k) == sum(sheet.colour[x] == name for x in crossed)
            assert 2 * kit.stars_open(bb, KTAB, seat) == ref.star_penalty(sheet, crossed)
            assert kit.jokers_left(ps, seat) == ps[seat, PS_JOKERS]
            assert kit.columns_done(ps, seat) == len(ref.completed_columns(sheet, crossed))
            assert kit.colours_done(ps, seat) == len(ref.completed_colours(sheet, crossed))
            assert kit.jokers_left(ps, seat) == account.jokers[seat]
            assert kit.score_now(ps, bb, KTAB, seat) == _reference_score(account, seat)
            ends = ps.copy()
            engine.finish(ends, bb, KTAB, st[ST_PLAYERS])
            assert kit.score_now(ps, bb, KTAB, seat) == ends[seat, PS_SCORE]


def test_the_sheet_after_a_choice_and_the_choices_from_there():
    sheet = ref.load_sheet("standard")
    st2, ps2, bb2, cands2 = kit.workspace()
    tried = 0
    for st, ps, bb, cands, n, account in POSITIONS[::2]:
        seat = st[ST_SEAT]
        saved = [a.copy() for a in (st, ps, bb, cands)]
        for i in list(range(-1, n, max(1, n // 6))):
            kit.sheet_after(st, ps, bb, KTAB, cands, i, st2, ps2, bb2)
            ps_e, bb_e, st_e = ps.copy(), bb.copy(), st.copy()
            if i >= 0:
                engine.cross(ps_e, bb_e, KTAB, seat, cands[i, CAND_SUB], cands[i, 3], st[ST_ROLL])
            else:
                ps_e[seat, 7] += 1                      # PS_PASSES
            engine.settle_awards(st_e, ps_e, bb_e, KTAB)
            assert np.array_equal(bb2[:st[ST_PLAYERS]], bb_e[:st[ST_PLAYERS]])
            assert np.array_equal(ps2[seat], ps_e[seat])
            assert np.array_equal(st2, st)               # the roll is not settled for the others
            if i >= 0:
                assert kit.score_now(ps2, bb2, KTAB, seat) - kit.score_now(ps, bb, KTAB, seat) == \
                    kit.score_gain(st, ps, bb, KTAB, cands, i)
                award = _reference_award(account, seat, _cells(*TAB.mask[cands[i, CAND_SUB]]))
                assert ps2[seat, PS_COL_POINTS] == account.column_points[seat] + award["column_points"]
                assert ps2[seat, PS_COLOUR_POINTS] == account.colour_points[seat] + award["colour_points"]
            crossed = _cells(bb2[seat, 0], bb2[seat, 1])
            for colour, number in ((0, 1), (2, 3), (4, 5), (1, 2)):
                kit.set_dice(st2, colour, number)
                m = kit.legal_choices(st2, ps2, bb2, KTAB, cands2)
                got = {frozenset(cell_name(c, r) for c, r in from_words(*TAB.mask[cands2[j, CAND_SUB]]))
                       for j in range(m)}
                assert got == ref.ref_legal_placements(sheet, crossed, ref.COLOURS[colour], number)
                assert m == len(got) and all(cands2[j, 3] == 0 for j in range(m))
            total = 0
            for colour in range(5):
                for number in range(1, 6):
                    total += len(ref.ref_legal_placements(sheet, crossed, ref.COLOURS[colour], number))
            assert kit.open_placements(bb2, seat) == total
            tried += 1
        assert all(np.array_equal(a, b) for a, b in zip(saved, (st, ps, bb, cands)))   # only read
    assert tried > 20


def test_solo_rolls_left_is_exact_and_refuses_a_table():
    for st, ps, bb, cands, n, account in POSITIONS:
        if st[ST_PLAYERS] == 1:
            assert kit.solo_rolls_left(st) == ref.SOLO_ROLLS - st[ST_ROLL]
            assert kit.rolls_left_estimate(st, bb, KTAB) == ref.SOLO_ROLLS - st[ST_ROLL]
        else:
            with pytest.raises(ValueError, match="rolls_left_estimate"):
                kit.solo_rolls_left(st)


@pytest.mark.parametrize("spec, bias, mae", [("heuristic", 3.0, 6.0), ("learned", 3.0, 4.5)])
def test_rolls_left_estimate_at_a_table_is_near_what_games_last(spec, bias, mae):
    """At the start of every roll of 60 four-player games: the estimate against the rolls that
    came after it. Its mean error stays within `bias`, its mean absolute error under `mae`; and
    ST_MAX_ROLLS - ST_ROLL, the trap, is off by far more."""
    players, games = 4, 60
    chunk = play_chunk(21, 0, games, [spec], players=players, log_turns=True)
    st, ps, bb, _ = new_state()
    errors, trap = [], []
    for g in range(games):
        rolls = int(chunk.games[g, engine.GR_ROLLS])
        rows = chunk.log[chunk.log_start[g]:chunk.log_start[g + 1]]
        engine.reset(st, ps, bb, KTAB, players, 200)
        for r in range(1, rolls + 1):
            st[ST_ROLL] = r
            errors.append(kit.rolls_left_estimate(st, bb, KTAB) - (rolls - r))
            trap.append(st[ST_MAX_ROLLS] - r - (rolls - r))
            for row in rows[(r - 1) * players:r * players]:
                if row[engine.LOG_SUB] >= 0:
                    engine.cross(ps, bb, KTAB, row[engine.LOG_SEAT], row[engine.LOG_SUB], row[engine.LOG_COST], r)
    errors = np.array(errors)
    assert abs(errors.mean()) < bias and np.abs(errors).mean() < mae, (errors.mean(), np.abs(errors).mean())
    assert np.mean(trap) > 100


def test_learned_weights_and_value_make_learned_s_solo_moves():
    """on_learned (docs/examples), one-ply on kit.learned_value, plays learned's very games solo."""
    example = str(Path(__file__).resolve().parents[2] / "docs" / "examples" / "on_learned.py") + ":choose"
    mine = play_chunk(5, 0, 40, [example]).seats[:, 0, PS_SCORE]
    theirs = play_chunk(5, 0, 40, ["learned"]).seats[:, 0, PS_SCORE]
    assert np.array_equal(mine, theirs)


def test_the_reference_names_every_public_helper_once():
    listed = [name for _, names in kit.SECTIONS for name in names]
    public = {name for name, obj in vars(kit).items() if callable(obj) and not name.startswith("_")
              and getattr(obj, "__module__", "") == "strategies.kit"}
    assert sorted(listed) == sorted(public)
    for name in listed:
        fn = getattr(kit, name)
        assert (getattr(fn, "py_func", fn).__doc__ or "").strip(), name


# --- the guide's example strategies --------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def test_the_guide_quotes_the_shipped_examples_as_they_are():
    import docs_check
    import docs_figures
    files = {it.arg: it.text for it in docs_check.parse((ROOT / "docs" / "strategies.md").read_text())
             if it.kind == "file"}
    for name, _ in docs_figures.KIT_EXAMPLES:
        assert files[f"{name}.py"] == (ROOT / "docs" / "examples" / f"{name}.py").read_text(), name


def _documented():
    """{example: (solo mean, its CI's half width, table win rate, table mean score)} from the guide."""
    text = (ROOT / "docs" / "strategies.md").read_text()
    figure = re.search(r"<!-- figure kit-examples -->(.*?)<!-- /figure -->", text, re.S)[1]
    rows = re.findall(r"^\| `docs/examples/(\w+)\.py` \|.*\| ([-\d.]+) \(([-\d.]+)\.\.([-\d.]+)\) \| "
                      r"([\d.]+)%, ([-\d.]+) \|$", figure, re.M)
    return {name: (float(m), (float(hi) - float(lo)) / 2, float(w) / 100, float(s)) for name, m, lo, hi, w, s in rows}


def test_the_examples_score_what_the_guide_says():
    """The first games of the guide's own runs (same seeds) against the figures it quotes: a small
    run's mean lies within 4 standard errors of the documented one (the error of the difference
    between a run's first k games and all N of them); a broken or edited example fails."""
    import docs_figures
    from sim.experiments.compare import compare
    documented = _documented()
    names = [n for n, _ in docs_figures.KIT_EXAMPLES]
    assert sorted(documented) == sorted(names)
    specs = [docs_figures.kit_example_spec(n) for n in names]
    for players, (seed, big), k in ((1, docs_figures.KIT_SOLO, 100), (4, docs_figures.KIT_TABLE, 24)):
        # Unchecked (no bounds checking: the same moves), so the examples load from the compile cache.
        table = compare(specs, players=players, opponents="heuristic" if players > 1 else None, games=k,
                        seed=seed, threads=1, checked=False).table
        for i, name in enumerate(names):
            row = table.iloc[i]
            se = (row["ci_high"] - row["ci_low"]) / 2 / 1.96
            mean = documented[name][0] if players == 1 else documented[name][3]
            assert abs(row["mean"] - mean) < 4 * se * np.sqrt(1 - k / big), (name, players, row["mean"], mean)


def test_solo_rolls_left_in_a_table_game_stops_the_run_saying_what_to_use(tmp_path):
    from sim.runs.api import StrategyError, check_chunk
    path = tmp_path / "trap.py"
    path.write_text("from strategies import kit\n\n\ndef choose(st, ps, bb, cands, n, tab, params, rng):\n"
                    "    return 0 if n > 0 and kit.solo_rolls_left(st) > 10 else -1\n")
    solo = play_chunk(5, 0, 3, [f"{path}:choose"])
    check_chunk(solo)
    with pytest.raises(StrategyError, match="solo_rolls_left at a table: use kit.rolls_left_estimate"):
        check_chunk(play_chunk(5, 0, 3, [f"{path}:choose", "greedy"]))


def test_the_new_helpers_answer_as_the_sheet_says():
    """roll, next_to_crossed and colours_by_crossed against the crossed cells (the reference's reading)."""
    sheet = ref.load_sheet("standard")
    for st, ps, bb, cands, n, _ in POSITIONS:
        assert kit.roll(st) == st[ST_ROLL]
        for seat in range(st[ST_PLAYERS]):
            crossed = _cells(bb[seat, 0], bb[seat, 1])
            for c in range(15):
                for r in range(7):
                    near = {f"{COL_LETTERS[c + dc]}{r + 1 + dr}" for dc, dr in ((0, -1), (0, 1), (-1, 0), (1, 0))
                            if 0 <= c + dc < 15 and 0 <= r + dr < 7}
                    assert kit.next_to_crossed(bb, seat, c, r) == bool(near & crossed)
            counts = [sum(sheet.colour[x] == name for x in crossed) for name in ref.COLOURS]
            order = list(kit.colours_by_crossed(bb, KTAB, seat))
            assert sorted(order) == [0, 1, 2, 3, 4]
            assert [counts[k] for k in order] == sorted(counts, reverse=True)
            # ties in colour order
            assert all(order[k] < order[k + 1] for k in range(4) if counts[order[k]] == counts[order[k + 1]])


MISUSED = '''from strategies import kit


def choose(st, ps, bb, cands, n, tab, params, rng):
    total = 0
    for i in range(n):
        {line}
    return 0 if n > 0 and total >= 0 else -1
'''


def _run_user(folder, *args):
    """`encore-sim run` of folder/s.py:choose in a fresh process (--python needs one), in that folder."""
    root = Path(__file__).resolve().parents[2]
    return subprocess.run([sys.executable, "-c", "import cli; cli.entry()", "run", "-n", "2", "-q", "-s",
                           "s.py:choose", "-o", "out", *args], capture_output=True, text=True, cwd=folder,
                          env={**os.environ, "PYTHONPATH": str(root)}, timeout=900)


@pytest.mark.parametrize("line, says", [
    ("total += kit.box(tab, cands, i, kit.size(tab, cands, i))[0]",
     "raised ValueError (kit.box got j = {j} for a choice of {j} boxes (j = 0 .. size - 1)) at s.py line 7"),
    ("total += kit.colour_crossed(bb, tab, kit.me(st), 5)",
     "raised ValueError (kit.colour_crossed got colour 5 (colours are 0..4: GREEN .. ORANGE)) at s.py line 7"),
    ("total += kit.is_crossed(bb, kit.me(st), 15, 0)",
     "raised ValueError (kit.is_crossed got column 15 (columns are 0..14: A..O)) at s.py line 7"),
])
@pytest.mark.parametrize("python", [False, True])
def test_a_wrong_argument_to_the_kit_names_the_strategy_s_line(tmp_path, line, says, python):
    """Compiled (bounds-checked, the default) and as plain Python alike: one line, exit 2, the
    user's file and line, not the kit's."""
    f = tmp_path / "s.py"
    f.write_text(MISUSED.format(line=line))
    r = _run_user(tmp_path, *(["--python"] if python else []))
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    pattern = re.escape(f"Error: strategy 's.py:choose' (seat 0) {says}").replace(r"\{j\}", r"(\d)")
    match = re.match(pattern + ", in seed 0, game 0, roll 1$", r.stderr.strip())
    assert match, r.stderr
    assert len(set(match.groups())) <= 1      # kit.box: the j given is the size it names
    assert not (tmp_path / "out" / "players").exists()


def _numba_frame(path):
    """A frame as Numba adds one to the traceback of a compiled function's exception: the file it
    was compiled from, and empty globals (no module name)."""
    try:
        exec(compile("raise ValueError", str(path), "exec"), {})
    except ValueError as e:
        return list(traceback.walk_tb(e.__traceback__))[-1][0]


def test_a_kit_line_compiled_in_another_copy_of_the_project_is_still_the_kit_s(tmp_path):
    """The compiled-code cache is keyed by content, so a kit function loaded from it names the file
    of whichever copy of the project compiled it (a moved clone, the installed wheel): still the
    kit's line, not the user's (CI once ran with a cache a clone in another folder had filled)."""
    from sim import guard
    assert kit.__name__ in sys.modules
    assert guard._library(_numba_frame(tmp_path / "elsewhere" / "strategies" / "kit.py"))
    assert not guard._library(_numba_frame(tmp_path / "s.py"))
    assert not guard._library(_numba_frame(tmp_path / "strategies" / "mine.py"))
    assert not guard._library(_numba_frame(tmp_path / "mykit.py"))


@pytest.mark.parametrize("python", [False, True])
def test_a_misspelt_helper_gets_the_line_and_a_suggestion(tmp_path, python):
    f = tmp_path / "s.py"
    f.write_text(MISUSED.format(line="total += kit.colour_crosed(bb, tab, kit.me(st), 0)"))
    r = _run_user(tmp_path, *(["--python"] if python else []))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    hint = "module 'strategies.kit' has no attribute 'colour_crosed': did you mean colour_crossed or colours_by_crossed?"
    if python:   # found as it runs
        assert r.stderr == f"Error: strategy 's.py:choose' (seat 0) raised AttributeError ({hint}) at s.py line 7, " \
                           "in seed 0, game 0, roll 1\n"
    else:        # found as it compiles
        assert r.stderr == f"Error: s.py:7: strategy 's.py:choose' does not compile: AttributeError: {hint}\n"


def test_an_undefined_name_gets_its_line_and_a_suggestion(tmp_path):
    f = tmp_path / "s.py"
    f.write_text("from strategies import kit\nLIMIT = 3\n\n\ndef choose(st, ps, bb, cands, n, tab, params, rng):\n"
                 "    return 0 if n > LIMT else -1\n")
    r = _run_user(tmp_path)
    assert r.returncode == 2
    assert r.stderr.splitlines()[0] == ("Error: s.py:6: strategy 's.py:choose' does not compile: NameError: name "
                                        "'LIMT' is not defined: did you mean LIMIT?")
