"""encore-sim's commands, one function each: the layer under both front ends.

`cli.py` parses a command line, calls the function of its command and prints the result;
`encore_sim.py` calls the same function and turns its result into DataFrames. What a command
decides (its defaults, the checks that span several settings, the output folder a run gets, the
settings a resumed run keeps) is decided here, once, so that the two front ends cannot disagree.
Each function returns a result object: a dataclass of its own, or the layer below's result.

Errors are SettingError (sim.errors) wherever they concern a setting: each front end names the
setting its own way (`--force` on the command line, `force=True` in Python).

A keyword whose default is a Default is a setting the command tells apart from the same value
given: a resumed run keeps those not given from its manifest, and a replay of a dataset refuses
those given, as it plays the dataset's own. Every other default is sim.runs.defaults'.

    base       the Default marker, training on demand, a dataset's rules
    games      run, compare, compare_rules, replay, moves, strategies
    datasets   summary, analyse, report
    searches   tune, train, bound, weights
    play       play (the page) and game (your game from Python)
    agents     env, vector_env, aec_env: the learning environments
"""
from .base import Default, check_file, default, value
from .datasets import analyse, report, summary
from .games import RunResult, compare, compare_rules, moves, replay, run, run_folder, strategies
from .searches import bound, train, tune, weights
from .play import game, play
from .agents import aec_env, env, sb3_vec_env, vector_env

#: Every command's function, by the command's name.
COMMANDS = {"run": run, "summary": summary, "compare": compare, "compare-rules": compare_rules, "tune": tune,
            "train": train, "replay": replay, "analyse": analyse, "report": report, "bound": bound,
            "moves": moves, "strategies": strategies, "weights": weights}
#: The commands of the command line alone: `play` serves a page until Ctrl-C; from Python, `game`
#: is the same game without the page.
SERVED = {"play": play}

__all__ = ["COMMANDS", "SERVED", "play", "env", "vector_env", "aec_env", "sb3_vec_env", "Default", "RunResult", "check_file", "default", "value", "run_folder", "game",
           *(f.__name__ for f in COMMANDS.values())]
