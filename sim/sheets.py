"""Score sheets: the only place that reads and validates sheet files.

A sheet file has comment lines (starting with '#'), blank lines, and exactly 7 data rows of
15 letters from ``gybro`` (green yellow blue red orange); an upper-case letter is a star box.
Every sheet must satisfy the invariants of docs/rules.md section 1, and a sheet that does not is
refused with a SheetError naming the invariant and the place.
"""

from __future__ import annotations

import functools
import os
import re
from collections import Counter
import dataclasses
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from .suggest import did_you_mean

COLOURS = ("green", "yellow", "blue", "red", "orange")
_LETTERS = "gybro"  # same order as COLOURS: the letter's position is the colour index
COLUMNS = "ABCDEFGHIJKLMNO"
N_ROWS = 7
N_COLS = 15
START_COLUMN = 7  # H

BUILTIN_SHEETS = ("standard", "red", "blue", "green", "orange", "yellow")

_BOXES_PER_COLOUR = 21
_BLOCK_SIZES = (1, 2, 3, 4, 5, 6)
_STARS_PER_COLOUR = 3


class SheetError(ValueError):
    """A sheet that cannot be loaded or breaks one of the sheet invariants."""


@dataclass(frozen=True, eq=False)
class Sheet:
    name: str
    colour: np.ndarray = field(repr=False)  # int8 (7, 15) [row, col], colour index 0..4
    star: np.ndarray = field(repr=False)  # bool (7, 15) [row, col]
    text: str = field(repr=False)  # the 7 data rows joined by '\n'
    path: str = field(default="", repr=False)  # the file it was read from ("" for a built-in): for messages

    # The arrays make dataclass equality ambiguous and unhashable; name + text determine
    # the sheet completely, so they serve as identity (and as cache key).
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sheet):
            return NotImplemented
        return (self.name, self.text) == (other.name, other.text)

    def __hash__(self) -> int:
        return hash((self.name, self.text))


def cell_name(col: int, row: int) -> str:
    """Name of the box at 0-based (col, row): cell_name(7, 0) == 'H1'."""
    if not (0 <= col < N_COLS and 0 <= row < N_ROWS):
        raise ValueError(f"cell ({col}, {row}) is off the sheet: col must be 0..14, row 0..6")
    return f"{COLUMNS[col]}{row + 1}"


_CELL_RE = re.compile(r"([A-Oa-o])([1-7])")


def parse_cell(name: str) -> tuple[int, int]:
    """0-based (col, row) of a cell name such as 'H1', 'h1' or 'O7'."""
    m = _CELL_RE.fullmatch(name) if isinstance(name, str) else None
    if m is None:
        raise ValueError(
            f"malformed cell name {name!r}: expected a column letter A..O and a row 1..7"
        )
    return COLUMNS.index(m[1].upper()), int(m[2]) - 1


def load_sheet(name_or_path: str | os.PathLike | Sheet) -> Sheet:
    """A built-in sheet by name, or a user sheet file by path (its name is the file stem)."""
    if isinstance(name_or_path, Sheet):
        return name_or_path
    if isinstance(name_or_path, str) and name_or_path in BUILTIN_SHEETS:
        return _load_builtin(name_or_path)
    hint = did_you_mean(name_or_path, BUILTIN_SHEETS)
    unknown = SheetError(
        f"no sheet {str(name_or_path)!r}" + (hint or f": not a built-in sheet ({', '.join(BUILTIN_SHEETS)}) "
                                                      "and no such file"))
    if not isinstance(name_or_path, (str, os.PathLike)) or not str(name_or_path).strip():
        raise unknown
    path = Path(name_or_path)
    if path.is_dir():
        raise SheetError(f"sheet {str(path)!r} is a folder, not a sheet file")
    try:
        text = path.read_text(encoding="utf-8-sig")  # tolerate a BOM from Windows editors
    except FileNotFoundError:
        raise unknown from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SheetError(f"cannot read sheet file {str(path)!r}: {exc}") from exc
    return dataclasses.replace(parse_sheet(text, path.stem), path=str(path))


@functools.lru_cache(maxsize=None)
def _load_builtin(name: str) -> Sheet:
    text = (resources.files(__package__) / "data" / "sheets" / f"{name}.txt").read_text(
        encoding="utf-8"
    )
    return parse_sheet(text, name)


def parse_sheet(text: str, name: str) -> Sheet:
    """Parse and validate the text of a sheet file; raise SheetError on any broken invariant."""
    where = f"sheet {name!r}"

    rows: list[str] = []
    linenos: list[int] = []  # file line number (1-based, comments counted) of each data row
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if len(line) != N_COLS:
            raise SheetError(
                f"{where} line {lineno} has {len(line)} boxes, expected {N_COLS}"
            )
        for col, letter in enumerate(line):
            if letter.lower() not in _LETTERS:
                raise SheetError(
                    f"{where} line {lineno}, column {COLUMNS[col]}: unknown colour letter "
                    f"{letter!r} (expected one of {_LETTERS}, upper case for a star)"
                )
        rows.append(line)
        linenos.append(lineno)
    if len(rows) != N_ROWS:
        extra = f" (first extra row on line {linenos[N_ROWS]})" if len(rows) > N_ROWS else ""
        raise SheetError(f"{where}: expected {N_ROWS} rows, found {len(rows)}{extra}")

    colour = np.array([[_LETTERS.index(c.lower()) for c in row] for row in rows], dtype=np.int8)
    star = np.array([[c.isupper() for c in row] for row in rows], dtype=bool)

    def at(col: int, row: int) -> str:
        return f"{cell_name(col, row)} (line {linenos[row]})"

    _check_counts(where, colour)
    _check_blocks(where, colour, at)
    _check_stars(where, colour, star, at)

    colour.setflags(write=False)
    star.setflags(write=False)
    return Sheet(name=name, colour=colour, star=star, text="\n".join(rows))


def _refuse(where: str, problems: list[str]) -> None:
    if problems:
        raise SheetError(f"{where}: " + "; ".join(problems))


def _check_counts(where: str, colour: np.ndarray) -> None:
    counts = np.bincount(colour.ravel(), minlength=len(COLOURS))
    bad = [
        f"colour {COLOURS[c]} has {n} boxes, expected {_BOXES_PER_COLOUR}"
        for c, n in enumerate(counts)
        if n != _BOXES_PER_COLOUR
    ]
    _refuse(where, bad)


def blocks_of(colour: np.ndarray, c: int) -> list[list[tuple[int, int]]]:
    """Orthogonally connected components of colour c, as lists of (col, row) in reading order."""
    seen = np.zeros(colour.shape, dtype=bool)
    blocks = []
    for row in range(N_ROWS):
        for col in range(N_COLS):
            if colour[row, col] != c or seen[row, col]:
                continue
            seen[row, col] = True
            stack, block = [(col, row)], []
            while stack:
                x, y = stack.pop()
                block.append((x, y))
                for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
                    if (
                        0 <= nx < N_COLS
                        and 0 <= ny < N_ROWS
                        and colour[ny, nx] == c
                        and not seen[ny, nx]
                    ):
                        seen[ny, nx] = True
                        stack.append((nx, ny))
            blocks.append(sorted(block, key=lambda xy: (xy[1], xy[0])))
    return blocks


def _check_blocks(where: str, colour: np.ndarray, at) -> None:
    for c, cname in enumerate(COLOURS):
        blocks = blocks_of(colour, c)
        sizes = Counter(len(b) for b in blocks)
        found = sorted(sizes.elements())
        if found == list(_BLOCK_SIZES):
            continue
        # Point at the blocks that cause the mismatch: duplicated or impossible sizes.
        culprits = [b for b in blocks if sizes[len(b)] > 1 or len(b) not in _BLOCK_SIZES]
        details = "; ".join(
            f"block of {len(b)} from {at(*b[0])}: " + " ".join(cell_name(*xy) for xy in b)
            for b in culprits
        )
        raise SheetError(
            f"{where}: colour {cname}: blocks have sizes "
            f"{','.join(map(str, found))}; expected one block each of "
            f"sizes 1..6 ({details})"
        )


def _check_stars(where: str, colour: np.ndarray, star: np.ndarray, at) -> None:
    bad = []
    for c, cname in enumerate(COLOURS):
        cells = [(col, row) for row, col in zip(*np.nonzero(star & (colour == c)))]
        if len(cells) != _STARS_PER_COLOUR:
            bad.append(
                f"colour {cname} has {len(cells)} stars, expected {_STARS_PER_COLOUR}"
                + (f" ({', '.join(at(*xy) for xy in cells)})" if cells else "")
            )
    _refuse(where, bad)

    bad = []
    for col in range(N_COLS):
        rows = np.nonzero(star[:, col])[0]
        if len(rows) != 1:
            bad.append(
                f"column {COLUMNS[col]} has {len(rows)} stars, expected 1"
                + (f" ({', '.join(at(col, r) for r in rows)})" if len(rows) else "")
            )
    _refuse(where, bad)
