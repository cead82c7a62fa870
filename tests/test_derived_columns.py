"""Every column of a dataset, the derived ones included (rank, ended_by, winners, first and later
completions, first_joker_roll, passes, n_choices, available), against the independent checker;
and ties settled by the '!' left, in real games and in constructed final positions."""
import itertools
import random

import pyarrow.parquet as pq
import pytest

from sim.runs import api as sim
from sim.runs.runner import run
from sim.runs.settings import Settings

import reference as R
from checker import check_game_log, dataset_logs

# Every table size, every strategy, several sheets (learned plays where it has shipped weights).
# The last two have a roll cap: some games capped, some seats that never used a '!'.
RUNS = [
    (["heuristic"], 1, "blue", 200), (["learned"], 1, "standard", 200), (["lookahead"], 1, "yellow", 200),
    (["lookahead", "random"], 2, "orange", 200), (["heuristic", "greedy", "random"], 3, "red", 200),
    (["learned", "lookahead", "heuristic", "greedy"], 4, "standard", 200),
    (["greedy", "random", "heuristic", "lookahead", "greedy", "random"], 6, "standard", 200),
    (["random", "greedy", "heuristic", "random", "greedy"], 5, "green", 25),
    (["greedy", "heuristic", "random"], 3, "standard", 3),
]
GAMES = 12


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    out = []
    for i, (strategies, players, sheet, max_rolls) in enumerate(RUNS):
        folder = tmp_path_factory.mktemp("derived") / f"run{i}"
        run(folder, games=GAMES, players=players, strategies=strategies, sheet=sheet, seed=40 + i, rotate=True,
            log_turns=True, chunk_size=5, max_rolls=max_rolls)
        out.extend(dataset_logs(folder))
    return out


def test_every_column_of_the_datasets_passes_the_checker(logs):
    assert len(logs) == GAMES * len(RUNS)
    for log in logs:
        check_game_log(log, log["sheet"])


def test_the_datasets_hold_what_the_derived_columns_are_about(logs):
    """So that the test above checks something: completions after another player, games ended by
    two seats at once or capped, seats that never used a '!', passes, every rank."""
    results = [r for log in logs for r in log["result"]]
    assert sum(r["columns_later"] for r in results) > 20 and sum(r["colours_later"] for r in results) > 0
    assert any(len(log["ended_by"]) > 1 for log in logs) and any(log["capped"] for log in logs)
    assert any(r["first_joker_roll"] is None for r in results) and sum(r["passes"] for r in results) > 100
    assert {r["rank"] for r in results} == set(range(1, 7))   # ties settled by '!': see below


# Datasets under rule variants (issue 46): the manifest records the --rules text, dataset_logs
# puts it in every log, and the checker replays each game under it.
VARIANT_RUNS = [
    ("joker-six,pass-penalty=2,free-rolls=0,jokers=5,end-colours=3", ["greedy", "random", "heuristic"], 3),
    ("solo-rolls=24,star-penalty=4,colour-bonus=8/2", ["greedy"], 1),
]


@pytest.mark.parametrize("rules, strategies, players", VARIANT_RUNS)
def test_a_dataset_under_variants_passes_the_checker_under_its_rules(tmp_path, rules, strategies, players):
    folder = tmp_path / "ds"
    run(folder, settings=Settings.of(games=8, players=players, strategies=strategies, seed=46, rotate=True,
                                     log_turns=True, chunk_size=4, rules=rules))
    logs = list(dataset_logs(folder))
    assert len(logs) == 8
    for log in logs:
        # the manifest's text is canonical: the variants in the documented order, as the reference writes them
        assert log["rules"] == R.rules_text(R.as_rules(rules))
        check_game_log(log, log["sheet"])
    with pytest.raises(AssertionError):   # ... and it is read: the same games are not the rulebook's
        for log in logs:
            check_game_log(dict(log, rules=""), log["sheet"])


@pytest.fixture(scope="module")
def tie_games(tmp_path_factory):
    """Games of three heuristic players in which two seats end on the same score, found in the
    players table of a run: (game, kind), kind "settled" when '!' left tell them apart."""
    folder = tmp_path_factory.mktemp("ties") / "ds"
    run(folder, games=3000, players=3, strategies=["heuristic"], seed=77)
    rows = pq.read_table(folder / "players", columns=["game", "seat", "score", "jokers_left"]).to_pylist()
    by_game = {}
    for r in rows:
        by_game.setdefault(r["game"], []).append(r)
    ties = []
    for game, seats in sorted(by_game.items()):
        pairs = [(a, b) for a, b in itertools.combinations(seats, 2) if a["score"] == b["score"]]
        if pairs:
            settled = any(a["jokers_left"] != b["jokers_left"] for a, b in pairs)
            top = max(s["score"] for s in seats) == pairs[0][0]["score"]
            ties.append((game, "settled" if settled else "shared", top))
    return ties


def test_ties_settled_by_jokers_left_in_many_games(tie_games):
    settled_top = [g for g, kind, top in tie_games if kind == "settled" and top][:30]
    settled_lower = [g for g, kind, top in tie_games if kind == "settled" and not top][:8]
    shared = [g for g, kind, top in tie_games if kind == "shared"][:8]
    assert len(settled_top) == 30 and len(settled_lower) >= 4 and len(shared) >= 4, \
        (len(settled_top), len(settled_lower), len(shared))
    for game in settled_top + settled_lower + shared:
        log = sim.play_game(77, game, ["heuristic"] * 3)
        check_game_log(log, "standard")
        scores = [r["score"] for r in log["result"]]
        assert len(set(scores)) < 3, game


@pytest.mark.parametrize("players", range(2, 7))
def test_constructed_final_positions(players):
    """The engine's final ranking (sim.engine.finish) on positions built to tie: small scores
    and '!' counts, so that two- and three-way ties, settled or shared, are most of them."""
    from sim import engine
    from sim.state import BB_CROSSED, MAX_SEATS, PS_COL_POINTS, PS_JOKERS, PS_RANK, PS_SCORE, PS_WINNER, new_state
    from sim.tables import build_tables, kernel_tables
    tab, stars = kernel_tables("standard"), build_tables("standard").star_mask
    rng = random.Random(players)
    kinds = set()
    for _ in range(400):
        scores = [rng.randint(0, 2) for _ in range(players)]
        jokers = [rng.randint(0, 2) for _ in range(players)]
        st, ps, bb, _ = new_state()
        for s in range(players):
            bb[s, BB_CROSSED:BB_CROSSED + 2] = stars   # every star crossed: no penalty
            ps[s, PS_JOKERS] = jokers[s]
            ps[s, PS_COL_POINTS] = scores[s] - jokers[s]
        winners = engine.finish(ps, bb, tab, players)
        assert list(ps[:players, PS_SCORE]) == scores
        assert list(ps[:players, PS_RANK]) == R.ranks(scores, jokers)
        assert [bool(w) for w in ps[:players, PS_WINNER]] == R.winners(scores, jokers)
        assert winners == sum(1 << s for s, w in enumerate(R.winners(scores, jokers)) if w)
        assert not ps[players:MAX_SEATS].any()
        top = [s for s in range(players) if scores[s] == max(scores)]
        kinds.add("settled" if len({jokers[s] for s in top}) > 1 else "shared" if len(top) > 1 else "alone")
    assert kinds == {"settled", "shared", "alone"}


def _corrupt(part, column, row):
    """Rewrite a Parquet file with `column` of `row` changed (a number +1, a bool flipped, a list
    of seats given one more or one fewer)."""
    table = pq.read_table(part)
    rows = table.to_pylist()
    value = rows[row][column]
    if isinstance(value, bool):
        rows[row][column] = not value
    elif isinstance(value, list):
        rows[row][column] = value[:-1] if value else [0]
    else:
        rows[row][column] = 1 if value is None else value + 1
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), part)


@pytest.mark.parametrize("table, column", [
    ("games", "rolls"), ("games", "capped"), ("games", "ended_by"), ("games", "winners"),
    *[("players", c) for c in ("score", "column_points", "colour_points", "jokers_left", "jokers_used",
                               "star_penalty", "boxes", "columns_first", "columns_later", "colours_first",
                               "colours_later", "first_joker_roll", "passes", "rank", "winner")],
    ("turns", "available"), ("turns", "n_choices"), ("turns", "jokers"),
])
def test_a_corrupted_dataset_column_is_rejected(tmp_path, table, column):
    """Every column reaches the checker: one value changed in a dataset makes it fail."""
    folder = tmp_path / "ds"
    run(folder, games=4, players=3, strategies=["heuristic", "greedy", "random"], seed=8, rotate=True,
        log_turns=True)
    for log in dataset_logs(folder):
        check_game_log(log, log["sheet"])
    _corrupt(folder / table / "part-000000.parquet", column, 5 if table == "turns" else 1)
    with pytest.raises(AssertionError, match=rf"\b{column} is\b"):   # the checker's message for that column
        for log in dataset_logs(folder):
            check_game_log(log, log["sheet"])
