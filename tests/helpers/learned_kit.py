"""What the tests of learned's value and decisions share: a seed and the standard sheet's search kit."""
import numpy as np

from sim.sheets import load_sheet
from sim.tables import N_GROUPS, kernel_tables
from strategies import learned_value as V
from strategies import learned_weights as WF
from strategies.features import EXPECT_SIZE

SEED = 20261202


def standard_search_kit():
    """The standard sheet's kernel tables, its shipped solo weights (float64) and the scratch of
    a decision and of next_roll_value."""
    ktab = kernel_tables(load_sheet("standard"))
    W = np.asarray(WF.weights_array(load_sheet("standard")), np.float64).ravel()
    return ktab, W, V.new_scratch(ktab), (np.empty(N_GROUPS), np.empty(EXPECT_SIZE))
