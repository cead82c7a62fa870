"""encore-sim: Monte Carlo simulator of the dice game Encore! (Noch mal!).

This package's own modules are the rules and the kernels; `sim.runs` holds the runs, files and
the Python API built on them (`sim.runs.api.play_game`, `legal_placements`, ...)."""

from . import numba_cache  # noqa: F401  (first: every kernel below is cached there)
from . import nbinline  # noqa: F401  (before any compile: Numba's inliner without its quadratic copy)

from .sheets import BUILTIN_SHEETS, COLOURS, Sheet, SheetError, cell_name, load_sheet, parse_cell

__all__ = ["BUILTIN_SHEETS", "COLOURS", "Sheet", "SheetError", "cell_name", "load_sheet", "parse_cell"]
