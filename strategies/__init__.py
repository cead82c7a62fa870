"""Strategies: functions that pick one of the engine's legal choices.

A strategy sees only the state arrays documented in sim.state and the legal
choices the engine enumerated; it never generates placements itself.
"""
from .flat import flat_observation
from .interface import Strategy, batched, placement_table, strategy
from .registry import REGISTRY, Resolved, labels, resolve

__all__ = ["REGISTRY", "Resolved", "Strategy", "batched", "flat_observation", "labels", "placement_table", "resolve",
           "strategy"]
