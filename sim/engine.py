"""The rules of Encore! as Numba kernels: one game, played on the arrays of sim.state.

Functions, in the order a game uses them:

    reset            empty sheets, 8 '!' each (the rules' jokers), all anchored subsets in column H
    set_dice         the roll's dice faces, from the counter-based stream
    legal_choices    every legal (dice pair, placement) for the deciding seat
    cross            apply a chosen placement to a seat's sheet
    settle_awards    columns and colours completed this roll: first or later value
    finish           star penalty, score, rank, winners
    play             a whole game, solo (RULES section 8) or 2-6 players (section 3)

A roll is played by the turn kernel (start_roll, play_move, active_move, passive_moves,
end_of_roll, solo_move, move_alone, end_of_game), which play, training, the research kernels
and the kit all call: the rules of a roll are written once, here. tests/test_layers.py checks
that no module of strategies/ crosses boxes or settles awards itself.

A game is played by two loops over that kernel: play here, every seat decided inside, and
sim.step.advance, which stops at a seat decided outside and resumes there. They share the set-up
(begin_game), the roll's dice (roll_logged), the decisions (decide, decide_guarded) and the end
(end_game, empty_seats_check). play is not advance with no outside seat because that was slower
where it counts: measured side by side (one thread, best of 6 alternated rounds, advance on
uncounted views as sim.vector calls it), advance played greedy's four-player games at 0.86 of
play's speed and heuristic's at 0.95 (solo 0.98 and 1.08): it reads and writes its place in the
roll (sim.step's step row) at every decision, where play keeps it in registers.

Rules references ("RULES section N") are to section N of docs/rules.md. The numbers of the rules
(the '!' a sheet starts with, the penalties, the end, the solo game's length, the free rolls, the
colour and column values, what a number joker stands for) are those of the game's tables:
tab.rules[R_*] (sim.rules) and tab.col_first, tab.col_later; the rulebook's unless a variant changes
them.
"""
import numpy as np
from numba import njit

from .bits import ZERO, ctz, popcount
from .guard import ERR_INDEX, ERR_RAISED, ERR_WRITE, ERR_WRITE_SEEN_LATE, RAISED, empty_seats_written, guarded_call
from .moves import legal_word, dice_word, die_pair, next_group, next_row
from .nbinternals import borrow, uncounted
from .players import (
    PLAYER_GREEDY, PLAYER_GUARDED, PLAYER_PLACE, PLAYER_RANDOM, greedy_pick, offered_dice, placed, random_choice,
)
from .rng import die, game_key, seat_stream
from .state import (
    BB_ALIVE, BB_CROSSED, BB_TOUCH, CAND_CDIE, CAND_COST, CAND_NDIE, CAND_SUB,
    MAX_SEATS, NUMBER_JOKER, PASS, PS_BOXES, PS_COL_POINTS, PS_COLOUR_POINTS, PS_COLOURS,
    PS_COLOURS_FIRST, PS_COLS, PS_COLS_FIRST, PS_FIRST_JOKER_ROLL, PS_JOKERS, PS_PASSES, PS_RANK,
    PS_SCORE, PS_STAR_PENALTY, PS_WINNER, ST_ACTIVE, ST_ACTIVE_CDIE, ST_ACTIVE_NDIE, ST_ACTIVE_SUB,
    ST_AVAIL, ST_COLOURS_TAKEN, ST_COLS_TAKEN, ST_DICE, ST_IS_ACTIVE, ST_MAX_ROLLS, ST_PLAYERS,
    ST_ROLL, ST_SEAT,
)
from .rules import (
    R_COLOUR_FIRST, R_COLOUR_LATER, R_END_COLOURS, R_FREE_ROLLS, R_JOKERS, R_NUMBERS, R_PASS_PENALTY, R_SOLO_ROLLS,
    R_STAR_PENALTY, RULEBOOK,
)
from .tables import N_COLOURS, NW

#: The rulebook's solo game length and free rolls; a game reads its own from tab.rules.
SOLO_ROLLS = RULEBOOK.solo_rolls
ALL_DICE = 0b111111
SOLO_DICE = 0b011011       # colour dice 0, 1 and number dice 0, 1
FIRST_OPEN_ROLLS = RULEBOOK.free_rolls   # passive players choose from all six dice in rolls 1..3

# --- results of one game: gres int64[GR_SIZE] ------------------------------
GR_ROLLS = 0        # rolls played
GR_CAPPED = 1       # 1 if stopped by the roll cap without a natural end
GR_ENDED_BY = 2     # bitmask of seats with the end colours (two by the rulebook) when the game ended naturally
GR_WINNERS = 3      # bitmask of winning seats
GR_ERROR = 4        # 0 = fine; else sim.guard.ERR_*: an illegal choice, a write to the game, an exception
GR_ERR_ROLL = 5
GR_ERR_SEAT = 6
GR_ERR_VALUE = 7    # what the strategy returned (ERR_INDEX), or what it wrote (sim.guard.WROTE_*)
GR_LOG_ROWS = 8     # rows written to the move log
GR_SIZE = 9

# --- move log: one row per decision, when a log is asked for ---------------
LOG_ROLL = 0
LOG_SEAT = 1
LOG_ACTIVE = 2      # 1 if the active player's move
LOG_AVAIL = 3       # dice the seat could choose from (bitmask, see ST_AVAIL)
LOG_CDIE = 4        # -1 for a pass
LOG_NDIE = 5
LOG_SUB = 6
LOG_COST = 7
LOG_CHOICES = 8     # legal choices offered (pass not counted)
LOG_SIZE = 9

# is_active for decide_guarded, typed alike: literal 1 and 0 would compile it twice.
ONE_ = np.int64(1)
ZERO_ = np.int64(0)

_LSB_BYTES = np.uint64(0x0101010101010101)
_MSB_BYTES = np.uint64(0x8080808080808080)
_GATHER = np.uint64(0x0102040810204080)
_SEVEN = np.uint64(7)
_56 = np.uint64(56)


@njit(cache=True)
def full_columns(lo, hi):
    """Bitmask (bit c = column c) of the columns whose 7 boxes are all crossed.

    Every byte of a crossed mask is <= 0x7F, so adding 1 per byte never
    carries and sets the byte's top bit exactly where the column is full.
    """
    a = (((lo + _LSB_BYTES) & _MSB_BYTES) >> _SEVEN) * _GATHER >> _56
    b = (((hi + _LSB_BYTES) & _MSB_BYTES) >> _SEVEN) * _GATHER >> _56
    return np.int64(a) | (np.int64(b & np.uint64(0x7F)) << 8)


@njit(cache=True, inline="always")
def awards(lo, hi, cols_done, colours_done, cols_taken, colours_taken, col_first, col_later, colour_mask,
           colour_first, colour_later):
    """What a sheet with boxes (lo, hi) crossed completes beyond cols_done and colours_done
    (bitmasks), and what that scores (RULES section 6): a column or colour that nobody completed
    in an earlier roll (cols_taken, colours_taken) scores its first value, else its later one
    (col_first, col_later per column; colour_first, colour_later: the tables' and rules' values).

    Returns the bitmasks (new columns, new colours, the new columns scored first, the new
    colours scored first) and the points (of the columns, of the colours). The engine settles
    every roll with it; heuristic scores an end of game, sim.runs.replay describes the awards.
    """
    new_cols = full_columns(lo, hi) & ~cols_done
    first_cols = new_cols & ~cols_taken
    col_points = 0
    m = new_cols
    while m:
        c = ctz(np.uint64(m))
        m &= m - 1
        col_points += col_first[c] if (first_cols >> c) & 1 else col_later[c]
    new_colours = 0
    for k in range(N_COLOURS):
        cm0, cm1 = colour_mask[k, 0], colour_mask[k, 1]
        if not (colours_done >> k) & 1 and (lo & cm0) == cm0 and (hi & cm1) == cm1:
            new_colours |= 1 << k
    first_colours = new_colours & ~colours_taken
    colour_points = 0
    for k in range(N_COLOURS):
        if (new_colours >> k) & 1:
            colour_points += colour_first if (first_colours >> k) & 1 else colour_later
    return new_cols, new_colours, first_cols, first_colours, col_points, colour_points


@njit(cache=True, inline="always")
def reset(st, ps, bb, tab, players, max_rolls):
    st[:] = 0
    st[ST_PLAYERS] = players
    st[ST_MAX_ROLLS] = tab.rules[R_SOLO_ROLLS] if players == 1 else max_rolls
    st[ST_ACTIVE_CDIE] = -1
    st[ST_ACTIVE_NDIE] = -1
    st[ST_ACTIVE_SUB] = -1
    ps[:, :] = 0
    bb[:, :] = ZERO
    jokers = tab.rules[R_JOKERS]
    for s in range(players):
        ps[s, PS_JOKERS] = jokers
        for w in range(NW):
            bb[s, BB_ALIVE + w] = tab.all_subsets[w]
            bb[s, BB_TOUCH + w] = tab.start_touch[w]


@njit(cache=True, inline="always")
def set_dice(st, key, roll):
    """Roll the dice (faces as in sim.state); the solo game leaves die 2 of each kind unrolled."""
    rolled = 2 if st[ST_PLAYERS] == 1 else 3
    for i in range(3):
        if i >= rolled:
            st[ST_DICE + i] = -1
            st[ST_DICE + 3 + i] = -1
            continue
        st[ST_DICE + i] = die(key, roll, 2 * i)                     # 5 = colour joker
        n = die(key, roll, 2 * i + 1)
        st[ST_DICE + 3 + i] = NUMBER_JOKER if n == 5 else n + 1


@njit(cache=True, inline="always")
def legal_choices(st, ps, bb, tab, cands):
    """Fill cands with every legal choice of seat st[ST_SEAT] from dice st[ST_AVAIL].

    A choice is a pair of available dice, the jokers it costs, and a placement
    that is legal for the resulting (colour, number) (RULES sections 4 and 5).
    Of several dice showing one face only the first is offered (offered_dice).
    """
    seat = st[ST_SEAT]
    offered = offered_dice(st, st[ST_AVAIL])
    jokers = ps[seat, PS_JOKERS]
    gword, gmask = tab.gword, tab.gmask      # a StructRef field read counts a reference: once
    n = 0
    faces = dice_word(st, tab.rules[R_NUMBERS])
    for p in range(9):
        cd, nd, cost, groups = die_pair(faces, offered, jokers, p)
        while groups:
            g, groups = next_group(groups)
            for half in range(2):
                w, word = legal_word(bb, seat, gword, gmask, g, half)
                while word != ZERO:
                    sub, word = next_row(w, word)
                    cands[n, CAND_CDIE] = cd
                    cands[n, CAND_NDIE] = nd
                    cands[n, CAND_SUB] = sub
                    cands[n, CAND_COST] = cost
                    n += 1
    return n


@njit(cache=True, inline="always")
def cross(ps, bb, tab, seat, sub, cost, roll):
    """Cross the boxes of subset row `sub` on seat's sheet, paying `cost` jokers."""
    bb[seat, BB_CROSSED] |= tab.mask[sub, 0]
    bb[seat, BB_CROSSED + 1] |= tab.mask[sub, 1]
    for w in range(NW):
        bb[seat, BB_ALIVE + w] &= ~tab.kill[sub, w]
        bb[seat, BB_TOUCH + w] |= tab.act[sub, w]
    ps[seat, PS_BOXES] += tab.size[sub]
    if cost > 0:
        ps[seat, PS_JOKERS] -= cost
        if ps[seat, PS_FIRST_JOKER_ROLL] == 0:
            ps[seat, PS_FIRST_JOKER_ROLL] = roll


@njit(cache=True, inline="always")
def award_seat(ps, bb, tab, s, cols_taken, colours_taken):
    """Credit seat s with what its sheet completes beyond what ps says it had (awards: first value
    unless taken in an earlier roll); returns the bitmasks (new columns, new colours). The engine
    settles each seat with it; strategies.kit.sheet_after plays one choice with it."""
    new_cols, new_colours, first_cols, first_colours, col_points, colour_points = awards(
        bb[s, BB_CROSSED], bb[s, BB_CROSSED + 1], ps[s, PS_COLS], ps[s, PS_COLOURS], cols_taken, colours_taken,
        tab.col_first, tab.col_later, tab.colour_mask, tab.rules[R_COLOUR_FIRST], tab.rules[R_COLOUR_LATER])
    ps[s, PS_COL_POINTS] += col_points
    ps[s, PS_COLS_FIRST] += popcount(np.uint64(first_cols))
    ps[s, PS_COLS] |= new_cols
    ps[s, PS_COLOUR_POINTS] += colour_points
    ps[s, PS_COLOURS_FIRST] += popcount(np.uint64(first_colours))
    ps[s, PS_COLOURS] |= new_colours
    return new_cols, new_colours


@njit(cache=True, inline="always")
def settle_awards(st, ps, bb, tab):
    """Award this roll's completions (RULES section 6); True if the game ends (section 7).

    First values go to everyone completing a column or colour that nobody
    completed in an earlier roll, so 'taken' is updated only after all seats.
    In solo every completion scores its first value. A table's game ends in the roll someone
    completes the rules' end colours (2 by the rulebook).
    """
    players = st[ST_PLAYERS]
    end_colours = tab.rules[R_END_COLOURS]
    solo = players == 1
    # In solo nothing is ever taken: every completion scores its first value.
    cols_taken = 0 if solo else st[ST_COLS_TAKEN]
    colours_taken = 0 if solo else st[ST_COLOURS_TAKEN]
    new_cols_all = 0
    new_colours_all = 0
    ended = False
    for s in range(players):
        new_cols, new_colours = award_seat(ps, bb, tab, s, cols_taken, colours_taken)
        new_cols_all |= new_cols
        new_colours_all |= new_colours
        if popcount(np.uint64(ps[s, PS_COLOURS])) >= end_colours:
            ended = True
    if not solo:
        st[ST_COLS_TAKEN] |= new_cols_all
        st[ST_COLOURS_TAKEN] |= new_colours_all
    return ended and not solo


@njit(cache=True, inline="always")
def stars_missed(bb, tab, s):
    """Star boxes seat s has not crossed (RULES section 7: each costs the star penalty at the end)."""
    stars = borrow(tab, "star_mask")
    return popcount(stars[0] & ~bb[s, BB_CROSSED]) + popcount(stars[1] & ~bb[s, BB_CROSSED + 1])


@njit(cache=True, inline="always")
def score_now(ps, bb, tab, s):
    """Seat s's score if the game ended now (RULES section 7): column and colour points, '!' left,
    less the star penalty per open star and the pass penalty per pass; what finish gives it at the
    end. The one writing of the score: the observations (sim.observe) and the kit read it too."""
    rules = borrow(tab, "rules")
    return (ps[s, PS_COL_POINTS] + ps[s, PS_COLOUR_POINTS] + ps[s, PS_JOKERS]
            - rules[R_STAR_PENALTY] * stars_missed(bb, tab, s) - rules[R_PASS_PENALTY] * ps[s, PS_PASSES])


@njit(cache=True, inline="always")
def finish(ps, bb, tab, players):
    """Final scores (RULES section 7); returns the bitmask of winning seats. The pass penalty
    (0 by the rulebook) is the rules' points per pass times PS_PASSES; it has no column of its own."""
    star_points = tab.rules[R_STAR_PENALTY]
    for s in range(players):
        ps[s, PS_STAR_PENALTY] = star_points * stars_missed(bb, tab, s)
        ps[s, PS_SCORE] = score_now(ps, bb, tab, s)
    winners = 0
    for s in range(players):
        better = 0
        for t in range(players):
            if ps[t, PS_SCORE] > ps[s, PS_SCORE] or (
                    ps[t, PS_SCORE] == ps[s, PS_SCORE] and ps[t, PS_JOKERS] > ps[s, PS_JOKERS]):
                better += 1
        ps[s, PS_RANK] = better + 1
        ps[s, PS_WINNER] = 1 if better == 0 else 0
        if better == 0:
            winners |= 1 << s
    return winners


# --- one roll: the turn kernel ----------------------------------------------------------
# Every kernel that plays a roll plays it with these (the game loop below, training, rollouts,
# the clairvoyant search, the kit's sheet_after), so the rules of a roll are written once:
#   start_roll   the roll's number, active seat and dice; no active choice yet
#   play_move    a seat's move: a placement crossed, or a pass counted
#   active_move  the active seat's move, shown to the others; the dice they may then use
#   passive_moves the passive seats' moves, chosen independently, applied together
#   end_of_roll  the roll's awards, and whether the game ends (settle_awards)
#   solo_move    the solo roll's move and awards
#   move_alone   one seat's move and what it alone completes (the kit's look at a choice)
#   end_of_game  the star penalty, scores, ranks, winners (finish)

@njit(cache=True, inline="always")
def start_roll(st, key, roll, players):
    """Begin roll `roll` (RULES section 3): returns the active seat."""
    st[ST_ROLL] = roll
    active = (roll - 1) % players
    st[ST_ACTIVE] = active
    set_dice(st, key, roll)
    st[ST_ACTIVE_CDIE] = -1
    st[ST_ACTIVE_NDIE] = -1
    st[ST_ACTIVE_SUB] = -1
    return active


@njit(cache=True, inline="always")
def play_move(ps, bb, tab, seat, sub, cost, roll):
    """Seat's move of roll `roll`: placement row `sub` crossed for `cost` '!', or a pass (sub < 0)."""
    if sub < 0:
        ps[seat, PS_PASSES] += 1
    else:
        cross(ps, bb, tab, seat, sub, cost, roll)


@njit(cache=True, inline="always")
def active_move(st, ps, bb, tab, seat, cd, nd, sub, cost, roll, all_dice):
    """The active seat's move (dice cd, nd; sub < 0: a pass), shown to the passive seats; returns
    the dice they may choose from: all of them in the first rolls (the rules' free rolls) or after
    a pass, else those the active seat left (RULES section 4)."""
    play_move(ps, bb, tab, seat, sub, cost, roll)
    if sub < 0:
        return all_dice
    st[ST_ACTIVE_CDIE] = cd
    st[ST_ACTIVE_NDIE] = nd
    st[ST_ACTIVE_SUB] = sub
    if roll > tab.rules[R_FREE_ROLLS]:
        return all_dice & ~(1 << cd) & ~(1 << (3 + nd))
    return all_dice


@njit(cache=True, inline="always")
def passive_moves(ps, bb, tab, pending, players, active, roll):
    """The passive seats' moves of the roll (pending[s] = (sub, cost), sub -1 a pass), applied
    together once all have chosen: none saw another's."""
    for s in range(players):
        if s != active:
            play_move(ps, bb, tab, s, pending[s, 0], pending[s, 1], roll)


@njit(cache=True, inline="always")
def end_of_roll(st, ps, bb, tab):
    """The roll's awards; True if the game ends with it (RULES sections 6 and 7)."""
    return settle_awards(st, ps, bb, tab)


@njit(cache=True, inline="always")
def solo_move(st, ps, bb, tab, sub, cost, roll):
    """The solo game's move of roll `roll` and its awards (RULES section 8)."""
    play_move(ps, bb, tab, 0, sub, cost, roll)
    settle_awards(st, ps, bb, tab)


@njit(cache=True, inline="always")
def move_alone(st, ps, bb, tab, seat, sub, cost):
    """Seat's move of roll st[ST_ROLL] and what it completes, awarded to it as the roll would
    (first values unless taken in an earlier roll; every one first in solo), the other seats'
    moves of the roll unknown: the kit's look at one choice."""
    play_move(ps, bb, tab, seat, sub, cost, st[ST_ROLL])
    if sub >= 0:
        solo = st[ST_PLAYERS] == 1
        award_seat(ps, bb, tab, seat, 0 if solo else st[ST_COLS_TAKEN], 0 if solo else st[ST_COLOURS_TAKEN])


@njit(cache=True, inline="always")
def end_of_game(ps, bb, tab, players):
    """Final scores (RULES section 7); returns the bitmask of winning seats."""
    return finish(ps, bb, tab, players)


@njit(cache=True, inline="always")
def begin_game(st, ps, bb, rngs, gres, tab, root, game, players, max_rolls):
    """Set up game `game` of root seed `root` for `players` before its first roll: empty sheets
    (reset), no results, each seat's random stream; returns the game's dice key. The one set-up of
    a game: play and sim.step.begin call it."""
    reset(st, ps, bb, tab, players, max_rolls)
    for i in range(gres.shape[0]):      # loops, not slice assignments: see sim.batch._play_block
        gres[i] = 0
    key = game_key(root, game)
    for s in range(MAX_SEATS):
        for w in range(rngs.shape[1]):
            rngs[s, w] = ZERO
        rngs[s, 0] = seat_stream(key, s)
    return key


@njit(cache=True, inline="always")
def roll_logged(st, key, roll, players, dice_log):
    """start_roll, and the roll's dice into dice_log (when it has rows); returns the active seat."""
    active = start_roll(st, key, roll, players)
    if dice_log.shape[0] > 0:
        for d in range(6):
            dice_log[roll - 1, d] = st[ST_DICE + d]
    return active


@njit(cache=True, inline="always")
def end_game(st, ps, bb, tab, gres, ended):
    """The end of the game after roll st[ST_ROLL] (`ended`: by the rules, else by the roll cap or,
    solo, its last roll): the rolls, capped, who ended it, the scores and winners into gres."""
    players = st[ST_PLAYERS]
    gres[GR_ROLLS] = st[ST_ROLL]
    gres[GR_CAPPED] = 0 if (players == 1 or ended) else 1
    if ended:
        for s in range(players):
            if popcount(np.uint64(ps[s, PS_COLOURS])) >= tab.rules[R_END_COLOURS]:
                gres[GR_ENDED_BY] |= 1 << s
    gres[GR_WINNERS] = end_of_game(ps, bb, tab, players)


@njit(cache=True, inline="always")
def empty_seats_check(ps, bb, kinds, slots, gres, players):
    """A user's strategy at the table (PLAYER_GUARDED) may have written the rows of empty seats:
    ERR_WRITE_SEEN_LATE if so (its private tables and parameters are checked apart: sim.batch)."""
    for s in range(players):
        if kinds[slots[s]] == PLAYER_GUARDED:   # one look covers every seat
            wrote = empty_seats_written(ps, bb, players)
            if wrote >= 0:
                _fail(gres, ERR_WRITE_SEEN_LATE, 0, s, wrote)
            break


@njit(cache=True)
def seat_in_turn(active, i):
    """The seat deciding i-th in a roll: the active seat, then the others in seat order."""
    if i == 0:
        return active
    return i - 1 if i - 1 < active else i


@njit(cache=True, inline="always")
def _fail(gres, code, roll, seat, value):
    gres[GR_ERROR] = code
    gres[GR_ERR_ROLL] = roll
    gres[GR_ERR_SEAT] = seat
    gres[GR_ERR_VALUE] = value


@njit(cache=True, inline="always")
def _move(cands, n, k, roll, seat, gres):
    """(k, colour die, number die, subset row, cost) of candidate k; k = -2 if it is none (or a pass)."""
    if k < PASS or k >= n:
        _fail(gres, ERR_INDEX, roll, seat, k)
        return -2, -1, -1, -1, 0
    if k == PASS:
        return k, -1, -1, -1, 0
    return k, cands[k, CAND_CDIE], cands[k, CAND_NDIE], cands[k, CAND_SUB], cands[k, CAND_COST]


@njit(cache=True, inline="always")
def log_move(log, gres, st, seat, is_active, avail, n, cd, nd, sub, cost):
    """A decision's row of the move log (when the log has rows): its roll, seat, dice, choice and
    the number of choices it had (sim.step logs the moves decided outside the kernels with it)."""
    if log.shape[0] > 0:
        r = gres[GR_LOG_ROWS]
        gres[GR_LOG_ROWS] = r + 1
        log[r, LOG_ROLL] = st[ST_ROLL]
        log[r, LOG_SEAT] = seat
        log[r, LOG_ACTIVE] = is_active
        log[r, LOG_AVAIL] = avail
        log[r, LOG_CHOICES] = n
        log[r, LOG_CDIE] = cd
        log[r, LOG_NDIE] = nd
        log[r, LOG_SUB] = sub
        log[r, LOG_COST] = cost


@njit(cache=True, inline="always")
def deciding(st, seat, avail, is_active):
    """st says who decides now, as a strategy reads it: the seat, its dice, whether it is active."""
    st[ST_SEAT] = seat
    st[ST_AVAIL] = avail
    st[ST_IS_ACTIVE] = is_active


@njit(cache=True, inline="always")
def decide(line, slots, game, seat, avail, is_active, log):
    """Seat's choice: (k, colour die, number die, subset row, cost); k = -1 pass, -2 invalid.
    line is (strats, kinds, params, tab), game (st, ps, bb, cands, rngs, gres), as play groups them.

    kinds[slot] (sim.players.PLAYER_*) says how the seat's strategy runs: the
    reference players inline, the other built-ins through strats[slot] (an
    indirect call the compiler cannot see through). greedy_pick skips the
    candidate table, and so does a strategy that names its placement
    (PLAYER_PLACE: the table is only filled for the move log's count of
    choices). A user's strategy goes through decide_guarded instead.
    """
    strats, kinds, params, tab = line
    st, ps, bb, cands, rngs, gres = game
    deciding(st, seat, avail, is_active)
    slot = slots[seat]
    kind = kinds[slot]
    # A called strategy gets uncounted views (sim.nbinternals): it would otherwise count a
    # reference on each array it is handed (an atomic add and subtract per array and decision); the
    # arrays outlive the call, and a decision returns an int, so no view escapes it.
    # Each step is written once (one call of legal_choices, one of the strategy): this function
    # is inlined into play, and every copy of a step is compiled again.
    if kind == PLAYER_GREEDY:
        n, k, cd, nd, sub, cost = greedy_pick(st, ps, bb, tab)
        returned = k
    else:
        n = -1
        if kind != PLAYER_PLACE or log.shape[0] > 0:
            n = legal_choices(st, ps, bb, tab, cands)
        if kind == PLAYER_RANDOM:
            returned = random_choice(st, ps, bb, cands, n, tab, params[slot], rngs[seat])
        else:
            returned = strats[slot](uncounted(st), uncounted(ps), uncounted(bb), uncounted(cands), n, tab,
                                    uncounted(params[slot]), uncounted(rngs[seat]))
        if kind == PLAYER_PLACE:
            k, cd, nd, sub, cost = placed(st, ps, bb, tab, returned)
        elif returned < PASS or returned >= n:
            k, cd, nd, sub, cost = -2, -1, -1, -1, 0
        elif returned == PASS:
            k, cd, nd, sub, cost = PASS, -1, -1, -1, 0
        else:
            k = returned
            cd, nd, sub, cost = cands[k, CAND_CDIE], cands[k, CAND_NDIE], cands[k, CAND_SUB], cands[k, CAND_COST]
    if k == -2:
        gres[GR_ERROR] = ERR_INDEX
        gres[GR_ERR_ROLL] = st[ST_ROLL]
        gres[GR_ERR_SEAT] = seat
        gres[GR_ERR_VALUE] = returned
        return -2, -1, -1, -1, 0
    # Uncounted views: an inlined function that takes arrays counts references to them.
    log_move(uncounted(log), uncounted(gres), uncounted(st), seat, is_active, avail, n, cd, nd, sub, cost)
    return k, cd, nd, sub, cost


# Apart from decide, and not inlined: Numba counts a reference to every array an inlined
# function receives, and passing `guest` through decide made every built-in's decisions half
# as fast. play_games compiles play with guest None, without this (see play).
@njit(cache=True)
def decide_guarded(line, slots, game, seat, avail, is_active, log, guest):
    """decide for a user's strategy (PLAYER_GUARDED, PLAYER_STRICT), watched by
    sim.guard.guarded_call: a write to what it is shown ends the game with ERR_WRITE."""
    strats, kinds, params, tab = line
    st, ps, bb, cands, rngs, gres = game
    deciding(st, seat, avail, is_active)
    slot = slots[seat]
    n = legal_choices(st, ps, bb, tab, cands)
    k, wrote = guarded_call(strats[slot], kinds[slot], slot, st[ST_PLAYERS], (st, ps, bb, cands, n, rngs[seat]), tab,
                            params, guest)
    if k == RAISED:   # an exception (sim.guard.watched): what it wrote before is moot, the game ends
        _fail(gres, ERR_RAISED, st[ST_ROLL], seat, 0)
        return -2, -1, -1, -1, 0
    if wrote >= 0:
        _fail(gres, ERR_WRITE, st[ST_ROLL], seat, wrote)
        return -2, -1, -1, -1, 0
    k, cd, nd, sub, cost = _move(cands, n, k, st[ST_ROLL], seat, gres)
    if k != -2:
        log_move(log, gres, st, seat, is_active, avail, n, cd, nd, sub, cost)
    return k, cd, nd, sub, cost


@njit(cache=True)
def play(line, slots, root, game, players, max_rolls, arrays, logs, guest):
    """Play game `game` of root seed `root` to the end; results in ps and gres.

    line is (strats, kinds, params, tab): strats[slots[seat]] decides for seat, run as
    kinds[slots[seat]] (see decide), with parameters params[slots[seat]], on the tables tab.
    arrays is (st, ps, bb, cands, pending, rngs, gres): pending (MAX_SEATS, 4) and rngs
    (MAX_SEATS, k) are scratch. logs is (dice_log, log), each 0 rows (no log) or room for every
    roll / decision. `guest` is None, or sim.guard's room for watching user strategies
    (sim.guard.guest_arrays).
    """
    strats, kinds, params, tab = line
    st, ps, bb, cands, pending, rngs, gres = arrays
    dice_log, log = logs
    # Uncounted views (sim.nbinternals) of the arrays the caller keeps alive: each inlined call of
    # the turn kernel would otherwise count a reference on each array it is handed (solo greedy
    # 15 % slower), and so would each read of the groups handed to decide.
    st, ps, bb, pending = uncounted(st), uncounted(ps), uncounted(bb), uncounted(pending)
    cands, rngs, gres, log = uncounted(cands), uncounted(rngs), uncounted(gres), uncounted(log)
    line = (strats, uncounted(kinds), uncounted(params), tab)
    game_arrays = (st, ps, bb, cands, rngs, gres)
    key = begin_game(st, ps, bb, rngs, gres, tab, root, game, players, max_rolls)
    solo = players == 1
    all_dice = SOLO_DICE if solo else ALL_DICE
    last_roll = st[ST_MAX_ROLLS]
    ended = False
    roll = 0
    while roll < last_roll and not ended:
        roll += 1
        active = roll_logged(st, key, roll, players, dice_log)

        # The active player chooses first; passive players then see that choice and decide
        # independently: nobody's move is applied until all of them have chosen. One decision
        # site for every seat: each copy of decide is compiled anew.
        avail = all_dice
        is_active = ONE_
        for i in range(players):
            seat = seat_in_turn(active, i)
            if i == 1:
                is_active = ZERO_
            # `guest is None` is decided when play is compiled (for play_games: no user strategy).
            if guest is not None and kinds[slots[seat]] >= PLAYER_GUARDED:
                k, cd, nd, sub, cost = decide_guarded(line, slots, game_arrays, seat, avail, is_active, log, guest)
            else:
                k, cd, nd, sub, cost = decide(line, slots, game_arrays, seat, avail, is_active, log)
            if k == -2:
                return
            if i > 0:
                pending[seat, 0] = sub          # -1 = pass
                pending[seat, 1] = cost
            else:
                avail = active_move(st, ps, bb, tab, seat, cd, nd, sub, cost, roll, all_dice)
        passive_moves(ps, bb, tab, pending, players, active, roll)
        ended = end_of_roll(st, ps, bb, tab)

    end_game(st, ps, bb, tab, gres, ended)
    if guest is not None:
        empty_seats_check(ps, bb, kinds, slots, gres, players)
