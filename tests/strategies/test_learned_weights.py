"""strategies.learned_weights: the shipped weights of every sheet, and a weights file that cannot be
used refused in one line."""
import importlib.resources

import numpy as np
import pytest

from sim.sheets import load_sheet
from sim.tables import kernel_tables
from strategies import learned_value as V
from strategies import learned_weights as WF

SHEETS = ["standard", "red", "blue", "green", "orange", "yellow"]


@pytest.mark.parametrize("sheet", SHEETS)
def test_shipped_weights_of_every_sheet(sheet):
    sheet_obj = load_sheet(sheet)
    with importlib.resources.as_file(WF.shipped_file(sheet_obj)) as path:
        w = WF.read_weights(path, sheet_obj)
    assert w.shape == (V.N_T, V.N_FEAT) and w.dtype == np.float32
    assert np.isfinite(w).all()
    assert not w[0].any(), "V after the last roll must be 0"
    assert np.abs(w[1:]).sum() > 0, "the shipped weights are untrained zeros"
    # What the strategy reads after its parameters: the sheet's layout, then these weights, row
    # after row.
    data = WF.weights_data(sheet_obj)
    assert np.array_equal(data[:V.LAY_SIZE].view(np.int64), V.sheet_layout(kernel_tables(sheet_obj)))
    assert np.array_equal(data[V.LAY_SIZE:].view(np.float32), w.ravel())


def test_weights_file_errors(tmp_path):
    blue, standard = load_sheet("blue"), load_sheet("standard")
    good = tmp_path / "good.npz"
    WF.save_weights(good, np.zeros((V.N_T, V.N_FEAT)), standard, 0, 0)
    with pytest.raises(WF.WeightsError, match="trained for sheet 'standard', not for this sheet \\('blue'\\)"):
        WF.read_weights(good, blue)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(WF.WeightsError, match="junk.npz is not a weights file"):
        WF.read_weights(tmp_path / "junk.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(WF.WeightsError, match="other.npz is not a weights file"):
        WF.read_weights(tmp_path / "other.npz")
    truncated = tmp_path / "cut.npz"
    truncated.write_bytes(good.read_bytes()[:2000])
    with pytest.raises(WF.WeightsError, match="cut.npz is not a weights file"):
        WF.read_weights(truncated)
    with np.load(good) as f:
        fields = dict(f)
    np.savez(tmp_path / "shape.npz", **{**fields, "W": np.zeros((3, 4), np.float32)})
    with pytest.raises(WF.WeightsError, match="damaged weights"):
        WF.read_weights(tmp_path / "shape.npz")
    with pytest.raises(WF.WeightsError, match="does not exist"):
        WF.read_weights(tmp_path / "missing.npz")
