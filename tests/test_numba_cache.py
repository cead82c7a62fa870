"""The compiled-code cache key (sim/numba_cache.py): what it must and must not depend on."""
import ast
from pathlib import Path

import pytest

from sim.numba_cache import HOST_ONLY, source_digest

ROOT = Path(__file__).resolve().parent.parent
KERNEL_MARKERS = ("njit", "@jit", "jit(", "intrinsic", "cfunc", "generated_jit", "overload", "structref")


def _modules():
    return sorted(p.relative_to(ROOT).as_posix() for pkg in ("sim", "strategies") for p in (ROOT / pkg).rglob("*.py"))


def _module_name(rel: str) -> str:
    return rel[:-3].replace("/__init__", "").replace("/", ".")


def _imported(rel: str) -> set[str]:
    """Modules imported by file rel, as dotted names (relative imports resolved)."""
    tree = ast.parse((ROOT / rel).read_text())
    package = _module_name(rel) if rel.endswith("__init__.py") else _module_name(rel).rsplit(".", 1)[0]
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


def test_host_only_files_exist():
    assert HOST_ONLY <= set(_modules())


@pytest.mark.parametrize("rel", sorted(HOST_ONLY))
def test_host_only_modules_define_no_kernel(rel):
    text = (ROOT / rel).read_text()
    assert not [m for m in KERNEL_MARKERS if m in text], f"{rel} compiles code: it must count in the cache key"


def test_kernel_modules_import_no_host_only_module():
    # A kernel freezes the globals it reads, so a constant defined in a host-only module
    # would reach machine code without keying the cache.
    host = {_module_name(r) for r in HOST_ONLY}
    bad = {rel: sorted(_imported(rel) & host) for rel in _modules() if rel not in HOST_ONLY}
    assert not {k: v for k, v in bad.items() if v}


def test_digest_follows_kernel_sources_only(tmp_path):
    for rel in ("sim/engine.py", "sim/runner.py", "strategies/heuristic.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    before = source_digest(tmp_path)
    (tmp_path / "sim/runner.py").write_text("x = 2\n")
    assert source_digest(tmp_path) == before
    (tmp_path / "strategies/heuristic.py").write_text("x = 2\n")
    assert source_digest(tmp_path) != before
