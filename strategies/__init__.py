"""Strategies: functions that pick one of the engine's legal choices.

A strategy sees only the state arrays documented in sim.state; it never
generates placements itself. ``REGISTRY`` maps a name to (function, summary).
"""
from .builtin import greedy, random_choice

REGISTRY = {
    "random": (random_choice, "uniform over the legal choices, pass included"),
    "greedy": (greedy, "most boxes crossed now; fewest jokers on ties"),
}
