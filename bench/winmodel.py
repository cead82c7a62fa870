"""Fit the shipped win models of the trace (sim.runs.winmodel) and print their calibration.

    python -m bench.winmodel                  # fit every shipped one, write sim/runs/data/winmodel.json
    python -m bench.winmodel --players 4      # only 4 players (rulebook), kept beside the others
    python -m bench.winmodel --check          # only the calibration on unseen seeds (docs/trace.md)

Each is fitted on TRACE_FIT_GAMES games of learned's self-play (sim.runs.defaults), for the
shipped weights of the standard sheet at 2-6 players under the rulebook, and of the rule sets
shipped at 4 players.
"""
import argparse
import time
from pathlib import Path

from sim.rules import parse_rules
from sim.runs import trace, winmodel
from sim.runs.defaults import TRACE_FIT_GAMES

#: (players, rules text) of the shipped models, on the standard sheet.
SHIPPED = [(2, ""), (3, ""), (4, ""), (5, ""), (6, ""), (4, "end-colours=3"), (4, "pass-penalty=1")]
OUT = Path(__file__).resolve().parents[1] / "sim" / "runs" / "data" / winmodel.SHIPPED


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, action="append")
    ap.add_argument("--games", type=int, default=TRACE_FIT_GAMES)
    ap.add_argument("--check", action="store_true", help="only print the calibration")
    ap.add_argument("--check-games", type=int, default=20_000, help="unseen games to check on (0: none)")
    a = ap.parse_args(argv)
    models = winmodel.shipped()
    for players, text in SHIPPED:
        if a.players and players not in a.players:
            continue
        rules = parse_rules(text)
        name = winmodel.key("standard", players, rules)
        if not a.check:
            t = time.monotonic()
            m = trace.fit_model("standard", players, rules, a.games)
            models[name] = m.to_dict()
            winmodel.write_shipped(models, OUT)
            print(f"{name}: fitted on {a.games:,} games in {time.monotonic() - t:.0f} s")
        if not a.check_games:
            continue
        cal = trace.calibration("standard", players, rules, a.check_games,
                                   model=winmodel.WinModel.from_dict(models[name]))
        worst = (cal["predicted"] - cal["observed"]).abs().max()
        print(f"{name}: calibration on {a.check_games:,} unseen games, largest gap {worst:.1f} points")
        print(cal.to_string(index=False, float_format=lambda x: f"{x:.1f}"))


if __name__ == "__main__":
    main()
