"""The layers of docs/architecture.md: each imports only from its own and the layers below it.

Imports inside functions count; those under `if TYPE_CHECKING:` (annotations only) do not.
"""
import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
from loaded import modules_loaded_by

ROOT = Path(__file__).resolve().parent.parent
#: Lowest first: (layer, the modules in it).
LAYERS = [
    ("rules and kernels", re.compile(r"sim(\.(?!(runs|training|experiments|agents|research|report|play|commands)\b)\w+)?$")),
    ("players", re.compile(r"strategies(\.\w+)*$")),
    ("runs and files", re.compile(r"sim\.runs(\.\w+)?$")),
    ("training", re.compile(r"sim\.training(\.\w+)?$")),
    ("experiments", re.compile(r"sim\.experiments(\.\w+)?$")),
    ("agents", re.compile(r"sim\.agents(\.\w+)?$")),
    ("research", re.compile(r"sim\.research(\.\w+)?$")),
    ("report", re.compile(r"sim\.report(\.\w+)?$")),
    ("play", re.compile(r"sim\.play(\.\w+)?$")),
    ("commands", re.compile(r"sim\.commands(\.\w+)?$")),
    ("front ends", re.compile(r"(cli|encore_sim)$")),
]

def _files():
    return sorted([ROOT / "cli.py", ROOT / "encore_sim.py", *ROOT.glob("sim/**/*.py"),
                   *ROOT.glob("strategies/**/*.py")])


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer(module: str) -> int:
    found = [i for i, (_, pattern) in enumerate(LAYERS) if pattern.match(module)]
    assert len(found) == 1, f"{module} is in {len(found)} layers"
    return found[0]


def _package(path: Path) -> str:
    """The package a relative import in `path` starts from."""
    name = _name(path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _from_module(node: ast.ImportFrom, package: str) -> str:
    """The absolute name of the module in `from ... import`, relative ones resolved."""
    base = node.module or ""
    if node.level:
        parts = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join(parts + ([base] if base else []))
    return base


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The project modules `path` imports: `from a import b` is a.b when a.b is a module, else a."""
    tree = ast.parse(path.read_text())
    skip = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for child in node.body for n in ast.walk(child)}
    name, package = _name(path), _package(path)
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _from_module(node, package)
            subs = {f"{base}.{a.name}" for a in node.names} & modules
            out.update(subs if subs else {base})
    return (out & modules) - {name}


MODULES = {_name(p): p for p in _files()}
GRAPH = {m: _imports(p, set(MODULES)) for m, p in MODULES.items()}


def _upward(graph) -> dict[str, list[str]]:
    """Each module's imports of a layer above its own."""
    return {m: sorted(d for d in deps if _layer(d) > _layer(m)) for m, deps in graph.items()
            if any(_layer(d) > _layer(m) for d in deps)}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_only_its_own_layer_and_below(module):
    mine = _layer(module)
    above = {m: LAYERS[_layer(m)][0] for m in GRAPH[module] if _layer(m) > mine}
    assert not above, f"{module} ({LAYERS[mine][0]}) imports from layers above it: {above}"


def test_a_planted_upward_import_is_found(tmp_path):
    """The check can fail: a runs module importing the commands, written as a lazy relative
    import inside a function, is read as the upward import it is."""
    planted = tmp_path / "api.py"
    planted.write_text("def f():\n    from ..commands import games\n")
    module = "sim.runs.api"
    tree = ast.parse(planted.read_text())
    (node,) = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    base = _from_module(node, "sim.runs")
    found = {f"{base}.{a.name}" for a in node.names} & set(MODULES)
    assert found == {"sim.commands.games"}
    assert _upward({**GRAPH, module: GRAPH[module] | found}) == {module: ["sim.commands.games"]}


def _folder_lines() -> dict[str, int]:
    lines = {}
    for m, p in MODULES.items():
        lines[_folder(m)] = lines.get(_folder(m), 0) + len(p.read_text().splitlines())
    return lines


def test_no_folder_holds_a_third_of_the_code():
    """One folder a job: none grows to hold a third of the lines of sim/, strategies/ and the
    front ends, as sim/runs/ once held half."""
    lines = _folder_lines()
    total = sum(lines.values())
    big = {f: n for f, n in lines.items() if n > total / 3}
    assert not big, f"folders holding over a third of {total} lines: {big}"


def test_no_import_cycle():
    state, cycles = {}, []

    def visit(m, path):
        state[m] = "open"
        for d in sorted(GRAPH[m]):
            if state.get(d) == "open":
                cycles.append(path[path.index(d):] + [d])
            elif d not in state:
                visit(d, path + [d])
        state[m] = "done"
    for m in sorted(GRAPH):
        if m not in state:
            visit(m, [m])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def _folder(module: str) -> str:
    """The folder a module stands in for the layers: its package (a package's own modules, not
    its subpackages, as sim.numba_cache.GAMES_DIGEST reads them); the front ends each their own."""
    if module in ("cli", "encore_sim"):
        return module
    return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]


def test_each_folder_holds_one_layer():
    """A folder's modules are of one layer, so that the layers can be read off the tree."""
    layers = {}
    for m in MODULES:
        layers.setdefault(_folder(m), set()).add(LAYERS[_layer(m)][0])
    mixed = {f: sorted(names) for f, names in layers.items() if len(names) > 1}
    assert not mixed, f"folders holding modules of several layers: {mixed}"


#: The folder whose subfolders stand above a folder outside it: the top level is fixed, so sim/ holds
#: both the kernels (its own modules, below the players of strategies/) and every folder above them.
SPLIT_BY_THE_TOP_LEVEL = {"sim"}


def test_a_folder_with_its_subfolders_is_one_band_of_layers():
    """What a folder holds, subfolders included, is a run of adjacent layers: no other folder's
    layer stands between two of them, so a folder is either wholly below another or wholly above
    it (strategies/ holds the players alone; sim/runs/ holds the runs alone)."""
    packages = {m for m, p in MODULES.items() if p.name == "__init__.py"}
    gaps = {}
    for package in sorted(packages - SPLIT_BY_THE_TOP_LEVEL):
        held = {_layer(m) for m in MODULES if m == package or m.startswith(package + ".")}
        if missing := set(range(min(held), max(held) + 1)) - held:
            gaps[package] = sorted(LAYERS[i][0] for i in missing)
    assert not gaps, f"folders whose layers have another folder's layer between them: {gaps}"


def test_folders_import_one_way():
    """Between folders too imports run one way: no folder imports one that imports it back."""
    edges = {(_folder(m), _folder(d)) for m, deps in GRAPH.items() for d in deps if _folder(m) != _folder(d)}
    back = sorted(f"{a} <-> {b}" for a, b in edges if (b, a) in edges and a < b)
    assert not back, f"folders that import each other: {back}"
    folder_layer = {_folder(m): _layer(m) for m in MODULES}
    down = [f"{a} -> {b}" for a, b in sorted(edges) if folder_layer[a] < folder_layer[b]]
    assert not down, f"folders importing a folder of a layer above theirs: {down}"


def test_architecture_names_every_module():
    text = (ROOT / "docs" / "architecture.md").read_text()
    missing = [p.relative_to(ROOT).as_posix() for p in _files()
               if p.name != "__init__.py" and f"`{p.relative_to(ROOT).as_posix()}`" not in text]
    assert not missing, f"docs/architecture.md does not name: {missing}"


def test_a_run_of_learned_loads_no_training_or_research(tmp_path):
    args = ["run", "-n", "20", "-s", "learned", "-q", "--out", tmp_path / "r"]
    assert modules_loaded_by(args, ("sim.training", "sim.research")) == []


def test_analyse_loads_no_report_or_matplotlib():
    """`analyse` writes JSON, not figures: loading it must not load the report module's plotting."""
    code = ("import sys, sim.research.analyse\n"
            "print(sorted(m for m in sys.modules if m == 'sim.report.report' or m.startswith('matplotlib')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


#: The engine's functions that cross boxes or write awards and scores into a game's arrays: a turn
#: is theirs to play (sim.engine). `awards` is not among them: it only says what a sheet would
#: earn, a question any player may ask (heuristic, the kit).
TURN_WRITERS = {"cross", "award_seat", "settle_awards", "finish"}


def _engine_calls(path: Path) -> list[str]:
    """`name:line` of every use of a TURN_WRITERS function in `path`, however it is imported
    (`from sim.engine import cross as c`, `from sim import engine`, `import sim.engine as e`)."""
    tree = ast.parse(path.read_text())
    package = _package(path)
    names, modules = {}, {"sim.engine"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _from_module(node, package)
            for a in node.names:
                if base == "sim.engine" and a.name in TURN_WRITERS:
                    names[a.asname or a.name] = a.name
                elif base == "sim" and a.name == "engine":
                    modules.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            modules.update(a.asname or a.name for a in node.names if a.name == "sim.engine")
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names:
            found.append(f"{names[node.id]}:{node.lineno}")
        elif (isinstance(node, ast.Attribute) and node.attr in TURN_WRITERS
              and ast.unparse(node.value) in modules):
            found.append(f"{node.attr}:{node.lineno}")
    return sorted(set(found))


def test_only_the_rules_layer_plays_a_turn():
    """Outside the rules layer no function crosses boxes or settles awards itself: the players
    and the kit, training and research play a roll through the engine's turn, so that a rules
    change is made in one place. (sim.runs.api crosses a user's boxes one by one to draw a
    position, in no turn.)"""
    found = {m: calls for m, p in sorted(MODULES.items())
             if m.startswith(("strategies", "sim.training", "sim.research")) and (calls := _engine_calls(p))}
    assert not found, f"outside the rules layer, these call the engine's crossing and awards: {found}"


# --- private names stay in their module -----------------------------------------------------

def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _project_module(name: str) -> bool:
    """Whether `name` is a module of this checkout: the packages, the front ends, bench/ or a
    module of tests/ (its helpers, imported by their own names)."""
    top = name.partition(".")[0]
    return top in ("sim", "strategies", "cli", "encore_sim", "bench", "tests") or \
        (ROOT / "tests" / f"{top}.py").is_file() or (ROOT / "tests" / top / "__init__.py").is_file()


def _private_imports(path: Path, attributes: bool) -> list[str]:
    """`line: what` of each private name `path` takes from another module of the project:
    `from m import _x`, and with `attributes` `m._x` where m names a project module it imported."""
    tree = ast.parse(path.read_text())
    package = _package(path) if path.is_relative_to(ROOT / "sim") or path.is_relative_to(ROOT / "strategies") \
        else path.relative_to(ROOT).parent.as_posix().replace("/", ".")
    own = _name(path)
    found, modules = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _from_module(node, package)
            if not _project_module(base) or base == own:
                continue
            for a in node.names:
                if _private(a.name):
                    found.append(f"{node.lineno}: from {base} import {a.name}")
                elif _project_module(f"{base}.{a.name}") and (
                        (ROOT / Path(*f"{base}.{a.name}".split("."))).with_suffix(".py").is_file()
                        or (ROOT / Path(*f"{base}.{a.name}".split(".")) / "__init__.py").is_file()):
                    modules.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            modules.update(a.asname for a in node.names if a.asname and _project_module(a.name))
    if attributes:
        found += [f"{node.lineno}: {node.value.id}.{node.attr}" for node in ast.walk(tree)
                  if isinstance(node, ast.Attribute) and _private(node.attr)
                  and isinstance(node.value, ast.Name) and node.value.id in modules]
    return found


def _source_files():
    return [*_files(), *ROOT.glob("bench/**/*.py")]


def test_no_private_name_is_taken_from_another_module():
    """A name with a leading underscore is its module's own: another module that needs it gets
    it public (with a docstring) or moved to where both belong. Sources and tests alike import no
    private name; a test may reach one through its module (`module._name`) to replace it with a
    fake (monkeypatch), which is how a fault is injected. The Numba internals the project relies
    on are sim/nbinternals.py's business (tests/sim/test_nbinternals.py), not another module's."""
    found = {p.relative_to(ROOT).as_posix(): hits for p in _source_files() if (hits := _private_imports(p, True))}
    found |= {p.relative_to(ROOT).as_posix(): hits for p in sorted(ROOT.glob("tests/**/*.py"))
              if (hits := _private_imports(p, False))}
    assert not found, f"private names taken from other modules: {found}"


def test_the_private_name_check_finds_each_form(tmp_path, monkeypatch):
    """The check above can fail: it finds a relative import, an absolute one and an attribute."""
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "sim" / "experiments").mkdir(parents=True)
    (tmp_path / "sim" / "__init__.py").write_text("")
    (tmp_path / "sim" / "experiments" / "__init__.py").write_text("")
    (tmp_path / "sim" / "experiments" / "compare.py").write_text("def _settings(): pass\n")
    (tmp_path / "sim" / "experiments" / "report.py").write_text("def _own(): pass\n")
    user = tmp_path / "sim" / "experiments" / "rulescompare.py"
    user.write_text("from .compare import _settings, stop\nfrom sim.experiments.report import _own as o\n"
                    "from sim.experiments import compare\nimport numpy as np\nx = compare._settings, np._x, o\n")
    assert _private_imports(user, True) == ["1: from sim.experiments.compare import _settings",
                                            "2: from sim.experiments.report import _own", "5: compare._settings"]
    assert _private_imports(user, False) == ["1: from sim.experiments.compare import _settings",
                                             "2: from sim.experiments.report import _own"]
