"""Games played under rule variants, as the logs tests/helpers/checker.py replays.

sim.runs.api.play_game takes no rules, so a game under a variant is logged as play_game logs a
rulebook game: one game played into a chunk with its move log (play_chunk, rules=...), turned into
the log by sim.runs.gamelog.game_log.
"""
from sim.runs.api import DEFAULT_MAX_ROLLS, check_chunk, chunk_max_rolls, play_chunk
from sim.runs.gamelog import game_log
from sim.sheets import load_sheet


def play_logged(seed, game, strategies, sheet="standard", max_rolls=DEFAULT_MAX_ROLLS, rules=None) -> dict:
    """The log of game `game` of root seed `seed` under `rules` (a --rules text or sim.rules.Rules)."""
    sheet = load_sheet(sheet)
    chunk = play_chunk(seed, game, 1, list(strategies), sheet=sheet, max_rolls=max_rolls, log_turns=True, rules=rules)
    check_chunk(chunk)
    return game_log(chunk, sheet, chunk_max_rolls(max_rolls, len(strategies), chunk.rules))
