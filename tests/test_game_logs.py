"""Whole games from `sim.play_game`, replayed and checked by the independent checker; and games
under random combinations of rule variants, replayed under those rules.

`sim` is imported only to call the API under test, `sim.play_game` (and play_chunk, for games
under variants: tests/helpers/logged.py).
"""

import copy
import json
import random
from collections import Counter

import pytest

from sim.runs import api as sim

import reference as R
from checker import check_game_log
from logged import play_logged

SEED = 20261130
N_SOLO = 120
N_MULTI = 120
MIN_SCORE = -2 * 15  # every one of the 15 stars missed, nothing else
SCORE_BOUND = 41 + 25 + 8  # RULES section 9: no score can reach this


def solo_config(i):
    strategies = [("random", "greedy")[i % 2]]
    return dict(seed=SEED, game=i, strategies=strategies, sheet=R.SHEET_NAMES[(i // 2) % 6])


def multi_config(i):
    players = 2 + i % 5  # 2..6
    mix = i // 5
    strategies = [("random", "greedy")[(mix + seat + (seat * mix) // 3) % 2] for seat in range(players)]
    if i % 10 == 3:
        strategies = ["greedy"] * players
    if i % 10 == 7:
        strategies = ["random"] * players
    return dict(seed=SEED + 1, game=i, strategies=strategies, sheet=R.SHEET_NAMES[(i // 5) % 6])


_LOGS = {}


def play(**config):
    key = json.dumps(config, sort_keys=True)
    if key not in _LOGS:
        config = dict(config)
        log = sim.play_game(config.pop("seed"), config.pop("game"), config.pop("strategies"), **config)
        _LOGS[key] = log
    return _LOGS[key]


def check(log, max_rolls=None):
    """json-serialisability, then the full replay (with the cap the game was played with)."""
    json.dumps(log)
    if max_rolls is not None:
        if "max_rolls" in log:
            assert log["max_rolls"] == max_rolls, f"log says max_rolls={log['max_rolls']}, played with {max_rolls}"
        else:
            log = dict(log, max_rolls=max_rolls)
    check_game_log(log, log["sheet"])


def check_header(log, config):
    where = f"game {config}"
    assert log["seed"] == config["seed"], where
    assert log["game"] == config["game"], where
    assert log["sheet"] == config["sheet"], where
    assert log["strategies"] == config["strategies"], where
    assert log["players"] == len(config["strategies"]), where
    for entry in log["result"]:
        assert MIN_SCORE <= entry["score"] < SCORE_BOUND, f"{where}: impossible score {entry['score']}"


# --------------------------------------------------------------------------------------------
# Valid games
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("i", range(N_SOLO))
def test_solo_game(i):
    config = solo_config(i)
    log = play(**config)
    check_header(log, config)
    check(log)
    assert len(log["rolls"]) == R.SOLO_ROLLS and log["capped"] is False


@pytest.mark.parametrize("i", range(N_MULTI))
def test_multiplayer_game(i):
    config = multi_config(i)
    log = play(**config)
    check_header(log, config)
    check(log)


def test_most_multiplayer_games_end_naturally():
    logs = [play(**multi_config(i)) for i in range(N_MULTI)]
    natural = sum(not log["capped"] for log in logs)
    assert natural >= N_MULTI * 0.9, f"only {natural} of {N_MULTI} games ended naturally"


def test_games_are_reproducible():
    for config in (solo_config(5), multi_config(17)):
        again = sim.play_game(config["seed"], config["game"], list(config["strategies"]), sheet=config["sheet"])
        assert again == play(**config), f"game {config} is not reproducible"
    one = play(**multi_config(0))
    other = sim.play_game(SEED + 1, 1000, one["strategies"], sheet=one["sheet"])
    assert [r["dice"] for r in one["rolls"][:3]] != [r["dice"] for r in other["rolls"][:3]], \
        "different game indices gave the same dice"


@pytest.mark.parametrize("game", range(10))
def test_capped_games(game):
    log = sim.play_game(SEED + 2, game, ["random"] * 3, sheet="standard", max_rolls=5)
    assert log["capped"] is True
    assert len(log["rolls"]) == 5
    check(log, max_rolls=5)


@pytest.mark.parametrize("game", range(10))
def test_games_with_a_medium_cap(game):
    """With max_rolls=40 some games are capped and some end naturally; all must check out."""
    log = sim.play_game(SEED + 3, game, ["random", "greedy", "random"], sheet=R.SHEET_NAMES[game % 6], max_rolls=40)
    assert len(log["rolls"]) <= 40
    check(log, max_rolls=40)


@pytest.mark.parametrize("i", [0, 1, 2, 8, 9])
def test_cap_exactly_at_the_natural_end(i):
    """A game ending naturally in roll L is not capped with max_rolls=L, but is with L-1."""
    config = multi_config(i)
    full = play(**config)
    assert not full["capped"]
    length = len(full["rolls"])
    for cap, capped in ((length, False), (length - 1, True)):
        log = sim.play_game(config["seed"], config["game"], config["strategies"], sheet=config["sheet"], max_rolls=cap)
        check(log, max_rolls=cap)
        assert log["rolls"] == full["rolls"][:cap], f"max_rolls={cap} changed the course of game {config}"
        assert log["capped"] is capped and len(log["rolls"]) == cap


def test_winners_rule():
    assert R.winners([10, 12, 3], [0, 0, 8]) == [False, True, False]
    assert R.winners([12, 12, 3], [2, 5, 8]) == [False, True, False]  # tie broken by more "!" left
    assert R.winners([12, 12, 12], [5, 5, 1]) == [True, True, False]  # still tied: shared win
    assert R.winners([-4], [0]) == [True]


def test_solo_ignores_the_cap():
    log = sim.play_game(SEED + 4, 0, ["greedy"], sheet="standard", max_rolls=5)
    assert len(log["rolls"]) == R.SOLO_ROLLS and log["capped"] is False
    check(log)


def test_dice_faces_are_uniform():
    """Loose test (6 standard deviations) on all the dice of all the games above."""
    colour, number = Counter(), Counter()
    for i in range(N_SOLO):
        for roll in play(**solo_config(i))["rolls"]:
            colour.update(roll["dice"]["colour"])
            number.update(roll["dice"]["number"])
    for i in range(N_MULTI):
        for roll in play(**multi_config(i))["rolls"]:
            colour.update(roll["dice"]["colour"])
            number.update(roll["dice"]["number"])
    for counts, faces in ((colour, R.COLOUR_DIE_FACES), (number, R.NUMBER_DIE_FACES)):
        total = sum(counts.values())
        expected = total / 6
        sd = (total * (1 / 6) * (5 / 6)) ** 0.5
        for face in faces:
            assert abs(counts[face] - expected) < 6 * sd, f"face {face!r}: {counts[face]} of {total} dice"
        assert set(counts) == set(faces)


def test_random_strategy_is_uniform_over_choices_including_pass():
    """A "random" seat passes with probability 1/(k+1) when it has k legal choices. Whether two
    dice showing the same face count as two choices is left open, so k is bracketed between the
    number of distinct outcomes (colour, number, boxes, jokers) and the number of
    (colour die, number die, colour, number, boxes) tuples; the pass count must lie in the
    bracket give or take 5 standard deviations."""
    low = high = var = 0.0
    passes = moves_seen = 0

    def observe(strategy, options, move):
        nonlocal low, high, var, passes, moves_seen
        if strategy != "random":
            return
        tuples = len(options)
        outcomes = len({(colour, number, placement, cost) for _, _, colour, number, placement, cost in options})
        p_low, p_high = 1 / (tuples + 1), 1 / (outcomes + 1)
        low += p_low
        high += p_high
        var += p_high * (1 - p_high)
        passes += move["pass"]
        moves_seen += 1

    for i in range(0, N_SOLO, 5):
        check_game_log(play(**solo_config(i)), None, observer=observe)
    for i in range(0, N_MULTI, 5):
        check_game_log(play(**multi_config(i)), None, observer=observe)
    assert moves_seen > 1000
    sd = var ** 0.5
    assert low - 5 * sd <= passes <= high + 5 * sd, (
        f"random seats passed {passes} times in {moves_seen} moves; "
        f"expected between {low:.0f} and {high:.0f} (sd {sd:.1f})")


# --------------------------------------------------------------------------------------------
# Games under rule variants (issue 46)
# --------------------------------------------------------------------------------------------

N_VARIANT_GAMES = 16


def variant_config(i):
    """Game i under a random combination of variants (reference.random_rules), at a random table
    of greedy and random seats on a random sheet; the engine is told the rules as a --rules text."""
    rng = random.Random(f"variant {i}")
    players = rng.randint(1, 6)
    return dict(seed=SEED + 6, game=i, strategies=[rng.choice(["greedy", "random"]) for _ in range(players)],
                sheet=rng.choice(R.SHEET_NAMES), rules=R.rules_text(R.random_rules(rng)))


_VARIANT_LOGS = {}


def play_variant(i):
    if i not in _VARIANT_LOGS:
        _VARIANT_LOGS[i] = play_logged(**variant_config(i))
    return _VARIANT_LOGS[i]


@pytest.mark.parametrize("i", range(N_VARIANT_GAMES))
def test_game_under_rule_variants(i):
    config = variant_config(i)
    log = play_variant(i)
    json.dumps(log)
    check_game_log(log, config["sheet"], rules=config["rules"])


def test_the_variant_games_play_every_variant():
    """So that the test above checks each variant: every one is in force in some game, and the
    games hold what it changes (a 6, a roll after roll 3 with all dice for the passives, ...)."""
    configs = [variant_config(i) for i in range(N_VARIANT_GAMES)]
    rules = [R.as_rules(c["rules"]) for c in configs]
    logs = [play_variant(i) for i in range(N_VARIANT_GAMES)]
    for field in ("joker_six", "pass_penalty", "star_penalty", "end_colours", "solo_rolls", "free_rolls", "jokers",
                  "colour_bonus", "column_first"):
        assert any(getattr(r, field) != getattr(R.RULEBOOK, field) for r in rules), f"no game changes {field}"
    moves = [(log, r, m) for log, r in zip(logs, rules) for roll in log["rolls"] for m in roll["moves"]]
    assert any(m["number"] == 6 for _, _, m in moves), "no 6 played under joker-six"
    assert any(log["players"] == 1 and len(log["rolls"]) != R.SOLO_ROLLS for log in logs)
    assert any(r["passes"] and rl.pass_penalty for log, rl in zip(logs, rules) for r in log["result"])
    assert any(log["ended_by"] and rl.end_colours != R.END_COLOURS for log, rl in zip(logs, rules))


def test_a_variant_game_fails_the_check_under_other_rules():
    """The checker reads the rules it is given: each variant game, replayed under the rulebook,
    is rejected where the variant shows (the first difference the replay meets)."""
    cases = [
        ("pass-penalty=3", ["random"] * 3, r"score is"),
        ("star-penalty=5", ["greedy"] * 2, r"star_penalty is"),
        ("solo-rolls=20", ["greedy"], r"solo game has 20 rolls, expected 30"),
        ("jokers=2", ["greedy"] * 2, r"n_choices is|jokers_left is"),
        ("free-rolls=0", ["greedy"] * 3, r"roll 1, seat 1: available is"),
        ("joker-six", ["greedy"], r"n_choices is|number joker played as invalid number 6"),
        ("end-colours=3", ["greedy"] * 4, r"roll after the end of the game"),
        ("colour-bonus=9/1", ["greedy"] * 4, r"colour_points is"),
        ("column-points=" + ":".join(["4/1"] * 15), ["greedy"] * 2, r"column_points is"),
    ]
    for rules, strategies, match in cases:
        log = play_logged(SEED + 7, 0, strategies, rules=rules)
        check_game_log(log, "standard", rules=rules)
        check_game_log(log, "standard")          # the log names its rules: read from it
        rulebook_log = {k: v for k, v in log.items() if k != "rules"}
        with pytest.raises(AssertionError, match=match):
            check_game_log(rulebook_log, "standard")


# --------------------------------------------------------------------------------------------
# The checker must reject corrupted logs
# --------------------------------------------------------------------------------------------

def natural_multi_log():
    for i in range(N_MULTI):
        log = play(**multi_config(i))
        if not log["capped"] and log["players"] >= 3:
            return copy.deepcopy(log)
    raise AssertionError("no naturally ended game with 3+ players")


def moves(log, min_roll=1):
    for roll in log["rolls"]:
        if roll["roll"] >= min_roll:
            for index, move in enumerate(roll["moves"]):
                yield roll, index, move


def rejected(log, match):
    with pytest.raises(AssertionError, match=match):
        check_game_log(log, log["sheet"])


def test_checker_accepts_the_uncorrupted_logs():
    check_game_log(natural_multi_log(), None)
    solo = copy.deepcopy(play(**solo_config(0)))
    check_game_log(solo, solo_config(0)["sheet"])
    text = (R.sheets_dir() / f"{solo['sheet']}.txt").read_text()
    check_game_log(solo, text)  # the sheet may also be given as the text of a sheet file


def test_checker_rejects_a_flipped_cell():
    log = natural_multi_log()
    sheet = R.load_sheet(log["sheet"])
    roll, _, move = next((r, i, m) for r, i, m in moves(log) if not m["pass"])
    # replace one crossed cell by a cell of another colour
    replacement = next(c for c in R.ALL_CELLS if sheet.colour[c] != move["colour"])
    move["cells"][0] = replacement
    rejected(log, rf"roll {roll['roll']}, seat {move['seat']}.*not a legal placement")


def test_checker_rejects_a_disconnected_group():
    log = natural_multi_log()
    sheet = R.load_sheet(log["sheet"])
    for roll, _, move in moves(log):
        if move["pass"] or move["number"] < 2:
            continue
        for cell in move["cells"]:
            rest = [c for c in move["cells"] if c != cell]
            if R.is_connected(rest):
                # move that box to a box of the same colour that does not touch the others
                far = next(c for c in R.ALL_CELLS
                           if c not in move["cells"] and sheet.colour[c] == move["colour"]
                           and not any(nb in rest for nb in R.neighbours(c)))
                move["cells"] = rest + [far]
                rejected(log, rf"roll {roll['roll']}, seat {move['seat']}.*not a legal placement")
                return
    raise AssertionError("no suitable move found")


def test_checker_rejects_a_die_the_passive_player_could_not_use():
    log = natural_multi_log()
    for roll, index, move in moves(log, min_roll=4):
        active = roll["moves"][0]
        if index > 0 and not active["pass"] and not move["pass"]:
            move["colour_die"] = active["colour_die"]
            face = roll["dice"]["colour"][active["colour_die"]]
            if face != R.JOKER:
                move["colour"] = face
            rejected(log, rf"roll {roll['roll']}, seat {move['seat']}.*taken by the active player")
            return
    raise AssertionError("no passive move after roll 3 found")


def test_checker_rejects_a_number_die_the_passive_player_could_not_use():
    log = natural_multi_log()
    for roll, index, move in moves(log, min_roll=4):
        active = roll["moves"][0]
        if index > 0 and not active["pass"] and not move["pass"]:
            move["number_die"] = active["number_die"]
            rejected(log, rf"roll {roll['roll']}, seat {move['seat']}.*number die")
            return
    raise AssertionError("no passive move after roll 3 found")


def test_checker_rejects_wrong_joker_count():
    log = natural_multi_log()
    roll, _, move = next((r, i, m) for r, i, m in moves(log) if not m["pass"])
    move["jokers"] += 1
    rejected(log, rf"roll {roll['roll']}, seat {move['seat']}.*jokers")


def test_checker_rejects_a_changed_score():
    log = natural_multi_log()
    log["result"][1]["score"] += 1
    rejected(log, r"result, seat 1: score")


def test_checker_rejects_a_wrong_winner():
    log = natural_multi_log()
    log["result"][0]["winner"] = not log["result"][0]["winner"]
    rejected(log, r"result, seat 0: winner")


def test_checker_rejects_a_roll_after_the_end():
    log = natural_multi_log()
    extra = copy.deepcopy(log["rolls"][-1])
    extra["roll"] += 1
    extra["active"] = (extra["roll"] - 1) % log["players"]
    seats = [extra["active"]] + [s for s in range(log["players"]) if s != extra["active"]]
    extra["moves"] = [dict(seat=s, colour_die=None, number_die=None, colour=None, number=None, cells=[], jokers=0,
                           **{"pass": True}) for s in seats]
    log["rolls"].append(extra)
    rejected(log, r"after the end")


def test_checker_rejects_a_missing_last_roll():
    log = natural_multi_log()
    log["rolls"].pop()
    rejected(log, r"game stopped after \d+ rolls although no player completed 2 colours")


def test_checker_rejects_a_wrong_capped_flag():
    log = natural_multi_log()
    log["capped"] = True
    rejected(log, r"capped")


def test_checker_rejects_moves_out_of_order():
    log = natural_multi_log()
    roll = log["rolls"][0]
    roll["moves"][1], roll["moves"][2] = roll["moves"][2], roll["moves"][1]
    rejected(log, r"roll 1: moves are for seats")


def test_checker_rejects_a_missing_die():
    log = natural_multi_log()
    log["rolls"][2]["dice"]["number"].pop()
    rejected(log, r"roll 3: expected 3 number dice")


def test_checker_rejects_an_extra_solo_roll():
    log = copy.deepcopy(play(**solo_config(1)))
    extra = copy.deepcopy(log["rolls"][-1])
    extra["roll"] += 1
    log["rolls"].append(extra)
    rejected(log, r"roll 31: .*30 rolls")


def test_checker_rejects_a_solo_roll_with_three_dice():
    log = copy.deepcopy(play(**solo_config(1)))
    log["rolls"][0]["dice"]["colour"].append("green")
    rejected(log, r"roll 1: expected 2 colour dice")


# The fields derived from the play: each checked against the replay, so a wrong value is caught.

@pytest.mark.parametrize("key", ["rank", "columns_first", "columns_later", "colours_first", "colours_later",
                                 "first_joker_roll", "passes", "boxes", "jokers_used"])
def test_checker_rejects_a_wrong_derived_result(key):
    log = natural_multi_log()
    entry = log["result"][1]
    entry[key] = 1 if entry[key] is None else entry[key] + 1
    rejected(log, rf"result, seat 1: {key} is")


def test_checker_rejects_a_first_joker_roll_for_a_seat_that_used_none():
    # Two rolls: some seat has not used a '!' yet.
    log = next(log for game in range(20) for log in [sim.play_game(SEED + 5, game, ["greedy"] * 4, max_rolls=2)]
               if any(e["first_joker_roll"] is None for e in log["result"]))
    check(log, max_rolls=2)
    seat = next(e["seat"] for e in log["result"] if e["first_joker_roll"] is None)
    log["result"][seat]["first_joker_roll"] = 1
    rejected(log, rf"result, seat {seat}: first_joker_roll is 1, expected None")


def test_checker_rejects_wrong_ended_by_and_winners():
    log = natural_multi_log()
    assert log["ended_by"]
    bad = copy.deepcopy(log)
    bad["ended_by"] = []
    rejected(bad, r"ended_by is \[\]")
    bad = copy.deepcopy(log)
    bad["ended_by"] = log["ended_by"] + [s for s in range(log["players"]) if s not in log["ended_by"]][:1]
    rejected(bad, r"ended_by is")
    bad = copy.deepcopy(log)
    bad["winners"] = [s for s in range(log["players"]) if s not in log["winners"]][:1]
    rejected(bad, r"winners is")


def test_checker_rejects_ended_by_in_a_capped_game():
    log = copy.deepcopy(sim.play_game(SEED + 2, 0, ["random"] * 3, max_rolls=5))
    log["ended_by"] = [0]
    rejected(log, r"ended_by is \[0\], expected \[\] \(no natural end\)")


@pytest.mark.parametrize("key", ["n_choices", "available"])
def test_checker_rejects_wrong_offered_choices(key):
    log = natural_multi_log()
    roll, _, move = next((r, i, m) for r, i, m in moves(log, min_roll=4) if r["moves"][0]["seat"] != m["seat"]
                         and not r["moves"][0]["pass"])
    move[key] += 1
    rejected(log, rf"roll {roll['roll']}, seat {move['seat']}: {key} is")
