"""A strategy cannot change the game (sim.guard): a user's strategy that writes to what it is shown
stops the run with one line naming the strategy, the seed, the game and the roll."""
import re

import numpy as np
import pytest

from sim.runs import api as sim
from sim import engine, players
from sim.runs.api import Lineup, check_chunk, lineup, play_chunk
from sim.runs.dataset import done_chunks, read_manifest
from sim.state import MAX_SEATS
from strategies import resolve
from invoking import invoke

# Each writes to one argument in a roll it can see; `lucky` is a game-dependent coin from the
# seat's own random stream, so that the first game that writes is not game 0.
CHEATS = '''
from numba import njit

from sim.state import CAND_COST, PS_COLS, PS_JOKERS, ST_DICE, ST_ROLL, ST_SEAT


@njit
def lucky(rng):
    return (rng[0] & 15) == 3


def jokers(st, ps, bb, cands, n, tab, params, rng):
    ps[st[ST_SEAT], PS_JOKERS] += 1          # refill its own '!'
    return n - 1


def uncross(st, ps, bb, cands, n, tab, params, rng):
    if st[ST_ROLL] == 4:
        bb[st[ST_SEAT], 0] &= bb[st[ST_SEAT], 0] >> 1   # un-cross boxes
    return n - 1


def die(st, ps, bb, cands, n, tab, params, rng):
    st[ST_DICE] = 5 - st[ST_DICE]            # rewrite a die
    return n - 1


def minus5(st, ps, bb, cands, n, tab, params, rng):
    return -5


def cost(st, ps, bb, cands, n, tab, params, rng):
    if n > 0 and st[ST_ROLL] == 2:
        cands[0, CAND_COST] = 3              # a choice that would pay other jokers
        return 0
    return n - 1


def empty_seat(st, ps, bb, cands, n, tab, params, rng):
    if st[ST_ROLL] == 3:
        ps[5, PS_COLS] = 1                   # a seat nobody plays
    return n - 1


def tables(st, ps, bb, cands, n, tab, params, rng):
    if st[ST_ROLL] == 7 and lucky(rng):
        tab.size[0] = 5                      # the tables (checked once per block of games)
    return n - 1


def param(st, ps, bb, cands, n, tab, params, rng):
    if st[ST_ROLL] == 9 and lucky(rng):
        params[0] = 3.0                      # its parameters (likewise)
    return n - 1


def honest(st, ps, bb, cands, n, tab, params, rng):
    return n - 1


def out_of_range(st, ps, bb, cands, n, tab, params, rng):
    if st[ST_ROLL] == 5 and lucky(rng):
        return ps[st[ST_SEAT] + 6, 0]        # a row past the last seat
    return n - 1


def past_params(st, ps, bb, cands, n, tab, params, rng):
    if params[3] == 0.0:                     # it has no parameters: past the end of its row
        return n - 1
    return 0


def divide(st, ps, bb, cands, n, tab, params, rng):
    if n // (st[ST_ROLL] - 4) == 12345:      # roll 4 divides by zero
        return 0
    return n - 1
'''


def line_of(text):
    """The line number of `text` in CHEATS (the file the cheats are written to)."""
    return next(i for i, line in enumerate(CHEATS.splitlines(), 1) if text in line)

WROTE = r"\(seat (\d)\) wrote to {what} in seed (\d+), game (\d+), roll (\d+): a strategy may only read the game it is shown"


@pytest.fixture(scope="module")
def cheats(tmp_path_factory):
    f = tmp_path_factory.mktemp("cheats") / "cheat.py"
    f.write_text(CHEATS)
    return f


def _error(chunk) -> str:
    with pytest.raises(sim.StrategyError) as e:
        check_chunk(chunk)
    return str(e.value)


@pytest.mark.parametrize("fn, what, roll", [
    ("jokers", r"ps \(the seats' counters\)", 1),
    ("uncross", r"bb \(the sheets\)", 4),
    ("die", r"st \(the table and dice\)", 1),
    ("cost", r"cands \(its legal choices\)", 2),
    ("empty_seat", r"ps \(the seats' counters\)", 3),
])
def test_a_write_to_the_game_is_named_with_its_roll(cheats, fn, what, roll):
    spec = f"{cheats}:{fn}"
    with pytest.raises(sim.StrategyError, match=rf"^strategy '{re.escape(spec)}' \(seat 1\) wrote to {what} "
                                                 rf"in seed 4, game 2, roll {roll}: "):
        sim.play_game(4, 2, ["greedy", spec])


@pytest.mark.parametrize("fn, what, roll", [("tables", r"tables \(the sheet's tables\)", 7),
                                            ("param", r"params \(its parameters\)", 9)])
def test_a_write_found_after_its_block_is_traced_to_its_game_and_roll(cheats, fn, what, roll):
    """Checked once per block of 64 games, on two threads: the error names the first game that
    wrote, and the roll, as that game played alone shows; the games before it play clean."""
    import numba
    spec = f"{cheats}:{fn}"
    before = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        message = _error(play_chunk(9, 0, 400, [f"{cheats}:honest", spec, "greedy"], players=3, rotate=True))
    finally:
        numba.set_num_threads(before)
    m = re.search(WROTE.format(what=what), message)
    assert m and message.startswith(f"strategy '{spec}'"), message
    seat, seed, game, at = map(int, m.groups())
    assert seed == 9 and at == roll and game > 0

    specs = [f"{cheats}:honest", spec, "greedy"]
    seated = [lineup([specs[(s + r) % 3] for s in range(3)]) for r in range(3)]   # compiled once

    def alone(g):   # game g by itself, each strategy in the seat the rotation gave it
        return play_chunk(9, g, 1, seated[g % 3], players=3)
    for g in range(game):
        check_chunk(alone(g))
    assert _error(alone(game)) == message


def test_a_user_strategy_beside_learned_and_its_packed_weights(cheats):
    """learned's weights ride in its parameters row (tens of thousands of words), so every row
    of params is that wide: a user's strategy is still given, and checked on, its own few."""
    specs = [f"{cheats}:honest", "learned", "greedy"]
    line = lineup(specs, players=3)
    assert line.params.shape[1] > 10_000 and line.kinds[MAX_SEATS] == 0
    watched = play_chunk(2, 0, 130, line, players=3, rotate=True)
    check_chunk(watched)
    kinds = line.kinds.copy()
    kinds[:MAX_SEATS][kinds[:MAX_SEATS] == players.PLAYER_GUARDED] = players.PLAYER_CALL
    trusted = play_chunk(2, 0, 130, Lineup(line.specs, line.fns, line.params, kinds, line.sheet, line.players),
                         players=3, rotate=True)
    assert np.array_equal(watched.games, trusted.games) and np.array_equal(watched.seats, trusted.seats)
    message = _error(play_chunk(2, 0, 400, [f"{cheats}:param", "learned", "greedy"], players=3, rotate=True))
    assert re.search(WROTE.format(what=r"params \(its parameters\)"), message), message


def test_an_index_out_of_range_is_named(cheats):
    with pytest.raises(sim.StrategyError, match=r"minus5' \(seat 0\) returned -5, not a legal choice index .* "
                                                 r"in seed 1, game 0, roll 1$"):
        sim.play_game(1, 0, [f"{cheats}:minus5", "greedy"])


def _forced(specs, players_, kind):
    """The lineup of specs with every strategy's decision function (`fn`, not a solo placer: see
    strategies.interface.Strategy) run as `kind` (sim.players.PLAYER_*)."""
    line = lineup(specs, players=players_)
    kinds = line.kinds.copy()
    kinds[:len(kinds) // 2] = kind
    fns = tuple(resolve(s).fn for s in specs)
    return Lineup(line.specs, fns + fns[:1] * (len(line.fns) - len(fns)), line.params, kinds, line.sheet, line.players)


@pytest.mark.parametrize("specs, n_players, games", [
    (["heuristic"], 1, 60), (["lookahead"], 1, 20), (["learned"], 1, 60),
    (["heuristic", "learned", "lookahead", "random"], 4, 12), (["greedy", "random"], 2, 60),
])
def test_built_in_strategies_only_read_the_game(specs, n_players, games):
    """The engine trusts the built-ins with its own arrays. Here they play watched as a user's
    strategy is, checked after every decision (PLAYER_STRICT): they write nothing, and the
    games are the very games they play unwatched."""
    watched = play_chunk(3, 0, games, _forced(specs, n_players, players.PLAYER_STRICT), players=n_players,
                         rotate=n_players > 1, log_turns=True)
    check_chunk(watched)
    trusted = play_chunk(3, 0, games, specs, players=n_players, rotate=n_players > 1, log_turns=True)
    for field in ("games", "seats", "log"):
        assert np.array_equal(getattr(watched, field), getattr(trusted, field)), field
    assert not watched.games[:, engine.GR_ERROR].any()


@pytest.mark.parametrize("fn, message", [
    ("jokers", r"wrote to ps \(the seats' counters\) in seed 5, game \d+, roll \d+"),
    ("uncross", r"wrote to bb \(the sheets\) in seed 5, game \d+, roll 4"),
    ("die", r"wrote to st \(the table and dice\) in seed 5, game \d+, roll \d+"),
    ("minus5", r"returned -5, not a legal choice index or -1 \(pass\), in seed 5, game \d+, roll \d+"),
])
def test_cheating_run_stops_with_one_line(cheats, tmp_path, fn, message):
    """The issue's cheats, run as `run -p 2 -s cheat.py:fn -s greedy`: exit 2, one line, nothing made."""
    out = tmp_path / "ds"
    r = invoke("run", "-n", 100, "-p", 2, "-s", f"{cheats}:{fn}", "-s", "greedy", "--seed", 5, "-o", out)
    assert r.exit_code == 2, r.output
    assert r.stderr.count("\n") == 1 and re.match(rf"Error: strategy '{re.escape(str(cheats))}:{fn}' \(seat \d\) "
                                                  f"{message}", r.stderr), r.stderr
    assert not out.exists()


def test_a_cheat_in_a_later_chunk_keeps_the_chunks_before(cheats, tmp_path):
    specs = [f"{cheats}:honest", f"{cheats}:tables", "greedy"]
    first = _error(play_chunk(9, 0, 2000, specs, players=3, rotate=True))
    game = int(re.search(r"game (\d+), roll 7", first)[1])
    assert game >= 2, "seed 9 should let a chunk finish before the first write"
    size = game // 2
    out = tmp_path / "ds"
    r = invoke("run", "-n", 2000, "-p", 3, *[a for s in specs for a in ("-s", s)], "--seed", 9, "--chunk-size",
               size, "-o", out, "-q")
    assert r.exit_code == 2 and r.stderr == f"Error: {first}\n", r.output
    assert done_chunks(out) == set(range(game // size))
    manifest = read_manifest(out)
    assert manifest["status"] == "failed" and manifest["error"] == first


def test_the_tables_comparison_covers_every_field():
    """A write to any field of a user's private tables is seen (sim.guard.same_tables names each)."""
    from sim.guard import same_tables
    from sim.tables import Tables, pack_tables, build_tables, kernel_tables
    arrays = [a.copy() for a in build_tables("standard")]
    assert same_tables(kernel_tables("standard"), pack_tables(tuple(arrays)))
    for i, name in enumerate(Tables._fields):
        changed = [a.copy() for a in arrays]
        changed[i].reshape(-1)[-1] += 1
        assert not same_tables(kernel_tables("standard"), pack_tables(tuple(changed))), name


def test_an_index_out_of_range_stops_the_run_naming_the_file_and_line(cheats, tmp_path):
    """Users' strategies are compiled with bounds checking: an index out of range stops the run
    with one line naming the strategy, its file and line (exit 2); the chunks before are kept."""
    spec = f"{cheats}:out_of_range"
    first = _error(play_chunk(6, 0, 400, [spec, "greedy"], players=2, rotate=True))
    m = re.fullmatch(rf"strategy '{re.escape(spec)}' \(seat \d\) indexed out of range at {re.escape(str(cheats))} "
                     rf"line {line_of('a row past the last seat')}, in seed 6, game (\d+), roll 5", first)
    assert m, first
    game = int(m[1])
    assert game >= 2, "seed 6 should let a chunk finish before the first bad index"
    out = tmp_path / "ds"
    r = invoke("run", "-n", 400, "-p", 2, "-s", spec, "-s", "greedy", "--seed", 6, "--chunk-size", game // 2,
               "-o", out, "-q")
    assert r.exit_code == 2 and r.stderr == f"Error: {first}\n", r.output
    assert done_chunks(out) == {0, 1} and read_manifest(out)["status"] == "failed"


def test_the_file_is_named_as_given_from_the_working_folder(cheats, monkeypatch):
    monkeypatch.chdir(cheats.parent)
    with pytest.raises(sim.StrategyError, match=rf"indexed out of range at cheat.py line "
                                                 rf"{line_of('a row past the last seat')}, in seed 6"):
        check_chunk(play_chunk(6, 0, 400, ["cheat.py:out_of_range", "greedy"], players=2, rotate=True))


def test_another_exception_is_named_with_its_line(cheats):
    with pytest.raises(sim.StrategyError, match=rf"^strategy '.*:divide' \(seat 0\) divided by zero "
                                                 rf"at .*cheat.py line {line_of('divides by zero')}, "
                                                 rf"in seed 1, game 0, roll 4$"):
        sim.play_game(1, 0, [f"{cheats}:divide", "greedy"])


def test_unchecked_turns_bounds_checking_off(cheats, tmp_path):
    """--unchecked: past_params reads past its (empty) parameters row, into memory the engine
    owns (the next seat's row, zeros): unchecked it plays on, checked it stops."""
    args = ["run", "-n", 50, "-p", 2, "-s", f"{cheats}:past_params", "-s", "greedy", "-q"]
    r = invoke(*args, "-o", tmp_path / "checked")
    assert r.exit_code == 2 and f"indexed out of range at {cheats} line {line_of('past the end of its row')}" \
        in r.stderr, r.output
    r = invoke(*args, "-o", tmp_path / "unchecked", "--unchecked")
    assert r.exit_code == 0, r.output
    assert read_manifest(tmp_path / "unchecked")["status"] == "complete"


@pytest.mark.parametrize("args", [
    ["compare", "{cheats}:past_params", "greedy", "-p", 2, "--opponents", "greedy", "-n", 50, "-q"],
    ["replay", "--seed", 1, "--game", 0, "-s", "{cheats}:past_params", "-s", "greedy"],
])
def test_unchecked_in_compare_and_replay(cheats, args):
    """compare and replay take --unchecked as run does: checked they stop at the read past the
    row, unchecked they play on."""
    args = [str(a).format(cheats=cheats) for a in args]
    r = invoke(*args)
    assert r.exit_code == 2 and f"indexed out of range at {cheats} line {line_of('past the end of its row')}" \
        in r.stderr, r.output
    r = invoke(*args, "--unchecked")
    assert r.exit_code == 0, r.output


def test_users_function_names_the_strategy_behind_a_wrapper(cheats):
    """The compile notice names a user's function, whether Numba compiles the file's own
    function, its bounds-checked twin or the wrapper that watches it; the project's own are not
    a user's."""
    from sim.guard import users_function, watched
    fn = resolve(f"{cheats}:honest").fn
    named = users_function(fn.py_func)
    assert (named.__name__, named.__code__.co_filename) == ("honest", str(cheats))
    assert users_function(watched(fn).py_func) is fn.py_func
    assert users_function(engine.play.py_func) is None and users_function(None) is None
