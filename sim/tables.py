"""Lookup tables for one sheet: the bitboard layout and every placeable group.

Bitboard layout (used by every kernel)
--------------------------------------
A set of boxes is two uint64 words, one byte per column, column-major::

    bit index  b = 8 * col + row          col 0..14 (A..O), row 0..6 (1..7)
    word       b >> 6                     word 0 = columns A..H, word 1 = I..O
    bit 8*col+7 is a guard bit, always 0

            word 0                                  word 1
    byte:   A  B  C  D  E  F  G  H          I  J  K  L  M  N  O  (unused)
    bits:   0  8 16 24 32 40 48 56          0  8 16 24 32 40 48
            (+ row, row 0 = top box)

The guard bit keeps row 7 of one column from touching row 1 of the next when a
mask is shifted by one bit, and lets a byte-wise add find full columns.

Placements as table rows
------------------------
Blocks (maximal same-colour groups) have at most 6 boxes and never touch a
block of their colour, so every legal placement is a connected subset of one
block. ``build_tables`` enumerates them all once per sheet and rules (sizes
1..5, and 6 under the joker-six variant; at most 420 of sizes 1..5 on any valid
sheet, about 300 on the real ones, and a block of 6 adds one), sorted by
(colour, size), so that the placements of a choice (colour c, number n) are the
contiguous rows ``gstart[6*c + n - 1] : gstart[6*c + n]`` (group
g = 6 * c + n - 1; number 6 has rows only under joker-six).

The rules a game is played under (sim.rules) are part of its tables: the column
values ``col_first``, ``col_later`` and the numbers ``rules[R_*]``.

Legality is then two bitsets over subset rows, kept per player (see
``sim.state``): ``alive`` (no box of the subset crossed yet) and ``touch`` (the
subset meets column H or a box next to a crossed box). Playing subset i does
``alive &= ~kill[i]`` (every subset sharing a box with i) and
``touch |= act[i]`` (every subset meeting the neighbours of i).
"""
from __future__ import annotations

import functools
from collections import namedtuple

import numpy as np
from numba import njit, typeof, types
from numba.experimental import structref

from .nbinternals import JIT_DISABLED
from .rules import COLUMN_FIRST as _FIRST, COLUMN_LATER as _LATER, RULEBOOK, Rules
from .sheets import N_COLS, N_ROWS, START_COLUMN, Sheet, blocks_of, load_sheet

N_COLOURS = 5
#: The largest number of any rules (6 under joker-six): groups are numbered g = 6 * colour + number - 1.
MAX_NUMBER = 6
N_GROUPS = N_COLOURS * MAX_NUMBER
#: Words in a subset bitset; 7 * 64 = 448 >= 420 + 17, the most any valid sheet can have (of sizes
#: 1..5, and one per block of 6 under joker-six).
NW = 7
MAX_SUBSETS = NW * 64

#: The rulebook's column values for the first player to complete a column, and for later ones;
#: the colour bonus and the '!' a sheet starts with. A game reads its own from its tables.
COLUMN_FIRST = np.array(_FIRST, np.int64)
COLUMN_LATER = np.array(_LATER, np.int64)
COLOUR_FIRST, COLOUR_LATER = RULEBOOK.colour_bonus
START_JOKERS = RULEBOOK.jokers

Tables = namedtuple(
    "Tables",
    [
        "mask",         # uint64 (K, 2)   boxes of subset k
        "nb",           # uint64 (K, 2)   orthogonal neighbours of subset k, outside it
        "colour",       # int64 (K,)      colour index of subset k
        "size",         # int64 (K,)      boxes in subset k (1..5)
        "block",        # int64 (K,)      block index (0..29) subset k lies in
        "stars",        # int64 (K,)      star boxes in subset k
        "gstart",       # int64 (31,)     rows of (c, n) are gstart[6c+n-1]:gstart[6c+n]
        "kill",         # uint64 (K, NW)  subsets sharing a box with k (k included)
        "act",          # uint64 (K, NW)  subsets meeting nb[k]
        "all_subsets",  # uint64 (NW,)    bits 0..K-1
        "start_touch",  # uint64 (NW,)    subsets meeting column H
        "colour_mask",  # uint64 (5, 2)   boxes of each colour
        "block_mask",   # uint64 (30, 2)  boxes of each block
        "star_mask",    # uint64 (2,)     star boxes
        "board_mask",   # uint64 (2,)     all 105 boxes
        "col_first",    # int64 (15,)     column values, first to complete
        "col_later",    # int64 (15,)     column values, later
        "box_row",      # int64 (128,)    row of the one-box subset of each bit index; -1 on guard bits
        "gword",        # int64 (30,)     a group's rows lie in bitset words gword[g] and gword[g]+1 ...
        "gmask",        # uint64 (30, 2)  ... at these bits of those two words
        "act_count",    # int64 (K,)      subsets in act[k]: playing k anchors at most this many new ones
        "rules",        # int64 (R_SIZE,) the rules' numbers (sim.rules: R_PASS_PENALTY, ...)
    ],
)


def bit_of(col: int, row: int) -> int:
    return 8 * col + row


def to_words(bits) -> tuple[int, int]:
    lo = hi = 0
    for b in bits:
        if b < 64:
            lo |= 1 << b
        else:
            hi |= 1 << (b - 64)
    return lo, hi


def from_words(lo: int, hi: int) -> list[tuple[int, int]]:
    """(col, row) of every box in a two-word mask, in bit order."""
    out = []
    for w, word in enumerate((int(lo), int(hi))):
        while word:
            b = (word & -word).bit_length() - 1
            word &= word - 1
            idx = 64 * w + b
            out.append((idx // 8, idx % 8))
    return out


def _neighbours(col: int, row: int):
    for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        c, r = col + dc, row + dr
        if 0 <= c < N_COLS and 0 <= r < N_ROWS:
            yield c, r


def _blocks(sheet: Sheet) -> list[list[tuple[int, int]]]:
    """Every block of the sheet (cells sorted), ordered by its first box in reading order."""
    blocks = [sorted(b) for c in range(N_COLOURS) for b in blocks_of(sheet.colour, c)]
    return sorted(blocks, key=lambda b: min((row, col) for col, row in b))


def _connected(cells: list[tuple[int, int]]) -> bool:
    cells_set = set(cells)
    stack, seen = [cells[0]], {cells[0]}
    while stack:
        for nb in _neighbours(*stack.pop()):
            if nb in cells_set and nb not in seen:
                seen.add(nb)
                stack.append(nb)
    return len(seen) == len(cells)


def _set_bit(row: np.ndarray, k: int) -> None:
    row[k >> 6] |= np.uint64(1) << np.uint64(k & 63)


def _group_words(gstart: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each (colour, number) group as two adjacent bitset words and a mask for each.

    A group has at most 21 rows, so it never spans more than two words; the
    first word is capped at NW - 2 so that both words exist.
    """
    gword = np.zeros(N_GROUPS, np.int64)
    gmask = np.zeros((N_GROUPS, 2), np.uint64)
    for g in range(N_GROUPS):
        lo, hi = int(gstart[g]), int(gstart[g + 1])
        w = min(lo >> 6, NW - 2)
        bits = sum(1 << (k - 64 * w) for k in range(lo, hi))
        assert bits < 1 << 128, "a group spans more than two words"
        gword[g] = w
        gmask[g] = (bits & (2**64 - 1), bits >> 64)
    return gword, gmask


@functools.lru_cache(maxsize=None)
def _build(sheet: Sheet, rules: Rules) -> Tables:
    blocks = _blocks(sheet)
    subsets = []  # (colour, size, block index, cells)
    for bi, block in enumerate(blocks):
        colour = int(sheet.colour[block[0][1], block[0][0]])
        for m in range(1, 1 << len(block)):
            cells = [block[i] for i in range(len(block)) if m >> i & 1]
            if len(cells) <= rules.max_number and _connected(cells):
                subsets.append((colour, len(cells), bi, cells))
    # Sort by (colour, size); ties keep block order, then mask order (stable).
    subsets.sort(key=lambda s: (s[0], s[1]))
    k_total = len(subsets)
    assert k_total <= MAX_SUBSETS, "sheet validation should make this impossible"

    mask = np.zeros((k_total, 2), np.uint64)
    nb = np.zeros((k_total, 2), np.uint64)
    colour = np.zeros(k_total, np.int64)
    size = np.zeros(k_total, np.int64)
    block = np.zeros(k_total, np.int64)
    stars = np.zeros(k_total, np.int64)
    cell_sets, nb_sets = [], []
    for k, (c, n, bi, cells) in enumerate(subsets):
        cs = set(cells)
        ns = {x for cell in cells for x in _neighbours(*cell)} - cs
        mask[k] = to_words(bit_of(*x) for x in cs)
        nb[k] = to_words(bit_of(*x) for x in ns)
        colour[k], size[k], block[k] = c, n, bi
        stars[k] = sum(bool(sheet.star[r, col]) for col, r in cells)
        cell_sets.append(cs)
        nb_sets.append(ns)

    gstart = np.zeros(N_GROUPS + 1, np.int64)
    for g in range(N_GROUPS + 1):
        gstart[g] = sum(1 for c, n, _, _ in subsets if MAX_NUMBER * c + n - 1 < g)

    kill = np.zeros((k_total, NW), np.uint64)
    act = np.zeros((k_total, NW), np.uint64)
    start_touch = np.zeros(NW, np.uint64)
    all_subsets = np.zeros(NW, np.uint64)
    for k in range(k_total):
        _set_bit(all_subsets, k)
        if any(col == START_COLUMN for col, _ in cell_sets[k]):
            _set_bit(start_touch, k)
        for j in range(k_total):
            if cell_sets[k] & cell_sets[j]:
                _set_bit(kill[k], j)
            if nb_sets[k] & cell_sets[j]:
                _set_bit(act[k], j)

    colour_mask = np.zeros((N_COLOURS, 2), np.uint64)
    for c in range(N_COLOURS):
        colour_mask[c] = to_words(
            bit_of(col, r) for r in range(N_ROWS) for col in range(N_COLS) if sheet.colour[r, col] == c
        )
    block_mask = np.array([to_words(bit_of(*x) for x in b) for b in blocks], np.uint64)
    star_mask = np.array(
        to_words(bit_of(col, r) for r in range(N_ROWS) for col in range(N_COLS) if sheet.star[r, col]), np.uint64
    )
    board_mask = np.array(to_words(bit_of(col, r) for r in range(N_ROWS) for col in range(N_COLS)), np.uint64)
    box_row = np.full(128, -1, np.int64)
    for k, cells in enumerate(cell_sets):
        if len(cells) == 1:
            box_row[bit_of(*next(iter(cells)))] = k
    gword, gmask = _group_words(gstart)
    act_count = np.array([sum(bin(int(w)).count("1") for w in row) for row in act], np.int64)
    tables = Tables(
        mask, nb, colour, size, block, stars, gstart, kill, act, all_subsets, start_touch,
        colour_mask, block_mask, star_mask, board_mask, np.array(rules.column_points[0], np.int64),
        np.array(rules.column_points[1], np.int64), box_row, gword, gmask, act_count, rules.as_array(),
    )
    for a in tables:
        a.setflags(write=False)
    return tables


def build_tables(sheet: Sheet | str, rules: Rules = RULEBOOK) -> Tables:
    """The lookup tables of a sheet (a Sheet, a built-in name or a file path) under `rules`; cached."""
    return _build(load_sheet(sheet), rules)


# --- the same tables as kernels take them ------------------------------------------------
#
# Kernels and strategies receive the tables as a StructRef: one pointer, where a
# namedtuple of arrays would be copied field by field (about 160 words) into
# every call that is not inlined, which made each strategy call ~4x dearer.
# Its arrays are writable copies (strategies must still not write them): each
# thread block of the batch driver takes its own copy with copy_tables, since
# Numba counts references on every field access and a count shared by two
# threads made 2 threads slower than 1.

@structref.register
class KernelTablesType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class KernelTables(structref.StructRefProxy):
    """Tables of one sheet as a Numba StructRef (same field names as Tables)."""


structref.define_proxy(KernelTables, KernelTablesType, list(Tables._fields))
if JIT_DISABLED:
    # Plain Python has no StructRef (its constructor is compiled code): the kernels take the
    # namedtuple, whose fields they read alike.
    KernelTables = Tables  # noqa: F811

#: The Numba type of the tables kernels take (identical for every sheet), for signatures.
_WRITABLE = [typeof(a.copy()) for a in build_tables("standard")]
TablesType = KernelTablesType(list(zip(Tables._fields, _WRITABLE)))

@njit(TablesType(types.Tuple(_WRITABLE)), cache=True)
def pack_tables(arrays):
    """The KernelTables of `arrays`, a tuple of the Tables fields' arrays in their order (compiled:
    a numba structref is made in a kernel)."""
    return KernelTables(*arrays)


@njit(cache=True)
def copy_tables(t):
    """A private copy of the tables, so that threads share no reference counts."""
    return KernelTables(t.mask.copy(), t.nb.copy(), t.colour.copy(), t.size.copy(), t.block.copy(),
                        t.stars.copy(), t.gstart.copy(), t.kill.copy(), t.act.copy(), t.all_subsets.copy(),
                        t.start_touch.copy(), t.colour_mask.copy(), t.block_mask.copy(), t.star_mask.copy(),
                        t.board_mask.copy(), t.col_first.copy(), t.col_later.copy(), t.box_row.copy(),
                        t.gword.copy(), t.gmask.copy(), t.act_count.copy(), t.rules.copy())


@functools.lru_cache(maxsize=None)
def _kernel_tables(sheet: Sheet, rules: Rules) -> KernelTables:
    return pack_tables(tuple(a.copy() for a in _build(sheet, rules)))


def kernel_tables(sheet: Sheet | str, rules: Rules = RULEBOOK) -> KernelTables:
    """The tables of a sheet under `rules` as kernels and strategies take them; cached."""
    return _kernel_tables(load_sheet(sheet), rules)
