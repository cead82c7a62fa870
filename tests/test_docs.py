"""The docs' examples and figures against what the code prints now (tests/helpers/docs_check.py): the
quick ones here, all of them with `python -m tests.helpers.docs_check`."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

import docs_check
from docs_check import DOCS, ROOT, matches, parse

SAMPLE = """# A sample

Placements:

```console
$ encore-sim moves --crossed H1,H2,H3 --colour red --number 3 | tail -2
1 legal placement of red 3:
  I2 I3 J3
```

The players table has <!-- figure schema-players-rows -->18<!-- /figure --> columns.
"""


@pytest.fixture
def sample_figure(monkeypatch):
    import docs_figures
    from sim.runs.schema import PLAYERS
    monkeypatch.setitem(docs_figures.FIGURES, "schema-players-rows", lambda: str(len(PLAYERS)))


def test_the_quick_examples_and_figures_are_what_the_code_prints():
    """--fast: what takes seconds. The slow ones (minutes) run with python -m tests.helpers.docs_check."""
    outcomes = docs_check.run(DOCS, fast=True, log=lambda line: None)
    bad = [o for o in outcomes if not o.ok]
    assert len(outcomes) >= 10
    assert not bad, "\n".join(docs_check.diff(o) for o in bad) + \
        "\nIf the change is meant: python -m tests.helpers.docs_check --update"


def test_an_output_edited_by_hand_fails_and_update_restores_it(tmp_path, sample_figure):
    doc = tmp_path / "doc.md"
    doc.write_text(SAMPLE)
    assert all(o.ok for o in docs_check.run([doc], log=lambda line: None))
    for old, new, shown in (("I2 I3 J3", "I2 I3 J4", "-  I2 I3 J4"), ("-->18<!--", "-->19<!--", "-19"),
                            ("1 legal placement", "2 legal placements", "-2 legal placements of red 3:")):
        doc.write_text(SAMPLE.replace(old, new))
        outcomes = docs_check.run([doc], log=lambda line: None)
        assert [o.ok for o in outcomes].count(False) == 1, new
        assert shown in docs_check.diff(next(o for o in outcomes if not o.ok)).splitlines()[3:]
        docs_check.run([doc], update=True, log=lambda line: None)
        assert doc.read_text() == SAMPLE
    # the command line says so, with the diff, and exit code 1
    doc.write_text(SAMPLE.replace("I2 I3 J3", "I2 I3 J4").split("The players")[0])
    r = subprocess.run([sys.executable, "-m", "tests.helpers.docs_check", str(doc)], cwd=ROOT, capture_output=True,
                       text=True, check=False)
    assert r.returncode == 1 and "+  I2 I3 J3" in r.stderr and "-  I2 I3 J4" in r.stderr, r.stderr


def test_elided_outputs():
    out = ["a", "b", "c", "d", "e"]
    assert matches(["a", "...", "e"], out) and matches(["a", "b", "...", "d", "e"], out)
    assert matches(["a", "...", "c", "...", "e"], out) and matches(["...", "e"], out)
    assert not matches(["a", "...", "d"], out) and not matches(["b", "...", "e"], out)
    assert not matches(["a", "b", "c", "...", "c", "d", "e"], out)   # the two sides overlap
    assert docs_check.elided(["a", "  ...", "e"], out) == ["a", "  ...", "e"]


def test_markers_are_found_where_they_are_meant():
    items = parse("<!-- docs-check: slow -->\n```console\n$ true\n```\n\n```python\n>>> 1\n1\n```\n"
                  "```python\nx = 1\n```\n`<!-- figure a -->x<!-- /figure -->`\n")
    assert [(i.kind, sorted(i.tags)) for i in items] == [("console", ["slow"]), ("doctest", []), ("figure", [])]


def test_layout_names_every_package_and_test_helper():
    """docs/contributing.md's Layout names every package folder (docs/architecture.md names every
    module, tests/test_layers.py checks that) and every helper module of the tests (it once left out
    one that the strategy example imports)."""
    text = (ROOT / "docs" / "contributing.md").read_text()
    layout = text[text.index("## Layout"):]
    layout = layout[:layout.index("\n## ", 1)]
    names = {p.parent.relative_to(ROOT).as_posix() + "/" for p in ROOT.glob("*/**/__init__.py")
             if p.parts[len(ROOT.parts)] in ("sim", "strategies")}
    names |= {p.name for p in (ROOT / "tests" / "helpers").glob("*.py") if p.name != "__init__.py"}
    missing = sorted(n for n in names if f"`{n}" not in layout)
    assert missing == []


def test_the_unseen_sheet_figure_makes_its_sheet_as_the_text_says():
    """The slow unseen-sheet figure starts from tests/helpers/sheetgen.py's command line (it once ran
    a path the helper had moved from): the sheet it makes loads, and is no built-in's."""
    import docs_figures
    from sim.sheets import BUILTIN_SHEETS, load_sheet, parse_sheet
    text = docs_figures.unseen_sheet_text()
    assert f"sheetgen.py --seed {docs_figures.UNSEEN_SEED}" in text
    sheet = parse_sheet(text, "unseen")
    assert all(sheet.text != load_sheet(name).text for name in BUILTIN_SHEETS)


def test_nothing_refers_to_a_path_outside_the_repository():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    outside = re.compile(r"\.\./shared|/work/")
    found = [f for f in files if f.endswith((".py", ".md", ".toml", "Makefile")) and f != "tests/test_docs.py"
             and outside.search((ROOT / f).read_text(errors="replace"))]
    assert found == []
