"""Each play level's loss per decision against `learned`: what the play page's rating of a person
(sim.play.analysis.rating) places them by. `python -m bench.levelloss [GAMES]`.

Each level's bots (strategies.levels) play GAMES solo games of seed SEED, and GAMES games of 4
players of seed SEED + 1 against three `learned`, seats rotated; `encore-sim analyse` then judges
every decision of the level's seats against learned's choice (analyse's loss: learned's value of
its best choice minus that of the choice made). Printed: each level's mean loss per decision with
its 95% interval, solo and at the table, and the Level fields to paste into strategies/levels.py.
Run with NUMBA_NUM_THREADS=1 on a shared machine; it prints how long it took.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

SEED = 9300
GAMES = 400


def loss_per_decision(spec: str, players: int, seed: int, games: int, where: Path) -> tuple[float, float]:
    """(mean loss per decision of `spec`'s seats, its 95% half-width) over `games` games."""
    import encore_sim as es
    from sim.research.analyse import analyse
    strategies = [spec] if players == 1 else [spec, "learned", "learned", "learned"]
    out = where / f"{players}-{abs(hash(spec))}"
    es.run(out=out, strategy=strategies, players=players, games=games, seed=seed, rotate=players > 1,
           threads=1, log_turns=True)
    a = analyse(out, strategy=spec, threads=1, mistakes=0)
    rows = [r for r in a.rows if r["strategy"] == spec and r["seat"] is None]
    return rows[0]["loss_per_decision"], rows[0]["loss_per_decision_ci"]


def main(games: int = GAMES) -> None:
    from strategies.levels import LEVELS
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        print("| level | name | solo loss per decision (95% CI) | 4 players, against 3 learned (95% CI) |")
        print("|---|---|---|---|")
        for lv in LEVELS:
            solo = loss_per_decision(lv.spec, 1, SEED, games, Path(tmp))
            table = loss_per_decision(lv.spec, 4, SEED + 1, games, Path(tmp))
            print(f"| {lv.number} | {lv.name} | {solo[0]:.3f} (±{solo[1]:.3f}) | {table[0]:.3f} (±{table[1]:.3f}) |",
                  flush=True)
    print(f"{games} games each, {time.monotonic() - t0:.0f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else GAMES)
