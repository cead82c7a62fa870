"""Calibrate and measure play's levels (strategies.levels): `python -m bench.levels`.

    python -m bench.levels calibrate    # each level's temperatures, by bisection on its targets
    python -m bench.levels measure      # the levels' table of docs/levels.md, on other seeds

Calibration: a level below `learned` is `tempered:temp=T,table_temp=U` (learned's values, the
choice drawn with weight exp(value / T), at tables exp(value / U)). Its solo mean falls as T grows,
so T is set by bisection (on log T) until the mean of CAL_GAMES solo games of seed CAL_SEED is
within CAL_TOLERANCE of the level's target; its win rate at a table of 4 against three `learned`
(seats rotated) falls as U grows, so U is set likewise on CAL_TABLE_GAMES games of seed CAL_SEED,
within CAL_TABLE_TOLERANCE of the level's target win rate. Every evaluation plays the same games
(common dice), so the figure moves smoothly with the temperature.

Measurement, on seeds the calibration did not use: every level and `learned` play the same
MEASURE_SOLO solo games of seed MEASURE_SEED, and the same MEASURE_TABLE games of 4 players of seed
MEASURE_SEED + 1 against three `learned`, rotated through the seats (sim.experiments.compare: paired
differences against `learned` on the same dice, with 95% intervals; win rates with Wilson's).
Run with NUMBA_NUM_THREADS=1 on a shared machine; it prints how long it took.
"""
from __future__ import annotations

import math
import sys
import time

#: Calibration: seed, games, how close to its target a level's solo mean (win rate at a table) must
#: come, bisection steps.
CAL_SEED = 9001
CAL_GAMES = 4000
CAL_TOLERANCE = 0.05
CAL_TABLE_GAMES = 4000
CAL_TABLE_TOLERANCE = 0.0025
CAL_STEPS = 30
#: Temperatures searched (points): from almost learned's choice to almost random among placements.
T_LOW, T_HIGH = 0.01, 20.0
#: Measurement: seed (solo; the tables use the next one), games.
MEASURE_SEED = 9100
MEASURE_SOLO = 20_000
MEASURE_TABLE = 8_000


def solo_mean(spec: str, seed: int = CAL_SEED, games: int = CAL_GAMES) -> float:
    """The mean score of `spec` in solo games 0..games-1 of `seed`."""
    from sim.runs.api import check_chunk, play_chunk
    from sim.state import PS_SCORE
    chunk = play_chunk(seed, 0, games, [spec], players=1)
    check_chunk(chunk)
    return float(chunk.seats[:, 0, PS_SCORE].mean())


def table_win_rate(spec: str, seed: int = CAL_SEED, games: int = CAL_TABLE_GAMES) -> float:
    """The win rate (a shared win counted whole, as compare counts it) of `spec` at a table of 4
    against three `learned`, in games 0..games-1 of `seed`, seats rotated (sim.experiments.compare)."""
    from sim.runs.api import lineup
    from sim.experiments.compare import candidate_results
    line = lineup([spec] + ["learned"] * 3, players=4)
    _, wins = candidate_results(line, seed, 0, games, 4, line.sheet)
    return float(wins.mean())


def bisect(measure, target: float, tolerance: float, lo: float = T_LOW, hi: float = T_HIGH) -> tuple[float, float]:
    """(T, measure(T)) with measure(T) within `tolerance` of `target`, measure falling as T grows
    (bisection on log T; T to three figures, as a level's spec names it)."""
    lo, hi = math.log(lo), math.log(hi)
    for _ in range(CAL_STEPS):
        t = float(f"{math.exp((lo + hi) / 2):.3g}")
        got = measure(t)
        if abs(got - target) <= tolerance:
            break
        if got > target:    # too strong: hotter
            lo = math.log(t)
        else:
            hi = math.log(t)
    return t, got


def calibrate() -> None:
    """Print each level's temperatures, found by bisection on its targets."""
    from strategies.levels import LEVELS
    for lv in LEVELS:
        if lv.target is None:
            print(f"{lv.number} {lv.name:<9} {lv.spec}: solo mean {solo_mean(lv.spec):.2f}, win rate "
                  f"{100 * table_win_rate(lv.spec):.1f}%", flush=True)
            continue
        t, mean = bisect(lambda x: solo_mean(f"tempered:temp={x}"), lv.target, CAL_TOLERANCE)
        u, rate = bisect(lambda x: table_win_rate(f"tempered:table_temp={x}"), lv.table_target, CAL_TABLE_TOLERANCE)
        print(f"{lv.number} {lv.name:<9} tempered:temp={t},table_temp={u}   solo mean {mean:.2f} (target "
              f"{lv.target}), win rate {100 * rate:.2f}% (target {100 * lv.table_target:.1f}%)", flush=True)


def measure() -> str:
    """The levels' table of docs/levels.md (Markdown)."""
    from sim.experiments.compare import compare
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
