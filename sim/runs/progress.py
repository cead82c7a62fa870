"""The progress line every long command shows on a terminal: done, rate, ETA.

Kept here rather than a progress-bar package: it is one line of text with the project's own
units ("training games"), quiet when disabled, and it has no dependency of its own; the
research and training tools use it without importing the runner (and pyarrow).
"""
import sys
import time


class Progress:
    """A one-line progress display on a stream (normally a terminal's stderr)."""

    def __init__(self, total: int, done: int = 0, stream=None, enabled: bool = True, unit: str = "games"):
        self.total, self.start_done, self.stream, self.enabled = total, done, stream or sys.stderr, enabled
        self.unit = unit
        self.t0 = time.monotonic()
        self.update(done)

    def update(self, done: int, note: str = "") -> None:
        if not self.enabled:
            return
        dt = time.monotonic() - self.t0
        rate = (done - self.start_done) / dt if dt > 0 else 0.0
        eta = f"{(self.total - done) / rate:,.0f} s" if rate > 0 else "?"
        pct = 100.0 * done / self.total if self.total else 100.0
        note = f"  {note}" if note else ""
        self.stream.write(f"\r{done:,}/{self.total:,} {self.unit} ({pct:.0f}%)  {rate:,.0f} games/s  ETA {eta}{note}   ")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
