"""Each rule variant changes what it should and nothing else, on the same dice (issue 46).

Most tests play the same games (one root seed, the same game numbers: the same dice) under the
rulebook and under a variant, and compare the datasets' tables (Chunk.to_arrow) column by column.
greedy's choices read none of the points, penalties or the game's end (most boxes now, the fewest
'!'), and random's read nothing, so under those variants their games cross the same boxes: every
difference is the variant's, and it must be exactly the variant's amount. The amounts come from
the same games' other columns or from the independent reference (tests/helpers/reference.py).
"""
import functools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.rules import MAX_JOKERS, MAX_PENALTY, MAX_POINTS, RULEBOOK, parse_rules
from sim.runs import api as sim
from bench.digests import chunk_digest

import reference as R

SEED = 4646
#: Players tables' columns that follow from the score: a change of score may change them.
RANKING = {"score", "rank", "winner"}

# Few examples: each plays its chunks under new rules (new tables), and each checks many games.
FEW = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@functools.lru_cache(maxsize=None)   # the rulebook's chunks serve many tests and examples: played once
def play(players, rules=None, games=60, strategies=("greedy",), sheet="standard"):
    """Games 0.. of SEED under `rules`, logged; several strategies take the seats in turn."""
    strategies = list(strategies) if len(strategies) == 1 else [strategies[s % len(strategies)] for s in range(players)]
    return sim.play_chunk(SEED, 0, games, strategies, players=players, sheet=sheet, rules=rules,
                          rotate=len(strategies) > 1, log_turns=True)


_ROWS = {}


def rows(chunk, table="players"):
    """The chunk's table as dicts, made once per chunk (which play keeps alive, so its id is its own)."""
    key = (id(chunk), table)
    if key not in _ROWS:
        _ROWS[key] = chunk.to_arrow(table).to_pylist()
    return _ROWS[key]


def changed_columns(base, variant, table="players") -> set:
    """The columns of `table` in which some row differs between two chunks of the same games."""
    a, b = rows(base, table), rows(variant, table)
    assert len(a) == len(b)
    return {key for x, y in zip(a, b) for key in x if x[key] != y[key]}


def assert_ranking_follows_the_scores(chunk):
    """rank and winner of every game as the reference ranks its scores (ties: more '!' left)."""
    by_game = {}
    for r in rows(chunk):
        by_game.setdefault(r["game"], []).append(r)
    for seats in by_game.values():
        scores, jokers = [r["score"] for r in seats], [r["jokers_left"] for r in seats]
        assert [r["rank"] for r in seats] == R.ranks(scores, jokers)
        assert [r["winner"] for r in seats] == R.winners(scores, jokers)


def assert_same_games_but(base, variant, players_columns):
    """The same games (dice, moves, length, end) with only `players_columns` (and the ranking
    that follows from the scores) differing in the players table."""
    assert changed_columns(base, variant, "turns") == set(), "the variant changed the moves"
    assert changed_columns(base, variant, "games") <= {"winners"}
    assert changed_columns(base, variant) <= set(players_columns) | RANKING
    assert_ranking_follows_the_scores(variant)


# --------------------------------------------------------------------------------------------
# The rulebook's rules are the rulebook
# --------------------------------------------------------------------------------------------

#: Every variant spelled at the rulebook's value, from the reference's own numbers (docs/rules.md).
EXPLICIT_RULEBOOK = ",".join([
    f"pass-penalty=0,star-penalty={R.STAR_PENALTY},end-colours={R.END_COLOURS},solo-rolls={R.SOLO_ROLLS}",
    f"free-rolls={R.FIRST_ROLLS_ALL_DICE},jokers={R.JOKERS_AT_START}",
    f"colour-bonus={R.FIRST_COLOUR_BONUS}/{R.LATER_COLOUR_BONUS}",
    "column-points=" + ":".join(f"{R.FIRST_COLUMN_VALUES[c]}/{R.LATER_COLUMN_VALUES[c]}" for c in R.COLUMNS),
])

# (strategies, players, sheet, games), logged: solo and tables, several sheets and strategies.
LINEUPS = [
    (("greedy",), 1, "standard", 300),
    (("learned",), 1, "red", 100),
    (("random", "greedy", "heuristic"), 3, "green", 60),
    (("learned", "lookahead", "heuristic", "greedy"), 4, "standard", 30),
]


@pytest.mark.parametrize("strategies, players, sheet, games", LINEUPS)
def test_the_default_rules_play_the_rulebook_s_games(strategies, players, sheet, games):
    """No rules, the rulebook's Rules, "" and "rulebook", and every variant spelled at the
    rulebook's value play the same games, bit for bit (bench.digests.chunk_digest: games,
    seats, dice and move log); one point of one variant changed plays other games."""
    def digest(rules):
        return chunk_digest(play(players, rules, games, strategies, sheet))

    rulebook = digest(None)
    for rules in (RULEBOOK, "", "rulebook", EXPLICIT_RULEBOOK):
        assert digest(rules) == rulebook, f"rules {rules!r} do not play the rulebook's games"
    assert parse_rules(EXPLICIT_RULEBOOK) == RULEBOOK
    if "learned" not in strategies:   # learned has no weights for star-penalty=3 (tests/test_rules_strategies.py)
        assert digest("star-penalty=3") != rulebook


@pytest.mark.parametrize("players, rules", [
    (1, "end-colours=3"), (1, "free-rolls=0"), (1, "end-colours=1,free-rolls=7"),
    (4, "solo-rolls=20"), (3, "solo-rolls=45"),
])
def test_a_variant_the_game_does_not_read_changes_nothing(players, rules):
    """The solo game has no end colours and no passive seats; a table has no solo length."""
    strategies = ("greedy",) if players == 1 else ("greedy", "random")
    assert chunk_digest(play(players, rules, strategies=strategies)) == chunk_digest(play(players,
                                                                                          strategies=strategies))


# --------------------------------------------------------------------------------------------
# Penalties: the same games, the score lower by exactly the penalty
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("players, strategies", [(1, ("greedy",)), (4, ("greedy",)), (3, ("greedy", "random"))])
def test_pass_penalty_lowers_each_score_by_exactly_its_passes(players, strategies):
    base, variant = play(players, strategies=strategies), play(players, "pass-penalty=1", strategies=strategies)
    assert_same_games_but(base, variant, {"score"})
    passes = 0
    for b, v in zip(rows(base), rows(variant)):
        assert v["score"] == b["score"] - v["passes"], (v["game"], v["seat"])
        passes += v["passes"]
    assert passes > 0, "no pass in these games: the penalty was never tested"


@pytest.mark.parametrize("players", [1, 4])
def test_star_penalty_3_lowers_each_score_by_exactly_its_open_stars(players):
    base, variant = play(players), play(players, "star-penalty=3")
    assert_same_games_but(base, variant, {"score", "star_penalty"})
    open_stars = 0
    for b, v in zip(rows(base), rows(variant)):
        stars = b["star_penalty"] // R.STAR_PENALTY   # the rulebook's 2 per open star
        assert v["star_penalty"] == 3 * stars and v["score"] == b["score"] - stars, (v["game"], v["seat"])
        open_stars += stars
    assert open_stars > 0


@FEW
@given(pass_penalty=st.integers(0, MAX_PENALTY), star_penalty=st.integers(0, MAX_PENALTY),
       players=st.sampled_from([1, 2, 5]))
def test_any_penalties_take_exactly_their_points(pass_penalty, star_penalty, players):
    strategies = ("greedy",) if players == 1 else ("greedy", "random")
    base = play(players, strategies=strategies, games=30)
    variant = play(players, f"pass-penalty={pass_penalty},star-penalty={star_penalty}", strategies=strategies, games=30)
    assert_same_games_but(base, variant, {"score", "star_penalty"})
    for b, v in zip(rows(base), rows(variant)):
        stars = b["star_penalty"] // R.STAR_PENALTY
        assert v["star_penalty"] == star_penalty * stars
        assert v["score"] == b["score"] + b["star_penalty"] - star_penalty * stars - pass_penalty * v["passes"]


# --------------------------------------------------------------------------------------------
# Points: the same crossings, the colour and column points as the variant values them
# --------------------------------------------------------------------------------------------

def crossings(chunk):
    """Per game: the sheet's name, the players, and per roll the boxes each seat had crossed after
    it (from the turns table, the engine's log of its moves)."""
    players = chunk.seats.shape[1]
    games = {}
    for t in rows(chunk, "turns"):
        games.setdefault(t["game"], {}).setdefault(t["roll"], {})[t["seat"]] = set(t["cells"] or ())
    out = {}
    for game, rolls in games.items():
        crossed, history = [set() for _ in range(players)], []
        for roll in sorted(rolls):
            for seat, cells in rolls[roll].items():
                crossed[seat] |= cells
            history.append([set(c) for c in crossed])
        out[game] = history
    return chunk.sheet.name, players, out


def reference_points(chunk, rules):
    """{(game, seat): (column points, colour points)}: the reference settles the chunk's crossings,
    roll by roll, under `rules`."""
    sheet, players, games = crossings(chunk)
    points = {}
    for game, history in games.items():
        before, taken = [set() for _ in range(players)], (set(), set())
        totals = [[0, 0] for _ in range(players)]
        for after in history:
            awards, *taken = R.settle_roll(sheet, before, after, *taken, players == 1, rules)
            for total, award in zip(totals, awards):
                total[0] += award["column_points"]
                total[1] += award["colour_points"]
            before = after
        points.update({(game, s): tuple(totals[s]) for s in range(players)})
    return points


pairs = st.tuples(st.integers(0, MAX_POINTS), st.integers(0, MAX_POINTS))


@FEW
@given(bonus=pairs, columns=st.lists(pairs, min_size=15, max_size=15), players=st.sampled_from([1, 4]))
def test_colour_bonus_and_column_points_value_the_same_crossings(bonus, columns, players):
    text = "colour-bonus={}/{},column-points={}".format(*bonus, ":".join(f"{f}/{later}" for f, later in columns))
    base, variant = play(players, games=30), play(players, text, games=30)
    assert_same_games_but(base, variant, {"score", "column_points", "colour_points"})
    expected = reference_points(variant, R.as_rules(text))
    for b, v in zip(rows(base), rows(variant)):
        # the completions are the rulebook game's; the colours are valued F per first, L per later
        assert v["colour_points"] == bonus[0] * b["colours_first"] + bonus[1] * b["colours_later"]
        assert (v["column_points"], v["colour_points"]) == expected[v["game"], v["seat"]]
        assert v["score"] - b["score"] == (v["column_points"] - b["column_points"]
                                           + v["colour_points"] - b["colour_points"])


def test_the_reference_settles_the_rulebook_games_as_the_engine():
    """reference_points, the yardstick above, on the rulebook's games: the engine's points."""
    for players in (1, 4):
        chunk = play(players, games=30)
        expected = reference_points(chunk, None)
        assert all((r["column_points"], r["colour_points"]) == expected[r["game"], r["seat"]] for r in rows(chunk))
        assert sum(r["colours_later"] for r in rows(chunk)) > 0 or players == 1


# --------------------------------------------------------------------------------------------
# The length of the game
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("solo_rolls", [20, 45])
def test_solo_rolls_is_the_solo_game_s_length(solo_rolls):
    base, variant = play(1, games=100), play(1, f"solo-rolls={solo_rolls}", games=100)
    assert {g["rolls"] for g in rows(variant, "games")} == {solo_rolls}
    assert {g["rolls"] for g in rows(base, "games")} == {R.SOLO_ROLLS}
    # greedy does not look at the rolls left: the shorter game is the longer one's first rolls
    shorter = min(solo_rolls, R.SOLO_ROLLS)
    assert ([t for t in rows(variant, "turns") if t["roll"] <= shorter]
            == [t for t in rows(base, "turns") if t["roll"] <= shorter])


def colours_after_each_roll(chunk):
    """Per game: per roll, the number of colours each seat has completed after it (reference)."""
    sheet, _, games = crossings(chunk)
    return {game: [[len(R.completed_colours(sheet, c)) for c in seats] for seats in history]
            for game, history in games.items()}


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("end_colours", [1, 3])
def test_end_colours_ends_the_game_in_the_roll_someone_completes_them(players, end_colours):
    base, variant = play(players, games=80), play(players, f"end-colours={end_colours}", games=80)
    base_games, variant_games = rows(base, "games"), rows(variant, "games")
    for game, counts in colours_after_each_roll(variant).items():
        g = variant_games[game]
        assert not g["capped"] and g["rolls"] == len(counts)
        # the last roll is the first after which some seat has the end colours, and they ended it
        assert [max(c) >= end_colours for c in counts] == [False] * (len(counts) - 1) + [True], game
        assert g["ended_by"] == [s for s, n in enumerate(counts[-1]) if n >= end_colours]
    # the same dice and moves up to the shorter game's end
    lengths = [(b["rolls"], v["rolls"]) for b, v in zip(base_games, variant_games)]
    shorter = [min(b, v) for b, v in lengths]
    assert ([t for t in rows(variant, "turns") if t["roll"] <= shorter[t["game"]]]
            == [t for t in rows(base, "turns") if t["roll"] <= shorter[t["game"]]])
    if end_colours > R.END_COLOURS:   # more colours to complete: every game as long, most longer
        assert all(v >= b for b, v in lengths) and sum(v > b for b, v in lengths) > len(lengths) / 2
    else:
        assert all(v <= b for b, v in lengths) and sum(v < b for b, v in lengths) > len(lengths) / 2


# --------------------------------------------------------------------------------------------
# The dice: free rolls, the '!' marks, the number joker as a 6
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("free_rolls", [0, 1, 3, 7])
def test_free_rolls_open_all_six_dice_to_the_passive_seats_in_the_first_rolls(free_rolls):
    chunk = play(4, f"free-rolls={free_rolls}", games=20, strategies=("greedy", "random"))
    turns = rows(chunk, "turns")
    active = {(t["game"], t["roll"]): t for t in turns if t["active"]}
    seen = set()
    for t in turns:
        a = active[t["game"], t["roll"]]
        if t["active"] or a["passed"]:
            assert t["available"] == 0b111111
            continue
        left = 0b111111 & ~(1 << a["colour_die"]) & ~(1 << (3 + a["number_die"]))
        free = t["roll"] <= free_rolls
        assert t["available"] == (0b111111 if free else left), (t["game"], t["roll"], t["seat"])
        seen.add((t["roll"], free))
    # every one of the first rolls was seen restricted or free as the rule says
    assert {(roll, roll <= free_rolls) for roll in range(1, free_rolls + 2)} <= seen
    if free_rolls == R.FIRST_ROLLS_ALL_DICE:
        assert chunk_digest(chunk) == chunk_digest(play(4, games=20, strategies=("greedy", "random")))


@FEW
@given(jokers=st.integers(0, MAX_JOKERS), players=st.sampled_from([1, 3]))
def test_a_sheet_starts_with_the_rules_jokers(jokers, players):
    """Each seat's '!' left is the rules' number less the '!' its moves spent (the turns table),
    never below zero; with none, no move uses a joker die."""
    chunk = play(players, f"jokers={jokers}", games=30)
    spent = {}
    for t in rows(chunk, "turns"):
        spent[t["game"], t["seat"]] = spent.get((t["game"], t["seat"]), 0) + t["jokers"]
    for r in rows(chunk):
        assert r["jokers_left"] == jokers - spent[r["game"], r["seat"]] >= 0, (r["game"], r["seat"])
        assert r["jokers_used"] == spent[r["game"], r["seat"]]
        assert (r["first_joker_roll"] is None) == (spent[r["game"], r["seat"]] == 0)
    if jokers > R.JOKERS_AT_START:   # greedy spends more than the rulebook's 8 when it has them
        assert max(spent.values()) > R.JOKERS_AT_START


def test_joker_six_offers_the_blocks_of_6():
    """With every box of other colours crossed, a colour's block of 6 is anchored all round: it is
    the one 6-box placement of that colour under joker-six, and a 6 is refused without it."""
    for name in R.SHEET_NAMES:
        sheet = R.load_sheet(name)
        for colour in R.COLOURS:
            others = [c for c in R.ALL_CELLS if sheet.colour[c] != colour]
            block = next(b for b in R.blocks_of_colour(sheet, colour) if len(b) == 6)
            assert sim.legal_placements(others, colour, 6, sheet=name, rules="joker-six") == [frozenset(block)]
            with pytest.raises(ValueError, match="6"):
                sim.legal_placements(others, colour, 6, sheet=name)


@pytest.mark.parametrize("players", [1, 3])
def test_joker_six_games_play_6s_with_the_number_joker_for_a_mark(players):
    six = rows(play(players, "joker-six", games=60), "turns")
    played = [t for t in six if t["number"] == 6]
    assert played, "greedy never crossed 6 boxes under joker-six"
    for t in played:
        assert len(t["cells"]) == 6
        assert t["number_dice"][t["number_die"]] == 0, "a 6 from a number die that is not the joker"  # 0: '?'
        assert t["jokers"] == 1 + (t["colour_dice"][t["colour_die"]] == "joker")
    assert all(t["number"] != 6 for t in rows(play(players, games=60), "turns"))


# --------------------------------------------------------------------------------------------
# The --rules text
# --------------------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_engine_reads_a_rules_text_as_the_reference_does(seed):
    """A random combination of variants written by the reference: the engine's parse has the same
    numbers, and its canonical text is the reference's (the variants in the documented order)."""
    rules = R.random_rules(random.Random(seed))
    parsed = parse_rules(R.rules_text(rules))
    assert R.as_rules(parsed) == rules
    assert parsed.text == R.rules_text(rules)
