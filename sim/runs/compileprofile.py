"""Where compile time goes: `encore-sim --profile-compile COMMAND ...` (docs/performance.md)."""
from __future__ import annotations

import time


class CompileProfile:
    """Numba's "numba:compile" events while active: per compiled function, its compiles,
    signatures and CPU seconds of its own (a compile's time less that of the compiles it started).
    `encore-sim --profile-compile COMMAND ...` prints it after the command: the profiles of
    docs/performance.md, "Compile time" (run them with an empty NUMBA_CACHE_DIR)."""

    def __init__(self):
        from collections import defaultdict

        from numba.core import event

        self.rows = defaultdict(lambda: [0, set(), 0.0])
        self._stack = []
        profile = self

        class Listener(event.Listener):
            def on_start(self, ev):
                profile._stack.append([time.process_time(), 0.0])

            def on_end(self, ev):
                start, inner = profile._stack.pop()
                took = time.process_time() - start
                fn = ev.data["dispatcher"].py_func
                row = profile.rows[f"{fn.__module__}.{fn.__qualname__}"]
                row[0] += 1
                row[1].add(str(ev.data["args"]))
                row[2] += took - inner
                if profile._stack:
                    profile._stack[-1][1] += took

        self._listener = Listener()
        event.register("numba:compile", self._listener)

    def close(self) -> None:
        from numba.core import event
        event.unregister("numba:compile", self._listener)

    def report(self, top: int = 25) -> str:
        rows = sorted(((k, v[0], len(v[1]), v[2]) for k, v in self.rows.items()), key=lambda r: -r[3])
        total = sum(r[3] for r in rows)
        out = [f"{time.process_time():.1f} s of CPU, {total:.1f} s compiling: {len(rows)} functions, "
               f"{sum(r[1] for r in rows)} compiles"]
        out += [f"{took:7.2f} s  {compiles:3d} compiles  {signatures:2d} signatures  {name}"
                for name, compiles, signatures, took in rows[:top]]
        return "\n".join(out)
