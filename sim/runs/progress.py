"""The progress every long command shows: done, rate, ETA, where someone is watching.

On a terminal it is one line of text with the project's own units ("training games"), written
over itself on the stream (stderr); it has no dependency of its own, so the CLI loads none for it.
In a Jupyter notebook a line written over itself with '\\r' is not what a cell shows well, so there
it is tqdm's display: its notebook widget where ipywidgets is installed, else its text bar in the
cell's output. Anywhere else (a pipe, a file, a log) nothing is shown. The research and training
tools use it without importing the runner (and pyarrow).
"""
import sys
import time

#: Where progress is shown: on a terminal, in a notebook, or nowhere (None).
TERMINAL, NOTEBOOK = "terminal", "notebook"
#: Where progress goes to a file or a pipe as lines (Progress' `lines`): seconds between two.
LINE_SECONDS = 5.0


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel: IPython's shell is running with a kernel
    (ipykernel's), whose output a notebook shows. An IPython shell on a terminal has none."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    return shell is not None and getattr(shell, "kernel", None) is not None


def where_shown(stream) -> str | None:
    """Where progress written to `stream` is seen: NOTEBOOK in a Jupyter kernel, TERMINAL when
    the stream is a terminal, else None (a pipe or a file: nothing is shown)."""
    if in_notebook():
        return NOTEBOOK
    isatty = getattr(stream, "isatty", None)
    return TERMINAL if isatty is not None and isatty() else None


def notebook_bar_class():
    """tqdm's notebook widget where ipywidgets is installed (the widget is one), else tqdm's
    text bar, which a notebook shows in the cell's output."""
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        from tqdm.std import tqdm
        return tqdm
    from tqdm.notebook import tqdm
    return tqdm


class Progress:
    """The progress of `total` items (games), `done` of them at the start, on `stream` (default
    stderr): shown where someone watches it (where_shown), if `enabled`. `enabled` then says
    whether the terminal's line is written; in a notebook `bar` is tqdm's display."""

    def __init__(self, total: int, done: int = 0, stream=None, enabled: bool = True, unit: str = "games",
                 lines=None):
        self.start_done, self.stream, self.unit = done, stream or sys.stderr, unit
        shown = where_shown(self.stream) if enabled else None
        self.enabled = shown == TERMINAL
        # Where no line is written over itself (a file, a pipe): lines(text), one every LINE_SECONDS.
        self.lines = lines if shown is None else None
        self.last_line = None
        self.bar = None
        if shown == NOTEBOOK:
            self.bar = notebook_bar_class()(total=total, initial=done, unit=unit, file=self.stream,
                                            dynamic_ncols=True, leave=True)
        self.total = total
        self.t0 = time.monotonic()
        self.update(done)

    @property
    def total(self) -> int:
        """The number of items: it may change as work goes on (compare --until-ci's estimate)."""
        return self._total

    @total.setter
    def total(self, total: int) -> None:
        self._total = total
        if self.bar is not None:
            self.bar.total = total

    def update(self, done: int, note: str = "") -> None:
        if self.bar is not None:
            if note:
                self.bar.set_postfix_str(note, refresh=False)
            self.bar.update(done - self.bar.n)
            return
        if not self.enabled and self.lines is None:
            return
        now = time.monotonic()
        dt = now - self.t0
        rate = (done - self.start_done) / dt if dt > 0 else 0.0
        eta = f"{(self.total - done) / rate:,.0f} s" if rate > 0 else "?"
        pct = 100.0 * done / self.total if self.total else 100.0
        if not self.enabled:
            if done > self.start_done and (self.last_line is None or now - self.last_line >= LINE_SECONDS
                                           or done >= self.total):
                self.last_line = now
                self.lines(f"{done:,}/{self.total:,} {self.unit} ({pct:.0f}%), {rate:,.0f} games/s, ETA {eta}"
                           + (f", {note}" if note else ""))
            return
        note = f"  {note}" if note else ""
        self.stream.write(f"\r{done:,}/{self.total:,} {self.unit} ({pct:.0f}%)  {rate:,.0f} games/s  ETA {eta}{note}   ")
        self.stream.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.enabled:
            self.stream.write("\n")
            self.stream.flush()
