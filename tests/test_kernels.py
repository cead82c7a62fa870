"""Kernel-level facts: bit helpers keep their types, tables agree with the sheet, dice are fair."""
import numpy as np
import pytest

from sim.bits import ctz, popcount, range_mask
from sim.engine import full_columns
from sim.rng import die, game_key
from sim.sheets import BUILTIN_SHEETS, load_sheet
from sim.tables import MAX_NUMBER, N_GROUPS, NW, build_tables, from_words


def test_bit_helpers_return_int64_and_uint64():
    # Numba silently turns mixed signed/unsigned arithmetic into int64 or float64.
    popcount(np.uint64(3)), ctz(np.uint64(4)), range_mask(1, 5)
    assert str(popcount.nopython_signatures[0].return_type) == "int64"
    assert str(ctz.nopython_signatures[0].return_type) == "int64"
    assert str(range_mask.nopython_signatures[0].return_type) == "uint64"
    rng = np.random.default_rng(0)
    for x in rng.integers(1, 2**63, 200, dtype=np.uint64):
        assert popcount(x) == bin(int(x)).count("1")
        assert ctz(x) == (int(x) & -int(x)).bit_length() - 1
    for lo in range(0, 65, 7):
        for hi in range(lo, 65, 5):
            assert int(range_mask(lo, hi)) == ((1 << hi) - (1 << lo))


def test_full_columns_matches_column_by_column_check():
    rng = np.random.default_rng(1)
    for _ in range(500):
        full = rng.random(15) < 0.4
        cells = [(c, r) for c in range(15) for r in range(7) if full[c] or rng.random() < 0.8]
        lo = sum(1 << (8 * c + r) for c, r in cells if c < 8)
        hi = sum(1 << (8 * c + r - 64) for c, r in cells if c >= 8)
        expect = sum(1 << c for c in range(15) if all((c, r) in set(cells) for r in range(7)))
        assert full_columns(np.uint64(lo), np.uint64(hi)) == expect


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


def test_dice_faces_are_uniform_and_independent():
    counts = np.zeros((6, 6), np.int64)
    pairs = np.zeros((6, 6), np.int64)
    for g in range(4000):
        key = np.uint64(game_key(np.uint64(123), g))
        for roll in range(1, 6):
            faces = [die(key, roll, i) for i in range(6)]
            for i, f in enumerate(faces):
                counts[i, f] += 1
            pairs[faces[0], faces[1]] += 1
    n = counts.sum(axis=1)[0]
    # Chi-square with 5 degrees of freedom per die; 30 is far beyond the 0.9999 quantile (25.7).
    for i in range(6):
        chi2 = ((counts[i] - n / 6) ** 2 / (n / 6)).sum()
        assert chi2 < 30, (i, counts[i])
    chi2_pairs = ((pairs - n / 36) ** 2 / (n / 36)).sum()
    assert chi2_pairs < 90  # 35 degrees of freedom; 0.9999 quantile is about 73
