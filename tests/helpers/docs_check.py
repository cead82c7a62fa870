"""Docs that cannot drift: every example output and quoted figure in README.md and docs/*.md is
regenerated and compared with the text.

    python -m tests.helpers.docs_check                 # check everything (minutes: it plays the examples)
    python -m tests.helpers.docs_check --update        # rewrite the docs with what the code prints now
    python -m tests.helpers.docs_check --fast          # only the items that take seconds (as the test suite)
    python -m tests.helpers.docs_check --skip-learned  # all but what `learned` plays (its weights change apart)
    python -m tests.helpers.docs_check README.md       # one file

What is checked, in each Markdown file:

- a ```console block: every `$ command` line (a trailing backslash continues it) is run with
  bash in a scratch folder of the file's own, shared by the file's blocks in order (so a later
  block reads the dataset an earlier one wrote), with this Python's bin folder first on PATH;
  its stdout and stderr, merged, must equal the lines under it. A line holding only `...`
  stands for any number of lines (the output is shortened there; --update keeps as many lines
  before and after it as the text has);
- a ```python block with `>>>` lines: run with doctest in that folder;
- a figure, `<!-- figure NAME -->text<!-- /figure -->` (on one line or around lines): the text
  must be what NAME in tests/helpers/docs_figures.py returns now;
- `<!-- docs-check: file NAME -->` before a code block writes the block to NAME in the scratch
  folder (the strategy file a later example plays); `<!-- docs-check: slow -->` marks the next
  block as taking more than a few seconds (left out by --fast), `<!-- docs-check: skip -->` as
  not checked (the reason in the text beside it).

Lines are compared without trailing blanks. A figure or block whose command, figure name or
code mentions `learned` belongs to --skip-learned's set: the lead retrains learned's weights
apart, and regenerates those with --update afterwards.

Own code rather than cog (which would fit the figures): with cog, every console example would
be written twice in the Markdown, once as the generator's command and once as its output;
here the command in the block is the only copy, and the blocks are shell sessions that build
on each other, which doctest-style tools for Python (sybil, pytest-markdown-docs) do not run.
"""
from __future__ import annotations

import argparse
import difflib
import doctest
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The README and every page of docs/: a page added there is checked from the start.
DOCS = ("README.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")))

FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
DIRECTIVE = re.compile(r"^<!--\s*docs-check:\s*(\w+)\s*(\S*)\s*-->\s*$")
# A figure's text holds no other comment: a lone `<!-- figure NAME -->` quoted in prose is no figure.
FIGURE = re.compile(r"<!--\s*figure\s+([\w-]+)\s*-->((?:(?!<!--).)*?)<!--\s*/figure\s*-->", re.S)
ELISION = "..."
TIMEOUT = 1800


@dataclass
class Item:
    """One thing to regenerate: where it is in the file and the text it must equal."""
    kind: str            # "console", "doctest", "figure", "file"
    start: int           # character offsets in the file of the text to compare / replace
    end: int
    line: int            # 1-based line of the item in the file (for messages)
    text: str            # the file's text between start and end
    source: str = ""     # console: the block's text; figure: the name; doctest, file: the code
    tags: set = field(default_factory=set)
    arg: str = ""        # file: the name to write

    @property
    def learned(self) -> bool:
        return "learned" in self.tags or self.kind != "figure" and "learned" in self.source


def parse(text: str) -> list[Item]:
    """The items of a Markdown text, in order."""
    items, lines, offsets = [], text.splitlines(keepends=True), [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    tags, arg, i = set(), "", 0
    in_code = []   # spans of fenced blocks: figures are not looked for inside them
    while i < len(lines):
        d = DIRECTIVE.match(lines[i])
        if d:
            tags.add(d[1])
            arg = d[2] or arg
            i += 1
            continue
        f = FENCE.match(lines[i])
        if not f:
            if lines[i].strip():
                tags, arg = set(), ""
            i += 1
            continue
        j = next((k for k in range(i + 1, len(lines)) if FENCE.match(lines[k]) and not FENCE.match(lines[k])[2]),
                 len(lines))
        body_start, body_end = offsets[i + 1], offsets[j]
        body = text[body_start:body_end]
        in_code.append((offsets[i], offsets[min(j + 1, len(lines))]))
        lang = f[2]
        if "skip" in tags:
            pass
        elif "file" in tags:
            items.append(Item("file", body_start, body_end, i + 1, body, body, tags, arg))
        elif lang == "console":
            items.append(Item("console", body_start, body_end, i + 2, body, body, tags))
        elif lang == "python" and re.search(r"^\s*>>> ", body, re.M):
            items.append(Item("doctest", body_start, body_end, i + 2, body, body, tags))
        tags, arg, i = set(), "", j + 1
    for m in FIGURE.finditer(text):
        if any(a <= m.start() < b for a, b in in_code):
            continue
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].splitlines()
        tags = {DIRECTIVE.match(before[-1])[1]} if before and DIRECTIVE.match(before[-1]) else set()
        items.append(Item("figure", m.start(2), m.end(2), line, m[2], m[1], tags))
    return sorted(items, key=lambda it: it.start)


# --- console blocks --------------------------------------------------------------------

def commands(block: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each `$ ` line of a console block."""
    out, cmd, cont = [], None, False
    for line in block.splitlines():
        if cont:
            cmd += "\n" + line
            cont = line.endswith("\\")
        elif line.startswith("$ "):
            cmd = line[2:]
            cont = line.endswith("\\")
            out.append([cmd, []])
        elif out:
            out[-1][1].append(line)
        else:
            raise ValueError(f"console block text before its first `$ ` line: {line!r}")
        if out:
            out[-1][0] = cmd
    return [(c, lines) for c, lines in out]


def run_command(command: str, cwd: Path) -> list[str]:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               COLUMNS="100", LC_ALL="C.UTF-8")
    # The examples' weights store is the sandbox's: an example that trains (--train) does it
    # from nothing every time, as on a fresh machine, and never writes into the user's store.
    env["ENCORE_SIM_WEIGHTS"] = str(cwd / "weights-store")
    r = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT, check=False)
    return r.stdout.splitlines()


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line for line, a `...` line standing for any number of lines."""
    exp = [e.rstrip() for e in expected]
    act = [a.rstrip() for a in actual]
    parts, cur = [], []
    for e in exp:
        if e.strip() == ELISION:
            parts.append(cur)
            cur = []
        else:
            cur.append(e)
    parts.append(cur)
    if len(parts) == 1:
        return exp == act
    first, last = parts[0], parts[-1]
    if act[:len(first)] != first or (last and act[len(act) - len(last):] != last) or \
            len(first) + len(last) > len(act):
        return False
    pos = len(first)
    for middle in parts[1:-1]:   # in order, anywhere between
        for k in range(pos, len(act) - len(last) - len(middle) + 1):
            if act[k:k + len(middle)] == middle:
                pos = k + len(middle)
                break
        else:
            return False
    return True


def elided(expected: list[str], actual: list[str]) -> list[str]:
    """actual, shortened where expected has its one `...` line: as many lines before and after."""
    marks = [i for i, e in enumerate(expected) if e.strip() == ELISION]
    if not marks:
        return actual
    if len(marks) > 1:
        raise ValueError("cannot update an output with more than one `...` line: edit it by hand")
    head, tail = marks[0], len(expected) - marks[0] - 1
    if head + tail >= len(actual):
        return actual
    return actual[:head] + [expected[marks[0]]] + (actual[len(actual) - tail:] if tail else [])


def check_console(item: Item, cwd: Path) -> tuple[bool, str]:
    """(all equal, the block's text with the current outputs)."""
    ok, new = True, []
    for command, expected in commands(item.text):
        actual = [line.rstrip() for line in run_command(command, cwd)]
        if not matches(expected, actual):
            ok = False
            expected_now = elided(expected, actual)
        else:
            expected_now = expected
        new.append("$ " + command)
        new.extend(expected_now)
    return ok, "\n".join(new) + "\n"


# --- doctest blocks --------------------------------------------------------------------

class _Recorder(doctest.DocTestRunner):
    """Records what each example printed, whatever the text says; an example that raises
    is an error in the docs, to be fixed by hand."""

    def __init__(self):
        # Runs of blanks compare equal: a Markdown editor may strip a table's trailing blanks.
        super().__init__(verbose=False, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
        self.got = {}

    def report_success(self, out, test, example, got):
        self.got[id(example)] = got

    def report_failure(self, out, test, example, got):
        self.got[id(example)] = got

    def report_unexpected_exception(self, out, test, example, exc_info):
        import traceback
        raise RuntimeError(f"{test.name}, line {test.lineno + example.lineno + 1}: {example.source.strip()} "
                           f"raised:\n{''.join(traceback.format_exception(*exc_info))}")


def check_doctest(item: Item, cwd: Path, name: str) -> tuple[bool, str]:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(item.text, {"__name__": "__docs__"}, name, name, item.line - 1)
    runner = _Recorder()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        result = runner.run(test, out=lambda s: None, clear_globs=True)
    finally:
        os.chdir(here)
    if result.failed == 0:
        return True, item.text
    # Rebuild the block: each example's source lines as written, then what it printed.
    lines = item.text.splitlines()
    out, pos = [], 0
    for example in test.examples:
        got = runner.got[id(example)]
        n_src = example.source.count("\n")
        start = example.lineno
        out.extend(lines[pos:start + n_src])
        out.extend(line.rstrip() for line in got.rstrip("\n").splitlines())
        pos = start + n_src + len(example.want.splitlines())
    out.extend(lines[pos:])
    return False, "\n".join(out) + "\n"


# --- running ---------------------------------------------------------------------------

@dataclass
class Outcome:
    path: str
    item: Item
    ok: bool
    new: str


def check_file(path: Path, items: list[Item], sandbox: Path) -> list[Outcome]:
    from docs_figures import figure   # tests/helpers/ is on sys.path (main() and pytest's pythonpath put it there)
    out = []
    for item in items:
        where = f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{item.line}"
        if item.kind == "file":
            (sandbox / item.arg).write_text(item.text)
            continue
        if item.kind == "console":
            ok, new = check_console(item, sandbox)
        elif item.kind == "doctest":
            ok, new = check_doctest(item, sandbox, where)
        else:
            new = figure(item.source)
            if "\n" in item.text:   # a figure around lines keeps its line breaks at both ends
                new = "\n" + new.strip("\n") + "\n"
            ok = new == item.text
        out.append(Outcome(where, item, ok, new))
    return out


def select(items: list[Item], fast: bool, skip_learned: bool, only_learned: bool) -> list[Item]:
    from docs_figures import FIGURES
    keep = []
    for it in items:
        if it.kind == "figure":   # a figure's function says whether it is slow or plays learned
            fn = FIGURES.get(it.source)
            it.tags |= {t for t in ("slow", "learned") if getattr(fn, t, False)}
        if it.kind == "file":
            keep.append(it)   # cheap, and later blocks need it
        elif fast and "slow" in it.tags:
            continue
        elif skip_learned and it.learned or only_learned and not it.learned:
            continue
        else:
            keep.append(it)
    return keep


def rewrite(path: Path, text: str, outcomes: list[Outcome]) -> str:
    for o in sorted(outcomes, key=lambda o: o.item.start, reverse=True):
        if not o.ok:
            text = text[:o.item.start] + o.new + text[o.item.end:]
    return text


def diff(o: Outcome) -> str:
    return "".join(difflib.unified_diff([f"{line}\n" for line in o.item.text.splitlines()],
                                        [f"{line}\n" for line in o.new.splitlines()],
                                        f"{o.path} (the text)", f"{o.path} (what the code prints now)"))


def run(paths, update=False, fast=False, skip_learned=False, only_learned=False, log=print) -> list[Outcome]:
    """Check (or with `update`, rewrite) the files; returns every item's outcome."""
    results = []
    for p in paths:
        path = Path(p) if Path(p).is_absolute() else ROOT / p
        text = path.read_text()
        items = select(parse(text), fast, skip_learned, only_learned)
        with tempfile.TemporaryDirectory(prefix="docs-check-") as tmp:
            outcomes = check_file(path, items, Path(tmp))
        for o in outcomes:
            log(f"{'ok  ' if o.ok else 'DIFF'} {o.path} {o.item.kind} {o.item.source[:60].splitlines()[0]!s}"
                if o.item.source.strip() else f"{'ok  ' if o.ok else 'DIFF'} {o.path} {o.item.kind}")
        if update and any(not o.ok for o in outcomes):
            new = rewrite(path, text, outcomes)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            tmp.write_text(new)
            os.replace(tmp, path)
        results.extend(outcomes)
    return results


def main(argv=None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    ap = argparse.ArgumentParser(prog="python -m tests.helpers.docs_check", description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", default=list(DOCS), help=f"Markdown files [default: {' '.join(DOCS)}]")
    ap.add_argument("--update", action="store_true", help="rewrite the files with the current outputs")
    ap.add_argument("--fast", action="store_true", help="leave out the items marked slow")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--skip-learned", action="store_true", help="leave out what `learned` plays")
    group.add_argument("--only-learned", action="store_true", help="only what `learned` plays")
    args = ap.parse_args(argv)
    results = run(args.files, args.update, args.fast, args.skip_learned, args.only_learned)
    bad = [o for o in results if not o.ok]
    if bad and not args.update:
        for o in bad:
            print(diff(o), file=sys.stderr)
        print(f"{len(bad)} of {len(results)} items differ from what the code prints now; "
              "`python -m tests.helpers.docs_check --update` rewrites them", file=sys.stderr)
        return 1
    print(f"{len(results)} items checked" + (f", {len(bad)} rewritten" if args.update else ", all equal"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
