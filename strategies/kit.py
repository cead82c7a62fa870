"""The strategy kit: Numba helpers that answer a strategy's questions without bit arithmetic.

A strategy (docs/strategies.md) is called as ``choose(st, ps, bb, cands, n, tab, params, rng)``
and returns the index i of one of the legal choices ``cands[0:n]``, or -1 to pass. Every helper
here takes those very arguments, so a strategy reads, for instance::

    from strategies import kit

    for i in range(n):
        value = kit.size(tab, cands, i) + 2 * kit.stars(tab, cands, i) + kit.points_now(st, ps, bb, tab, cands, i)

Conventions. A *choice* is a row i of ``cands`` (0 <= i < n). Columns are numbered 0..14 (A..O,
H = 7 = ``H_COLUMN``), rows 0..6 (the sheet's rows 1..7), colours 0..4 (green, yellow, blue,
red, orange: ``GREEN`` .. ``ORANGE``). "The seat" of a choice is the one deciding now,
``st[ST_SEAT]`` (``kit.me(st)``). Every helper reads its arguments and writes only where its
docstring says (``sheet_after``, ``set_dice``, ``legal_choices`` write the arrays a strategy
made for itself with ``workspace``): the state a strategy is shown must stay as it is.

Rules. A game may be played under rule variants (``--rules``, docs/rules.md "Variants"): the
helpers answer under the rules in force, which they read from ``tab`` (a star's penalty, a
colour's bonus, the solo game's length, ...), and the section "The rules in force" tells a
strategy those numbers (``kit.pass_penalty(tab)``, ``kit.solo_rolls(tab)``, ...).

Cost. The small helpers are inlined into the strategy (``inline="always"``), allocate
nothing and read the tables without reference counts (sim.nbinternals.borrow); call them per
candidate freely. ``workspace`` allocates: call it once per decision.
``sheet_after`` copies the table into the workspace (about 200 words) and plays the choice.

docs/kit.md is generated from this module's docstrings (tests/helpers/docs_figures.py: kit-reference).
"""
import numpy as np
from numba import njit

from sim.bits import ctz, popcount
from sim.engine import awards, move_alone, stars_missed
from sim.engine import score_now as engine_score_now
from sim.engine import legal_choices as _legal_choices
from sim.moves import mobility
from sim.nbinternals import borrow, stack_i64
from sim.state import (
    BB_ALIVE, BB_CROSSED, BB_TOUCH, CAND_COST, CAND_SUB, COLOUR_JOKER, MAX_CANDS, MAX_SEATS, NUMBER_JOKER,
    PS_COLOURS, PS_COLS, PS_JOKERS, ST_AVAIL, ST_COLOURS_TAKEN,
    ST_COLS_TAKEN, ST_DICE, ST_MAX_ROLLS, ST_PLAYERS, ST_ROLL, ST_SEAT, BB_SIZE, CAND_SIZE, PS_SIZE, ST_SIZE,
)
from sim.rules import (
    R_COLOUR_FIRST, R_COLOUR_LATER, R_END_COLOURS, R_FREE_ROLLS, R_JOKERS, R_NUMBERS, R_PASS_PENALTY, R_SOLO_ROLLS,
    R_STAR_PENALTY, RULEBOOK,
)
from sim.tables import N_COLOURS

from . import learned as _learned
from .table_features import fewest_sum

GREEN, YELLOW, BLUE, RED, ORANGE = range(N_COLOURS)
#: The start column H: every sheet grows from it.
H_COLUMN = 7
N_COLUMNS = 15
#: A die's joker faces, for set_dice.
JOKER_COLOUR = COLOUR_JOKER
JOKER_NUMBER = NUMBER_JOKER
#: Boxes in a column, and of each colour on every valid sheet.
COLUMN_BOXES = 7
COLOUR_BOXES = 21

#: At a table the rolls still to come are estimated as TABLE_ROLLS_BASE + TABLE_ROLLS_PER_BOX times
#: the boxes the closest seat still needs for two colours (rolls_left_estimate): a line fitted to
#: tables of `heuristic` (0.72 per box + 6 to 7) and of `learned` (0.70 + 3), tests/strategies/test_kit.py.
TABLE_ROLLS_PER_BOX = 0.7
TABLE_ROLLS_BASE = 5.0

#: colour_points without the tables: the rulebook's values (a tuple, which Numba freezes).
_RULEBOOK_COLOURS = (np.int64(RULEBOOK.colour_bonus[0]), np.int64(RULEBOOK.colour_bonus[1]))
_SEVEN = np.uint64(0x7F)
_ONE = np.uint64(1)
_N_ROWS = 7


# --- argument checks ----------------------------------------------------------------------
# A helper given a box, column or colour that does not exist would read another one's bits and
# answer without a word: it raises instead, and the run names the strategy's file and line
# (sim.guard.where_it_raised). A comparison each: nothing next to what the helpers do.

@njit(cache=True, inline="always")
def _check_colour(helper, colour):
    if colour < 0 or colour >= N_COLOURS:
        raise ValueError(helper, "got colour", colour, "(colours are 0..4: GREEN .. ORANGE)")


@njit(cache=True, inline="always")
def _check_column(helper, col):
    if col < 0 or col >= N_COLUMNS:
        raise ValueError(helper, "got column", col, "(columns are 0..14: A..O)")


@njit(cache=True, inline="always")
def _check_box(helper, col, row):
    _check_column(helper, col)
    if row < 0 or row >= _N_ROWS:
        raise ValueError(helper, "got row", row, "(rows are 0..6: the sheet's rows 1..7)")


# --- a choice ------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def placement(cands, i):
    """The placement of choice i: its row in the sheet's tables `tab` (the same boxes may be
    offered by several choices, with other dice or at another cost in '!')."""
    return cands[i, CAND_SUB]


@njit(cache=True, inline="always")
def colour(tab, cands, i):
    """The colour of choice i's boxes: 0..4 (GREEN, YELLOW, BLUE, RED, ORANGE)."""
    return borrow(tab, "colour")[cands[i, CAND_SUB]]


@njit(cache=True, inline="always")
def size(tab, cands, i):
    """The number of boxes choice i crosses (1..5: the number it plays; 6 under joker-six)."""
    return borrow(tab, "size")[cands[i, CAND_SUB]]


@njit(cache=True, inline="always")
def stars(tab, cands, i):
    """The star boxes among choice i's boxes (each star left open costs 2 points at the end:
    star_penalty)."""
    return borrow(tab, "stars")[cands[i, CAND_SUB]]


@njit(cache=True, inline="always")
def jokers_cost(cands, i):
    """The '!' choice i spends: 0, 1 or 2 (one per joker face it uses; each '!' kept scores 1)."""
    return cands[i, CAND_COST]


@njit(cache=True, inline="always")
def box(tab, cands, i, j):
    """(column, row) of the j-th box of choice i, j = 0 .. size - 1, in column order (column
    0..14 = A..O, row 0..6 = the sheet's rows 1..7)."""
    sub = cands[i, CAND_SUB]
    if j < 0 or j >= borrow(tab, "size")[sub]:
        raise ValueError("kit.box got j =", j, "for a choice of", borrow(tab, "size")[sub], "boxes (j = 0 .. size - 1)")
    mask = borrow(tab, "mask")      # no reference count (sim.nbinternals): this runs per box
    lo = mask[sub, 0]
    in_lo = popcount(lo)
    word = lo if j < in_lo else mask[sub, 1]
    for _ in range(j if j < in_lo else j - in_lo):     # drop the boxes before the j-th
        word &= word - _ONE
    bit = ctz(word) + (0 if j < in_lo else 64)
    return bit >> 3, bit & 7


@njit(cache=True, inline="always")
def boxes_in_column(tab, cands, i, col):
    """How many of choice i's boxes lie in column col (0..14)."""
    _check_column("kit.boxes_in_column", col)
    sub = cands[i, CAND_SUB]
    word = borrow(tab, "mask")[sub, col >> 3]
    return popcount((word >> np.uint64(8 * (col & 7))) & _SEVEN)


@njit(cache=True, inline="always")
def columns(tab, cands, i):
    """(first, last): the columns choice i spans (its boxes hang together, so it has a box in
    every column between)."""
    first = -1
    last = -1
    sub = cands[i, CAND_SUB]
    for col in range(N_COLUMNS):
        if (borrow(tab, "mask")[sub, col >> 3] >> np.uint64(8 * (col & 7))) & _SEVEN:
            if first < 0:
                first = col
            last = col
    return first, last


@njit(cache=True, inline="always")
def distance_from_h(col):
    """How many columns col lies from the start column H (0 for H, 7 for A and O)."""
    _check_column("kit.distance_from_h", col)
    return abs(col - H_COLUMN)


# --- what a choice completes and earns ---------------------------------------------------

@njit(cache=True, inline="always")
def _awards_of(st, ps, bb, tab, cands, i):
    seat = st[ST_SEAT]
    sub = cands[i, CAND_SUB]
    solo = st[ST_PLAYERS] == 1
    mask = borrow(tab, "mask")
    return awards(bb[seat, BB_CROSSED] | mask[sub, 0], bb[seat, BB_CROSSED + 1] | mask[sub, 1],
                  ps[seat, PS_COLS], ps[seat, PS_COLOURS], 0 if solo else st[ST_COLS_TAKEN],
                  0 if solo else st[ST_COLOURS_TAKEN], borrow(tab, "col_first"), borrow(tab, "col_later"),
                  borrow(tab, "colour_mask"), borrow(tab, "rules")[R_COLOUR_FIRST], borrow(tab, "rules")[R_COLOUR_LATER])


@njit(cache=True, inline="always")
def columns_completed(st, ps, bb, tab, cands, i):
    """How many columns choice i completes on the deciding seat's sheet (0..5)."""
    new_cols = _awards_of(st, ps, bb, tab, cands, i)[0]
    return popcount(np.uint64(new_cols))


@njit(cache=True, inline="always")
def completes_colour(st, ps, bb, tab, cands, i):
    """True if choice i crosses the last open boxes of its colour on the deciding seat's sheet."""
    return _awards_of(st, ps, bb, tab, cands, i)[1] != 0


@njit(cache=True, inline="always")
def points_now(st, ps, bb, tab, cands, i):
    """The column and colour points choice i earns when the roll is settled: each column or
    colour it completes scores its first value, or its later one if another seat completed it
    in an earlier roll (a completion by another seat in this same roll still leaves the first
    value; in solo every completion scores its first value). Stars and '!' are not included:
    see score_gain."""
    a = _awards_of(st, ps, bb, tab, cands, i)
    return a[4] + a[5]


@njit(cache=True, inline="always")
def score_gain(st, ps, bb, tab, cands, i):
    """How much choice i raises the deciding seat's score as it would stand if the game ended
    now: points_now + 2 per star it crosses (star_penalty) - 1 per '!' it spends (passing gains
    0, less the rules' pass_penalty)."""
    return (points_now(st, ps, bb, tab, cands, i) + star_penalty(tab) * stars(tab, cands, i)
            - cands[i, CAND_COST])


# --- any seat's sheet -------------------------------------------------------------------

@njit(cache=True, inline="always")
def me(st):
    """The seat deciding now (0 in solo)."""
    return st[ST_SEAT]


@njit(cache=True, inline="always")
def roll(st):
    """The roll being played: 1 at the first, 30 at the solo game's last."""
    return st[ST_ROLL]


@njit(cache=True, inline="always")
def players(st):
    """Seats at the table: 1 in the solo game, 2..6 at a table."""
    return st[ST_PLAYERS]


@njit(cache=True, inline="always")
def is_crossed(bb, seat, col, row):
    """True if seat has crossed the box in column col (0..14), row row (0..6)."""
    _check_box("kit.is_crossed", col, row)
    word = bb[seat, BB_CROSSED + (col >> 3)]
    return (word >> np.uint64(8 * (col & 7) + row)) & _ONE != 0


@njit(cache=True, inline="always")
def next_to_crossed(bb, seat, col, row):
    """True if a box edge to edge with the box in column col, row row (above, below, left or
    right) is crossed on seat's sheet: a move may grow from there (it needs such a box, or
    column H)."""
    _check_box("kit.next_to_crossed", col, row)
    return ((row > 0 and is_crossed(bb, seat, col, row - 1))
            or (row < _N_ROWS - 1 and is_crossed(bb, seat, col, row + 1))
            or (col > 0 and is_crossed(bb, seat, col - 1, row))
            or (col < N_COLUMNS - 1 and is_crossed(bb, seat, col + 1, row)))


@njit(cache=True, inline="always")
def column_crossed(bb, seat, col):
    """Boxes seat has crossed in column col (0..7; 7 = complete)."""
    _check_column("kit.column_crossed", col)
    word = bb[seat, BB_CROSSED + (col >> 3)]
    return popcount((word >> np.uint64(8 * (col & 7))) & _SEVEN)


@njit(cache=True, inline="always")
def colour_crossed(bb, tab, seat, colour):
    """Boxes of colour (0..4) seat has crossed (0..21; 21 = complete)."""
    _check_colour("kit.colour_crossed", colour)
    return (popcount(bb[seat, BB_CROSSED] & borrow(tab, "colour_mask")[colour, 0])
            + popcount(bb[seat, BB_CROSSED + 1] & borrow(tab, "colour_mask")[colour, 1]))


@njit(cache=True)
def colours_by_crossed(bb, tab, seat):
    """The five colours, the one seat has crossed the most boxes of first (ties in colour order,
    GREEN first): an array, so `kit.colours_by_crossed(bb, tab, me)[0]` is its leading colour.
    It allocates (5 words): once per decision."""
    crossed = np.empty(N_COLOURS, np.int64)
    for c in range(N_COLOURS):
        crossed[c] = colour_crossed(bb, tab, seat, c)
    return np.argsort(-crossed, kind="mergesort")


@njit(cache=True, inline="always")
def stars_open(bb, tab, seat):
    """Star boxes seat has not crossed (each costs 2 points at the end)."""
    return stars_missed(bb, tab, seat)


@njit(cache=True, inline="always")
def jokers_left(ps, seat):
    """The '!' seat has left (8 at the start: start_jokers; each one left scores 1 at the end)."""
    return ps[seat, PS_JOKERS]


@njit(cache=True, inline="always")
def columns_done(ps, seat):
    """Columns seat has completed (settled rolls only: not the move being decided)."""
    return popcount(np.uint64(ps[seat, PS_COLS]))


@njit(cache=True, inline="always")
def colours_done(ps, seat):
    """Colours seat has completed (settled rolls only). A table's game ends after the roll in
    which any seat completes its second colour (end_colours)."""
    return popcount(np.uint64(ps[seat, PS_COLOURS]))


@njit(cache=True, inline="always")
def column_points(st, tab, col):
    """What completing column col would score now: its first value (5 at A and O down to 1 at
    H), or its later one if another seat completed it in an earlier roll (always the first in
    solo)."""
    _check_column("kit.column_points", col)
    if st[ST_PLAYERS] > 1 and (st[ST_COLS_TAKEN] >> col) & 1:
        return borrow(tab, "col_later")[col]
    return borrow(tab, "col_first")[col]


@njit(cache=True, inline="always")
def colour_points(st, colour, tab=None):
    """What completing colour (0..4) would score now: 5, or 3 if another seat completed it in an
    earlier roll (always 5 in solo). Under a colour-bonus variant pass `tab` to get the rules'
    values (colour_bonus); without it, the rulebook's 5 and 3."""
    _check_colour("kit.colour_points", colour)
    first, later = _RULEBOOK_COLOURS if tab is None else colour_bonus(tab)
    if st[ST_PLAYERS] > 1 and (st[ST_COLOURS_TAKEN] >> colour) & 1:
        return later
    return first


@njit(cache=True, inline="always")
def score_now(ps, bb, tab, seat):
    """seat's score if the game ended now: column and colour points + '!' left - 2 per open star
    (star_penalty), less the pass_penalty per pass (0 by the rulebook)."""
    return engine_score_now(ps, bb, tab, seat)


@njit(cache=True, inline="always")
def open_placements(bb, seat):
    """Placements of any colour and number seat could legally cross now (33 at the start, on the
    standard sheet): how much room the sheet leaves to grow."""
    return mobility(bb[seat], BB_ALIVE, BB_TOUCH)


# --- the rules in force -------------------------------------------------------------------
# The numbers of the rules the game is played under (--rules; the rulebook's unless a variant
# changes them), from the tables `tab` every strategy is given.

@njit(cache=True, inline="always")
def pass_penalty(tab):
    """Points each pass costs at the end (0 by the rulebook; pass-penalty=N)."""
    return borrow(tab, "rules")[R_PASS_PENALTY]


@njit(cache=True, inline="always")
def star_penalty(tab):
    """Points each star box left open costs at the end (2 by the rulebook; star-penalty=N)."""
    return borrow(tab, "rules")[R_STAR_PENALTY]


@njit(cache=True, inline="always")
def solo_rolls(tab):
    """Rolls of the solo game (30 by the rulebook; solo-rolls=N)."""
    return borrow(tab, "rules")[R_SOLO_ROLLS]


@njit(cache=True, inline="always")
def free_rolls(tab):
    """The first rolls in which every seat at a table picks from all six dice, whatever the active
    seat took (3 by the rulebook; free-rolls=N)."""
    return borrow(tab, "rules")[R_FREE_ROLLS]


@njit(cache=True, inline="always")
def start_jokers(tab):
    """The '!' a sheet starts with (8 by the rulebook; jokers=N)."""
    return borrow(tab, "rules")[R_JOKERS]


@njit(cache=True, inline="always")
def end_colours(tab):
    """Colours a seat must complete to end a table's game, after that roll (2 by the rulebook;
    end-colours=N)."""
    return borrow(tab, "rules")[R_END_COLOURS]


@njit(cache=True, inline="always")
def colour_bonus(tab):
    """(first, later): what completing a colour scores first and after another seat (5, 3 by the
    rulebook; colour-bonus=F/L). A column's values: column_points."""
    rules = borrow(tab, "rules")
    return rules[R_COLOUR_FIRST], rules[R_COLOUR_LATER]


@njit(cache=True, inline="always")
def max_number(tab):
    """The most boxes one move may cross: 5, or 6 under joker-six (a number joker then stands for
    6 as well; no die shows a 6)."""
    return 6 if (borrow(tab, "rules")[R_NUMBERS] >> 5) & 1 else 5


# --- rolls left ---------------------------------------------------------------------------

@njit(cache=True)
def solo_rolls_left(st):
    """Rolls still to come after this one in the solo game (29 at roll 1, 0 at roll 30; under
    solo-rolls=N, N - 1 at roll 1): exact. Raises ValueError at a table, where the length of the
    game is not known (rolls_left_estimate). In solo the engine sets `st[ST_MAX_ROLLS]` to the
    rules' solo rolls; at a table it is the 200-roll safety cap, no length of the game."""
    if st[ST_PLAYERS] != 1:
        raise ValueError("solo_rolls_left at a table: use kit.rolls_left_estimate")
    return st[ST_MAX_ROLLS] - st[ST_ROLL]


@njit(cache=True)
def rolls_left_estimate(st, bb, tab):
    """Rolls still to come after this one: exact in solo (as solo_rolls_left), estimated at a
    table, where the game ends after the roll in which a seat completes its second colour
    (end_colours): the boxes the closest seat still needs for those colours, times
    TABLE_ROLLS_PER_BOX, plus
    TABLE_ROLLS_BASE (a float; about 34 at roll 1). At 4-player tables of `heuristic` or of
    `learned` it is off by 3.5 to 5 rolls on average (tables of `heuristic` last 2 rolls longer
    than it says, of `learned` 2 shorter: tests/strategies/test_kit.py); tables of weaker players last
    longer (4 `greedy`: 47 rolls, where it says 34 at the start)."""
    if st[ST_PLAYERS] == 1:
        return float(solo_rolls(tab) - st[ST_ROLL])
    gaps = stack_i64(N_COLOURS)     # a seat's empty boxes per colour
    best = 1000
    for s in range(st[ST_PLAYERS]):
        for k in range(N_COLOURS):
            gaps[k] = COLOUR_BOXES - colour_crossed(bb, tab, s, k)
        best = min(best, fewest_sum(gaps, 0, -1, 0, end_colours(tab)))
    return TABLE_ROLLS_BASE + TABLE_ROLLS_PER_BOX * best


# --- the sheet after a choice, and the choices from there ---------------------------------

@njit(cache=True)
def workspace():
    """Arrays of the strategy's own, (st2, ps2, bb2, cands2), shaped as st, ps, bb and cands:
    where sheet_after writes the table after a choice and legal_choices the choices from there.
    It allocates (about half a microsecond): make one per decision, not one per choice."""
    return (np.zeros(ST_SIZE, np.int64), np.zeros((MAX_SEATS, PS_SIZE), np.int64),
            np.zeros((MAX_SEATS, BB_SIZE), np.uint64), np.empty((MAX_CANDS, CAND_SIZE), np.int64))


@njit(cache=True)
def sheet_after(st, ps, bb, tab, cands, i, st2, ps2, bb2):
    """Write into st2, ps2, bb2 (a workspace) the table as it would be after the deciding seat
    plays choice i (-1: passes): its boxes crossed, its '!' spent, and what it completes awarded
    to that seat as the engine settles it (points_now), so that ps2 and bb2 answer every
    question above for the sheet after the move (score_now, colours_done, open_placements, ...).
    The other seats, the roll and the dice are as in st, ps, bb, which are only read."""
    st2[:] = st
    ps2[:, :] = ps
    bb2[:, :] = bb
    if i < 0:
        move_alone(st, ps2, bb2, tab, st[ST_SEAT], -1, 0)
    else:
        move_alone(st, ps2, bb2, tab, st[ST_SEAT], cands[i, CAND_SUB], cands[i, CAND_COST])


@njit(cache=True)
def set_dice(st2, colour, number):
    """Make st2 (a workspace) offer one colour die showing `colour` (0..4, or JOKER_COLOUR) and
    one number die showing `number` (1..5, or JOKER_NUMBER) and nothing else: the roll to try
    with legal_choices, e.g. every (colour, number) a next roll could bring."""
    if colour != JOKER_COLOUR:
        _check_colour("kit.set_dice", colour)
    if number != JOKER_NUMBER and (number < 1 or number > 5):
        raise ValueError("kit.set_dice got number", number, "(numbers are 1..5, or JOKER_NUMBER)")
    for d in range(6):
        st2[ST_DICE + d] = -1
    st2[ST_DICE] = colour
    st2[ST_DICE + 3] = number
    st2[ST_AVAIL] = 0b001001


@njit(cache=True)
def legal_choices(st2, ps2, bb2, tab, cands2):
    """Fill cands2 with the legal choices of the seat st2 says is deciding, with the dice it
    offers (st2[ST_AVAIL]), on the sheets of bb2, and return how many: what the engine would
    offer there. After sheet_after and set_dice: the choices the next roll would bring. Every
    helper about a choice then works on (cands2, j) as on (cands, i)."""
    return _legal_choices(st2, ps2, bb2, tab, cands2)


# --- learned's value ----------------------------------------------------------------------

def learned_data(sheet, file, players, rules=None):
    """Give this as `data=` to @strategy: the strategy's `params` then hold, after its own
    parameters, learned's solo weights for the run's sheet and rules (at tables too: the table
    weights value a margin over opponents, not a sheet). Read them with learned_weights. Under
    rules `learned` has no weights for, the run stops saying how to train them."""
    return _learned.weights_data(sheet, None, 1, rules=rules)


@njit(cache=True)
def learned_weights(params, n_params):
    """(W, lay): learned's weights and sheet layout from `params`, for a strategy declared with
    data=learned_data and `n_params` parameters of its own. Cheap (views): call it per decision."""
    # learned_data's words: the layout (LAY_SIZE int64), then the weights (float32, two a word).
    lay = params[n_params:n_params + _learned.LAY_SIZE].view(np.int64)
    return params[n_params + _learned.LAY_SIZE:].view(np.float32), lay


@njit(cache=True)
def learned_value(W, lay, ps, bb, seat, rolls_left):
    """learned's estimate of the points seat's sheet (in ps, bb) will still earn with `rolls_left`
    rolls to come (an integer, 0..29, more counting as 29; 0 is worth 0): column and colour
    points, +2 per star crossed, -1 per '!' spent (under the rules its weights were trained for),
    as learned itself would play on, in solo. So
    score_gain(choice) + learned_value(the sheet after it, rolls left after this roll) is
    learned's one-ply value of a choice, and its argmax is learned's solo move (docs/strategies.md).
    At a table it values the sheet alone, as if solo (rolls_left: rolls_left_estimate)."""
    t = min(max(int(rolls_left), 0), _learned.N_T - 1)
    return _learned.solo_sheet_value(W, lay, bb[seat, BB_CROSSED], bb[seat, BB_CROSSED + 1], t,
                                     ps[seat, PS_JOKERS])


#: The reference's sections (docs/kit.md, generated): every public function, once.
SECTIONS = (
    ("A choice", ("placement", "colour", "size", "stars", "jokers_cost", "box", "boxes_in_column", "columns",
                  "distance_from_h")),
    ("What a choice completes and earns", ("columns_completed", "completes_colour", "points_now", "score_gain")),
    ("Any seat's sheet", ("me", "roll", "players", "is_crossed", "next_to_crossed", "column_crossed",
                          "colour_crossed", "colours_by_crossed", "stars_open", "jokers_left", "columns_done",
                          "colours_done", "column_points", "colour_points", "score_now", "open_placements")),
    ("The rules in force", ("pass_penalty", "star_penalty", "solo_rolls", "free_rolls", "start_jokers",
                            "end_colours", "colour_bonus", "max_number")),
    ("Rolls left", ("solo_rolls_left", "rolls_left_estimate")),
    ("The sheet after a choice, and the choices from there", ("workspace", "sheet_after", "set_dice",
                                                               "legal_choices")),
    ("learned's value of a sheet", ("learned_data", "learned_weights", "learned_value")),
)
