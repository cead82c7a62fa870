"""Independent plain-Python reference of the Encore! rules, written from the rules alone (docs/rules.md).

It is used by the tests to check the engine and shares no code with it: nothing here imports
`sim`. Everything is written to be obviously correct rather than fast: sheets are dictionaries
keyed by cell name ("H1" .. "O7"), crossed boxes are plain sets of cell names, and legal
placements are found by brute force (growing connected groups box by box).

It plays the rule variants too (issue 46): every function that a rule's number enters takes
`rules`, the reference's own record `Rules` (None: the rulebook). `as_rules` also reads a
`--rules` text with its own parser, or any object with the same field names (an engine's
sim.rules.Rules), whose numbers it copies: nothing of the engine's logic is used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from pathlib import Path

# --------------------------------------------------------------------------------------------
# Constants (RULES sections 1, 2, 5, 8)
# --------------------------------------------------------------------------------------------

COLUMNS = "ABCDEFGHIJKLMNO"  # 15 columns, left to right
ROWS = (1, 2, 3, 4, 5, 6, 7)  # 7 rows, top to bottom
START_COLUMN = "H"

COLOURS = ("green", "yellow", "blue", "red", "orange")
LETTER_TO_COLOUR = {"g": "green", "y": "yellow", "b": "blue", "r": "red", "o": "orange"}

# Column values for columns A..O (RULES section 1).
FIRST_COLUMN_VALUES = dict(zip(COLUMNS, (5, 3, 3, 3, 2, 2, 2, 1, 2, 2, 2, 3, 3, 3, 5)))
LATER_COLUMN_VALUES = dict(zip(COLUMNS, (3, 2, 2, 2, 1, 1, 1, 0, 1, 1, 1, 2, 2, 2, 3)))
FIRST_COLOUR_BONUS = 5
LATER_COLOUR_BONUS = 3
STAR_PENALTY = 2  # per star box not crossed
JOKERS_AT_START = 8  # exclamation marks

JOKER = "joker"  # face of both joker dice in the logs
COLOUR_DIE_FACES = COLOURS + (JOKER,)
NUMBER_DIE_FACES = (1, 2, 3, 4, 5, JOKER)
NUMBERS = (1, 2, 3, 4, 5)

MULTIPLAYER_DICE = 3  # colour dice (and as many number dice) per roll, 2..6 players
SOLO_DICE = 2  # colour dice (and as many number dice) per roll, solo game
SOLO_ROLLS = 30
FIRST_ROLLS_ALL_DICE = 3  # rolls 1..3: passive players may use all six dice

END_COLOURS = 2  # a table's game ends in the roll someone has completed this many colours

SHEET_NAMES = ("standard", "red", "blue", "green", "orange", "yellow")

ALL_CELLS = tuple(f"{col}{row}" for col in COLUMNS for row in ROWS)

_CELL_SET = frozenset(ALL_CELLS)
_COLUMN_CELLS = {col: frozenset(f"{col}{row}" for row in ROWS) for col in COLUMNS}


# --------------------------------------------------------------------------------------------
# Rule variants (issue 46): the numbers of the rules, the rulebook's by default
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rules:
    """The numbers a game is played under; the defaults are the rulebook's (the constants above)."""
    joker_six: bool = False  # a number joker may also stand for 6 (6 boxes)
    pass_penalty: int = 0  # points lost per pass, active or passive
    star_penalty: int = STAR_PENALTY  # points lost per star box not crossed
    end_colours: int = END_COLOURS  # colours someone completes to end a table's game
    solo_rolls: int = SOLO_ROLLS
    free_rolls: int = FIRST_ROLLS_ALL_DICE  # rolls 1..N: passive players use all six dice
    jokers: int = JOKERS_AT_START  # '!' a sheet starts with
    colour_bonus: tuple = (FIRST_COLOUR_BONUS, LATER_COLOUR_BONUS)
    column_first: tuple = tuple(FIRST_COLUMN_VALUES[c] for c in COLUMNS)  # columns A..O
    column_later: tuple = tuple(LATER_COLUMN_VALUES[c] for c in COLUMNS)

    @property
    def numbers(self) -> tuple[int, ...]:
        """The numbers a number joker stands for."""
        return NUMBERS + (6,) if self.joker_six else NUMBERS

    def column_value(self, column: str, first: bool) -> int:
        return (self.column_first if first else self.column_later)[COLUMNS.index(column)]


RULEBOOK = Rules()

# --rules names of the fields (what the text spells), in the order the text lists them
_RULE_NAMES = {"joker_six": "joker-six", "pass_penalty": "pass-penalty", "star_penalty": "star-penalty",
               "end_colours": "end-colours", "solo_rolls": "solo-rolls", "free_rolls": "free-rolls",
               "jokers": "jokers", "colour_bonus": "colour-bonus", "column_points": "column-points"}
_NUMERIC_RULES = {_RULE_NAMES[f]: f for f in ("pass_penalty", "star_penalty", "end_colours", "solo_rolls",
                                               "free_rolls", "jokers")}


def parse_rules_text(text: str) -> Rules:
    """The reference's reading of a --rules text: comma-separated `joker-six`, `NAME=N`,
    `colour-bonus=F/L`, `column-points=F/L:...` (15 pairs, columns A..O); "" or "rulebook": none."""
    changes = {}
    for part in (p.strip() for p in text.split(",")):
        if part in ("", "rulebook"):
            continue
        name, _, value = part.partition("=")
        if name == "joker-six" and not value:
            changes["joker_six"] = True
        elif name == "colour-bonus":
            first, later = value.split("/")
            changes["colour_bonus"] = (int(first), int(later))
        elif name == "column-points":
            pairs = [pair.split("/") for pair in value.split(":")]
            if len(pairs) != len(COLUMNS):
                raise ValueError(f"column-points needs {len(COLUMNS)} pairs, got {value!r}")
            changes["column_first"] = tuple(int(f) for f, _ in pairs)
            changes["column_later"] = tuple(int(later) for _, later in pairs)
        elif name in _NUMERIC_RULES and re.fullmatch(r"\d+", value):
            changes[_NUMERIC_RULES[name]] = int(value)
        else:
            raise ValueError(f"not a rule variant: {part!r}")
    return Rules(**changes)


def rules_text(rules: Rules) -> str:
    """The --rules text of `rules`: every number that is not the rulebook's."""
    parts = []
    if rules.joker_six:
        parts.append("joker-six")
    for field in ("pass_penalty", "star_penalty", "end_colours", "solo_rolls", "free_rolls", "jokers"):
        if getattr(rules, field) != getattr(RULEBOOK, field):
            parts.append(f"{_RULE_NAMES[field]}={getattr(rules, field)}")
    if rules.colour_bonus != RULEBOOK.colour_bonus:
        parts.append("colour-bonus={}/{}".format(*rules.colour_bonus))
    if (rules.column_first, rules.column_later) != (RULEBOOK.column_first, RULEBOOK.column_later):
        parts.append("column-points=" + ":".join(f"{f}/{later}" for f, later in zip(rules.column_first,
                                                                                    rules.column_later)))
    return ",".join(parts)


def random_rules(rng) -> Rules:
    """A random combination of variants (each changed with probability 1/2) from a
    `random.Random`, within bounds that keep games short enough for the tests' replays."""
    def maybe(draw, default):
        return draw() if rng.random() < 0.5 else default

    points = (lambda: tuple(rng.randint(0, 9) for _ in COLUMNS))
    first, later = maybe(lambda: (points(), points()), (RULEBOOK.column_first, RULEBOOK.column_later))
    return Rules(
        joker_six=rng.random() < 0.5,
        pass_penalty=maybe(lambda: rng.randint(1, 5), RULEBOOK.pass_penalty),
        star_penalty=maybe(lambda: rng.randint(0, 6), RULEBOOK.star_penalty),
        end_colours=maybe(lambda: rng.randint(1, 3), RULEBOOK.end_colours),
        solo_rolls=maybe(lambda: rng.randint(1, 45), RULEBOOK.solo_rolls),
        free_rolls=maybe(lambda: rng.randint(0, 8), RULEBOOK.free_rolls),
        jokers=maybe(lambda: rng.randint(0, 15), RULEBOOK.jokers),
        colour_bonus=maybe(lambda: (rng.randint(0, 9), rng.randint(0, 9)), RULEBOOK.colour_bonus),
        column_first=first, column_later=later)


def as_rules(rules) -> Rules:
    """The reference's Rules of None (the rulebook), a Rules, a --rules text, or any record with
    the fields of an engine's rules (joker_six ... colour_bonus, column_points = (first, later))."""
    if rules is None:
        return RULEBOOK
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return parse_rules_text(rules)
    numbers = {f.name: getattr(rules, f.name) for f in fields(Rules) if not f.name.startswith("column_")}
    numbers["joker_six"] = bool(numbers["joker_six"])
    numbers["colour_bonus"] = tuple(numbers["colour_bonus"])
    first, later = rules.column_points
    return Rules(**numbers, column_first=tuple(first), column_later=tuple(later))


# --------------------------------------------------------------------------------------------
# Cells
# --------------------------------------------------------------------------------------------

def check_cell(cell) -> str:
    """Return `cell` if it is a valid cell name like "H1", else raise ValueError."""
    if not isinstance(cell, str) or cell not in _CELL_SET:
        raise ValueError(f"malformed cell name {cell!r}: expected a column A..O and a row 1..7, e.g. 'H1'")
    return cell


def column_of(cell: str) -> str:
    return cell[0]


def row_of(cell: str) -> int:
    return int(cell[1:])


def _neighbours(cell: str) -> tuple[str, ...]:
    col = COLUMNS.index(column_of(cell))
    row = row_of(cell)
    result = []
    for dc, dr in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        c, r = col + dc, row + dr
        if 0 <= c < len(COLUMNS) and 1 <= r <= len(ROWS):
            result.append(f"{COLUMNS[c]}{r}")
    return tuple(result)


_NEIGHBOURS = {cell: _neighbours(cell) for cell in ALL_CELLS}


def neighbours(cell: str) -> tuple[str, ...]:
    """The orthogonal neighbours of `cell` that lie on the sheet (no diagonals)."""
    return _NEIGHBOURS[cell]


def is_connected(cells) -> bool:
    """True if the cells form one orthogonally connected group (flood fill)."""
    cells = set(cells)
    if not cells:
        return False
    start = next(iter(cells))
    seen = {start}
    todo = [start]
    while todo:
        cell = todo.pop()
        for nb in neighbours(cell):
            if nb in cells and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    return seen == cells


# --------------------------------------------------------------------------------------------
# Sheets
# --------------------------------------------------------------------------------------------

class Sheet:
    """A score sheet: colour of every cell and the set of star cells."""

    def __init__(self, name: str, rows: list[str]):
        self.name = name
        self.rows = list(rows)
        self.colour: dict[str, str] = {}
        self.stars: set[str] = set()
        for r, line in enumerate(rows, start=1):
            for c, letter in enumerate(line):
                cell = f"{COLUMNS[c]}{r}"
                self.colour[cell] = LETTER_TO_COLOUR[letter.lower()]
                if letter.isupper():
                    self.stars.add(cell)
        self._by_colour = {colour: frozenset(cell for cell in ALL_CELLS if self.colour[cell] == colour)
                           for colour in COLOURS}

    def cells_of_colour(self, colour: str) -> set[str]:
        return set(self._by_colour[colour])

    def cells_of_column(self, column: str) -> set[str]:
        return set(_COLUMN_CELLS[column])

    def __repr__(self):
        return f"Sheet({self.name!r})"


def parse_sheet(text: str, name: str = "custom") -> Sheet:
    """Parse the sheet file format: '#' comment lines, then 7 rows of 15 letters g y b r o
    (upper case = star box). Raises ValueError on a malformed file or a sheet breaking the
    invariants of RULES section 1."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        rows.append(line)
    if len(rows) != len(ROWS):
        raise ValueError(f"sheet {name!r}: expected {len(ROWS)} rows, found {len(rows)}")
    for r, line in enumerate(rows, start=1):
        if len(line) != len(COLUMNS):
            raise ValueError(f"sheet {name!r}: row {r} has {len(line)} letters, expected {len(COLUMNS)}")
        for letter in line:
            if letter.lower() not in LETTER_TO_COLOUR:
                raise ValueError(f"sheet {name!r}: row {r} has unknown letter {letter!r}")
    sheet = Sheet(name, rows)
    problems = sheet_invariant_problems(sheet)
    if problems:
        raise ValueError(f"sheet {name!r} breaks the rules' invariants: " + "; ".join(problems))
    return sheet


def blocks_of_colour(sheet: Sheet, colour: str) -> list[set[str]]:
    """The maximal orthogonally connected groups of one colour (flood fill)."""
    remaining = sheet.cells_of_colour(colour)
    blocks = []
    while remaining:
        start = remaining.pop()
        block = {start}
        todo = [start]
        while todo:
            cell = todo.pop()
            for nb in neighbours(cell):
                if nb in remaining:
                    remaining.discard(nb)
                    block.add(nb)
                    todo.append(nb)
        blocks.append(block)
    return blocks


def sheet_invariant_problems(sheet: Sheet) -> list[str]:
    """List of broken invariants (RULES section 1); empty if the sheet is valid."""
    problems = []
    for colour in COLOURS:
        boxes = sheet.cells_of_colour(colour)
        if len(boxes) != 21:
            problems.append(f"{colour} has {len(boxes)} boxes, expected 21")
        sizes = sorted(len(b) for b in blocks_of_colour(sheet, colour))
        if sizes != [1, 2, 3, 4, 5, 6]:
            problems.append(f"{colour} blocks have sizes {sizes}, expected one each of 1..6")
        stars = len(boxes & sheet.stars)
        if stars != 3:
            problems.append(f"{colour} has {stars} stars, expected 3")
    for column in COLUMNS:
        stars = len(sheet.cells_of_column(column) & sheet.stars)
        if stars != 1:
            problems.append(f"column {column} has {stars} stars, expected 1")
    return problems


def sheets_dir() -> Path:
    """The sheet files the engine ships (only the files: their reading here is independent)."""
    return Path(__file__).resolve().parents[2] / "sim" / "data" / "sheets"


_SHEET_CACHE: dict[str, Sheet] = {}


def load_sheet(name: str = "standard") -> Sheet:
    if name not in SHEET_NAMES:
        raise ValueError(f"unknown sheet {name!r}; known sheets: {', '.join(SHEET_NAMES)}")
    if name not in _SHEET_CACHE:
        path = sheets_dir() / f"{name}.txt"
        _SHEET_CACHE[name] = parse_sheet(path.read_text(), name)
    return _SHEET_CACHE[name]


def as_sheet(sheet_or_name_or_text) -> Sheet:
    """Accept a Sheet, a sheet name ("standard", ...) or the text of a sheet file."""
    if isinstance(sheet_or_name_or_text, Sheet):
        return sheet_or_name_or_text
    if isinstance(sheet_or_name_or_text, str):
        if "\n" in sheet_or_name_or_text:
            return parse_sheet(sheet_or_name_or_text)
        return load_sheet(sheet_or_name_or_text)
    raise ValueError(f"not a sheet, sheet name or sheet text: {sheet_or_name_or_text!r}")


# --------------------------------------------------------------------------------------------
# Marking boxes (RULES section 4)
# --------------------------------------------------------------------------------------------

def is_anchored(group, crossed) -> bool:
    """At least one box of the group is in column H or orthogonally adjacent to a crossed box."""
    for cell in group:
        if column_of(cell) == START_COLUMN:
            return True
        for nb in neighbours(cell):
            if nb in crossed:
                return True
    return False


def ref_legal_placements(sheet, crossed, colour: str, n: int, rules=None) -> set[frozenset[str]]:
    """Every legal placement of `n` boxes of `colour` for a player who crossed `crossed`: n is
    1..5, or 1..6 under joker-six (where only the number joker makes a 6, which is not asked here).

    Brute force: start from every empty box of the colour and grow connected groups one box at
    a time (adding any empty box of the colour adjacent to the group), deduplicating with sets.
    Every connected group of size n is reached this way (a connected group always has a box
    whose removal leaves it connected). Then keep the anchored groups.
    """
    sheet = as_sheet(sheet)
    if colour not in COLOURS:
        raise ValueError(f"unknown colour {colour!r}; expected one of {COLOURS}")
    top = max(as_rules(rules).numbers)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= top:
        raise ValueError(f"number must be 1..{top}, got {n!r}")
    crossed = {check_cell(c) for c in crossed}
    empty = sheet.cells_of_colour(colour) - crossed
    groups = {frozenset([cell]) for cell in empty}
    for _ in range(n - 1):
        bigger = set()
        for group in groups:
            for cell in group:
                for nb in neighbours(cell):
                    if nb in empty and nb not in group:
                        bigger.add(group | {nb})
        groups = bigger
    return {group for group in groups if is_anchored(group, crossed)}


# --------------------------------------------------------------------------------------------
# Dice and jokers (RULES sections 2 and 5)
# --------------------------------------------------------------------------------------------

def roll_dice(rng, solo: bool = False) -> dict:
    """Roll the dice with a `random.Random`: 3+3 dice, or 2+2 in the solo game."""
    k = SOLO_DICE if solo else MULTIPLAYER_DICE
    return {
        "colour": [rng.choice(COLOUR_DIE_FACES) for _ in range(k)],
        "number": [rng.choice(NUMBER_DIE_FACES) for _ in range(k)],
    }


def die_options(colour_face, number_face, jokers_left: int, rules=None) -> list[tuple[str, int, int]]:
    """The (colour, number, jokers spent) a pair of dice can stand for, given the `!` left: a
    number joker stands for 1..5, and for 6 too under joker-six."""
    cost = (colour_face == JOKER) + (number_face == JOKER)
    if cost > jokers_left:
        return []
    colours = COLOURS if colour_face == JOKER else (colour_face,)
    numbers = as_rules(rules).numbers if number_face == JOKER else (number_face,)
    return [(c, n, cost) for c in colours for n in numbers]


def allowed_dice(roll_number: int, seat: int, active: int, active_move, players: int, k: int, rules=None):
    """Indices (colour dice, number dice) a seat may choose from in this roll (RULES section 3;
    all six in the rules' free rolls, 1..3 by the rulebook).

    `active_move` is the active player's move dict (None for the active player himself).
    """
    everything = (list(range(k)), list(range(k)))
    if players == 1 or seat == active:
        return everything
    if roll_number <= as_rules(rules).free_rolls or active_move is None or active_move["pass"]:
        return everything
    return ([i for i in range(k) if i != active_move["colour_die"]],
            [j for j in range(k) if j != active_move["number_die"]])


def legal_choices(sheet, crossed, jokers_left: int, dice: dict, colour_idx, number_idx, rules=None):
    """Every legal non-pass choice from the allowed dice, as tuples
    (colour_die, number_die, colour, number, placement, jokers)."""
    choices = []
    for i in colour_idx:
        for j in number_idx:
            for colour, number, cost in die_options(dice["colour"][i], dice["number"][j], jokers_left, rules):
                for placement in ref_legal_placements(sheet, crossed, colour, number, rules):
                    choices.append((i, j, colour, number, placement, cost))
    return choices


# --------------------------------------------------------------------------------------------
# Completion and scoring (RULES sections 1, 6, 7)
# --------------------------------------------------------------------------------------------

def completed_columns(sheet, crossed) -> set[str]:
    crossed = set(crossed)
    return {col for col in COLUMNS if _COLUMN_CELLS[col] <= crossed}


def completed_colours(sheet, crossed) -> set[str]:
    sheet = as_sheet(sheet)
    crossed = set(crossed)
    return {colour for colour in COLOURS if sheet._by_colour[colour] <= crossed}


def star_penalty(sheet, crossed, rules=None) -> int:
    """Positive number of points lost: 2 (the rules' star penalty) per star box not crossed."""
    sheet = as_sheet(sheet)
    return as_rules(rules).star_penalty * len(sheet.stars - set(crossed))


def game_over_seats(sheet, crossed, rules=None) -> list[int]:
    """The seats of a table whose crossed boxes complete the rules' end colours (2 by the
    rulebook): the game ends with the roll in which this list first is not empty."""
    need = as_rules(rules).end_colours
    return [s for s, boxes in enumerate(crossed) if len(completed_colours(sheet, boxes)) >= need]


def settle_roll(sheet, before, after, columns_taken: set, colours_taken: set, solo: bool, rules=None):
    """The awards of one roll (RULES section 6), settled after every seat has moved: what each
    seat's crossed cells `after[s]` complete beyond `before[s]`, a column or colour at its first
    value unless a seat completed it in an earlier roll (`columns_taken`, `colours_taken`; in solo
    always at its first value), else at its later value.

    The values are the rules' (columns, colour bonus). Returns (per seat a dict: column_points,
    colour_points, columns_first, columns_later, colours_first, colours_later; the columns and the
    colours taken after this roll)."""
    sheet = as_sheet(sheet)
    rules = as_rules(rules)
    first_bonus, later_bonus = rules.colour_bonus
    new_columns = [completed_columns(sheet, a) - completed_columns(sheet, b) for b, a in zip(before, after)]
    new_colours = [completed_colours(sheet, a) - completed_colours(sheet, b) for b, a in zip(before, after)]
    awards = []
    for columns, colours in zip(new_columns, new_colours):
        first_columns = columns if solo else columns - columns_taken
        first_colours = colours if solo else colours - colours_taken
        awards.append({
            "column_points": sum(rules.column_value(c, c in first_columns) for c in columns),
            "colour_points": first_bonus * len(first_colours) + later_bonus * (len(colours) - len(first_colours)),
            "columns_first": len(first_columns), "columns_later": len(columns) - len(first_columns),
            "colours_first": len(first_colours), "colours_later": len(colours) - len(first_colours),
        })
    return awards, set(columns_taken).union(*new_columns), set(colours_taken).union(*new_colours)


def score(column_points: int, colour_points: int, jokers_left: int, penalty: int, passes: int = 0,
          rules=None) -> int:
    """The final score: `penalty` is the star penalty (points), `passes` the seat's passes, each
    costing the rules' pass penalty (0 by the rulebook)."""
    return column_points + colour_points + jokers_left - penalty - as_rules(rules).pass_penalty * passes


def winners(scores: list[int], jokers_left: list[int]) -> list[bool]:
    """Highest score wins; tie broken by more `!` left; still tied -> shared win."""
    best = max(scores)
    tied = [s for s in range(len(scores)) if scores[s] == best]
    most_jokers = max(jokers_left[s] for s in tied)
    return [s in tied and jokers_left[s] == most_jokers for s in range(len(scores))]


def ranks(scores: list[int], jokers_left: list[int]) -> list[int]:
    """1 + the seats ahead: a higher score, or the same score and more `!` left; seats tied on
    both share a rank (1, 1, 3)."""
    return [1 + sum(scores[t] > scores[s] or (scores[t] == scores[s] and jokers_left[t] > jokers_left[s])
                    for t in range(len(scores)))
            for s in range(len(scores))]
