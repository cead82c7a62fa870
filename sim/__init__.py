"""encore-sim: Monte Carlo simulator of the dice game Encore! (Noch mal!)."""

from . import numba_cache  # noqa: F401  (first: every kernel below is cached there)

from .sheets import BUILTIN_SHEETS, COLOURS, Sheet, SheetError, cell_name, load_sheet, parse_cell

__all__ = [
    "BUILTIN_SHEETS", "COLOURS", "Sheet", "SheetError", "StrategyError", "cell_name",
    "legal_placements", "load_sheet", "parse_cell", "play_game",
]

_FROM_API = ("StrategyError", "legal_placements", "play_game")


def __getattr__(name):
    # The API loads (or compiles) the batch kernel; importing `sim` for anything else,
    # e.g. the benchmark's cold-cache measurement, should not.
    if name in _FROM_API:
        from . import api
        return getattr(api, name)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
