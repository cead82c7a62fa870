"""encore-sim: Monte Carlo simulator of the dice game Encore! (Noch mal!)."""

from . import numba_cache  # noqa: F401  (first: every kernel below is cached there)

from .api import StrategyError, legal_placements, play_game
from .sheets import BUILTIN_SHEETS, COLOURS, Sheet, SheetError, cell_name, load_sheet, parse_cell

__all__ = [
    "BUILTIN_SHEETS", "COLOURS", "Sheet", "SheetError", "StrategyError", "cell_name",
    "legal_placements", "load_sheet", "parse_cell", "play_game",
]
