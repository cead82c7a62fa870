"""sim.bits: the bit helpers keep their types, and the byte-wise full-column test (sim.engine's
full_columns, built on them) agrees with a column-by-column check."""
import numpy as np

from sim.bits import ctz, popcount, range_mask
from sim.engine import full_columns


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
