"""sim.tables: the placement tables agree with the sheet they are built from."""
import pytest

from sim.sheets import BUILTIN_SHEETS, load_sheet
from sim.tables import MAX_NUMBER, N_GROUPS, NW, build_tables, from_words


@pytest.mark.parametrize("name", BUILTIN_SHEETS)
def test_tables_describe_the_sheet(name):
    sheet, tab = load_sheet(name), build_tables(name)
    k = len(tab.size)
    assert 250 < k <= NW * 64
    for i in range(k):
        cells = from_words(*tab.mask[i])
        assert len(cells) == tab.size[i] <= 5
        assert {int(sheet.colour[r, c]) for c, r in cells} == {int(tab.colour[i])}
        assert tab.stars[i] == sum(bool(sheet.star[r, c]) for c, r in cells)
    # (colour, size) groups are contiguous and cover every row once.
    for g in range(N_GROUPS):
        rows = range(tab.gstart[g], tab.gstart[g + 1])
        assert all(tab.colour[i] == g // MAX_NUMBER and tab.size[i] == g % MAX_NUMBER + 1 for i in rows)
    assert tab.gstart[0] == 0 and tab.gstart[N_GROUPS] == k
    # Single boxes: one subset per box, 105 in all.
    assert sum(tab.size == 1) == 105
