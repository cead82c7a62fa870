"""Two versions of the sources, both derived from the layout (docs/architecture.md).

GAMES_DIGEST is the version of what decides a run's games: the rules and kernels (the modules
of `sim` itself), the players (the modules of `strategies` itself) and their data (the sheets,
`learned`'s shipped weights). A run's manifest records it, and `run --resume` refuses a run
started with another. The layers above (`sim.runs`, `sim.training`,
`sim.research`, cli.py) change no game, so editing them leaves it as it is.

The compile cache is keyed per file: the functions a file compiles are cached in a folder named
by a hash of that file and of every file it imports, transitively, imports inside functions
included, since a kernel inlines the functions it calls and freezes the constants it reads.
Numba alone checks a cached function against its own file's time stamp only, and would run
stale code after an imported file changed. Editing a research module thus recompiles that
module and those that import it, nothing else; a user's strategy file is keyed the same way,
with the files of its own that it imports.
"""
import ast
import hashlib
import os
import sys
import sysconfig
from functools import lru_cache
from pathlib import Path

import numba

from . import nbinternals

ROOT = Path(__file__).resolve().parent.parent
#: Packages whose own modules (not their subpackages) decide the games, and their data folders.
GAME_PACKAGES = ("sim", "strategies")
#: The project's top-level names: only these are looked up under ROOT. Installed from a wheel,
#: ROOT is site-packages, where every other import (numpy, numba, ...) also has a file.
PROJECT_NAMES = (*GAME_PACKAGES, "cli")
_LIBRARY = tuple(str(Path(p).resolve()) for key in ("stdlib", "platstdlib", "purelib", "platlib")
                 if (p := sysconfig.get_paths().get(key)))


#: The version of how things are cached: a cached function is loaded back under the name of the
#: module it was compiled in, and users' modules were once named after their path, not content
#: (strategies.registry), so entries from then name modules no process loads any more.
LAYOUT = 2


def games_digest(root: Path = ROOT) -> str:
    """Hash of the rules, kernels, players and their data files under `root`."""
    h = hashlib.sha256(numba.__version__.encode())
    for pkg in GAME_PACKAGES:
        paths = sorted((root / pkg).glob("*.py")) + sorted(p for p in (root / pkg / "data").rglob("*") if p.is_file())
        for path in paths:
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def imported_names(path: Path, module: str) -> set[str]:
    """Dotted names a file imports (relative imports resolved against `module`, the file's own
    dotted name), anywhere in it: `from a.b import c` gives a.b and a.b.c."""
    tree = ast.parse(Path(path).read_bytes())
    package = module if Path(path).name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


def module_name(path: Path, root: Path = ROOT) -> str | None:
    """The dotted name of a file of the project under `root`, None for a file outside it."""
    try:
        rel = Path(path).resolve().relative_to(root)
    except ValueError:
        return None
    parts = rel.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_file(name: str, root: Path = ROOT) -> Path | None:
    """The source file of module `name`: the project's own, or one already imported from
    outside the Python installation (a user's helper beside their strategy); else None."""
    rel = Path(*name.split("."))
    if name.partition(".")[0] in PROJECT_NAMES:
        for candidate in (root / rel.with_suffix(".py"), root / rel / "__init__.py"):
            if candidate.is_file():
                return candidate
    found = getattr(sys.modules.get(name), "__file__", None)
    if found and found.endswith(".py") and not _installed(Path(found).resolve()):
        return Path(found).resolve()
    return None


def _installed(path: Path) -> bool:
    """True for a file of the Python installation or of an installed package: the folders of
    sysconfig, and any site-packages (a user's, or one a path file adds) outside them."""
    return str(path).startswith(_LIBRARY) or not {"site-packages", "dist-packages"}.isdisjoint(path.parts)


def _imports(file: Path, root: Path) -> tuple[Path, ...]:
    stat = file.stat()
    return _imports_of(file, root, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=None)
def _imports_of(file: Path, root: Path, mtime_ns: int, size: int) -> tuple[Path, ...]:
    """The files `file` imports; its time and size key the cache, so an edit within a process is seen."""
    name = module_name(file, root) or file.stem
    return tuple(f for n in imported_names(file, name) if (f := module_file(n, root)) is not None)


def dependencies(path: Path, root: Path = ROOT) -> list[Path]:
    """`path` and every file it imports, transitively, sorted."""
    seen, todo = set(), [Path(path).resolve()]
    while todo:
        file = todo.pop()
        if file not in seen:
            seen.add(file)
            todo.extend(_imports(file, root))
    return sorted(seen)


def code_key(path: Path, root: Path = ROOT) -> str:
    """Hash of the files the functions compiled in `path` depend on (see the module's doc)."""
    h = hashlib.sha256(f"{numba.__version__} {LAYOUT}".encode())
    for file in dependencies(path, root):
        rel = module_name(file, root)
        h.update((rel or file.name).encode())
        h.update(file.read_bytes())
    return h.hexdigest()[:16]


def cache_base() -> Path:
    """<NUMBA_CACHE_DIR or XDG_CACHE_HOME/numba or ~/.cache/numba>/encore-sim."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "numba")
    return Path(base) / "encore-sim"


def cache_folder(py_file) -> str | None:
    """Where the functions compiled in `py_file` are cached: <cache_base>/<stem>-<code_key>.

    Worked out once per version of the file (its time and size), so a file edited within a
    process, a user's strategy above all, is cached under its new key."""
    path = Path(py_file)
    try:
        stat = path.stat()
    except (OSError, ValueError):
        return None
    if path.suffix != ".py" or not path.is_file():
        return None
    return _cache_folder(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=None)
def _cache_folder(path: Path, mtime_ns: int, size: int) -> str:
    return str(cache_base() / f"{path.stem}-{code_key(path)}")


#: The version of the rules, kernels and players this process plays with.
GAMES_DIGEST = games_digest()
nbinternals.key_cache_by(cache_folder)
#: For what Numba caches by its own locators (a function whose file cannot be read).
numba.config.CACHE_DIR = str(cache_base() / "other")
