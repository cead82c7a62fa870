"""The built-in sheets as printed on their pads, typed in here column by column (rows 1..7 top
to bottom; g y b r o = green yellow blue red orange) with their star boxes, so that a wrong colour
or star in sim/data/sheets/ is caught even when the sheet still keeps every invariant. Nothing
here reads a sheet file: tests/sim/test_sheets.py compares these facts with the engine's sheets and
with tests/helpers/reference.py's reading of the same files."""
from typing import NamedTuple

COLUMNS = "ABCDEFGHIJKLMNO"
COLOUR_OF = {"g": "green", "y": "yellow", "b": "blue", "r": "red", "o": "orange"}


class SheetFacts(NamedTuple):
    columns: tuple[str, ...]   # A..O, each its 7 colours from row 1 down
    stars: str                 # the star boxes, one per column

    def colours(self) -> dict[str, str]:
        """Every box's colour name: {"A1": "green", ...}."""
        return {f"{COLUMNS[c]}{r + 1}": COLOUR_OF[letter]
                for c, column in enumerate(self.columns) for r, letter in enumerate(column)}

    def star_cells(self) -> set[str]:
        return set(self.stars.split())


SHEETS = {
    "standard": SheetFacts(
        columns=("gobbrry", "gggroby", "gyrrobb", "ygggorb", "yygoorb", "yygorrb", "yogbbrr", "gorbbyy",
                 "brrgoyy", "bbrgooy", "bbyyorg", "ooyyrbg", "yooorbg", "yggrrbo", "yggbroo"),
        stars="A3 B6 C2 D6 E2 F4 G3 H1 I6 J2 K6 L1 M7 N4 O6"),
    "red": SheetFacts(
        columns=("grbbboy", "gobbryy", "oobrrgy", "oyrrbgg", "oggrbby", "rgggboy", "rbbgooy", "ryyobgg",
                 "yyrobbg", "byrroog", "bgryyoo", "boogyyr", "boggyrr", "boogyrr", "rrogbyy"),
        stars="A3 B1 C7 D3 E1 F2 G3 H4 I1 J4 K2 L6 M6 N2 O5"),
    "blue": SheetFacts(
        columns=("robbggy", "rrobbgy", "groobyy", "gbboryy", "ybgorrr", "ygggrbo", "yygrbbo", "ggrrbyo",
                 "ggoobyr", "rrgobyy", "rggooby", "rygobbb", "rrgbyoo", "oogbyyr", "ooyygbr"),
        stars="A2 B3 C6 D2 E7 F2 G1 H5 I7 J2 K5 L2 M4 N3 O5"),
    "green": SheetFacts(
        columns=("ogbbbry", "ggborry", "bgooory", "bggorry", "rryobbg", "ryygobb", "rgggoby", "grbboyy",
                 "ggrbbyo", "ggrbyyo", "yrrboog", "yyroobg", "yyorrgb", "rrooygb", "ryyoogb"),
        stars="A1 B5 C5 D3 E7 F7 G3 H2 I5 J5 K1 L6 M4 N5 O5"),
    "orange": SheetFacts(
        columns=("obyyrgg", "oobyygr", "yobbggr", "oogybrr", "rggybbo", "rrrygbo", "rggyybo", "ggyboor",
                 "oyybbgr", "rryybgo", "grryboo", "ggrrbyo", "gbbooyr", "gyyobbr", "gyoobbr"),
        stars="A1 B4 C1 D5 E2 F5 G1 H4 I2 J1 K6 L2 M7 N6 O3"),
    "yellow": SheetFacts(
        columns=("rrboyyg", "ggrobyy", "grrobby", "yrboogg", "yrbbogg", "yygbroo", "yygbroo", "oogbryy",
                 "rrggbyo", "rrgyboo", "ggrybbo", "ggbbryo", "gborryy", "bbbroyg", "ybrroog"),
        stars="A7 B3 C6 D1 E7 F3 G6 H4 I7 J4 K3 L5 M3 N3 O1"),
}
