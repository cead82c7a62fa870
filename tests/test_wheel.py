"""The package as a user installs it: built into a wheel, installed into a fresh virtual
environment outside the checkout and run from another folder."""
import os
import subprocess
from pathlib import Path

import pytest

from sim.numba_cache import cache_base
from bench.coldstart import install_wheel

ROOT = Path(__file__).resolve().parents[1]

#: Printed by the installed package: where it was imported from, and every file the compile-cache
#: key of its game kernel reads (sim.numba_cache.dependencies).
WHERE = ("import sim, sim.numba_cache as n, pathlib; print(sim.__file__); "
         "print(*n.dependencies(pathlib.Path(sim.__file__).with_name('engine.py')), sep='\\n')")


def _cache_files() -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in cache_base().rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python, encore-sim, a folder outside the checkout, site-packages) of a fresh virtual
    environment holding the wheel built from this checkout (bench.coldstart.install_wheel)."""
    tmp = tmp_path_factory.mktemp("wheel")
    python, program, site = install_wheel(tmp)
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    return python, program, elsewhere, site


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


def test_the_wheel_holds_no_developer_tools(installed):
    """bench/ (make bench, its cold-start rows, playab, the digests) runs from a checkout only."""
    python, program, elsewhere, site = installed
    assert (site / "sim" / "commands" / "searches.py").is_file() and not (site / "bench").exists()
    assert not any(p.name in ("bench.py", "coldstart.py", "playab.py", "digests.py") for p in site.rglob("*.py")
                   if site / "sim" in p.parents or site / "strategies" in p.parents)
    # what the installed program itself needs of them stays in the package: --profile-compile
    r = subprocess.run([str(program), "--profile-compile", "moves", "--colour", "yellow", "--number", "3"],
                       cwd=elsewhere, env=_env(), capture_output=True, text=True)
    assert r.returncode == 0 and "s compiling:" in r.stderr, r.stderr
