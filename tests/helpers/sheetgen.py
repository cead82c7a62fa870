"""Make a valid sheet that no one has seen: a built-in sheet's blocks recoloured, mirrored and flipped.

    python tests/helpers/sheetgen.py --seed 5 > my-sheet.txt

Two blocks of the same size and the same number of stars but different colours swap colours
when no block ends up touching another of its colour: every colour keeps 21 boxes, one block
of each size 1..6 and 3 stars, and every column keeps its one star, so the result satisfies
every invariant of a sheet (sim.sheets checks them when it loads it). Few swaps pass that test,
so the colours are then permuted and the sheet mirrored left-right and flipped top-down at
random (column H and the column values are symmetric): the layout differs from every built-in
one in most boxes. The tests use it to train and play on a sheet no weights were made for.
"""
from __future__ import annotations

import argparse

import numpy as np

from sim.sheets import blocks_of, load_sheet, parse_sheet

LETTERS = "gybro"


def _touches_own_colour(colour, block, k):
    cells = set(block)
    for col, row in block:
        for x, y in ((col + 1, row), (col - 1, row), (col, row + 1), (col, row - 1)):
            if 0 <= x < 15 and 0 <= y < 7 and (x, y) not in cells and colour[y, x] == k:
                return True
    return False


def random_sheet(seed: int, swaps: int = 5000, base: str = "standard", name: str = "generated"):
    """A valid sheet made from `base` by up to `swaps` random colour swaps of blocks."""
    rng = np.random.default_rng(seed)
    sheet = load_sheet(base)
    colour, star = sheet.colour.astype(np.int64), sheet.star
    for _ in range(swaps):
        k1, k2 = rng.choice(5, 2, replace=False)
        size = int(rng.integers(1, 7))
        b1 = next(b for b in blocks_of(colour, k1) if len(b) == size)
        b2 = next(b for b in blocks_of(colour, k2) if len(b) == size)
        if sum(star[y, x] for x, y in b1) != sum(star[y, x] for x, y in b2):
            continue
        trial = colour.copy()
        for x, y in b1:
            trial[y, x] = k2
        for x, y in b2:
            trial[y, x] = k1
        if not (_touches_own_colour(trial, b1, k2) or _touches_own_colour(trial, b2, k1)):
            colour = trial
    colour = rng.permutation(5)[colour]
    if rng.integers(2):
        colour, star = colour[:, ::-1], star[:, ::-1]
    if rng.integers(2):
        colour, star = colour[::-1, :], star[::-1, :]
    rows = ["".join(LETTERS[colour[y, x]].upper() if star[y, x] else LETTERS[colour[y, x]] for x in range(15))
            for y in range(7)]
    return parse_sheet("\n".join(rows), name)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--base", default="standard", help="the built-in sheet to start from")
    args = p.parse_args(argv)
    sheet = random_sheet(args.seed, base=args.base)
    print(f"# A sheet made by tests/helpers/sheetgen.py --seed {args.seed} --base {args.base}")
    print(sheet.text)


if __name__ == "__main__":
    main()
