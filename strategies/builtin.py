"""The built-in strategies, each a decision function with sim.state.DECIDE_SIG.

`random` and `greedy` are the engine's reference players (sim.players): the
game loop recognises these functions and runs them inline.
"""
from sim import players

from .interface import strategy

# Neither weighs a rule's points: greedy crosses the most boxes it may, random any legal choice.
random_choice = strategy(players.random_choice, name="random", reads_rules=())
greedy = strategy(players.greedy, name="greedy", reads_rules=())

from .heuristic import heuristic  # noqa: E402
from .lookahead import lookahead  # noqa: E402
from .learned import learned  # noqa: E402
from .recorded import recorded  # noqa: E402
from .tempered import tempered  # noqa: E402

BUILTIN = (random_choice, greedy, heuristic, lookahead, learned, tempered, recorded)
