"""Calibrate and measure play's levels (strategies.levels): `python -m bench.levels`.

    python -m bench.levels calibrate    # each level's temperature, by bisection on its target solo mean
    python -m bench.levels measure      # the levels' table of docs/levels.md, on other seeds

Calibration: a level below `learned` is `tempered:temp=T` (learned's values, the choice drawn with
weight exp(value / T)); its solo mean falls as T grows, so T is set by bisection (on log T) until
the mean of CAL_GAMES solo games of seed CAL_SEED is within CAL_TOLERANCE of the level's target.
Every evaluation plays the same games (common dice), so the mean moves smoothly with T.

Measurement, on seeds the calibration did not use: every level and `learned` play the same
MEASURE_SOLO solo games of seed MEASURE_SEED, and the same MEASURE_TABLE games of 4 players of seed
MEASURE_SEED + 1 against three `learned`, rotated through the seats (sim.runs.compare: paired
differences against `learned` on the same dice, with 95% intervals; win rates with Wilson's).
Run with NUMBA_NUM_THREADS=1 on a shared machine; it prints how long it took.
"""
from __future__ import annotations

import math
import sys
import time

#: Calibration: seed, games, how close to its target a level's solo mean must come, bisection steps.
CAL_SEED = 9001
CAL_GAMES = 4000
CAL_TOLERANCE = 0.05
CAL_STEPS = 30
#: Temperatures searched (points): from almost learned's choice to almost random among placements.
T_LOW, T_HIGH = 0.01, 20.0
#: Measurement: seed (solo; the tables use the next one), games.
MEASURE_SEED = 9100
MEASURE_SOLO = 20_000
MEASURE_TABLE = 8_000


def solo_mean(spec: str, seed: int = CAL_SEED, games: int = CAL_GAMES) -> float:
    from sim.runs.api import check_chunk, play_chunk
    from sim.state import PS_SCORE
    chunk = play_chunk(seed, 0, games, [spec], players=1)
    check_chunk(chunk)
    return float(chunk.seats[:, 0, PS_SCORE].mean())


def temperature_for(target: float, seed: int = CAL_SEED, games: int = CAL_GAMES) -> tuple[float, float]:
    """(T, the solo mean at T) with the mean within CAL_TOLERANCE of `target` (bisection on log T)."""
    lo, hi = math.log(T_LOW), math.log(T_HIGH)
    for _ in range(CAL_STEPS):
        mid = (lo + hi) / 2
        t = float(f"{math.exp(mid):.3g}")       # three figures: the spec a level names
        mean = solo_mean(f"tempered:temp={t}", seed, games)
        if abs(mean - target) <= CAL_TOLERANCE:
            return t, mean
        if mean > target:   # too strong: hotter
            lo = mid
        else:
            hi = mid
    return t, mean


def calibrate() -> None:
    from strategies.levels import LEVELS
    for lv in LEVELS:
        if lv.target is None:
            print(f"{lv.number} {lv.name:<9} {lv.spec}: solo mean {solo_mean(lv.spec):.2f}", flush=True)
            continue
        t, mean = temperature_for(lv.target)
        print(f"{lv.number} {lv.name:<9} target {lv.target:5.1f}: tempered:temp={t}  (solo mean {mean:.2f} on "
              f"{CAL_GAMES:,} games of seed {CAL_SEED})", flush=True)


def measure() -> str:
    """The levels' table of docs/levels.md (Markdown)."""
    from sim.runs.compare import compare
    from strategies.levels import LEVELS
    specs = [lv.spec for lv in LEVELS]
    base = "learned"
    cands = [base] + [s for s in specs if s != base]
    solo = compare(cands, players=1, games=MEASURE_SOLO, seed=MEASURE_SEED).table.set_index("strategy")
    table = compare(cands, players=4, opponents=base, games=MEASURE_TABLE,
                    seed=MEASURE_SEED + 1).table.set_index("strategy")
    rows = ["| level | bots play | solo mean (95% CI) | - `learned`, paired (95% CI) | 4 players against 3 `learned`: "
            "win rate (95% CI) | - `learned`'s win rate, paired (95% CI) | mean score |",
            "|---|---|---|---|---|---|---|"]
    for lv in LEVELS:
        s, t = solo.loc[lv.spec], table.loc[lv.spec]
        same = lv.spec == base
        rows.append(
            f"| {lv.number} {lv.name} | `{lv.spec}` | {s['mean']:.2f} ({s['ci_low']:.2f}..{s['ci_high']:.2f}) | "
            + ("" if same else f"{s['diff']:+.2f} ({s['diff_ci_low']:+.2f}..{s['diff_ci_high']:+.2f})") + " | "
            f"{100 * t['win_rate']:.1f}% ({100 * t['win_ci_low']:.1f}..{100 * t['win_ci_high']:.1f}) | "
            + ("" if same else f"{100 * t['win_diff']:+.1f} ({100 * t['win_diff_ci_low']:+.1f}.."
                               f"{100 * t['win_diff_ci_high']:+.1f})") + f" | {t['mean']:.2f} |")
    return "\n".join(rows)


if __name__ == "__main__":
    t0 = time.monotonic()
    what = sys.argv[1] if len(sys.argv) > 1 else "measure"
    if what == "calibrate":
        calibrate()
    elif what == "measure":
        print(measure())
    else:
        sys.exit("usage: python -m bench.levels [calibrate|measure]")
    print(f"({time.monotonic() - t0:.0f} s)")
