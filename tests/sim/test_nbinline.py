"""sim.nbinline: Numba's inliner copies a callee's scope once per inlining, not once per block,
and what it compiles computes the same."""
import copy

import pytest
from numba import njit
from numba.core import inline_closurecall, ir

from sim import nbinline

BRANCHES = 25


def _many_blocks_source(name: str) -> str:
    """A function of BRANCHES if/else pairs: ~2 blocks and ~2 variables per branch."""
    lines = [f"def {name}(x):", "    a0 = x"]
    for k in range(1, BRANCHES + 1):
        lines += [f"    if a{k - 1} % {k + 1} == 0:", f"        a{k} = a{k - 1} // 2 + {k}",
                  "    else:", f"        a{k} = (3 * a{k - 1} + {k}) % 1000003"]
    lines.append(f"    return a{BRANCHES}")
    return "\n".join(lines)


def _compile_caller():
    """A fresh caller inlining the many-block callee at three sites (fresh: nothing cached)."""
    space = {}
    exec(_many_blocks_source("callee"), space)
    plain = space["callee"]
    space["callee"] = njit(inline="always")(plain)
    exec("def caller(x):\n    return callee(x) + callee(x + 1) - callee(x + 2)", space)
    return njit(space["caller"]), plain


def _watch(monkeypatch) -> tuple[list, list]:
    """From now on: the names of the IR variables deep-copied, and (blocks, variables in the
    scope) of each callee inlined."""
    copies, inlined = [], []
    var_copy = ir.Var.__deepcopy__
    inline_ir = inline_closurecall.InlineWorker.inline_ir

    def counting_copy(self, memo):
        copies.append(self.name)
        return var_copy(self, memo)

    def recording_inline_ir(self, caller_ir, block, i, callee_ir, *args, **kwargs):
        scope = next(iter(callee_ir.blocks.values())).scope
        inlined.append((len(callee_ir.blocks), len(scope.localvars._con)))
        return inline_ir(self, caller_ir, block, i, callee_ir, *args, **kwargs)
    monkeypatch.setattr(ir.Var, "__deepcopy__", counting_copy)
    monkeypatch.setattr(inline_closurecall.InlineWorker, "inline_ir", recording_inline_ir)
    return copies, inlined


def test_the_workaround_is_in_place_for_the_numba_installed():
    assert nbinline.ACTIVE
    assert inline_closurecall.copy is nbinline._SharedMemoCopy


def test_an_inlining_copies_each_variable_twice(monkeypatch):
    copies, inlined = _watch(monkeypatch)
    caller, plain = _compile_caller()
    assert [caller(x) for x in range(80)] == [plain(x) + plain(x + 1) - plain(x + 2) for x in range(80)]
    assert len(inlined) == 3 and all(blocks > BRANCHES and variables > BRANCHES for blocks, variables in inlined)
    # Numba copies the callee twice per site (one to splice in, one kept), each variable once.
    assert len(copies) == sum(2 * variables for _, variables in inlined)


def test_without_it_numba_copies_the_scope_per_block(monkeypatch):
    """The count above is far exceeded where the workaround is undone: the test can tell."""
    monkeypatch.setattr(inline_closurecall, "copy", copy)
    monkeypatch.setattr(inline_closurecall.InlineWorker, "inline_ir",
                        inline_closurecall.InlineWorker.inline_ir.__wrapped__)
    copies, inlined = _watch(monkeypatch)
    caller, plain = _compile_caller()
    assert caller(7) == plain(7) + plain(8) - plain(9)
    assert len(copies) > sum(blocks * variables for blocks, variables in inlined)


@pytest.mark.parametrize("value", [0, 5, 2**40 + 3])
def test_the_shared_memo_is_set_only_while_inlining(value):
    assert getattr(nbinline._state, "memo", None) is None
    # Outside an inlining, deepcopy copies as copy.deepcopy does: nothing shared between calls.
    a = [value, [value]]
    b, c = nbinline._SharedMemoCopy.deepcopy(a), nbinline._SharedMemoCopy.deepcopy(a)
    assert b == c == a and b[1] is not c[1] and b[1] is not a[1]
