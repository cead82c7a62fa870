"""What a user's first commands cost in compilation: `make bench`'s cold-start rows.

Each row is the CPU time (user + system, the command's process and its children) of a whole
`encore-sim` command run in a fresh process against an empty Numba cache of its own, beside the
same command of a reference revision of the code (a `git worktree` of it, run by the same Python
with the worktree first on the path), measured in the same bench run, one after the other. CPU
time, not wall time: these machines are shared, and compilation is one core's work either way.

    run -s greedy, run -s learned, make run's four-player line-up (200 games, one thread);
    analyse of 300 heuristic games after that line-up ran in the same cache (the analyse alone);
    play's first dice (a solo Game made) and its first hint after them (this code only);
    a warm start-up of the package installed from its wheel, run from another folder.

`encore-sim --profile-compile COMMAND ...` profiles one command instead: where its compile time
goes, per function (sim.runs.compileprofile). Run it with an empty NUMBA_CACHE_DIR.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sim import numba_cache

#: The code before the compile work (docs/performance.md, "Compile time"): the rows show what
#: that work saves, measured in the same run.
REFERENCE = "35df1d3"
#: (row, the command's arguments after `encore-sim`, its target in CPU seconds)
LINEUP = ["-p", "4", "-s", "learned", "-s", "lookahead", "-s", "heuristic", "-s", "greedy"]
COMMANDS = (
    ("greedy", ["run", "-n", "200", "-s", "greedy", "-q", "-j", "1"], 10.0),
    ("learned", ["run", "-n", "200", "-s", "learned", "-q", "-j", "1"], 25.0),
    ("make run's line-up", ["run", "-n", "200", *LINEUP, "-q", "-j", "1"], 35.0),
)
ANALYSE_TARGET = 15.0
WHEEL_TARGET = 1.5
#: encore-sim play's first game (a solo game, as a person's first): the first dice shown, then the first hint.
PLAY_DICE = "from sim.play.game import Game; g = Game(players=1, seed=1)"
PLAY_DICE_TARGET = 12.0
PLAY_HINT_TARGET = 8.0


def cpu_seconds(args: list[str], tree: Path, env: dict, cwd: Path | None = None,
                program: list[str] | None = None) -> float:
    """User + system CPU seconds of `encore-sim ARGS` (the code of `tree`) and its children."""
    program = program or [sys.executable, "-c", "import sys, cli; sys.argv[0] = 'encore-sim'; cli.entry()"]
    env = dict(env, PYTHONPATH=str(tree))
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([*program, *args], cwd=cwd or tree, env=env, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        if code != 0:
            err.seek(0)
            raise subprocess.CalledProcessError(code, args, stderr=err.read().decode(errors="replace"))
    return usage.ru_utime + usage.ru_stime


def _cold(tree: Path, tmp: Path, tag: str) -> dict[str, float]:
    """The cold commands' CPU seconds for the code of `tree`, each in an empty cache of its own
    (analyse in the line-up's)."""
    out = {}
    for name, args, _ in COMMANDS:
        cache = tmp / f"cache-{tag}-{len(out)}"
        env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
        out[name] = cpu_seconds([*args, "--out", str(tmp / f"{tag}-{len(out)}")], tree, env)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp / f"cache-{tag}-2"))
    dataset = tmp / f"{tag}-heuristic"
    cpu_seconds(["run", "-n", "300", "-s", "heuristic", "-q", "-j", "1", "--out", str(dataset)], tree, env)
    out["analyse"] = cpu_seconds(["analyse", str(dataset), "-q", "-j", "1"], tree, env)
    return out


@contextmanager
def reference_tree(tmp: Path, revision: str) -> Iterator[Path | None]:
    """A worktree of `revision` of this checkout for the `with` block, removed after it; None if
    none can be made (no git, not a clone, or no such revision)."""
    where = tmp / "reference"
    try:
        subprocess.run(["git", "-C", str(numba_cache.ROOT), "worktree", "add", "--detach", str(where), revision],
                       check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        yield None
        return
    try:
        yield where
    finally:
        subprocess.run(["git", "-C", str(numba_cache.ROOT), "worktree", "remove", "--force", str(where)],
                       capture_output=True)


def install_wheel(tmp: Path) -> tuple[Path, Path, Path]:
    """Build this checkout's wheel and install it into a fresh virtual environment in `tmp`, its
    dependencies this one's (by a path file, which reads none of that folder's own .pth files, so
    an editable install of the project there is not seen): (its python, its encore-sim, its
    site-packages). CalledProcessError if the wheel cannot be built (pip cannot reach setuptools)."""
    dist, venv, src = tmp / "dist", tmp / "venv", tmp / "src"
    # Built from a copy of the sources: setuptools reuses a checkout's build/ folder, and would
    # put files into the wheel that the sources no longer have.
    shutil.copytree(numba_cache.ROOT, src, ignore=shutil.ignore_patterns(
        "build", ".venv*", ".git", "results", "*.egg-info", ".hypothesis", ".pytest_cache", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(src)],
                   check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    wheel = next(dist.glob("encore_sim-*.whl"))
    # --ignore-installed: the path file shows pip this checkout's editable install's metadata, and
    # pip would take the project for installed already and install nothing (no encore-sim).
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--ignore-installed",
                    str(wheel)], check=True, capture_output=True)
    return python, venv / "bin" / "encore-sim", site


def installed_warm_start(tmp: Path) -> float | None:
    """CPU seconds of a warm `run -n 200 -s greedy` of the package installed from its wheel
    (install_wheel), run from another folder: the second of two runs, the first having filled the
    cache. None if the wheel cannot be built."""
    try:
        _, program, _ = install_wheel(tmp)
    except subprocess.CalledProcessError:
        return None
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["NUMBA_CACHE_DIR"] = str(tmp / "wheel-cache")
    args = ["run", "-n", "200", "-s", "greedy", "-q", "-j", "1", "--out"]
    cpu_seconds([*args, "first"], elsewhere, env, elsewhere, [str(program)])
    return cpu_seconds([*args, "again"], elsewhere, env, elsewhere, [str(program)])


def play_cold(tree: Path, tmp: Path) -> tuple[float, float]:
    """CPU seconds of play's first dice (a Game made: what the page waits for) and of its first
    hint after them (the same with hint_view(), less the first), each in an empty cache of its own."""
    def cpu(code: str, tag: str) -> float:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp / f"cache-play-{tag}"))
        return cpu_seconds([], tree, env, program=[sys.executable, "-c", code])
    dice = cpu(PLAY_DICE, "dice")
    return dice, cpu(PLAY_DICE + "; g.hint_view()", "hint") - dice


def rows(reference: str | None = REFERENCE) -> list[dict]:
    """The cold-start rows; `reference` None: this code's figures only."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        now = _cold(numba_cache.ROOT, tmp, "now")
        dice, hint = play_cold(numba_cache.ROOT, tmp)
        before = None
        if reference:
            with reference_tree(tmp, reference) as tree:
                if tree is not None:
                    before = _cold(tree, tmp, "before")
        warm = installed_warm_start(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
    out = []
    for name, _, target in COMMANDS:
        out.append(_row(f"cold start CPU, {name}", now[name], target, before and before[name], reference))
    out.append(_row("cold start CPU, analyse after the line-up", now["analyse"], ANALYSE_TARGET,
                    before and before["analyse"], reference))
    out.append(_row("cold start CPU, play's first dice", dice, PLAY_DICE_TARGET, None, None))
    out.append(_row("cold start CPU, play's first hint after them", hint, PLAY_HINT_TARGET, None, None))
    if warm is not None:
        out.append(_row("warm start CPU, installed wheel, greedy", warm, WHEEL_TARGET, None, None))
    return out


def _row(workload: str, value: float, target: float, before: float | None, reference: str | None) -> dict:
    row = {"workload": workload, "value": round(value, 1), "unit": "s", "target": target,
           "ratio": round(target / value, 2)}
    if before is not None:
        row["before"] = round(before, 1)
        row["before_revision"] = reference
    return row
