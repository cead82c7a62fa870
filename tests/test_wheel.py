"""The package as a user installs it: built into a wheel, installed into a fresh virtual
environment outside the checkout and run from another folder."""
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from sim.numba_cache import cache_base

ROOT = Path(__file__).resolve().parents[1]

#: Printed by the installed package: where it was imported from, and every file the compile-cache
#: key of its game kernel reads (sim.numba_cache.dependencies).
WHERE = ("import sim, sim.numba_cache as n, pathlib; print(sim.__file__); "
         "print(*n.dependencies(pathlib.Path(sim.__file__).with_name('engine.py')), sep='\\n')")


def _cache_files() -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in cache_base().rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python, encore-sim, a folder outside the checkout) of a fresh virtual environment holding
    the wheel built from this checkout. Its dependencies are this environment's, reached by a
    path file (no download): a path added that way has none of its own .pth files read, so this
    environment's editable install of the project is not seen there."""
    tmp = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                    str(tmp / "dist"), str(ROOT)], check=True, capture_output=True)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "deps-of-the-tests.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    wheel = next((tmp / "dist").glob("encore_sim-*.whl"))
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                   check=True, capture_output=True)
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    return python, venv / "bin" / "encore-sim", elsewhere, Path(site)


def _env():
    # The installed package alone: nothing of the checkout on the path.
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def test_the_installed_package_keys_its_cache_by_its_own_files_only(installed):
    python, _, elsewhere, site = installed
    out = subprocess.run([str(python), "-c", WHERE], cwd=elsewhere, env=_env(), check=True, capture_output=True,
                         text=True).stdout.split()
    assert Path(out[0]) == site / "sim" / "__init__.py"
    deps = [Path(p) for p in out[1:]]
    # The engine's own modules, not numpy's or numba's, which site-packages also holds.
    assert deps and all(p.parent == site / "sim" for p in deps), deps
    assert site / "sim" / "engine.py" in deps and site / "sim" / "tables.py" in deps


def test_the_installed_program_finds_its_data_and_reuses_the_cache(installed):
    _, program, elsewhere, _ = installed
    # learned on another sheet reads its shipped weights and the sheet's file from the package.
    args = [str(program), "run", "-n", "20", "-s", "learned", "--sheet", "red", "-q", "-j", "1", "--out"]
    first = subprocess.run([*args, "first"], cwd=elsewhere, env=_env(), capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert (elsewhere / "first" / "manifest.json").is_file()
    before = _cache_files()
    again = subprocess.run([*args, "again"], cwd=elsewhere, env=_env(), capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    # Loaded, not compiled: the second run wrote nothing to the compile cache.
    assert _cache_files() == before
