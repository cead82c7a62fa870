"""The `encore-sim` program itself: --help, --version, no arguments, and --scheduler without Dask."""
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from invoking import invoke

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("analyse", "bound", "compare", "compare-rules", "moves", "play", "replay", "report", "run", "strategies",
            "summary", "train", "tune", "weights")


def program(*args):
    """The installed console script, as a user runs it."""
    exe = Path(sys.executable).with_name("encore-sim")
    return subprocess.run([str(exe), *args], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("args", [[], ["--help"]])
def test_help_and_no_arguments_list_the_commands(args):
    r = program(*args)
    assert r.returncode == 0 and not r.stderr, r.stderr
    assert r.stdout.startswith("Usage: encore-sim [OPTIONS] COMMAND [ARGS]...")
    listed = [line.split()[0] for line in r.stdout.split("Commands:\n")[1].splitlines() if line.startswith("  ")]
    assert listed == list(COMMANDS)


def test_version():
    r = program("--version")
    assert r.returncode == 0 and r.stdout == f"encore-sim, version {version('encore-sim')}\n" and not r.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_has_help(command):
    r = invoke(command, "--help")
    assert r.exit_code == 0 and r.output.startswith(f"Usage: main {command} [OPTIONS]"), r.output


@pytest.mark.parametrize("scheduler", ["local:1", "tcp://127.0.0.1:8786"])
def test_scheduler_without_dask_creates_nothing(tmp_path, monkeypatch, scheduler):
    monkeypatch.setitem(sys.modules, "distributed", None)   # `import distributed` fails, as without Dask
    out = tmp_path / "ds"
    r = invoke("run", "-n", "10", "--scheduler", scheduler, "--out", str(out))
    assert r.exit_code == 2 and r.stderr == "Error: --scheduler needs Dask: pip install 'encore-sim[dask]'\n", r.output
    assert list(tmp_path.iterdir()) == []
