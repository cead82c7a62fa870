"""Benchmarks: `make bench` (python -m sim.bench [--json] [--quick]).

Speed is measured here and never asserted in tests: the machines are shared
and noisy. Each workload runs after a warm-up, several times; the median is
reported with the machine and versions, beside the target of issue 5.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

from .api import play_chunk

TARGETS = {
    ("greedy", 1): 100_000,
    ("greedy", 4): 15_000,
}


def machine() -> dict:
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "llvm_cpu": numba.config.CPU_NAME or "host",
    }


def games_per_second(spec: str, players: int, repeats: int, threads: int = 1, seconds: float = 1.0) -> float:
    """Median games/s of play_chunk on `threads` threads, after a warm-up that sizes the runs.

    Each timed run plays about `seconds` worth of games, so slow and fast
    strategies cost the benchmark the same time.
    """
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        play_chunk(1, 0, 64, [spec], players=players)
        t = time.perf_counter()
        play_chunk(2, 0, 200, [spec], players=players)
        games = max(200, int(seconds * 200 / (time.perf_counter() - t)))
        rates = []
        for r in range(repeats):
            t = time.perf_counter()
            play_chunk(1000 + r, 0, games, [spec], players=players)
            rates.append(games / (time.perf_counter() - t))
        return statistics.median(rates)
    finally:
        numba.set_num_threads(before)


def runner_games_per_second(threads: int, games: int) -> float:
    """Games/s of a whole run (play, write Parquet) through the runner's API."""
    from .runner import run as run_batch

    with tempfile.TemporaryDirectory() as tmp:
        run_batch(f"{tmp}/warm", games=1000, players=1, strategies=["greedy"], seed=1, threads=threads)
        t = time.perf_counter()
        run_batch(f"{tmp}/run", games=games, players=1, strategies=["greedy"], seed=1, threads=threads)
        return games / (time.perf_counter() - t)


def _peak_rss_kib(pid: int) -> int:
    """VmHWM of a running process (0 if unreadable)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((int(line.split()[1]) for line in f if line.startswith("VmHWM:")), 0)
    except OSError:
        return 0


def _cli(args: list[str], env=None) -> tuple[float, int]:
    """Wall time and peak RSS (KiB) of one `encore-sim` subprocess.

    The peak is polled from /proc: getrusage's ru_maxrss of a child also
    counts the memory of this (large) process at fork time.
    """
    exe = os.path.join(os.path.dirname(sys.executable), "encore-sim")
    peak = 0
    with tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        proc = subprocess.Popen([exe, *args], stdout=subprocess.DEVNULL, stderr=err, env=env)
        while proc.poll() is None:
            peak = max(peak, _peak_rss_kib(proc.pid))
            time.sleep(0.02)
        wall = time.perf_counter() - t
        if proc.returncode != 0:
            err.seek(0)
            raise subprocess.CalledProcessError(proc.returncode, [exe, *args],
                                                stderr=err.read().decode(errors="replace"))
    return wall, peak


def run(quick: bool) -> list[dict]:
    from strategies import REGISTRY

    rows = []
    repeats = 3
    seconds = 0.3 if quick else 0.4
    rates = {}
    for players in (1, 4):
        for name in [n for n in REGISTRY if n != "random"]:  # random has no target; keeps the run under 3 min
            rate = games_per_second(name, players, repeats, seconds=seconds)
            rates[(name, players)] = rate
            target = TARGETS.get((name, players))
            if name == "heuristic":
                target = rates[("greedy", players)] / 2
            rows.append({
                "workload": f"{'solo' if players == 1 else '4 players'}, {name}, 1 thread",
                "value": round(rate), "unit": "games/s",
                "target": round(target) if target else None,
                "ratio": round(rate / target, 2) if target else None,
            })
    if numba.config.NUMBA_NUM_THREADS >= 2:
        one = runner_games_per_second(1, 200_000 if quick else 300_000)
        two = runner_games_per_second(2, 200_000 if quick else 300_000)
        rows.append({"workload": "encore-sim run, solo greedy, 2 threads vs 1", "value": round(two / one, 2),
                     "unit": "x", "target": 1.8, "ratio": round(two / one / 1.8, 2)})
    rows.extend(_cli_rows(quick))
    return rows


def _cli_rows(quick: bool) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = ["run", "--players", "1", "--strategy", "greedy", "--quiet"]
        try:
            _cli([*base, "--games", "1000", "--out", f"{tmp}/warm"])
        except (OSError, subprocess.CalledProcessError) as e:
            return [{"workload": "encore-sim run", "value": None, "unit": "", "target": None,
                     "ratio": None, "error": str(e)}]
        wall, _ = _cli([*base, "--games", "1000", "--out", f"{tmp}/startup"])
        rows.append({"workload": "start-up, run --games 1000, warm cache", "value": round(wall, 2),
                     "unit": "s", "target": 3.0, "ratio": round(3.0 / wall, 2)})
        env = dict(os.environ, NUMBA_CACHE_DIR=f"{tmp}/empty-cache")
        wall, _ = _cli([*base, "--games", "1000", "--out", f"{tmp}/fresh"], env=env)
        rows.append({"workload": "first run, empty Numba cache", "value": round(wall, 2),
                     "unit": "s", "target": 60.0, "ratio": round(60.0 / wall, 2)})
        games = 1_000_000 if quick else 10_000_000
        wall, rss = _cli([*base, "--games", str(games), "--out", f"{tmp}/big"])
        rows.append({"workload": f"peak RSS, solo run of {games:,} games", "value": round(rss / 1024),
                     "unit": "MB", "target": 300, "ratio": round(300 / (rss / 1024), 2)})
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sim.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--quick", action="store_true", help="smaller workloads (about a minute)")
    args = parser.parse_args(argv)
    info = machine()
    t0 = time.perf_counter()
    rows = run(args.quick)
    elapsed = time.perf_counter() - t0
    if args.json:
        print(json.dumps({"machine": info, "results": rows, "seconds": round(elapsed, 1)}, indent=2))
        return
    print(f"machine: {info['cpu']}, {info['cores']} cores; Python {info['python']}, "
          f"numba {info['numba']}, numpy {info['numpy']}")
    print(f"{'workload':48} {'value':>12} {'target':>10} {'ratio':>7}")
    for r in rows:
        value = "error" if r["value"] is None else f"{r['value']:,} {r['unit']}"
        target = "" if r["target"] is None else f"{r['target']:,}"
        ratio = "" if r["ratio"] is None else f"{r['ratio']:.2f}"
        print(f"{r['workload']:48} {value:>12} {target:>10} {ratio:>7}")
        if "error" in r:
            print(f"    {r['error']}")
    print(f"measured in {elapsed:.0f} s")


if __name__ == "__main__":
    main()
