"""--rules on the commands (issue 46): accepted, recorded in the manifest, used by the commands
that read a dataset, refused in one line when bad or contradicting a dataset; the rulebook's
outputs as they were. Tiny game counts: each test takes seconds."""
import json

import pandas as pd
import pytest

import encore_sim as es
from sim.rules import VARIANT_LIST, parse_rules
from sim.runs.dataset import read_manifest
from sim.runs.runner import run as api_run
from invoking import invoke

VARIANTS = "pass-penalty=1,joker-six"     # not canonical: the manifest records "joker-six,pass-penalty=1"
CANONICAL = "joker-six,pass-penalty=1"
TABLE_RULES = "pass-penalty=2,star-penalty=3,end-colours=3"   # canonical: the order of the variants


def one_line_error(r, *parts):
    """The house rule for bad input: exit code 2 and one line `Error: ...` naming each of `parts`."""
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "Traceback" not in r.stderr
    for part in parts:
        assert part in r.stderr, r.stderr


@pytest.fixture(scope="module")
def solo(tmp_path_factory):
    """A solo dataset of greedy under two variants."""
    out = tmp_path_factory.mktemp("rules") / "solo"
    r = invoke("run", "-n", 60, "-s", "greedy", "--seed", 3, "--chunk-size", 30, "--rules", VARIANTS, "-o", out)
    assert r.exit_code == 0, r.output
    return out, r


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A logged three-player dataset under table variants."""
    out = tmp_path_factory.mktemp("rules") / "table"
    r = invoke("run", "-n", 20, "-s", "greedy", "-s", "heuristic", "-s", "random", "--seed", 5, "--log-turns",
               "--rules", TABLE_RULES, "-o", out, "-q")
    assert r.exit_code == 0, r.output
    return out


@pytest.fixture(scope="module")
def rulebook(tmp_path_factory):
    out = tmp_path_factory.mktemp("rules") / "rulebook"
    assert invoke("run", "-n", 30, "-s", "greedy", "--seed", 3, "-o", out, "-q").exit_code == 0
    return out


COMMANDS = ("run", "compare", "tune", "train", "replay", "analyse", "moves", "bound", "summary", "report")
#: The arguments each command needs besides --rules, so that --rules is what it refuses.
NEEDS = {"compare": ["greedy", "random"], "tune": ["heuristic"], "train": ["--out", "w.npz"],
         "replay": ["--game", 1], "analyse": ["ds"], "moves": ["--colour", "red", "--number", 1],
         "summary": ["ds"], "report": ["ds"]}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_that_plays_or_reads_games_takes_rules(command):
    assert "--rules" in invoke(command, "--help").stdout


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("bad, named", [("bogus", "unknown rule variant 'bogus'"),
                                        ("pass-penalty=-1", "pass-penalty must be 0..100, got -1"),
                                        ("joker-six=1", "takes no value"),
                                        ("end-colours=3,end-colours=4", "given twice")])
def test_a_bad_variant_is_one_line_listing_the_variants(command, bad, named):
    one_line_error(invoke(command, *NEEDS.get(command, []), "--rules", bad), named, f"(variants: {VARIANT_LIST})")


def test_run_records_the_rules_in_the_manifest(solo):
    out, r = solo
    m = read_manifest(out)
    assert m["settings"]["rules"] == CANONICAL   # canonical: what --resume and replay compare
    assert m["rules"]["pass_penalty"] == 1 and m["rules"]["joker_six"] and m["rules"]["text"] == CANONICAL
    assert m["rules"]["star_penalty"] == 2   # the rulebook's, recorded too
    assert f"Rules: {CANONICAL}" in r.stdout


def test_the_score_breakdown_adds_up_with_the_pass_penalty(solo, table):
    for out in (solo[0], table):
        rules = parse_rules(read_manifest(out)["settings"]["rules"])
        p = pd.read_parquet(out / "players")
        assert (p["score"] == p["column_points"] + p["colour_points"] + p["jokers_left"] - p["star_penalty"]
                - rules.pass_penalty * p["passes"]).all()
        assert (p["jokers_used"] == rules.jokers - p["jokers_left"]).all()
        assert (p["passes"] > 0).any()   # so the penalty was at stake


def test_summary_names_the_rules(solo):
    out, _ = solo
    lines = invoke("summary", out).stdout.splitlines()
    assert lines[2] == f'Rules: {CANONICAL} (docs/rules.md, "Variants")'   # after the headline, before the table
    csv = pd.read_csv(pd.io.common.StringIO(invoke("summary", out, "-f", "csv").stdout))
    assert csv["rules"].tolist() == [CANONICAL]
    data = json.loads(invoke("summary", out, "-f", "json").stdout)
    assert data["rules"]["text"] == CANONICAL and data["rows"][0]["rules"] == CANONICAL
    assert data["settings"]["rules"] == CANONICAL
    assert invoke("summary", out, "--rules", "joker-six,pass-penalty=1").exit_code == 0   # the same rules
    assert es.summary(out).attrs["rules"] == CANONICAL


def test_the_report_names_the_rules(solo, rulebook, tmp_path):
    from sim.report.report import report
    pages = {}
    for name, out in (("variant", solo[0]), ("rulebook", rulebook)):
        report(out, tmp_path / f"{name}.html")
        pages[name] = (tmp_path / f"{name}.html").read_text()
    page = pages["variant"]
    assert f'<tr><th class="l">rules</th><td class="l">{CANONICAL}</td></tr>' in page   # the settings
    assert f", rules {CANONICAL}</p>" in page   # the headline under the title
    assert "made for the rulebook&#x27;s scores" in page
    data = json.loads(page.split('id="report-data">')[1].split("</script>")[0])
    assert data["rules"] == CANONICAL
    assert '<tr><th class="l">rules</th><td class="l">rulebook</td></tr>' in pages["rulebook"]
    assert ", rules " not in pages["rulebook"] and "made for the rulebook" not in pages["rulebook"]


@pytest.mark.parametrize("command, args", [("summary", []), ("report", []), ("replay", ["--game", 1]),
                                           ("analyse", [])])
def test_rules_contradicting_a_dataset_are_refused(solo, command, args):
    out, _ = solo
    for other in ("rulebook", "pass-penalty=1"):
        one_line_error(invoke(command, out, *args, "--rules", other), f"--rules {parse_rules(other).label} "
                       f"contradicts the dataset, played under the rules {CANONICAL}")


def test_resume_keeps_the_rules_and_refuses_others(tmp_path):
    out, whole = tmp_path / "resumed", tmp_path / "whole"

    def stop(chunk, done):
        if chunk == 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        api_run(out, games=40, chunk_size=20, strategies=["greedy"], seed=2, rules="pass-penalty=3", on_chunk=stop)
    one_line_error(invoke("run", "--out", out, "--resume", "--rules", "pass-penalty=2"),
                   f"cannot resume {out}: it was played under the rules 'pass-penalty=3', not the rules "
                   "'pass-penalty=2'")
    one_line_error(invoke("run", "--out", out, "--resume", "--rules", "rulebook"), "not the rulebook")
    assert invoke("run", "--out", out, "--resume", "-q").exit_code == 0   # its own rules, from the manifest
    api_run(whole, games=40, chunk_size=20, strategies=["greedy"], seed=2, rules="pass-penalty=3")
    pd.testing.assert_frame_equal(pd.read_parquet(out / "players"), pd.read_parquet(whole / "players"))
    assert read_manifest(out)["settings"]["rules"] == "pass-penalty=3"


def test_a_rulebook_run_is_not_resumed_under_variants(rulebook):
    one_line_error(invoke("run", "--out", rulebook, "--resume", "--rules", "jokers=7"),
                   "it was played under the rulebook, not the rules 'jokers=7'")


def test_replay_plays_a_dataset_game_under_its_rules_and_shows_them(table):
    r = invoke("replay", table, "--game", 3)
    assert r.exit_code == 0, r.output
    text = r.stdout
    assert text.splitlines()[0] == f"Game 3 of seed 5: 3 players, sheet standard, rules {TABLE_RULES}"
    assert "Scores equal the ones stored in the dataset." in text
    assert "The game ends after a seat completed three colours." in text or "at the roll cap" in text
    assert "star penalty (3 per star box not crossed) - pass penalty (2 per pass)" in text
    assert "pass penalty" in text.split("Scores: ")[1].splitlines()[1]   # a column of the score table
    assert "* a star box: -3 unless crossed" in text
    log = json.loads(invoke("replay", table, "--game", 3, "--json").stdout)
    assert log["rules"] == TABLE_RULES and list(log).index("rules") == list(log).index("max_rolls") + 1
    assert es.replay(table, game=3).attrs["stored_scores_equal"]


def test_replay_without_a_dataset_takes_rules(tmp_path):
    r = invoke("replay", "--seed", 0, "--game", 1, "-s", "greedy", "--rules", "solo-rolls=20", "--json")
    log = json.loads(r.stdout)
    assert log["rules"] == "solo-rolls=20" and len(log["rolls"]) == 20
    text = invoke("replay", "--seed", 0, "--game", 1, "-s", "greedy", "--rules", "solo-rolls=20").stdout
    assert "The solo game ends after 20 rolls." in text
    assert "rules" not in json.loads(invoke("replay", "--seed", 0, "--game", 1, "-s", "greedy", "--json").stdout)


def test_replay_awards_are_the_rules_values():
    """Every completion line gives the points of the rules played: 9 for a column first, 7 for a colour."""
    rules = "colour-bonus=7/4,column-points=" + ":".join(["9/1"] * 15)
    text = invoke("replay", "--seed", 0, "--game", 0, "-s", "heuristic", "--rules", rules).stdout
    columns = [line for line in text.splitlines() if "completes column" in line]
    colours = [line for line in text.splitlines() if "completes" in line and "column" not in line]
    assert columns and colours
    assert all(line.endswith("(first: 9 points)") for line in columns)
    assert all(line.endswith("(first: 7 points)") for line in colours)
    assert "      9/1 9/1 9/1" in text   # the sheets' column values


def test_moves_lists_six_box_placements_only_under_joker_six():
    r = invoke("moves", "--rules", "joker-six", "--crossed", "H1", "--colour", "yellow", "--number", 6)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[-2:] == ["1 legal placement of yellow 6 (a number joker: each costs 1 !):",
                                          "  D1 E1 E2 F1 F2 G1"]
    one_line_error(invoke("moves", "--crossed", "H1", "--colour", "yellow", "--number", 6), "--rules joker-six")
    one_line_error(invoke("moves", "--rules", "joker-six", "--colour", "yellow", "--number", 7), "1..6, got 7")
    star = invoke("moves", "--rules", "star-penalty=5", "--colour", "yellow", "--number", 3).stdout
    assert "* a star box: -5 unless crossed" in star


def test_compare_and_tune_play_under_the_rules():
    r = invoke("compare", "greedy", "random", "-n", 40, "--rules", "pass-penalty=1")
    assert "solo, under the rules pass-penalty=1;" in r.stdout.splitlines()[0]
    data = json.loads(invoke("compare", "greedy", "random", "-n", 40, "--rules", "pass-penalty=1", "-f", "json").stdout)
    plain = json.loads(invoke("compare", "greedy", "random", "-n", 40, "-f", "json").stdout)
    assert data["settings"]["rules"] == "pass-penalty=1" and "rules" not in plain["settings"]
    # greedy plays the same moves under a pass penalty: its mean falls by its passes alone
    assert data["rows"][0]["mean"] < plain["rows"][0]["mean"]
    t = json.loads(invoke("tune", "heuristic", "--param", "solo_joker=0..3", "--budget", 1000, "--trial-games", 20,
                          "--validate-games", 20, "--rules", "star-penalty=3", "-f", "json", "-q").stdout)
    assert t["settings"]["rules"] == "star-penalty=3"
    assert "rules" not in es.compare("greedy", "random", games=20).attrs["settings"]
    assert es.compare("greedy", "random", games=20, rules="jokers=4").attrs["settings"]["rules"] == "jokers=4"


def test_the_research_and_training_commands_pass_the_rules_on(monkeypatch, solo, tmp_path):
    """train, bound and analyse hand the rules to their entry points (sim.training,
    sim.research): train and bound those given, analyse the dataset's."""
    import sim.research.analyse as analyse_module
    import sim.research.headroom as headroom
    import sim.training.run as training
    seen = {}

    def record(name, result=None):
        def fake(*args, **kwargs):
            seen[name] = kwargs.get("rules")
            if result is None:
                raise ValueError("recorded")   # one line, exit 2: the command stops here
            return result
        return fake

    monkeypatch.setattr(training, "train_file", record("train"))
    monkeypatch.setattr(headroom, "measure", record("bound"))
    monkeypatch.setattr(analyse_module, "analyse", record("analyse"))
    invoke("train", "--out", tmp_path / "w.npz", "--rules", "pass-penalty=1", "-q")
    invoke("bound", "--rules", "solo-rolls=20", "-q")
    invoke("analyse", solo[0], "-q")
    assert seen == {"train": parse_rules("pass-penalty=1"), "bound": parse_rules("solo-rolls=20"),
                    "analyse": parse_rules(CANONICAL)}


def test_the_rulebook_outputs_are_as_before(rulebook):
    """No rules line, column, field or key where the games are the rulebook's."""
    assert "Rules:" not in invoke("summary", rulebook).stdout
    assert "rules" not in pd.read_csv(pd.io.common.StringIO(invoke("summary", rulebook, "-f", "csv").stdout))
    data = json.loads(invoke("summary", rulebook, "-f", "json").stdout)
    assert "rules" not in data and "rules" not in data["rows"][0] and data["settings"]["rules"] == ""
    first = invoke("replay", rulebook, "--game", 2).stdout.splitlines()[0]
    assert first == "Game 2 of seed 3: solo, sheet standard"
    assert "rules" not in json.loads(invoke("replay", rulebook, "--game", 2, "--json").stdout)
    assert "under the rules" not in invoke("compare", "greedy", "random", "-n", 20).stdout


def test_a_dataset_from_before_variants_is_the_rulebooks(tmp_path):
    """A manifest without rules (written before rule variants) resumes, replays and summarises
    as the rulebook's."""
    out = tmp_path / "old"
    api_run(out, games=20, chunk_size=10, strategies=["greedy"], seed=1)
    m = read_manifest(out)
    del m["settings"]["rules"], m["rules"]
    m.update(status="interrupted", games_done=10)
    (out / "manifest.json").write_text(json.dumps(m))
    for name in ("games", "players"):
        (out / name / "part-000001.parquet").unlink()
    one_line_error(invoke("run", "--out", out, "--resume", "--rules", "jokers=7"), "played under the rulebook")
    assert invoke("run", "--out", out, "--resume", "-q").exit_code == 0
    assert invoke("replay", out, "--game", 15).stdout.endswith("Scores equal the ones stored in the dataset.\n")
    assert "Rules:" not in invoke("summary", out).stdout


def test_a_cluster_run_plays_under_the_rules(tmp_path):
    """The chunks' tasks carry the rules in the job's settings (sim.runs.chunks), warm-up too."""
    pytest.importorskip("distributed")
    out = tmp_path / "cluster"
    r = invoke("run", "-n", 20, "--chunk-size", 10, "-s", "greedy", "--rules", "jokers=5", "--scheduler", "local:1",
               "-o", out, "-q")
    assert r.exit_code == 0, r.output
    p = pd.read_parquet(out / "players")
    assert ((p["jokers_used"] + p["jokers_left"]) == 5).all()


def test_a_lineup_plays_under_the_rules_it_was_set_up_for():
    from sim.runs.api import lineup, play_chunk, play_game
    line = lineup(["greedy"], rules="pass-penalty=1")
    assert play_chunk(0, 0, 5, line).rules == parse_rules("pass-penalty=1")
    assert play_game(0, 1, line)["rules"] == "pass-penalty=1"
    with pytest.raises(ValueError, match="set up for 1 players on sheet 'standard' under the rules 'pass-penalty=1'"):
        play_chunk(0, 0, 5, line, rules="rulebook")


def test_rules_may_name_the_sheet(tmp_path):
    out = tmp_path / "ds"
    r = invoke("run", "--out", str(out), "-n", "20", "-p", "2", "--rules", "sheet=red,joker-six", "-q")
    assert r.exit_code == 0, r.output
    settings = read_manifest(out)["settings"]
    assert settings["sheet"] == "red" and settings["rules"] == "joker-six"
    clash = invoke("run", "--out", str(tmp_path / "x"), "-n", "5", "--rules", "sheet=red", "--sheet", "blue")
    assert clash.exit_code != 0 and "give one of them" in clash.output and "Traceback" not in clash.output
    refused = invoke("summary", str(out), "--rules", "sheet=red")
    assert refused.exit_code != 0 and "its own sheet" in refused.output
