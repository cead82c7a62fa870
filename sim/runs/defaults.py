"""Every default of the commands, defined once: the layers below and both front ends read them here.

Plain constants that import nothing, so that the command line can show them in its help without
loading the engine.
"""
#: run: games, the strategy of every seat, and where its dataset goes when not told (a new
#: folder per run, named by when it started).
RUN_GAMES = 100_000
RUN_STRATEGY = "greedy"
RUN_FOLDER = "results/run-%Y%m%d-%H%M%S"
#: Several strategies at a table take turns in the seats from game to game.
ROTATE = True
#: The root seed: game g of seed 0 is the same game in every command.
SEED = 0
SHEET = "standard"
#: The roll cap of a table's game (a game still running then ends, flagged as capped).
MAX_ROLLS = 200
#: compare and compare-rules: games when neither games nor until_ci is given, and until_ci's limit.
COMPARE_GAMES = 10_000
COMPARE_MAX_GAMES = 1_000_000
#: play and es.game: the table you sit at (seat 0), the bots' strategy when no level is given,
#: how results name you, and where the game's dataset goes when not told.
PLAY_PLAYERS = 4
PLAY_OPPONENTS = "learned"
PLAY_LABEL = "you"
PLAY_FOLDER = "results/play-%Y%m%d-%H%M%S"
