"""Which modules an `encore-sim` command loads: a command run in a fresh process (cli.main, so no
module of the test run is loaded already), and the modules of the given packages it left loaded."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def modules_loaded_by(args: list[str], packages: tuple[str, ...]) -> list[str]:
    """The modules of `packages` (each a module or package name: it and its submodules) loaded once
    `encore-sim ARGS` has run, sorted; the command must succeed."""
    code = ("import sys, cli\n"
            "try:\n"
            f"    cli.main({[str(a) for a in args]!r})\n"
            "except SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            f"packages = {tuple(packages)!r}\n"
            "print(sorted(m for m in sys.modules if m in packages or m.startswith(tuple(p + '.' for p in packages))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return ast.literal_eval(out.stdout.strip().splitlines()[-1])
