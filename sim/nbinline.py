"""Numba's inliner without its quadratic copy: one scope copy per inlined call, not per block.

Every `inline="always"` call site makes Numba copy the callee's IR (twice: one copy to splice
in, one kept unchanged) with `copy.deepcopy` applied to each block on its own, each with a
fresh memo. Every variable of a block refers to the function's one scope, and the scope holds
every variable of the function, so each block's copy copies all of them again: a call site
costs blocks x variables, and the callees that themselves inline others (heuristic's placement
loops, learned's ranking, the engine's turn) have hundreds of blocks and thousands of
variables. It was a third of all compile time (docs/performance.md, "Compile time"); Numba's
maintainers know it (numba issues 8989 and 9204, open in the releases this project allows).

The fix here: while `InlineWorker.inline_ir` runs, the `copy.deepcopy` its module calls shares
one memo across the blocks of the inlining, so each scope is copied once per copy, as the
scope was one object before it. What the IR says is unchanged (the same statements, variables
and names): the LLVM IR of every function `make run`'s line-up compiles was found equal with and
without it (docs/performance.md), and tests/sim/test_nbinline.py checks both the copies and the results.

Nothing else of Numba changes: the inliner's module is the only reader of the `copy` name
replaced below (it calls deepcopy in one place), and the memo is set only inside inline_ir.
A Numba release whose inliner is laid out otherwise is left alone (ACTIVE is then False, and
only compile time suffers).
"""
import copy as _copy
import threading

from numba.core import inline_closurecall as _inliner

_state = threading.local()


class _SharedMemoCopy:
    """Stands for the `copy` module in Numba's inliner: deepcopy without a memo of its own
    takes the one of the inlining in progress."""
    copy = staticmethod(_copy.copy)

    @staticmethod
    def deepcopy(x, memo=None):
        if memo is None:
            memo = getattr(_state, "memo", None)
        return _copy.deepcopy(x, memo)


def _install():
    """Patch the inliner if it is laid out as this workaround expects; True if done."""
    worker = getattr(_inliner, "InlineWorker", None)
    inline_ir = getattr(worker, "inline_ir", None)
    if getattr(_inliner, "copy", None) is not _copy or inline_ir is None:
        return False

    def shared_memo_inline_ir(self, *args, **kwargs):
        outer = getattr(_state, "memo", None)
        _state.memo = {}
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            _state.memo = outer

    shared_memo_inline_ir.__wrapped__ = inline_ir
    shared_memo_inline_ir.__doc__ = inline_ir.__doc__
    worker.inline_ir = shared_memo_inline_ir
    _inliner.copy = _SharedMemoCopy
    return True


#: The workaround is in place (the Numba release's inliner is the one it was written for).
ACTIVE = _install()
