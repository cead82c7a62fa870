"""Rule variants: the rulebook's numbers, and the house rules a run may change (docs/rules.md, "Variants").

A variant is data of the game, not a code path: the kernels read the numbers of a `Rules` from
the sheet's tables (sim.tables: `tab.rules`, indexed by the R_* constants below, and the column
values `tab.col_first`, `tab.col_later`), so the rulebook and every variant play the same code.

    r = parse_rules("pass-penalty=1,end-colours=3")   # ValueError (one line, listing the variants)
    r.text                                              # "pass-penalty=1,end-colours=3"; "" for the rulebook
    RULEBOOK.pass_penalty                               # 0

`text` is canonical (the variants in the order of VARIANTS, defaults left out), so two spellings
of the same rules give the same text: it is what a run's manifest records and what names the
weights `learned` plays under them.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, fields, replace

import numpy as np

from .errors import SettingError

#: Column values for the first player to complete a column, and for later ones (columns A..O).
COLUMN_FIRST = (5, 3, 3, 3, 2, 2, 2, 1, 2, 2, 2, 3, 3, 3, 5)
COLUMN_LATER = (3, 2, 2, 2, 1, 1, 1, 0, 1, 1, 1, 2, 2, 2, 3)

# --- the rules as kernels read them: tab.rules[R_*] (int64) ---------------------------------
R_NUMBERS = 0         # numbers a number joker may stand for, as a bitmask: 1..5, or 1..6 (joker-six)
R_PASS_PENALTY = 1    # points each pass costs
R_STAR_PENALTY = 2    # points each open star costs
R_END_COLOURS = 3     # colours completed that end a table's game
R_SOLO_ROLLS = 4      # rolls of the solo game
R_FREE_ROLLS = 5      # first rolls in which the passive seats choose from all six dice
R_JOKERS = 6          # '!' marks a sheet starts with
R_COLOUR_FIRST = 7    # points for completing a colour first
R_COLOUR_LATER = 8    # and later
R_SIZE = 9

#: Bounds of the numeric variants: wide enough for any house rule, narrow enough that every
#: count fits the datasets' columns and the strategies' tables.
MAX_PENALTY = 100
MAX_SOLO_ROLLS = 200
MAX_JOKERS = 30
MAX_POINTS = 100


@dataclass(frozen=True)
class Rules:
    """The numbers of the rules a game is played under; the defaults are the rulebook's."""
    joker_six: bool = False
    pass_penalty: int = 0
    star_penalty: int = 2
    end_colours: int = 2
    solo_rolls: int = 30
    free_rolls: int = 3
    jokers: int = 8
    colour_bonus: tuple[int, int] = (5, 3)
    column_points: tuple[tuple[int, ...], tuple[int, ...]] = (COLUMN_FIRST, COLUMN_LATER)

    @property
    def max_number(self) -> int:
        """The largest number a placement may have: its most boxes."""
        return 6 if self.joker_six else 5

    @property
    def is_rulebook(self) -> bool:
        return self == RULEBOOK

    @property
    def text(self) -> str:
        """The canonical --rules text of these rules: "" for the rulebook."""
        parts = []
        for v in VARIANTS:
            value = getattr(self, v.field)
            if value != getattr(RULEBOOK, v.field):
                parts.append(v.name if v.flag else f"{v.name}={v.show(value)}")
        return ",".join(parts)

    @property
    def label(self) -> str:
        """How a report or table names these rules: the text, or "rulebook"."""
        return self.text or "rulebook"

    @property
    def slug(self) -> str:
        """The text as part of a file name: letters, digits, '-', '_' and '.' only."""
        return re.sub(r"[^A-Za-z0-9._-]+", "_", self.text.replace("=", "-").replace(",", "_")) or "rulebook"

    def as_array(self) -> np.ndarray:
        """tab.rules: the numbers the kernels read, at the R_* indices."""
        r = np.zeros(R_SIZE, np.int64)
        r[R_NUMBERS] = (1 << self.max_number) - 1
        r[R_PASS_PENALTY] = self.pass_penalty
        r[R_STAR_PENALTY] = self.star_penalty
        r[R_END_COLOURS] = self.end_colours
        r[R_SOLO_ROLLS] = self.solo_rolls
        r[R_FREE_ROLLS] = self.free_rolls
        r[R_JOKERS] = self.jokers
        r[R_COLOUR_FIRST], r[R_COLOUR_LATER] = self.colour_bonus
        return r


RULEBOOK = Rules()


@dataclass(frozen=True)
class Variant:
    name: str          # as --rules spells it
    field: str         # the Rules field it sets
    help: str
    flag: bool = False

    def parse(self, text: str):
        if self.field == "colour_bonus":
            return _pair(self.name, text, MAX_POINTS)
        if self.field == "column_points":
            pairs = text.split(":")
            if len(pairs) != 15:
                raise ValueError(f"{self.name} takes the 15 columns' first/later values separated by ':' "
                                 f"(A..O, e.g. {self.show(RULEBOOK.column_points)}), got {len(pairs)}")
            values = [_pair(self.name, p, MAX_POINTS) for p in pairs]
            return tuple(f for f, _ in values), tuple(later for _, later in values)
        lo, hi = _BOUNDS[self.field]
        value = _int(self.name, text)
        if not lo <= value <= hi:
            raise ValueError(f"{self.name} must be {lo}..{hi}, got {value}")
        return value

    def show(self, value) -> str:
        if self.field == "colour_bonus":
            return f"{value[0]}/{value[1]}"
        if self.field == "column_points":
            return ":".join(f"{f}/{later}" for f, later in zip(*value))
        return str(value)


_BOUNDS = {
    "pass_penalty": (0, MAX_PENALTY),
    "star_penalty": (0, MAX_PENALTY),
    "end_colours": (1, 5),
    "solo_rolls": (1, MAX_SOLO_ROLLS),
    "free_rolls": (0, MAX_SOLO_ROLLS),
    "jokers": (0, MAX_JOKERS),
}

VARIANTS = (
    Variant("joker-six", "joker_six", "a number joker may stand for 6 (6 boxes at most)", flag=True),
    Variant("pass-penalty", "pass_penalty", "each pass costs N points (rulebook 0)"),
    Variant("star-penalty", "star_penalty", "each open star costs N points (rulebook 2)"),
    Variant("end-colours", "end_colours", "a table's game ends in the roll someone completes N colours (rulebook 2)"),
    Variant("solo-rolls", "solo_rolls", "the solo game has N rolls (rulebook 30)"),
    Variant("free-rolls", "free_rolls", "in the first N rolls everyone picks from all six dice (rulebook 3)"),
    Variant("jokers", "jokers", "a sheet starts with N '!' (rulebook 8)"),
    Variant("colour-bonus", "colour_bonus", "F/L points for completing a colour first / later (rulebook 5/3)"),
    Variant("column-points", "column_points",
            "the 15 columns' first/later values, A..O separated by ':' (rulebook 5/3:3/2:...:3/2:5/3)"),
)
_BY_NAME = {v.name: v for v in VARIANTS}


_ARG = {"colour_bonus": "F/L", "column_points": "F/L:...:F/L"}
#: The variants as one line: what an error lists.
VARIANT_LIST = ", ".join(v.name if v.flag else f"{v.name}={_ARG.get(v.field, 'N')}" for v in VARIANTS)


def _int(name: str, text: str) -> int:
    if not re.fullmatch(r"[+-]?\d+", text.strip()):
        raise ValueError(f"{name} takes an integer, got {text!r}")
    return int(text)


def _pair(name: str, text: str, hi: int) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not m:
        raise ValueError(f"{name} takes first/later points such as 5/3, got {text!r}")
    first, later = int(m.group(1)), int(m.group(2))
    if first > hi or later > hi:
        raise ValueError(f"{name}'s points must be 0..{hi}, got {text!r}")
    return first, later


def parse_rules(text: str | Rules | None) -> Rules:
    """The rules a --rules text names (comma-separated variants; what it does not name is the
    rulebook's; "rulebook" names none); a Rules is returned as it is, None and "" are the rulebook.
    ValueError, one line naming what is wrong and listing the variants, for anything else."""
    try:
        return _parse(text)
    except ValueError as e:
        raise SettingError(f"{{rules}}: {e} (variants: {VARIANT_LIST})") from None


def _parse(text) -> Rules:
    if text is None:
        return RULEBOOK
    if isinstance(text, Rules):
        return text
    if not isinstance(text, str):
        raise ValueError(f"rules must be a text such as 'pass-penalty=1,joker-six', got {text!r}")
    changes: dict = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, eq, value = (s.strip() for s in part.partition("="))
        if part == "rulebook":
            continue
        v = _BY_NAME.get(name)
        if v is None and name == SHEET_KEY:
            raise ValueError(f"{SHEET_KEY}= names a sheet, not a rule: give it as the sheet here, or in a rule set "
                             "that compare-rules compares")
        if v is None:
            raise ValueError(f"unknown rule variant {name!r}")
        if v.field in changes:
            raise ValueError(f"rule variant {name!r} is given twice")
        if v.flag:
            if eq:
                raise ValueError(f"rule variant {name!r} takes no value, got {part!r}")
            changes[v.field] = True
        else:
            if not eq or not value:
                raise ValueError(f"rule variant {name!r} needs a value: {name}={_ARG.get(v.field, 'N')}")
            changes[v.field] = v.parse(value)
    return replace(RULEBOOK, **changes)


def _inert(a: Rules, b: Rules, players: int) -> dict[str, str]:
    """{Rules field: why} of the variants by which b differ from a that cannot act in a game of
    `players` (1: solo)."""
    solo = players == 1
    why = {
        "solo_rolls": None if solo else f"it sets the solo game's rolls, and this is a game of {players} players",
        "end_colours": "it ends a table's game, and the solo game ends after its rolls" if solo else None,
        "free_rolls": ("it lets the passive seats choose from all six dice, and the solo game has none" if solo
                       else None),
    }
    if solo and a.colour_bonus[0] == b.colour_bonus[0]:
        why["colour_bonus"] = "it changes only the later value, and solo every colour is completed first"
    if solo and a.column_points[0] == b.column_points[0]:
        why["column_points"] = "it changes only the later values, and solo every column is completed first"
    return {v.field: why[v.field] for v in VARIANTS
            if getattr(a, v.field) != getattr(b, v.field) and why.get(v.field)}


def inert(a: Rules, b: Rules, players: int) -> list[str]:
    """One line per variant by which rules b differ from a that cannot act in a game of `players`
    (1: solo), naming why: such a variant plays the games of a, move for move."""
    out = []
    for v in VARIANTS:
        why = _inert(a, b, players).get(v.field)
        if why:
            shown = v.name if v.flag else f"{v.name}={v.show(getattr(b, v.field))}"
            out.append(f"Notice: {shown} cannot act in this game: {why}")
    return out


def acting(a: Rules, b: Rules, players: int) -> Rules:
    """b with the variants that cannot act in a game of `players` set back to a's."""
    return replace(b, **{f: getattr(a, f) for f in _inert(a, b, players)})


#: The key of a rule-set text that names the sheet it is played on (sheet=NAME_OR_FILE).
SHEET_KEY = "sheet"


@dataclass(frozen=True)
class RuleSet:
    """A rule-set text that may name its sheet too (`sheet=mysheet.txt,joker-six`): the rules, and
    the sheet as given (a built-in sheet's name or a sheet file; None: the command's sheet)."""
    rules: Rules
    sheet: str | None = None

    @property
    def text(self) -> str:
        return ",".join(([f"{SHEET_KEY}={self.sheet}"] if self.sheet else []) + ([self.rules.text] if self.rules.text
                                                                                  else []))

    @property
    def label(self) -> str:
        return self.text or "rulebook"


def parse_rule_set(text) -> RuleSet:
    """A rule-set text with an optional sheet=NAME_OR_FILE among its variants (a Rules or a RuleSet
    as it is); SettingError (one line) for bad rules, or a sheet named twice or empty."""
    if isinstance(text, RuleSet):
        return text
    if not isinstance(text, str):
        return RuleSet(parse_rules(text))
    parts = [p.strip() for p in text.split(",")]
    sheets = [p.partition("=")[2].strip() for p in parts if p.partition("=")[0].strip() == SHEET_KEY]
    if len(sheets) > 1 or (sheets and not sheets[0]):
        raise SettingError(f"{{rules}}: {SHEET_KEY}= takes one sheet's name or file, got {text!r}")
    rest = ",".join(p for p in parts if p.partition("=")[0].strip() != SHEET_KEY)
    return RuleSet(parse_rules(rest), sheets[0] if sheets else None)


#: A range of a numeric variant in a sweep: LO..HI, or LO..HI:STEP.
_RANGE = re.compile(r"\s*([+-]?\d+)\s*\.\.\s*([+-]?\d+)\s*(?::\s*(\d+)\s*)?")
#: The most points a sweep may have.
MAX_SWEEP = 64


def expand_sweep(text: str) -> list[str]:
    """The rule-set texts of a range or grid: every variant given as LO..HI (or LO..HI:STEP) takes
    each of its values, the first such variant slowest (`jokers=6..8,star-penalty=2..3`: six
    points); a text without a range is itself alone. SettingError (one line) for a bad range, or a
    grid of more than MAX_SWEEP points."""
    choices = []
    for part in (p.strip() for p in text.split(",")):
        name, eq, value = part.partition("=")
        m = _RANGE.fullmatch(value) if eq and ".." in value else None
        if eq and ".." in value and m is None or m and (int(m[2]) < int(m[1]) or m[3] is not None and int(m[3]) < 1):
            raise SettingError(f"{{rules}}: {part!r}: a range is LO..HI or LO..HI:STEP, LO <= HI and STEP >= 1")
        choices.append([part] if m is None else
                        [f"{name.strip()}={v}" for v in range(int(m[1]), int(m[2]) + 1, int(m[3] or 1))])
    count = 1
    for c in choices:
        count *= len(c)
    if count > MAX_SWEEP:
        raise SettingError(f"{{rules}}: {text!r} is a sweep of {count:,} points: at most {MAX_SWEEP}")
    return [",".join(p for p in point if p) for point in itertools.product(*choices)]


def rules_dict(rules: Rules) -> dict:
    """The rules as JSON data (a manifest's record): every number, and the canonical text."""
    out = {f.name: getattr(rules, f.name) for f in fields(rules)}
    out["colour_bonus"] = list(rules.colour_bonus)
    out["column_points"] = [list(x) for x in rules.column_points]
    out["text"] = rules.text
    return out
