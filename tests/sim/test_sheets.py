from importlib import resources

import numpy as np
import pytest

from sim.sheets import (
    BUILTIN_SHEETS,
    COLOURS,
    COLUMNS,
    N_COLS,
    N_ROWS,
    START_COLUMN,
    Sheet,
    SheetError,
    cell_name,
    load_sheet,
    parse_cell,
    parse_sheet,
)

import reference as R
from sheet_facts import SHEETS as FACTS

STANDARD_FILE = (resources.files("sim") / "data" / "sheets" / "standard.txt").read_text()
HEADER_LINES = 3  # comment lines before the first data row of the built-in files


def components(mask):
    """Sizes of the orthogonally connected components of a boolean (7, 15) mask."""
    seen, sizes = set(), []
    for start in zip(*np.nonzero(mask)):
        if start in seen:
            continue
        seen.add(start)
        todo, size = [start], 0
        while todo:
            r, c = todo.pop()
            size += 1
            for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if 0 <= nb[0] < N_ROWS and 0 <= nb[1] < N_COLS and mask[nb] and nb not in seen:
                    seen.add(nb)
                    todo.append(nb)
        sizes.append(size)
    return sorted(sizes)


def mutate(text=STANDARD_FILE, **cells):
    """Standard sheet file with the given cells (e.g. C4='x') set to new letters."""
    lines = text.splitlines()
    for name, letter in cells.items():
        col, row = parse_cell(name)
        i = HEADER_LINES + row
        lines[i] = lines[i][:col] + letter + lines[i][col + 1 :]
    return "\n".join(lines) + "\n"


def refusal(text, *fragments):
    with pytest.raises(SheetError) as info:
        parse_sheet(text, "bad")
    msg = str(info.value)
    assert "sheet 'bad'" in msg
    for fragment in fragments:
        assert fragment in msg, msg
    return msg


@pytest.mark.parametrize("name", BUILTIN_SHEETS)
def test_builtin_sheet_invariants(name):
    sheet = load_sheet(name)
    assert sheet.name == name
    assert sheet.colour.shape == sheet.star.shape == (N_ROWS, N_COLS)
    assert sheet.colour.dtype == np.int8 and sheet.star.dtype == bool
    rows = sheet.text.split("\n")
    assert [[COLOURS[i][0] for i in r] for r in sheet.colour] == [list(r.lower()) for r in rows]
    assert (sheet.star == np.array([[ch.isupper() for ch in r] for r in rows])).all()
    for c in range(len(COLOURS)):
        mask = sheet.colour == c
        assert mask.sum() == 21
        assert components(mask) == [1, 2, 3, 4, 5, 6]
        assert (sheet.star & mask).sum() == 3
    assert (sheet.star.sum(axis=0) == 1).all()


def test_builtin_sheets_are_cached_read_only_and_hashable():
    sheet = load_sheet("standard")
    assert load_sheet("standard") is sheet
    assert load_sheet(sheet) is sheet
    assert not sheet.colour.flags.writeable and not sheet.star.flags.writeable
    with pytest.raises(ValueError):
        sheet.colour[0, 0] = 1
    assert {sheet: 1}[parse_sheet(STANDARD_FILE, "standard")] == 1
    assert sheet != load_sheet("red")
    assert sheet != parse_sheet(STANDARD_FILE, "other")


def test_user_file(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("# my sheet\n\n" + STANDARD_FILE + "\n# trailing comment\n")
    for arg in (path, str(path)):
        sheet = load_sheet(arg)
        assert sheet.name == "mine"
        assert sheet.text == load_sheet("standard").text
    # The standard sheet: H1 is a green star, C2 a yellow star.
    assert sheet.colour[0, START_COLUMN] == COLOURS.index("green") and sheet.star[0, 7]
    assert sheet.colour[1, 2] == COLOURS.index("yellow") and sheet.star[1, 2]


def test_unknown_name_and_missing_file(tmp_path):
    with pytest.raises(SheetError, match="standard, red, blue, green, orange, yellow"):
        load_sheet("purple")
    with pytest.raises(SheetError, match="nope.txt"):
        load_sheet(tmp_path / "nope.txt")
    with pytest.raises(SheetError, match="is a folder, not a sheet file"):
        load_sheet(tmp_path)
    with pytest.raises(SheetError, match="no sheet ''"):
        load_sheet("")
    (tmp_path / "latin1.txt").write_bytes(b"\xff\xfe")
    with pytest.raises(SheetError, match="cannot read"):
        load_sheet(tmp_path / "latin1.txt")


def test_wrong_letter():
    refusal(mutate(C4="x"), "line 7, column C", "unknown colour letter 'x'")


def test_short_and_long_row():
    lines = STANDARD_FILE.splitlines()
    lines[HEADER_LINES + 4] = lines[HEADER_LINES + 4][:-1]
    refusal("\n".join(lines), "line 8 has 14 boxes, expected 15")
    lines[HEADER_LINES + 4] += "rr"
    refusal("\n".join(lines), "line 8 has 16 boxes, expected 15")


def test_missing_and_extra_row():
    lines = STANDARD_FILE.splitlines()
    refusal("\n".join(lines[:-1]), "expected 7 rows, found 6")
    refusal("\n".join(lines + ["# more", lines[-1]]), "expected 7 rows, found 8", "line 12")
    refusal("# only comments\n", "expected 7 rows, found 0")


def test_recoloured_box():
    # A1 is green: recolouring it yellow leaves green 20 and yellow 22.
    refusal(
        mutate(A1="y"),
        "colour green has 20 boxes, expected 21",
        "colour yellow has 22 boxes, expected 21",
    )


def test_split_block():
    # Swapping J4 (green) and K4 (yellow) keeps the counts but splits green block I4 J4.
    msg = refusal(mutate(J4="y", K4="g"), "colour green", "expected one block each of sizes 1..6")
    assert "sizes 1,1,1,3,4,5,6" in msg
    assert "I4" in msg and "K4" in msg


def test_merged_block():
    # E2 joins green's 6-block D2 D3 E3 F3 G3 D4; H1 (green star) turns yellow to keep counts.
    refusal(
        mutate(E2="g", H1="Y"),
        "colour green",
        "sizes 2,3,4,5,7",
        "block of 7 from D2 (line 5)",
        "D2 E2 D3 E3 F3 G3 D4",
    )


def test_moved_star():
    # Green's star moves from G3 to D3: column D gets two stars (with D6), column G none.
    refusal(
        mutate(G3="g", D3="G"),
        "column D has 2 stars, expected 1 (D3 (line 6), D6 (line 9))",
        "column G has 0 stars, expected 1",
    )


def test_extra_and_missing_star():
    refusal(mutate(A1="G"), "colour green has 4 stars, expected 3", "A1 (line 4)")
    refusal(mutate(H1="g"), "colour green has 2 stars, expected 3")


def test_cell_names_round_trip():
    names = [cell_name(col, row) for col in range(N_COLS) for row in range(N_ROWS)]
    assert len(set(names)) == 105
    for col in range(N_COLS):
        for row in range(N_ROWS):
            name = cell_name(col, row)
            assert parse_cell(name) == (col, row)
            assert parse_cell(name.lower()) == (col, row)
    assert cell_name(START_COLUMN, 0) == "H1"
    assert parse_cell("O7") == (14, 6)
    assert COLUMNS[START_COLUMN] == "H"


@pytest.mark.parametrize("bad", ["Z9", "H0", "H8", "P1", "", "H", "1H", "H11", " H1", "H1\n", 7, None])
def test_malformed_cell_names(bad):
    with pytest.raises(ValueError, match="malformed cell name .*A..O.*1..7"):
        parse_cell(bad)


@pytest.mark.parametrize("col,row", [(-1, 0), (15, 0), (0, 7), (0, -1)])
def test_cell_name_off_sheet(col, row):
    with pytest.raises(ValueError):
        cell_name(col, row)


def test_sheet_is_exported():
    import sim

    assert sim.Sheet is Sheet and sim.load_sheet is load_sheet


def test_the_printed_facts_name_every_builtin_sheet():
    assert tuple(FACTS) == BUILTIN_SHEETS


@pytest.mark.parametrize("name", BUILTIN_SHEETS)
def test_builtin_sheet_matches_its_printed_colours_and_stars(name):
    """Each box's colour and each star of the engine's sheet, and of the reference's reading of
    the same file, as typed from the printed pad (tests/helpers/sheet_facts.py)."""
    facts = FACTS[name]
    sheet = load_sheet(name)
    engine_colours = {cell_name(c, r): COLOURS[sheet.colour[r, c]] for r in range(N_ROWS) for c in range(N_COLS)}
    engine_stars = {cell_name(c, r) for r in range(N_ROWS) for c in range(N_COLS) if sheet.star[r, c]}
    want = facts.colours()
    assert {cell: colour for cell, colour in engine_colours.items() if want[cell] != colour} == {}
    assert engine_stars == facts.star_cells()
    ref = R.load_sheet(name)
    assert ref.colour == want and ref.stars == facts.star_cells()
