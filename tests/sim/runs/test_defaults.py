"""The commands' defaults (sim.runs.defaults): plain constants that import nothing, so that the
command line shows them in its help without loading the engine."""
import ast
from pathlib import Path

import sim.runs.defaults as D

SOURCE = Path(D.__file__)


def test_the_module_imports_nothing_and_holds_literals_alone():
    tree = ast.parse(SOURCE.read_text())
    imports = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert not imports
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue        # the docstring
        assert isinstance(node, ast.Assign), ast.unparse(node)
        value = ast.literal_eval(node.value)
        (target,) = node.targets
        assert target.id.isupper() and getattr(D, target.id) == value


def test_the_defaults_per_kind_of_game_cover_both_kinds():
    for per_kind in (D.RUN_CHUNK, D.RUN_CHUNK_TURNS, D.COMPARE_CHUNK, D.TUNE_VALIDATE_GAMES):
        assert set(per_kind) == {"solo", "table"} and all(v > 0 for v in per_kind.values())
    # a turns table holds a row per decision: its files hold fewer games
    assert all(D.RUN_CHUNK_TURNS[k] < D.RUN_CHUNK[k] for k in D.RUN_CHUNK)
    assert set(D.TRAIN_TABLE_GAMES) == set(range(2, 7))
    assert 0 < D.TRAIN_STEP[1] < D.TRAIN_STEP[0] <= 1
