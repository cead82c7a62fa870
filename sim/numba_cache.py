"""Where compiled kernels are cached: one folder per version of the sources.

Numba checks a cached function against the time stamp of the file that
defines it, not of the files it inlines or calls: a kernel in engine.py that
inlines rng.py's dice, or a game loop calling a strategy from another file,
would keep running stale machine code after those files change. Keying the
cache folder by a hash of every source file of the engine and the built-in
strategies makes a stale kernel impossible; a changed tree simply compiles
once into a new folder. Data files under the packages' data/ folders
(learned's shipped weights) are read at run time, not compiled in: they do
not key the cache, but they do count in DIGEST, the version of the built-in
strategies a run's manifest records (new weights play other games).

The host-side modules below hold no kernel and nothing a kernel freezes in
(tests/test_numba_cache.py checks that no kernel module imports them), so
editing the runner, the Parquet writer or the benchmark does not throw away
a minute of compiled code. A new file counts unless it is added here.
"""
import hashlib
import os
from pathlib import Path

import numba

_PACKAGES = ("sim", "strategies")
#: Python-only modules: they call kernels but no machine code depends on their text.
HOST_ONLY = frozenset({
    "sim/__init__.py", "sim/api.py", "sim/bench.py", "sim/chunks.py", "sim/compare.py", "sim/dataset.py",
    "sim/distributed.py", "sim/interrupts.py", "sim/numba_cache.py", "sim/replay.py", "sim/report.py",
    "sim/runner.py", "sim/schema.py", "sim/settings.py",
    "sim/summary.py", "sim/tune.py", "strategies/__init__.py", "strategies/builtin.py", "strategies/registry.py",
    "strategies/headroom.py", "strategies/improvement.py", "strategies/training.py",
})


def source_digest(root: Path | None = None, data: bool = True) -> str:
    """Hash of the kernel sources (and with `data`, of the shipped data files)."""
    root = Path(__file__).resolve().parent.parent if root is None else Path(root)
    h = hashlib.sha256(numba.__version__.encode())
    for pkg in _PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            if path.relative_to(root).as_posix() in HOST_ONLY:
                continue
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
        for path in sorted((root / pkg / "data").rglob("*.npz")) if data else ():
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def configure(digest: str) -> str:
    """Point Numba's cache at <NUMBA_CACHE_DIR or ~/.cache>/encore-sim-<digest>; returns it."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "numba")
    folder = os.path.join(base, f"encore-sim-{digest}")
    numba.config.CACHE_DIR = folder
    return folder


#: The version of the kernels and built-in strategies this process plays with: a run's
#: manifest records it, and resuming with other kernels is refused (sim.runner).
DIGEST = source_digest()
CACHE_DIR = configure(source_digest(data=False))
