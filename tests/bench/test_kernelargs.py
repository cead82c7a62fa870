"""bench/kernelargs.py: the kernels' arguments counted from the source, and every kernel (the stepping
kernels of sim.step, sim.vector and the game loop of sim.engine first) kept to a dozen."""
from bench.kernelargs import kernel_arguments

#: The kernels that step a game: their arguments grouped (tuples, the Rows StructRef).
STEPPING_FILES = ("sim/step.py", "sim/vector.py", "sim/batched.py")
STEPPING = ("sim/engine.py:play", "sim/engine.py:decide", "sim/engine.py:decide_guarded", "sim/batch.py:_play_block")


def test_counts_the_arguments_of_numba_compiled_functions_only(tmp_path):
    for folder in ("sim", "strategies"):
        (tmp_path / folder).mkdir()
    (tmp_path / "sim" / "k.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef f(a, b, *, c):\n    pass\n\n\n"
        "def g(x, y, z):\n    pass\n")
    (tmp_path / "strategies" / "s.py").write_text("import numba\n\n\n@numba.njit\ndef h(a):\n    pass\n")
    assert kernel_arguments(tmp_path) == [(3, "sim/k.py:f"), (1, "strategies/s.py:h")]


def test_the_stepping_kernels_take_at_most_a_dozen_arguments():
    rows = kernel_arguments()
    stepping = [(n, name) for n, name in rows if name.split(":")[0] in STEPPING_FILES or name in STEPPING]
    assert len(stepping) > len(STEPPING)
    assert [(n, name) for n, name in stepping if n > 12] == []


def test_no_kernel_takes_more_than_a_dozen_arguments():
    """Every kernel's arrays grouped where they belong together (the tables' fields, a decision's
    scratch, the game, a batch's line-up, run and results), so a signature reads at a glance."""
    assert [(n, name) for n, name in kernel_arguments() if n > 12] == []
