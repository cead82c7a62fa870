"""Every default of the commands, defined once: the layers below and both front ends read them here.

Plain constants that import nothing, so that the command line can show them in its help without
loading the engine.
"""
#: run: games, the strategy of every seat, and where its dataset goes when not told (a new
#: folder per run, named by when it started).
RUN_GAMES = 100_000
RUN_STRATEGY = "greedy"
#: compare-rules without --train: plays `learned`'s seats where it has no weights (it needs none)
STAND_IN = "heuristic"
RUN_FOLDER = "results/run-%Y%m%d-%H%M%S"
#: A run's games per Parquet file when not told: solo, at tables; with the turns table (a row
#: per decision) fewer, so that a file stays small.
RUN_CHUNK = {"solo": 50_000, "table": 10_000}
RUN_CHUNK_TURNS = {"solo": 5_000, "table": 1_000}
#: Several strategies at a table take turns in the seats from game to game.
ROTATE = True
#: run --scheduler: retries of a chunk whose task failed.
RETRIES = 3
#: The root seed: game g of seed 0 is the same game in every command.
SEED = 0
SHEET = "standard"
#: The roll cap of a table's game (a game still running then ends, flagged as capped).
MAX_ROLLS = 200
#: compare, tune and train play the solo game unless told.
PLAYERS = 1
#: What a command prints when not told (--format): a table for reading.
FORMAT = "table"
#: summary's rows: None is a row per seat where one strategy holds every seat of a table, as `run`
#: prints it, else a row per strategy.
SUMMARY_BY = None

#: compare and compare-rules: games when neither games nor until_ci is given, and until_ci's limit;
#: the largest batch (until_ci checks after each).
COMPARE_GAMES = 10_000
COMPARE_MAX_GAMES = 1_000_000
COMPARE_CHUNK = {"solo": 20_000, "table": 5_000}
#: compare-rules: also play each rule set B with learned's weights of A's rules (what B's own gain).
CHECK_ADAPTATION = True
#: compare-rules --by: the second measure of a sweep's ranking and of its figure.
SWEEP_VERSUS = "score"

#: tune: the games the whole search may play, what it maximises, and the games of its validation.
TUNE_BUDGET = 100_000
TUNE_OBJECTIVE = "score"
TUNE_VALIDATE_GAMES = {"solo": 20_000, "table": 5_000}

#: analyse: rollouts per decision (0: learned's value judges), learned's best choices rolled out
#: in the improvement step, the largest mistakes listed.
ANALYSE_ROLLOUTS = 0
ANALYSE_TOP = 4
ANALYSE_MISTAKES = 10

#: bound: solo games, their seed, the states the beam search keeps after each roll.
BOUND_GAMES = 1000
BOUND_SEED = 1
BOUND_BEAM = 512

#: train: its games (solo; per table size, the shipped weights' own), its seed (7: no other
#: command's default plays the games it learns from), and the step size at its start and end.
TRAIN_GAMES = 5_000_000
TRAIN_TABLE_GAMES = {2: 300_000, 3: 200_000, 4: 600_000, 5: 120_000, 6: 100_000}
TRAIN_SEED = 7
TRAIN_STEP = (0.5, 0.03)

#: play and es.game: the table you sit at (seat 0), the bots' strategy when no level is given,
#: how results name you, and where the game's dataset goes when not told.
PLAY_PLAYERS = 4
#: The most seats at play's table (sim.state.MAX_SEATS, which cannot be imported before the page is up).
PLAY_MAX_PLAYERS = 6
#: the game of the seed you play (its dice are `run`'s game of that number).
PLAY_GAME = 0
PLAY_OPPONENTS = "learned"
PLAY_LABEL = "you"
PLAY_FOLDER = "results/play-%Y%m%d-%H%M%S"

#: The learning environments (sim.agents.envs, sim.agents.aec; es.env, es.vector_env, es.aec_env): the
#: agent's reward, the other seats' strategy at a table, a vector env's games, an AEC env's table.
ENV_REWARD = "score"
ENV_OPPONENTS = "greedy"
VECTOR_ENVS = 64
AEC_PLAYERS = 4

#: run --trace: the sample rolls each roll's luck at a table is measured against (solo: the exact
#: mean over every face), and the win model's fit: learned's self-play games and their seed (63:
#: no other command's default plays these games).
TRACE_LUCK_SAMPLES = 8
TRACE_FIT_GAMES = 20_000
TRACE_FIT_SEED = 63
