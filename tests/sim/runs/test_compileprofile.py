"""Where compile time goes (sim.runs.compileprofile): Numba's compiles counted per function while
the profile is open, and none after it is closed."""
from numba import njit

from sim.runs.compileprofile import CompileProfile


def test_compiles_are_counted_per_function_and_signature_while_open():
    @njit(cache=False)
    def twice(x):
        return 2 * x

    @njit(cache=False)
    def after(x):
        return x + 1

    profile = CompileProfile()
    try:
        assert twice(2) == 4 and twice(2.5) == 5.0 and twice(3) == 6     # two signatures, the third call compiles none
    finally:
        profile.close()
    after(1)
    name = f"{__name__}.{twice.py_func.__qualname__}"
    assert list(profile.rows) == [name]
    compiles, signatures, seconds = profile.rows[name]
    assert compiles == 2 and len(signatures) == 2 and seconds > 0
    lines = profile.report().splitlines()
    assert "s compiling: 1 functions, 2 compiles" in lines[0]
    assert lines[1].endswith(f"2 compiles   2 signatures  {name}") and len(lines) == 2
    assert len(profile.report(top=0).splitlines()) == 1
