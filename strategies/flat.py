"""The observation as one float32 vector: what a neural network, Stable-Baselines3's MlpPolicy or
PettingZoo's tests take (the learning environments' obs="flat", and a batched strategy that plays
a network trained on them).

    x = flat_observation(obs)        # obs: sim.observe's dict, a batch (leading axis of games)
                                     # or one decision; x: float32 (games, F) or (F,)

Every feature lies in [0, 1] but the scores, in [-1, 1]. The features, in order (P the players,
K + 1 the actions; FEATURES names them, flat_layout(players, k) gives their slices):

    crossed        P * 105   1 where the seat crossed the box (seat, row 1-7, column A-O)
    jokers         P         '!' left / '!' at the start (rules)
    columns        P * 15    1 for the columns the seat completed
    colours        P * 5     1 for the colours it completed
    columns_taken  15        1 for the columns someone completed in an earlier roll
    colours_taken  5         likewise for colours
    score          P         the score if the game ended now / SCORE_SCALE, clipped to [-1, 1]
    dice           36        one-hot faces: the 3 colour dice (green .. orange, joker), then the
                             3 number dice (joker, 1 .. 5), 6 each; all 0 for a die not rolled
    available      6         1 for the dice the observer may use
    roll           1         the roll / (2 x the solo game's rolls), clipped to 1 (solo: 1/60 .. 1/2)
    active         1         1 if the observer is the roll's active player
    rules          9         the rules' numbers (sim.rules R_*) / their largest allowed values
    action_mask    K + 1     1 for the legal actions
    action_cost    K + 1     the '!' each legal action spends / 2
"""
from __future__ import annotations

import numpy as np

from sim.rules import MAX_JOKERS, MAX_PENALTY, MAX_POINTS, MAX_SOLO_ROLLS, R_JOKERS, R_SOLO_ROLLS

#: A score's scale: the rulebook's scores lie in -30 .. 74.
SCORE_SCALE = 100.0
#: The largest value of each of the rules' numbers (sim.rules R_*, in order): the joker's numbers
#: as a bitmask of 1..6, the penalties, the colours that end a table's game, the solo rolls, the
#: free rolls, the '!' at the start, the colour points.
RULES_SCALE = np.array([63, MAX_PENALTY, MAX_PENALTY, 5, MAX_SOLO_ROLLS, MAX_SOLO_ROLLS, MAX_JOKERS, MAX_POINTS,
                        MAX_POINTS], np.float32)
#: The features' names, in order.
FEATURES = ("crossed", "jokers", "columns", "colours", "columns_taken", "colours_taken", "score", "dice",
            "available", "roll", "active", "rules", "action_mask", "action_cost")
_FACES = 6


def flat_layout(players: int, k: int) -> dict[str, slice]:
    """Each feature's slice of the flat vector, for `players` seats and K = k placements."""
    p = players
    sizes = {"crossed": p * 105, "jokers": p, "columns": p * 15, "colours": p * 5, "columns_taken": 15,
             "colours_taken": 5, "score": p, "dice": 6 * _FACES, "available": 6, "roll": 1, "active": 1,
             "rules": len(RULES_SCALE), "action_mask": k + 1, "action_cost": k + 1}
    out, at = {}, 0
    for name in FEATURES:
        out[name] = slice(at, at + sizes[name])
        at += sizes[name]
    return out


def flat_bounds(players: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(low, high), float32: the bounds of every feature (the Box of obs="flat")."""
    layout = flat_layout(players, k)
    size = layout["action_cost"].stop
    low, high = np.zeros(size, np.float32), np.ones(size, np.float32)
    low[layout["score"]] = -1
    return low, high


def flat_observation(obs: dict) -> np.ndarray:
    """sim.observe's observation (a dict of arrays; a batch with a leading axis of games, or one
    decision) as float32 features, (games, F) or (F,), in the order of FEATURES."""
    one = obs["roll"].ndim == 1
    if one:
        obs = {name: a[None] for name, a in obs.items()}
    n = obs["roll"].shape[0]
    rules = obs["rules"].astype(np.float32)
    start = rules[:, R_JOKERS:R_JOKERS + 1]
    jokers = np.divide(obs["jokers"], start, out=np.zeros(obs["jokers"].shape, np.float32), where=start > 0)
    dice = obs["dice"]
    faces = (dice[:, :, None] == np.arange(_FACES)).reshape(n, -1)       # -1 (not rolled) matches no face
    roll = np.minimum(obs["roll"] / (2 * np.maximum(rules[:, R_SOLO_ROLLS:R_SOLO_ROLLS + 1], 1)), 1)
    parts = (obs["crossed"].reshape(n, -1), jokers, obs["columns"].reshape(n, -1), obs["colours"].reshape(n, -1),
             obs["columns_taken"], obs["colours_taken"], np.clip(obs["score"] / SCORE_SCALE, -1, 1), faces,
             obs["available"], roll, obs["active"], rules / RULES_SCALE, obs["action_mask"],
             obs["action_cost"] / np.float32(2))
    x = np.concatenate(parts, axis=1, dtype=np.float32)
    return x[0] if one else x
