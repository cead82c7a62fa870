"""Benchmarks: `make bench` (python -m bench.bench [--json] [--quick] [--all]).

Speed is measured here and never asserted in tests: the machines are shared
and noisy. Each workload runs after a warm-up, several times; the median is
reported with the machine and versions, beside the project's speed targets.
The rows are the workloads of those targets (greedy, heuristic, learned); --all adds
every other built-in strategy, which costs each one's compilation on a cold cache, and the
training rows (--training measures those alone). Without
--quick, the cold-start rows close the table (bench.coldstart: CPU seconds of a
user's first commands, beside the code before the compile work, measured in the same run).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from sim import numba_cache

TARGETS = {
    ("greedy", 1): 100_000,
    ("greedy", 4): 15_000,
}
#: Targets as a share of greedy's games/s on the same machine: a shared machine's speed varies, a
#: ratio measured in one run much less.
GREEDY_SHARE = {
    ("heuristic", 1): 0.5,
    ("heuristic", 4): 0.5,
    ("learned", 1): 0.16,
    ("learned", 4): 0.11,
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


def games_per_second(spec, players: int, repeats: int, threads: int = 1, seconds: float = 1.0,
                     rotate: bool = False, checked: bool = True) -> float:
    """Median games/s of play_chunk on `threads` threads; `spec` is one strategy spec for every
    seat, or a list of one per seat (rotated with `rotate`); `checked`: a user's file compiled
    with bounds checking (as run plays it without --unchecked).

    Only play is timed. The strategies are resolved once, before timing: resolving a spec
    that names a user's file loads and compiles the file again (0.1-0.2 s a call), which a
    run does once. Each timed run is sized by time, not by a short trial: the trial run
    doubles until it lasts a quarter of `seconds`, and each timed run then plays about
    `seconds` worth of games, so slow and fast strategies cost the benchmark the same time.
    """
    from sim.runs.api import lineup, play_chunk

    specs = [spec] if isinstance(spec, str) else list(spec)
    line = lineup(specs, players=players, checked=checked)
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        play_chunk(1, 0, 64, line, players=players, rotate=rotate)   # compiles what is not cached
        games, took = 100, 0.0
        while took < seconds / 4:
            games *= 2
            t = time.perf_counter()
            play_chunk(2, 0, games, line, players=players, rotate=rotate)
            took = time.perf_counter() - t
        games = max(games, int(games * seconds / took))
        rates = []
        for r in range(repeats):
            t = time.perf_counter()
            play_chunk(1000 + r, 0, games, line, players=players, rotate=rotate)
            rates.append(games / (time.perf_counter() - t))
        return statistics.median(rates)
    finally:
        numba.set_num_threads(before)


def runner_scaling(games: int, rounds: int, chunk_size: int | None = None) -> float:
    """Median over `rounds` of (games/s of a whole run on 2 threads) / (the same on 1 thread).

    The two runs of a round are back to back, and every other round runs them in
    the opposite order: this VM's speed drifts in phases of seconds, and each ratio
    should see one phase on both sides.
    """
    from sim.runs.runner import run as run_batch

    def rate(tmp, threads, name):
        t = time.perf_counter()
        run_batch(f"{tmp}/{name}", games=games, players=1, strategies=["greedy"], seed=1, threads=threads,
                  chunk_size=chunk_size)
        return games / (time.perf_counter() - t)

    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for threads in (1, 2):
            run_batch(f"{tmp}/warm{threads}", games=1000, players=1, strategies=["greedy"], seed=1, threads=threads)
        for r in range(rounds):
            order = (1, 2) if r % 2 == 0 else (2, 1)
            rates = {threads: rate(tmp, threads, f"{threads}-{r}") for threads in order}
            ratios.append(rates[2] / rates[1])
    return statistics.median(ratios)


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


#: The strategies with a target; every other one is measured with --all.
TARGETED = ("greedy", "heuristic", "learned")
#: `make run`'s table (Makefile), measured with --all.
MAKE_RUN_LINEUP = ("learned", "lookahead", "heuristic", "greedy")
#: greedy's own decision function, called as a user's strategy file is (sim.players.greedy
#: through the plug-in call), where the engine otherwise runs it inline.
CALLED_GREEDY = """from sim.players import greedy


def choose(st, ps, bb, cands, n, tab, params, rng):
    return greedy(st, ps, bb, cands, n, tab, params, rng)
"""


def run(quick: bool, everything: bool = False) -> list[dict]:
    """The rows of the benchmark; each says in "seconds" how long measuring it took
    (compilation included: that is where a cold cache's minute goes)."""
    from strategies import REGISTRY

    names = list(TARGETED) + ([n for n in REGISTRY if n not in TARGETED] if everything else [])
    with tempfile.TemporaryDirectory() as tmp:
        rows = [_timed(_first_run_row, tmp)]
        if rows[0]["value"] is None:
            return rows
        seed_cache(Path(tmp, "empty-cache", numba_cache.cache_base().name), numba_cache.cache_base())
        rows.extend(_throughput_rows(names, quick))
        inline = next(r["value"] for r in rows if r["workload"] == "solo, greedy, 1 thread")
        rows.append(_timed(_plugin_row, tmp, inline, quick))
        rows.append(_timed(_plugin_row, tmp, inline, quick, False))
        rows.append(_timed(_batched_row, quick))
        rows.extend(_vector_rows(quick))
        rows.extend(_sb3_rows(quick))
        if everything:
            rows.append(_timed(_lineup_row, quick))
            compiled = {r["workload"]: r["value"] for r in rows}
            rows.extend(_python_rows(tmp, quick, compiled))
        if everything:
            rows.extend(training_rows(quick))
        if numba.config.NUMBA_NUM_THREADS >= 2:
            rows.append(_timed(_scaling_row, quick))
        rows.append(_timed(_startup_row, tmp))
        if not quick:
            from . import coldstart
            t = time.perf_counter()
            cold = coldstart.rows()
            for r in cold:
                r["seconds"] = round((time.perf_counter() - t) / len(cold), 1)
            rows.extend(cold)
        # Alone: a run started while this process compiles into the same cache can miss
        # the cache and compile too, and LLVM's memory would count as the run's.
        rows.append(_timed(_memory_row, tmp, 1_000_000 if quick else 10_000_000))
    return rows


def _timed(step, *args) -> dict:
    t = time.perf_counter()
    row = step(*args)
    row["seconds"] = round(time.perf_counter() - t, 1)
    return row


def _plugin_row(tmp: str, inline_rate: float, quick: bool, checked: bool = True) -> dict:
    """greedy called through the plug-in interface against the inlined greedy (the row before):
    the engine's share of any called strategy's time, watched (sim.guard) and compiled with
    bounds checking, or (not `checked`) as --unchecked compiles it."""
    path = Path(tmp, "called_greedy.py")
    path.write_text(CALLED_GREEDY)
    rate = games_per_second(f"{path}:choose", 1, 3, seconds=0.3 if quick else 0.4, checked=checked)
    return {"workload": f"solo, greedy called as a user's file{'' if checked else ', --unchecked'}, 1 thread",
            "value": round(rate), "unit": "games/s", "target": round(inline_rate),
            "ratio": round(rate / inline_rate, 2)}


#: The NumPy greedy of docs/agents.md: a batched strategy (one Python call per batch of games).
BATCHED_GREEDY = f"{numba_cache.ROOT / 'docs' / 'examples' / 'batched_greedy.py'}:greedy"
#: The aim for it, solo on one core: 50 times greedy in plain Python (--python).
BATCHED_TARGET = 20_000


def _batched_row(quick: bool) -> dict:
    """The NumPy batched greedy solo: its decisions made in Python, a batch of games at a time."""
    rate = games_per_second(BATCHED_GREEDY, 1, 3, seconds=0.3 if quick else 0.6)
    return {"workload": "solo, NumPy batched greedy, 1 thread", "value": round(rate), "unit": "games/s",
            "target": BATCHED_TARGET, "ratio": round(rate / BATCHED_TARGET, 2)}


#: The aim for the vector env: solo decisions a second on one core, with random masked actions.
VECTOR_TARGET = 1_000_000
#: Games a vector env steps per call in the benchmark: enough that one call's Python costs nothing (2 us
#: against 1 ms), few enough that the games' arrays (3 KB each) stay in the caches.
VECTOR_ENVS = 1024


def vector_steps_per_second(seconds: float, repeats: int, num_envs: int = VECTOR_ENVS, players: int = 1) -> dict:
    """Median steps (decisions) a second of the vector env (sim.agents.envs.EncoreVectorEnv) with
    uniformly random legal actions, in the calling thread's CPU time (its kernels use no other
    thread; CPU time, as "one core" says, where the machine's other jobs would otherwise count):
    "kernels", sim.vector.step_rows and the compiled random_actions called directly; "step",
    step_rows alone; "api", VectorEnv.step (copy=False) and env.random_actions, Gymnasium's
    interface."""
    from sim import vector
    from sim.agents.envs import EncoreVectorEnv

    env = EncoreVectorEnv(num_envs, players=players, seed=1, copy=False)
    env.reset()
    step, b, masks = vector.compiled()[1], env.batch, env.masks
    state, actions = np.array([1], np.uint64), np.empty(num_envs, np.int64)
    calls = max(1, int(seconds * 1_000_000 / num_envs))     # about `seconds` at 1 M steps/s
    for _ in range(3):
        vector.random_actions(masks, state, actions)
        step(b, actions)
    rates = {"kernels": [], "step": [], "api": []}
    clock = time.thread_time
    for _ in range(repeats):
        stepping = 0.0
        t = clock()
        for _ in range(calls):
            vector.random_actions(masks, state, actions)
            s = clock()
            step(b, actions)
            stepping += clock() - s
        rates["kernels"].append(calls * num_envs / (clock() - t))
        rates["step"].append(calls * num_envs / stepping)
        t = clock()
        for _ in range(calls):
            env.step(env.random_actions(state))
        rates["api"].append(calls * num_envs / (clock() - t))
    return {k: statistics.median(v) for k, v in rates.items()}


def _vector_rows(quick: bool) -> list[dict]:
    """The solo vector env with random masked actions, one core's CPU time: the kernels, the step
    alone, and through Gymnasium's VectorEnv.step; against the aim of a million decisions a
    second. (No row without the rl extra, which the environments need.)"""
    try:
        import gymnasium  # noqa: F401
    except ImportError:
        return []
    t = time.perf_counter()
    rates = vector_steps_per_second(0.5 if quick else 1.5, 3)
    took = round((time.perf_counter() - t) / 3, 1)
    names = {"kernels": "random masked actions", "step": "its step alone",
             "api": "VectorEnv.step + random masked actions"}
    return [{"workload": f"vector env, solo, {names[k]}, 1 thread (CPU time)", "value": round(rate),
             "unit": "steps/s", "target": VECTOR_TARGET, "ratio": round(rate / VECTOR_TARGET, 2), "seconds": took}
            for k, rate in rates.items()]


#: Envs of MaskablePPO's rollouts in the benchmark, in either vector env.
SB3_ENVS = 16


def sb3_steps_per_second(steps: int, dummy: bool, num_envs: int = SB3_ENVS) -> float:
    """Steps (decisions) a second of MaskablePPO learning `steps` solo steps (rollouts of 128 steps an
    env, its default network on the flat observation, torch on one thread), one core's CPU time:
    on sim.agents.sb3's adapter (one compiled step for all envs), or with `dummy` on SB3's
    DummyVecEnv of as many single envs (one Python step each)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    import encore_sim
    torch.set_num_threads(1)
    if dummy:
        venv = DummyVecEnv([lambda i=i: encore_sim.env(seed=i, obs="flat") for i in range(num_envs)])
    else:
        venv = encore_sim.sb3_vec_env(num_envs, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=256, seed=0)
    model.learn(128 * num_envs)          # warm-up: torch's first calls, the envs' compiles
    t = time.process_time()
    model.learn(steps, reset_num_timesteps=False)
    return steps / (time.process_time() - t)


def _sb3_rows(quick: bool) -> list[dict]:
    """MaskablePPO learning on the adapter and on a DummyVecEnv of single envs, side by side: what
    one compiled step for every env saves a Stable-Baselines3 user. (No row without the sb3 extra.)"""
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:
        return []
    steps = 128 * SB3_ENVS * (2 if quick else 8)
    rows = []
    for dummy, what in ((False, "encore_sim.sb3_vec_env"), (True, "DummyVecEnv of single envs")):
        t = time.perf_counter()
        rate = sb3_steps_per_second(steps, dummy)
        rows.append({"workload": f"MaskablePPO, solo, {SB3_ENVS} envs, {what} (CPU time)", "value": round(rate),
                     "unit": "steps/s", "target": None, "ratio": None, "seconds": round(time.perf_counter() - t, 1)})
    return rows


#: games_per_second in a process with NUMBA_DISABLE_JIT=1 (as `--python` runs), which Numba reads
#: when imported: the specs are the arguments, one rate per line.
PLAIN_PYTHON = """import sys
from bench.bench import games_per_second
for spec in sys.argv[2:]:
    print(games_per_second(spec, 1, 3, seconds=float(sys.argv[1])))
"""


def _python_rows(tmp: str, quick: bool, compiled: dict) -> list[dict]:
    """Solo greedy, and greedy as a user's file (_plugin_row's), played in plain Python (--python);
    their target is the compiled speed (`compiled`: the rows so far by workload)."""
    t = time.perf_counter()
    specs = {"greedy": "greedy", "greedy called as a user's file": f"{Path(tmp, 'called_greedy.py')}:choose",
             "NumPy batched greedy": BATCHED_GREEDY}
    out = subprocess.run([sys.executable, "-c", PLAIN_PYTHON, "2" if quick else "5", *specs.values()],
                         env=dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(numba_cache.ROOT)),
                         capture_output=True, text=True, check=True).stdout.split()
    took = round((time.perf_counter() - t) / len(specs), 1)
    return [{"workload": f"solo, {name}, --python, 1 thread", "value": round(float(rate), 1), "unit": "games/s",
             "target": compiled[f"solo, {name}, 1 thread"], "ratio": None, "seconds": took}
            for name, rate in zip(specs, out, strict=True)]


def _lineup_row(quick: bool) -> dict:
    rate = games_per_second(list(MAKE_RUN_LINEUP), 4, 3, seconds=0.5 if quick else 1.0, rotate=True)
    return {"workload": f"4 players, {', '.join(MAKE_RUN_LINEUP)} (make run), 1 thread", "value": round(rate),
            "unit": "games/s", "target": None, "ratio": None}


def _scaling_row(quick: bool) -> dict:
    ratio = runner_scaling(300_000, 1 if quick else 7)
    return {"workload": "encore-sim run, solo greedy, 2 threads vs 1", "value": round(ratio, 2),
            "unit": "x", "target": 1.8, "ratio": round(ratio / 1.8, 2)}


def _memory_row(tmp: str, games: int) -> dict:
    _, rss = _cli([*_CLI_BASE, "--games", str(games), "--out", f"{tmp}/big"])
    return {"workload": f"peak RSS, solo run of {games:,} games", "value": round(rss / 1024),
            "unit": "MB", "target": 300, "ratio": round(300 / (rss / 1024), 2)}


#: Training workloads: (players, rules, games timed); their rates give the training times the docs
#: state (docs/variants.md, "Training time": train's defaults and training on demand).
TRAINING = ((1, "", 400_000), (4, "", 40_000), (4, "joker-six", 40_000))


def training_rows(quick: bool = False) -> list[dict]:
    """Training games a second on every core (as `encore-sim train` runs by default), after a
    short run that compiles: solo, and at 4 players under the rulebook and under joker-six."""
    from sim.training.run import train_file
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for players, rules, games in TRAINING:
            games //= 10 if quick else 1
            out = Path(tmp, "w.npz")
            train_file(out, players=players, games=2048, rules=rules)     # compiled
            t = time.perf_counter()
            train_file(out, players=players, games=games, rules=rules)
            took = time.perf_counter() - t
            rows.append({"workload": f"training, {'solo' if players == 1 else f'{players} players'}"
                                    f"{f' under {rules}' if rules else ''}, {numba.config.NUMBA_NUM_THREADS} threads",
                         "value": round(games / took), "unit": "games/s", "target": None, "ratio": None,
                         "seconds": round(took, 1), "date": time.strftime("%Y-%m-%d %H:%M %Z"),
                         "load": round(os.getloadavg()[0], 2)})
    return rows


def _throughput_rows(names: list[str], quick: bool) -> list[dict]:
    rows = []
    rates = {}
    for players in (1, 4):
        for name in names:
            t = time.perf_counter()
            rate = games_per_second(name, players, 3, seconds=0.3 if quick else 0.4)
            rates[(name, players)] = rate
            target = TARGETS.get((name, players))
            if (name, players) in GREEDY_SHARE:
                target = rates[("greedy", players)] * GREEDY_SHARE[(name, players)]
            rows.append({
                "workload": f"{'solo' if players == 1 else '4 players'}, {name}, 1 thread",
                "value": round(rate), "unit": "games/s",
                "target": round(target) if target else None,
                "ratio": round(rate / target, 2) if target else None,
                "seconds": round(time.perf_counter() - t, 1),
            })
    return rows


_CLI_BASE = ["run", "--players", "1", "--strategy", "greedy", "--quiet"]


def _first_run_row(tmp: str) -> dict:
    """Wall time of `encore-sim run --games 1000` compiling everything it plays,
    against an empty cache of its own (tmp/empty-cache)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=f"{tmp}/empty-cache")
    try:
        wall, _ = _cli([*_CLI_BASE, "--games", "1000", "--out", f"{tmp}/fresh"], env=env)
    except (OSError, subprocess.CalledProcessError) as e:
        return {"workload": "encore-sim run", "value": None, "unit": "", "target": None, "ratio": None,
                "error": str(e)}
    return {"workload": "first run, empty Numba cache", "value": round(wall, 2),
            "unit": "s", "target": 60.0, "ratio": round(60.0 / wall, 2)}


def seed_cache(src: Path, dst: Path) -> None:
    """Copy into cache folder dst the compiled files of src that it lacks.

    On a fresh clone the first run compiles the engine into its own empty cache;
    the project's cache then gets the result instead of compiling it a second
    time (about 40 s). Both hold the same sources' code: each file's folder is named by
    the hash of what it depends on (sim.numba_cache).
    """
    for f in sorted(src.rglob("*")):
        target = dst / f.relative_to(src)
        if f.is_file() and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)


def _startup_row(tmp: str) -> dict:
    _cli([*_CLI_BASE, "--games", "1000", "--out", f"{tmp}/warm"])
    wall, _ = _cli([*_CLI_BASE, "--games", "1000", "--out", f"{tmp}/startup"])
    return {"workload": "start-up, run --games 1000, warm cache", "value": round(wall, 2),
            "unit": "s", "target": 3.0, "ratio": round(3.0 / wall, 2)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--quick", action="store_true", help="smaller workloads (about a minute)")
    parser.add_argument("--all", action="store_true", dest="everything",
                        help="also measure every other built-in strategy (random, lookahead, learned), "
                             "make run's four-player table and --python")
    parser.add_argument("--record", metavar="FILE",
                        help="also write the results as JSON to FILE, with the date, the machine, its load and "
                             "the git revision: the docs quote docs/bench.json (python -m tests.helpers.docs_check "
                             "--update copies its figures into them)")
    parser.add_argument("--training", action="store_true",
                        help="measure only the training rows; with --record, put them into FILE's record in place "
                             "of its own (each row says when it was measured, and the load then)")
    args = parser.parse_args(argv)
    if args.training:
        rows = training_rows(args.quick)
        if args.record:
            record = json.loads(Path(args.record).read_text())
            names = {r["workload"] for r in rows}
            record["results"] = [r for r in record["results"] if r["workload"] not in names] + rows
            tmp = f"{args.record}.{os.getpid()}.tmp"
            Path(tmp).write_text(json.dumps(record, indent=2) + "\n")
            os.replace(tmp, args.record)
        for r in rows:
            print(f"{r['workload']:48} {r['value']:>9,} {r['unit']}  ({r['seconds']:.0f} s, load {r['load']})")
        return
    info = machine()
    load = [round(x, 2) for x in os.getloadavg()]
    started = time.strftime("%Y-%m-%d %H:%M %Z")
    t0 = time.perf_counter()
    rows = run(args.quick, args.everything)
    elapsed = time.perf_counter() - t0
    record = {"machine": info, "results": rows, "seconds": round(elapsed, 1)}
    if args.record:
        from sim.runs.runner import git_revision
        record = {"date": started, "git_revision": git_revision(), "quick": args.quick, "all": args.everything,
                  # 1, 5 and 15-minute load averages at the start and the end: other jobs on the machine
                  "load": {"start": load, "end": [round(x, 2) for x in os.getloadavg()]}, **record}
        tmp = f"{args.record}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(json.dumps(record, indent=2) + "\n")
        os.replace(tmp, args.record)
    if args.json:
        print(json.dumps(record, indent=2))
        return
    print(f"machine: {info['cpu']}, {info['cores']} cores; Python {info['python']}, "
          f"numba {info['numba']}, numpy {info['numpy']}")
    print(f"{'workload':48} {'value':>12} {'target':>10} {'ratio':>7} {'took':>7}  before")
    for r in rows:
        value = "error" if r["value"] is None else f"{r['value']:,} {r['unit']}"
        target = "" if r["target"] is None else f"{r['target']:,}"
        ratio = "" if r["ratio"] is None else f"{r['ratio']:.2f}"
        took = f"{r['seconds']:.0f} s" if "seconds" in r else ""
        # Cold-start rows: the same command of the code before the compile work, in this run.
        before = f"  {r['before']:,} {r['unit']} ({r['before_revision']})" if "before" in r else ""
        print(f"{r['workload']:48} {value:>12} {target:>10} {ratio:>7} {took:>7}{before}")
        if "error" in r:
            print(f"    {r['error']}")
    print(f"measured in {elapsed:.0f} s")


if __name__ == "__main__":
    main()
