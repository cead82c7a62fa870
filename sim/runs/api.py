"""The Python API of the rules: validated input in, plain data out.

Everything here is a thin shell over the kernels of sim.engine: it checks
arguments, sets up the state arrays and turns results into Python objects.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import engine, guard, players as reference_players
from ..batch import alone_watched, play_games, watched_batch
from ..nbinternals import JIT_DISABLED
from .gamelog import game_log, mask_cells
from .settings import DEFAULT_MAX_ROLLS, MAX_GAME_INDEX, MAX_GAMES, MAX_SEED, Settings, check_int
from ..errors import SettingError
from ..sheets import COLOURS, load_sheet, parse_cell
from ..state import CAND_SUB, MAX_SEATS, NUMBER_JOKER, PS_SIZE, ST_AVAIL, ST_DICE, ST_SEAT, new_state, seat_slot
from ..rules import RULEBOOK, Rules, parse_rules
from ..tables import build_tables, kernel_tables
from .chunk import Chunk
from .defaults import SHEET
from strategies import REGISTRY, labels, resolve

__all__ = ["DEFAULT_MAX_ROLLS", "MAX_SEED", "check_int"]   # the validation is sim.runs.settings'; named here too


def colour_index(colour) -> int:
    if colour not in COLOURS:
        raise ValueError(f"unknown colour {colour!r}: expected one of {', '.join(COLOURS)}")
    return COLOURS.index(colour)


def _crossed_state(crossed, sheet, players: int = 1, rules=RULEBOOK):
    """State arrays for seat 0 having crossed `crossed`, built with the engine's own kernels.

    Crossing the boxes one at a time through engine.cross leaves the same
    alive/touch bitsets as any sequence of moves covering them.
    """
    if isinstance(crossed, str):
        raise ValueError("crossed must be an iterable of cell names such as ['H1', 'H2'], not a string")
    boxes = {parse_cell(name) for name in crossed}
    tab, ktab = build_tables(sheet, rules), kernel_tables(sheet, rules)
    st, ps, bb, cands = new_state()
    engine.reset(st, ps, bb, ktab, players, DEFAULT_MAX_ROLLS)
    for col, row in boxes:
        engine.cross(ps, bb, ktab, 0, tab.box_row[8 * col + row], 0, 0)
    return st, ps, bb, cands


def legal_placements(crossed, colour, number, sheet=SHEET, rules=None) -> list[frozenset[str]]:
    """Every legal placement of `number` boxes of `colour` (RULES section 4) under `rules` (a
    Rules or a --rules text; None: the rulebook, numbers 1..5; joker-six allows 6).

    `crossed` is an iterable of cell names ("H1" .. "O7") already crossed by
    the player. Jokers do not enter here, except that a 6 is only the number joker's. The
    result is sorted.
    """
    rules = parse_rules(rules)
    c = colour_index(colour)
    if number == 6 and not rules.joker_six and not isinstance(number, bool):
        raise SettingError("{number} must be 1..5, got 6: a 6 is a number joker's only under the rule variant "
                           "joker-six ({rules} joker-six)")
    n = check_int("number", number, 1, rules.max_number)
    st, ps, bb, cands = _crossed_state(crossed, sheet, rules=rules)
    # One colour die and one number die showing exactly (colour, number); a 6 is the number
    # joker (joker-six), offered at the cost of a '!'.
    st[ST_SEAT] = 0
    st[ST_DICE:ST_DICE + 6] = (c, -1, -1, n if n <= 5 else NUMBER_JOKER, -1, -1)
    st[ST_AVAIL] = 0b001001
    count = engine.legal_choices(st, ps, bb, kernel_tables(sheet, rules), cands)
    tab = build_tables(sheet, rules)
    found = [frozenset(mask_cells(tab.mask[cands[i, CAND_SUB]])) for i in range(count)
             if tab.size[cands[i, CAND_SUB]] == n]
    return sorted(found, key=sorted)


# --- playing one game with a full log ------------------------------------------------

@dataclass(frozen=True)
class Lineup:
    """Strategies for the seats of one game, as the kernels take them."""
    specs: tuple[str, ...]
    fns: tuple      # MAX_SEATS decision functions, padded
    params: np.ndarray  # float64 (MAX_SEATS, P)
    kinds: np.ndarray   # int64 (2 * MAX_SEATS,) how each is run (sim.players.PLAYER_*), then its parameter count
    sheet: object = None    # the sim.sheets.Sheet the strategies' data is for
    players: int | None = None  # the number of players it is for
    checked: bool = True    # users' strategies compiled with bounds checking (sim.guard)
    labels: tuple[str, ...] | None = None   # how results name each (strategies.registry.labels); None: specs
    rules: Rules = RULEBOOK  # the rules the strategies' data is for
    # Per slot (padded as fns) a batched strategy's sim.batched.BatchedSlot, else None; None
    # for a line-up without one (play_chunk then plays it in the kernels alone).
    batched: tuple | None = None


def _check_specs(strategies) -> None:
    if isinstance(strategies, str) or not 1 <= len(strategies) <= MAX_SEATS:
        raise ValueError(f"strategies must be a list of 1..{MAX_SEATS} strategy specs, one per seat")


def lineup(strategies, files=None, sheet=SHEET, players=None, checked=True, rules=None) -> Lineup:
    """Resolve strategy specs ("greedy", "heuristic:joker_cost=2", "file.py:fn", ...) for games
    of `players` (default: one per spec) on `sheet`.

    `files`, one per spec (None for most), says where the file a spec names is when it is
    not where the spec says from here (strategies.resolve). A strategy with data (learned's
    weights) gets those for `sheet`, `players` and `rules` after its parameters. A user's strategy is
    compiled with bounds checking unless `checked` is false, and played watched (sim.guard).
    """
    _check_specs(strategies)
    files = [None] * len(strategies) if files is None else list(files)
    resolved = [resolve(s, f, checked=checked) for s, f in zip(strategies, files, strict=True)]
    sheet_obj = load_sheet(sheet)
    rules = parse_rules(rules)
    players = check_int("players", len(resolved) if players is None else players, 1, MAX_SEATS)
    rows = []
    for r in resolved:
        data = r.data(sheet_obj, players, rules)
        rows.append(r.params if data is None else np.concatenate((r.params, data)))
    width = max([1] + [len(row) for row in rows])
    params = np.zeros((MAX_SEATS, width))
    for i, row in enumerate(rows):
        params[i, :len(row)] = row
    # Each function compiled (or loaded) only if played: learned's solo placer and its decision at
    # a table are compiled apart (strategies.learned).
    kinds = [player_kind(r.strategy.dispatcher) for r in resolved]
    fns = []
    for i, r in enumerate(resolved):
        if kinds[i] != reference_players.PLAYER_CALL:
            fns.append(r.fn)
            continue
        fn, names_placement = r.strategy.played_fn(players)
        fns.append(fn)
        if names_placement:   # a built-in that names its solo placement plays without the candidate table
            kinds[i] = reference_players.PLAYER_PLACE
    fns = [guard.watched(f) if k == reference_players.PLAYER_GUARDED else f for f, k in zip(fns, kinds)]
    pad = MAX_SEATS - len(resolved)
    lengths = [len(row) for row in rows] + [len(rows[0])] * pad
    batched = None
    if any(k == reference_players.PLAYER_EXTERNAL for k in kinds):
        from ..batched import batched_slots   # only a line-up with a batched strategy loads its loop
        batched = batched_slots(resolved, sheet_obj, players, rules)
        batched += batched[:1] * pad
    return Lineup(tuple(r.spec for r in resolved), tuple(fns + fns[:1] * pad),
                  params, np.array(kinds + kinds[:1] * pad + lengths, np.int64), sheet_obj, players, checked,
                  tuple(labels(resolved)), rules, batched)


def player_kind(fn) -> int:
    """How the game loop runs decision function fn: the reference players of sim.players inline,
    the other built-in strategies on the engine's arrays, any other on copies (sim.guard)."""
    from strategies.interface import decided_outside

    if fn is decided_outside:   # a batched strategy: decided outside the kernels (sim.batched)
        return reference_players.PLAYER_EXTERNAL
    if fn is reference_players.greedy:
        return reference_players.PLAYER_GREEDY
    if fn is reference_players.random_choice:
        return reference_players.PLAYER_RANDOM
    if any(fn is s.dispatcher for s in REGISTRY.values()):
        return reference_players.PLAYER_CALL
    return reference_players.PLAYER_GUARDED


def play_chunk(seed, first, count, strategies, players=None, sheet=SHEET,
               max_rolls=DEFAULT_MAX_ROLLS, rotate=False, log_turns=False, rules=None) -> Chunk:
    """Play games first .. first+count-1 of root seed `seed` on all Numba threads, under `rules`
    (a sim.rules.Rules or a --rules text; None: the rulebook, or a Lineup's rules).

    `strategies` gives one spec per seat, or one spec for every seat when
    `players` says how many; players == 1 is the solo game. With `rotate`,
    seat s of game g is played by strategies[(s + g) % players] (sim.state.seat_slot).
    """
    first = check_int("first game", first, 0, MAX_GAME_INDEX)
    count = check_int("count", count, 0, MAX_GAMES)
    if isinstance(strategies, Lineup):
        specs = strategies.specs
        if players is None:
            players = strategies.players or len(specs)
        if rules is None:   # as the players: what the line-up was set up for
            rules = strategies.rules
    else:
        _check_specs(strategies)
        specs = strategies
    s = Settings.of(strategies=specs, players=players, seed=seed, sheet=sheet, max_rolls=max_rolls, rules=rules)
    seed, players, sheet, max_rolls, rules = s.seed, s.players, s.sheet, s.max_rolls, s.rules
    line = strategies if isinstance(strategies, Lineup) else lineup(strategies, sheet=sheet, players=players,
                                                                      rules=rules)
    if line.sheet is not None and (line.sheet != sheet or line.players != players or line.rules != rules):
        raise ValueError(f"the strategies were set up for {line.players} players on sheet {line.sheet.name!r} "
                         f"under the rules {line.rules.label!r}, not for {players} on {sheet.name!r} under "
                         f"{rules.label!r}")
    if len(line.specs) == 1 and players > 1:
        line = Lineup(line.specs, (line.fns[0],) * MAX_SEATS, np.repeat(line.params[:1], MAX_SEATS, axis=0),
                      np.repeat(line.kinds[::MAX_SEATS], MAX_SEATS), line.sheet, line.players, line.checked,
                      line.labels, line.rules, line.batched)
    tab = kernel_tables(sheet, rules)
    if line.batched is not None:
        # A batched strategy decides for many games at once, from Python (sim.batched).
        from ..batched import play_stepped
        games, seats, logs = play_stepped(line, tab, seed, first, count, players, max_rolls,
                                          chunk_max_rolls(max_rolls, players, rules), rotate, log_turns,
                                          BatchedStrategyError)
        chunk = Chunk(seed, first, line.specs, games, seats, _seat_slots(first, count, players, rotate, line),
                      sheet=sheet, labels=line.labels, rules=rules)
        if log_turns:
            chunk.dice_start, chunk.dice, chunk.log_start, chunk.log = logs
        return chunk
    slots = np.arange(MAX_SEATS, dtype=np.int64) if len(line.specs) > 1 else np.zeros(MAX_SEATS, np.int64)

    # A user's strategy is watched (sim.guard): by a kernel of its own, compiled when first needed.
    kernel = watched_batch() if (line.kinds[:MAX_SEATS] >= reference_players.PLAYER_GUARDED).any() else play_games

    def run(dice_start, dice, log_start, log, first=first, count=count, kinds=line.kinds, kernel=kernel):
        games = np.zeros((count, engine.GR_SIZE), np.int64)
        seats = np.zeros((count, players, PS_SIZE), np.int64)
        out = kernel(line.fns, kinds, line.params, slots, bool(rotate), tab, np.uint64(seed), first, players,
                     max_rolls, games, seats, dice_start, dice, log_start, log)
        return games, seats, out

    def unlogged(first=first, count=count, kinds=line.kinds, kernel=kernel):
        no_offsets = np.zeros(count + 1, np.int64)
        return run(no_offsets, np.zeros((0, 6), np.int64), no_offsets, np.zeros((0, engine.LOG_SIZE), np.int64),
                   first, count, kinds, kernel)

    if log_turns and JIT_DISABLED:
        games, seats, logs = _logged_once(run, first, count, players, chunk_max_rolls(max_rolls, players, rules))
    else:
        games, seats, _ = unlogged()
    chunk = Chunk(seed, first, line.specs, games, seats, _seat_slots(first, count, players, rotate, line),
                  sheet=sheet, labels=line.labels, rules=rules)
    if games[:, engine.GR_ERROR].any():
        # A write seen only after its game (or block of games: sim.guard): replay the games
        # marked so, alone and checked after every decision, until one shows the roll and seat.
        strict = line.kinds.copy()
        strict[:MAX_SEATS][strict[:MAX_SEATS] == reference_players.PLAYER_GUARDED] = reference_players.PLAYER_STRICT
        for g in np.flatnonzero(games[:, engine.GR_ERROR]):
            if games[g, engine.GR_ERROR] == guard.ERR_RAISED:
                # Where: the game again, alone, returns the failing decision's arguments.
                _, _, saved = unlogged(first + int(g), 1, kernel=alone_watched())
                chunk.raised = _where_raised(line, int(chunk.slots[g, games[g, engine.GR_ERR_SEAT]]), saved,
                                             players, tab)
                break
            if games[g, engine.GR_ERROR] != guard.ERR_WRITE_SEEN_LATE:
                break
            again, _, _ = unlogged(first + int(g), 1, strict)
            if again[0, engine.GR_ERROR]:
                games[g] = again[0]
                break
            games[g, engine.GR_ERROR] = 0   # played by the book: another game of its block wrote
        return chunk   # check_chunk names the error; nothing of this chunk is kept
    if log_turns and JIT_DISABLED:
        chunk.dice_start, chunk.dice, chunk.log_start, chunk.log = logs
    elif log_turns:
        rolls = games[:, engine.GR_ROLLS]
        chunk.dice_start = np.concatenate(([0], np.cumsum(rolls)))
        chunk.log_start = chunk.dice_start * players
        chunk.dice = np.zeros((chunk.dice_start[-1], 6), np.int64)
        chunk.log = np.zeros((chunk.log_start[-1], engine.LOG_SIZE), np.int64)
        games2, seats2, _ = run(chunk.dice_start, chunk.dice, chunk.log_start, chunk.log)
        same = np.array_equal(games[:, :engine.GR_LOG_ROWS], games2[:, :engine.GR_LOG_ROWS])
        assert same and np.array_equal(seats, seats2), "a game played differently twice: the kernels are not deterministic"
    return chunk


def _logged_once(run, first, count, players, cap):
    """(games, seats, (dice_start, dice, log_start, log)): play_chunk's logged games, each played
    once into room for `cap` rolls. In plain Python (NUMBA_DISABLE_JIT) a strategy's print() or
    breakpoint() thus runs once per decision, where the compiled path plays the games a second
    time into logs sized by the first pass."""
    games = [np.zeros((0, engine.GR_SIZE), np.int64)]
    seats = [np.zeros((0, players, PS_SIZE), np.int64)]
    dice, log, rolls = [np.zeros((0, 6), np.int64)], [np.zeros((0, engine.LOG_SIZE), np.int64)], [0]
    for g in range(first, first + count):
        dice_g = np.zeros((cap, 6), np.int64)
        log_g = np.zeros((cap * players, engine.LOG_SIZE), np.int64)
        games_g, seats_g, _ = run(np.array([0, cap]), dice_g, np.array([0, cap * players]), log_g, g, 1)
        rolls.append(int(games_g[0, engine.GR_ROLLS]))
        games.append(games_g)
        seats.append(seats_g)
        dice.append(dice_g[:rolls[-1]])
        log.append(log_g[:rolls[-1] * players])
    dice_start = np.cumsum(rolls)
    games = np.concatenate(games)
    games[:, engine.GR_LOG_ROWS] = 0   # as in the compiled path's games, from its unlogged pass
    return (games, np.concatenate(seats),
            (dice_start, np.concatenate(dice), dice_start * players, np.concatenate(log)))


def _where_raised(line, slot, saved, players, tab) -> str:
    """sim.guard.where_it_raised for the strategy of `slot`, on the arguments `saved` (the guest
    arrays of sim.batch.play_alone_watched) of the decision at which it raised."""
    st, ps, bb, cands, n, rng = guard.saved_decision(*saved, players)
    own = line.kinds[MAX_SEATS + slot]
    params = np.zeros(max(1, own))   # its row as the engine hands it: its parameters, then zeros
    params[:own] = line.params[slot, :own]
    return guard.where_it_raised(guard.played_by(line.fns[slot]), (st, ps, bb, cands, n, tab, params, rng))


def _seat_slots(first, count, players, rotate, line) -> np.ndarray:
    """Which strategy (index into line.specs) played each seat of games first .. first+count-1."""
    if len(line.specs) == 1:
        return np.zeros((count, players), np.int64)
    seat, number = np.arange(players)[None, :], first + np.arange(count)[:, None]
    return np.broadcast_to(getattr(seat_slot, "py_func", seat_slot)(seat, number, players, bool(rotate)), (count, players)).astype(np.int64)


def check_chunk(chunk: Chunk) -> None:
    """Raise StrategyError for the first game in which a strategy misbehaved."""
    bad = np.flatnonzero(chunk.games[:, engine.GR_ERROR])
    if bad.size:
        g = int(bad[0])
        gres = chunk.games[g]
        seat = int(gres[engine.GR_ERR_SEAT])
        spec = chunk.specs[chunk.slots[g, seat]]
        error, value = int(gres[engine.GR_ERROR]), int(gres[engine.GR_ERR_VALUE])
        where = f"in seed {chunk.seed}, game {chunk.first + g}"
        where += f", roll {int(gres[engine.GR_ERR_ROLL])}" if error != guard.ERR_WRITE_SEEN_LATE else ""
        if error == guard.ERR_INDEX:
            raise StrategyError(f"strategy {spec!r} (seat {seat}) returned {value}, "
                                f"not a legal choice index or -1 (pass), {where}")
        if error == guard.ERR_RAISED:
            raise StrategyError(f"strategy {spec!r} (seat {seat}) {chunk.raised}, {where}")
        raise StrategyError(f"strategy {spec!r} (seat {seat}) wrote to {guard.WROTE_NAMES[value]} {where}: "
                            "a strategy may only read the game it is shown")


def play_game(seed, game, strategies, sheet=SHEET, max_rolls=DEFAULT_MAX_ROLLS, rules=None) -> dict:
    """Play game number `game` of root seed `seed` and return its complete log.

    `strategies` has one spec per seat (or is a Lineup, set up for `rules`); a single one is the
    solo game. `rules`: a sim.rules.Rules or a --rules text (None: the rulebook; with a Lineup,
    None is the Lineup's). The log is plain JSON-serialisable data; its format is documented in
    the README (it names the rules, "rules", unless they are the rulebook's).
    """
    sheet_obj = load_sheet(sheet)
    chunk = play_chunk(seed, game, 1, strategies, sheet=sheet_obj, max_rolls=max_rolls, log_turns=True,
                       rules=rules)
    check_chunk(chunk)
    return game_log(chunk, sheet_obj, chunk_max_rolls(max_rolls, chunk.seats.shape[1], chunk.rules))


def chunk_max_rolls(max_rolls, players, rules=RULEBOOK):
    """Rolls a game may last: the solo game's, or at a table the roll cap."""
    return rules.solo_rolls if players == 1 else int(max_rolls)


class StrategyError(RuntimeError):
    """A strategy returned something that is not one of its legal choices."""


class BatchedStrategyError(StrategyError, ValueError):
    """A batched strategy returned a batch of actions of the wrong shape or type, or an illegal
    action, or raised (sim.batched): a ValueError of the caller's input, and a StrategyError
    to a run, which stops as for any illegal move."""


