"""Digests of fixed runs: the check that a change to the kernels plays the same games.

`python -m bench.digests` prints, for each of a fixed set of runs of seed 4242 (solo and
2-6 players, every sheet kind of line-up, move logs on and off), the sha256 of everything its
chunk holds: games, seats, slots, dice and move log. Two revisions play the same games when
their lines are equal (run each from its own checkout): the check for a change that must not
change the games, such as compile work or a rewritten kernel.
"""
from __future__ import annotations

import hashlib

#: (strategies, players, sheet, games, move log)
RUNS = (
    (["learned"], 1, "standard", 3000, False),
    (["learned"], 1, "red", 2000, False),
    (["learned:top=2,close=0.25"], 1, "standard", 300, False),
    (["learned", "greedy"], 2, "standard", 1500, False),
    (["learned", "lookahead", "heuristic", "greedy"], 4, "standard", 600, False),
    (["learned"] * 6, 6, "standard", 300, False),
    (["heuristic"], 1, "standard", 2000, False),
    (["greedy"], 1, "standard", 3000, True),
    (["random", "greedy", "heuristic"], 3, "green", 500, True),
    (["learned"], 1, "standard", 300, True),
    (["learned"] * 4, 4, "blue", 200, True),
)
SEED = 4242


def chunk_digest(chunk) -> str:
    """sha256 (16 hex digits) of a chunk's arrays: games, seats, slots, dice and move log."""
    h = hashlib.sha256()
    for a in (chunk.games, chunk.seats, chunk.slots, chunk.dice_start, chunk.dice, chunk.log_start, chunk.log):
        if a is not None:
            h.update(a.tobytes())
    return h.hexdigest()[:16]


def digests(runs=RUNS):
    """(description, digest) of each run."""
    from sim.runs.api import play_chunk
    for specs, players, sheet, games, log in runs:
        chunk = play_chunk(SEED, 0, games, specs, players=players, sheet=sheet, rotate=players > 1, log_turns=log)
        yield f"{'+'.join(dict.fromkeys(specs))} x{players} {sheet} {games}{' logged' if log else ''}", \
            chunk_digest(chunk)


if __name__ == "__main__":
    for name, digest in digests():
        print(f"{digest}  {name}", flush=True)
