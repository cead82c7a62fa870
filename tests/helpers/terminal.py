"""`encore-sim ARGS` in a fresh process with its stderr on a pseudo-terminal (and with
`every_stream`, stdin and stdout too), as a user at a terminal runs it: what the terminal shows,
read without ever blocking past a deadline."""
from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Terminal:
    """A command started on a terminal; `seen` is what the terminal has shown so far, `proc` the
    process (its stdout a pipe unless `every_stream`). Leaving the `with` block closes the terminal
    and kills what is still running of the command (its whole process group)."""

    def __init__(self, args, cwd=ROOT, env=None, every_stream: bool = False):
        self.master, slave = pty.openpty()
        env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        out = slave if every_stream else subprocess.PIPE
        self.proc = subprocess.Popen([sys.executable, "-m", "cli", *map(str, args)], cwd=cwd, env=env,
                                     stdin=slave if every_stream else None, stdout=out, stderr=slave,
                                     start_new_session=True)
        os.close(slave)
        self.seen = b""

    def read_until(self, done=lambda seen: False, timeout: float = 240) -> bytes:
        """Read until done(all seen so far), the terminal closes (the command ended) or `timeout`
        seconds; returns what this call read."""
        start, deadline = len(self.seen), time.monotonic() + timeout
        while not done(self.seen) and (left := deadline - time.monotonic()) > 0:
            if not select.select([self.master], [], [], min(left, 0.1))[0]:
                continue
            try:
                chunk = os.read(self.master, 4096)
            except OSError:   # the terminal closes with the process
                break
            if not chunk:
                break
            self.seen += chunk
        return self.seen[start:]

    @property
    def text(self) -> str:
        return self.seen.decode(errors="replace")

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc) -> None:
        os.close(self.master)
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
