"""Rules of the house that no one module owns: the source says why (a lab notebook's dates, issue
numbers and commits live in docs/performance.md and the history, not in comments), and the tests
are laid out as the sources, their helpers apart."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
#: What dates a comment or names where it came from: "issue 44", "5 December", "December 2026",
#: "measured side by side with bf1f9ad". An upstream tracker's numbers ("numba issues 8989") are
#: a reference, not a date.
NOTEBOOK = re.compile(rf"(?<!numba )\bissues? #?\d+|\b\d{{1,2}} ({MONTHS})\b|\b({MONTHS}),? \d{{4}}\b"
                      r"|\b(side by side|measured|compared) with [0-9a-f]{7,40}\b", re.IGNORECASE)


def notebook_lines(text: str) -> list[str]:
    return [f"{i}: {line.strip()}" for i, line in enumerate(text.splitlines(), 1) if NOTEBOOK.search(line)]


def test_source_comments_carry_no_dates_issues_or_commits():
    files = [*ROOT.glob("sim/**/*.py"), *ROOT.glob("strategies/**/*.py"), *ROOT.glob("bench/**/*.py"),
             ROOT / "cli.py", ROOT / "encore_sim.py", ROOT / "pyproject.toml", ROOT / "Makefile"]
    found = {p.relative_to(ROOT).as_posix(): hits for p in sorted(files) if (hits := notebook_lines(p.read_text()))}
    assert not found, f"dated figures, issue numbers or commits in the source (docs/performance.md keeps them): {found}"


def test_the_notebook_pattern_finds_each_kind():
    text = ("# the work of issue 44\n# 2 vCPUs, 5 December: 8 s\n# measured in December 2026\n"
            "# greedy 12% slower (measured side by side with bf1f9ad)\n"
            "# numba issues 8989 and 9204\n# issued 3 times\n# the tissue of 4\n")
    assert [line.split(":")[0] for line in notebook_lines(text)] == ["1", "2", "3", "4"]


#: The test files directly in tests/ that are no module's: what they hold spans modules.
ACROSS_MODULES = {
    "test_conventions.py": "what a new user meets first, across the commands",
    "test_derived_columns.py": "every column of a dataset against the independent checker",
    "test_determinism.py": "the same games whatever the threads, chunks and processes",
    "test_docs.py": "the docs' examples and figures against the code",
    "test_game_logs.py": "whole games replayed by the independent checker",
    "test_house.py": "these rules",
    "test_layers.py": "the layers and the imports between modules",
    "test_pass_and_play.py": "several people at one screen: the play game, server, session, dataset and analyse",
    "test_program.py": "the installed `encore-sim` program itself",
    "test_promises.py": "what the README and --help promise",
    "test_python_mode.py": "--python: every strategy as plain Python",
    "test_rules_cli.py": "--rules through every command",
    "test_rules_strategies.py": "the built-in strategies under rule variants",
    "test_user_strategies.py": "a user's strategy through every command",
    "test_wheel.py": "the package as a user installs it",
}


def test_the_tests_mirror_the_sources():
    """A module's tests are found from its path: tests/sim/experiments/test_compare.py holds those
    of sim/experiments/compare.py. Every test file below tests/ (but its helpers) names a module (or a package,
    or a folder of data such as the play page's files) at the same place, or stands directly in
    tests/ for a root module (cli.py) or among ACROSS_MODULES."""
    tests = ROOT / "tests"
    lost = []
    for path in sorted(tests.rglob("test_*.py")):
        rel = path.relative_to(tests)
        if rel.parts[0] == "helpers":
            continue
        source = ROOT.joinpath(*rel.parts[:-1], rel.name.removeprefix("test_"))
        named = source.is_file() or source.with_suffix("").is_dir()
        if not named and not (len(rel.parts) == 1 and rel.name in ACROSS_MODULES):
            lost.append(rel.as_posix())
    assert not lost, f"test files that name no module where they stand (tests/<path>/test_<module>.py): {lost}"
    stale = [name for name in ACROSS_MODULES if not (tests / name).is_file()]
    assert not stale, f"ACROSS_MODULES names files that do not exist: {stale}"


def test_helpers_stand_apart_from_the_tests():
    """tests/helpers/ holds what the tests use and are not; a test file holds tests."""
    helpers = sorted(p.name for p in (ROOT / "tests" / "helpers").glob("*.py"))
    assert helpers and not [h for h in helpers if h.startswith("test_")]
    others = [p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("*.py")
              if p.parent.name != "helpers" and not p.name.startswith("test_") and p.name != "conftest.py"]
    assert not others, f"helpers among the tests (tests/helpers/ is their place): {others}"


#: The source modules with no test file of their own, each with why one would be empty ceremony.
#: Everything else under sim/ and strategies/ (but __init__.py) has tests/<path>/test_<module>.py.
UNMIRRORED: dict[str, str] = {}


def unmirrored(root: Path, exceptions: dict[str, str]) -> tuple[list[str], list[str]]:
    """(the modules under root's sim/ and strategies/ without tests/<path>/test_<module>.py and not
    among `exceptions`; the exceptions that name no module or a module that has its test file now)."""
    def test_of(rel: Path) -> Path:
        return root / "tests" / rel.parent / f"test_{rel.name}"

    modules = sorted(p.relative_to(root) for top in ("sim", "strategies") for p in (root / top).rglob("*.py")
                     if p.name != "__init__.py")
    missing = [m.as_posix() for m in modules if not test_of(m).is_file() and m.as_posix() not in exceptions]
    stale = [name for name in exceptions if not (root / name).is_file() or test_of(Path(name)).is_file()]
    return missing, stale


def test_every_module_has_its_test_file():
    missing, stale = unmirrored(ROOT, UNMIRRORED)
    assert not missing, ("modules without their test file (tests/<path>/test_<module>.py), or a reason in "
                         f"tests/test_house.py's UNMIRRORED: {missing}")
    assert not stale, f"UNMIRRORED names modules that are gone or have their test file now: {stale}"


def test_a_module_without_its_test_file_is_found(tmp_path):
    for name in ("sim/engine.py", "sim/runs/chunk.py", "sim/runs/__init__.py", "strategies/greedy.py",
                 "sim/consts.py", "sim/gone_test.py", "tests/sim/test_engine.py", "tests/sim/runs/test_chunk.py",
                 "tests/sim/test_gone_test.py", "tests/sim/test_consts.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "sim" / "gone_test.py").unlink()
    exceptions = {"sim/consts.py": "constants", "sim/gone_test.py": "removed", "strategies/greedy.py": "planted"}
    assert unmirrored(tmp_path, exceptions) == ([], ["sim/consts.py", "sim/gone_test.py"])
    (tmp_path / "sim" / "runs" / "settings.py").write_text("")
    (tmp_path / "tests" / "sim" / "test_chunk.py").write_text("")     # beside, not at the module's place
    (tmp_path / "tests" / "sim" / "runs" / "test_chunk.py").unlink()
    missing, _ = unmirrored(tmp_path, {"strategies/greedy.py": "planted"})
    assert missing == ["sim/runs/chunk.py", "sim/runs/settings.py"]
