"""encore-sim: Monte Carlo simulator of the dice game Encore! (Noch mal!)."""

from .sheets import BUILTIN_SHEETS, COLOURS, Sheet, SheetError, cell_name, load_sheet, parse_cell
