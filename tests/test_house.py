"""Rules of the house that no one module owns: the source says why, and a lab notebook's dates,
issue numbers and commits live in docs/performance.md and the history, not in comments."""
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
             ROOT / "pyproject.toml", ROOT / "Makefile"]
    found = {p.relative_to(ROOT).as_posix(): hits for p in sorted(files) if (hits := notebook_lines(p.read_text()))}
    assert not found, f"dated figures, issue numbers or commits in the source (docs/performance.md keeps them): {found}"


def test_the_notebook_pattern_finds_each_kind():
    text = ("# the work of issue 44\n# 2 vCPUs, 5 December: 8 s\n# measured in December 2026\n"
            "# greedy 12% slower (measured side by side with bf1f9ad)\n"
            "# numba issues 8989 and 9204\n# issued 3 times\n# the tissue of 4\n")
    assert [line.split(":")[0] for line in notebook_lines(text)] == ["1", "2", "3", "4"]
