"""How many arguments the kernels take: `python -m bench.kernelargs [--over N]`.

A kernel is a function of sim/ or strategies/ compiled by Numba (a decorator naming njit or jit).
Its arguments are counted from the source (ast), positional and keyword alike. Prints how many
kernels take more than `--over` (12 unless told) and 16 or more, then the longest signatures.
"""
from __future__ import annotations

import argparse
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Where the kernels are.
FOLDERS = ("sim", "strategies")


def kernel_arguments(root: Path = ROOT) -> list[tuple[int, str]]:
    """(arguments, "path:function") of every Numba-compiled function, longest first."""
    out = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
                    a = node.args
                    count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                    out.append((count, f"{path.relative_to(root).as_posix()}:{node.name}"))
    return sorted(out, key=lambda row: (-row[0], row[1]))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.kernelargs", description=__doc__.splitlines()[0])
    parser.add_argument("--over", type=int, default=12, help="count the kernels with more arguments (default 12)")
    parser.add_argument("--most", type=int, default=20, help="list this many of the longest (default 20)")
    args = parser.parse_args(argv)
    rows = kernel_arguments()
    over = [r for r in rows if r[0] > args.over]
    print(f"{len(rows)} kernels; {len(over)} take more than {args.over} arguments, "
          f"{sum(1 for r in rows if r[0] >= 16)} take 16 or more")
    for count, name in rows[:args.most]:
        print(f"{count:4d}  {name}")


if __name__ == "__main__":
    main()
