"""sim.nbinternals, the kernels' helpers built on Numba internals: each helper on its own, what
happens when an internal is missing, and the rule that no function returns a stack array."""
import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from numba import errors, njit

from sim.nbinternals import borrow, stack_f64, stack_i64, stack_u64, uncounted
from sim.tables import build_tables, kernel_tables

ROOT = Path(__file__).resolve().parents[2]
N = 37


@njit
def _fill_stack(start):
    f = stack_f64(N)
    u = stack_u64(N)
    i = stack_i64(N)
    for k in range(N):
        f[k] = start + 0.5 * k
        u[k] = np.uint64(2) ** np.uint64(k)
        i[k] = -k
    # Read back (as heap copies) after all three are written: the arrays must not overlap.
    return f.copy(), u.copy(), i.copy()


def test_stack_arrays_hold_their_own_values():
    f, u, i = _fill_stack(1.0)
    assert (f.dtype, u.dtype, i.dtype) == (np.float64, np.uint64, np.int64)
    assert f.tolist() == [1.0 + 0.5 * k for k in range(N)]
    assert u.tolist() == [2**k for k in range(N)]
    assert i.tolist() == [-k for k in range(N)]


@njit
def _scratch_in_callee(out):
    s = stack_f64(4)
    for k in range(4):
        s[k] = out[k] * 2.0
    for k in range(4):
        out[k] = s[k]


@njit
def _caller():
    mine = stack_f64(4)
    for k in range(4):
        mine[k] = k + 1.0
    total = 0.0
    for _ in range(3):           # the callee's frame comes and goes; ours stays
        a = np.ones(4)
        _scratch_in_callee(a)
        total += a.sum()
    return total + mine.sum()


def test_a_callee_may_use_stack_scratch_of_its_own():
    assert _caller() == 3 * 8.0 + 10.0


def test_stack_array_size_must_be_a_constant():
    @njit
    def bad(n):
        return stack_f64(n)[0]

    with pytest.raises(errors.TypingError, match="constant"):
        bad(3)


@njit
def _through_view(a):
    v = uncounted(a)
    v[0] = 42
    return v.sum(), v.shape[0], v.shape[1]


def test_uncounted_is_a_view_of_the_same_memory():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    total, rows, cols = _through_view(a)
    assert a[0, 0] == 42 and total == a.sum() and (rows, cols) == (3, 4)


def test_uncounted_takes_only_arrays():
    @njit
    def bad(x):
        return uncounted(x)

    with pytest.raises(errors.TypingError, match="takes an array"):
        bad(3.0)


@njit
def _borrowed(tab):
    mask = borrow(tab, "mask")
    colour = borrow(tab, "colour")
    return mask[5, 1], colour[7], borrow(tab, "gmask").shape[0], mask.shape[0]


@pytest.mark.parametrize("kind", ["StructRef", "namedtuple"])
def test_borrow_reads_the_field(kind):
    plain = build_tables("standard")
    tab = kernel_tables("standard") if kind == "StructRef" else plain
    assert _borrowed(tab) == (plain.mask[5, 1], plain.colour[7], plain.gmask.shape[0], plain.mask.shape[0])


def test_borrow_refuses_unknown_fields_and_names_that_are_not_constants():
    tab = kernel_tables("standard")

    @njit
    def unknown(t):
        return borrow(t, "no_such_field")[0]

    with pytest.raises(errors.TypingError, match="no_such_field"):
        unknown(tab)

    @njit
    def variable(t, name):
        return borrow(t, name)[0]

    with pytest.raises(errors.TypingError, match="constant field name"):
        variable(tab, "mask")


def test_a_missing_internal_fails_only_where_it_is_used():
    """As with a Numba release that renamed populate_array: the strategies load, greedy plays,
    and compiling a function that needs a stack array names the missing internal."""
    # The batch kernel itself makes arrays with populate_array: the process below loads it from
    # the compile cache, as after any earlier run. Compiled here first, so that the test does not
    # depend on the tests run before it (alone on an empty cache it failed).
    from sim.runs.api import play_chunk
    play_chunk(0, 0, 20, ["greedy"])
    code = textwrap.dedent("""
        import numba.np.arrayobj
        del numba.np.arrayobj.populate_array
        from numba import njit
        import sim.runs.api
        from sim.nbinternals import NumbaInternalsError, stack_f64
        from strategies import registry          # imports every built-in strategy
        chunk = sim.runs.api.play_chunk(0, 0, 20, ["greedy"])
        print("greedy games", len(chunk.games))

        @njit
        def scratch():
            return stack_f64(3).shape[0]
        try:
            scratch()
        except Exception as e:               # Numba may wrap it in a TypingError
            print(type(e).__name__, e)
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert "greedy games 20" in out.stdout
    assert "numba.np.arrayobj.populate_array" in out.stdout and "stack_f64 needs" in out.stdout


STACK = {"stack_f64", "stack_u64", "stack_i64"}


def _returns_a_stack_array(fn: ast.FunctionDef) -> bool:
    """True if fn returns a stack array: a stack_* call, or a name bound to one, as the value
    returned or an item of a returned tuple (an element read from one, subs[i], is a number)."""
    bound = {t.id for node in ast.walk(fn) if isinstance(node, ast.Assign)
             and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) in STACK
             for t in node.targets if isinstance(t, ast.Name)}
    for node in ast.walk(fn):
        if isinstance(node, ast.Return) and node.value is not None:
            items = node.value.elts if isinstance(node.value, (ast.Tuple, ast.List)) else [node.value]
            for part in items:
                if isinstance(part, ast.Call) and getattr(part.func, "id", None) in STACK:
                    return True
                if isinstance(part, ast.Name) and part.id in bound:
                    return True
    return False


def test_no_function_returns_a_stack_array():
    found = set()
    for pkg in ("sim", "strategies"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef) and _returns_a_stack_array(node):
                    found.add(f"{path.relative_to(ROOT)}:{node.name}")
    assert not found, f"functions returning a stack array: {sorted(found)}"
    assert _returns_a_stack_array(ast.parse("def f():\n    a = stack_f64(3)\n    return a, 1").body[0])
    assert _returns_a_stack_array(ast.parse("def f():\n    return stack_i64(3)").body[0])
    assert not _returns_a_stack_array(ast.parse("def f():\n    a = stack_f64(3)\n    return g(a[0])").body[0])
