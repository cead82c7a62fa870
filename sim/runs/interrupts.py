"""Ctrl-C at any moment of a command is an interruption: exit 130, no traceback, nothing half-written.

SIGTERM (what `kill` and batch schedulers send) is the same interruption, with exit code 143
(128 + 15, as a shell reports a process ended by it): a run's manifest says "interrupted", its
finished chunks are kept and `--resume` finishes it.

Python turns SIGINT into KeyboardInterrupt wherever the main thread is. During a
cold start that is mostly inside Numba's compiler, which is not written to be
interrupted: the exception can be swallowed in a ctypes callback or a finaliser
(the run then goes on, prints a traceback and exits 0), or leave the compiler
half-way (a later "RuntimeError: no compiled object yet", or a built-in strategy
reported as not compiling). So the command line (cli.entry) installs a handler
that acts on what the program is doing when the signal arrives:

ABORT   the default: nothing exists yet that would need finishing (imports,
        compilation, checking the arguments), so it says "Aborted." and exits
        130 at once, without raising anything through the compiler.
RAISE   code that finishes an interruption itself (the game loop of a run marks
        its manifest "interrupted"; a search prints its best so far): Python's
        KeyboardInterrupt. Should it be swallowed anyway, check() raises it
        again at the next chunk; should it come out as another error (Numba
        does that), interrupted() says it is one, and the block raises
        KeyboardInterrupt instead.
SHIELD  a few lines that must not be cut in the middle (creating a dataset's
        folders and manifest together, writing the final manifest): the signal
        is remembered and acts when the block ends, as the mode around it says.

A script calling the API keeps Python's own behaviour (KeyboardInterrupt),
except that a SHIELD block holds Ctrl-C back until it ends there too.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading

ABORT, RAISE, SHIELD = "abort", "raise", "shield"
#: The signals that interrupt a command (cli.entry, install).
SIGNALS = (signal.SIGINT, signal.SIGTERM)

_mode = RAISE
_pending = False
_signum = signal.SIGINT   # the last interrupting signal: it sets the exit code
_installed = False
_message = "Aborted."


def exit_code() -> int:
    """The exit code of an interrupted command: 128 + the signal that interrupted it (130 for
    Ctrl-C, 143 for SIGTERM), as a shell reports a process that signal ended."""
    return 128 + int(_signum)


def _exit_now() -> None:
    # os.write, not sys.stderr: the signal may have arrived in the middle of a write to it.
    os.write(2, (_message + "\n").encode())
    os._exit(exit_code())


def _handler(signum, frame) -> None:
    global _pending, _signum
    _pending = True
    _signum = signum
    if _mode == ABORT:
        _exit_now()
    if _mode == RAISE:
        raise KeyboardInterrupt


def _unraisable(hook):
    def quiet(info):
        # A KeyboardInterrupt raised in a finaliser or a ctypes callback cannot propagate;
        # _pending keeps it, and check() raises it where it can.
        if not issubclass(info.exc_type, KeyboardInterrupt):
            hook(info)
    return quiet


def install(message: str = "Aborted.") -> None:
    """For the command line: from now on Ctrl-C (or SIGTERM) exits at once (ABORT) except
    where a block asks otherwise. `message` is what it prints then."""
    global _installed, _mode, _message
    _message = message
    _mode = ABORT
    if not _installed:
        for signum in SIGNALS:
            signal.signal(signum, _handler)
        sys.unraisablehook = _unraisable(sys.unraisablehook)
        _installed = True


def check() -> None:
    """Raise KeyboardInterrupt if Ctrl-C was pressed and not yet acted on (call between chunks)."""
    global _pending
    if _pending:
        _pending = False
        raise KeyboardInterrupt


def interrupted(error: BaseException) -> bool:
    """Whether `error` is Ctrl-C: a KeyboardInterrupt, or any error raised where Ctrl-C raises
    with one still pending. Numba's compiled code does not always let a KeyboardInterrupt through:
    raised while it unboxes a strategy (a first-class function value), it comes out as a TypeError
    or a SystemError."""
    return isinstance(error, KeyboardInterrupt) or (isinstance(error, Exception) and _mode == RAISE and _pending)


def clear() -> None:
    """The interruption has been handled (by an `except KeyboardInterrupt`)."""
    global _pending
    _pending = False


def set_mode(new: str) -> str:
    """Ctrl-C acts as `new` (ABORT, RAISE or SHIELD) from now on; returns the mode before."""
    global _mode
    before, _mode = _mode, new
    if new == RAISE:
        check()
    return before


@contextlib.contextmanager
def mode(new: str):
    """Ctrl-C acts as `new` (ABORT, RAISE or SHIELD) inside the block."""
    global _mode
    if threading.current_thread() is not threading.main_thread():
        yield   # signals reach the main thread only
        return
    borrowed = False
    if not _installed and new == SHIELD and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _handler)
        borrowed = True
    before, _mode = _mode, new
    try:
        if new == RAISE:
            check()   # held back by a shield just before
        yield
    except Exception as e:
        if interrupted(e):
            raise KeyboardInterrupt from e
        raise
    finally:
        _mode = before
        if borrowed:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    if new == SHIELD and _pending and before != SHIELD:
        if before == ABORT:
            _exit_now()
        check()


def raising():
    """Ctrl-C raises KeyboardInterrupt in the block: its code finishes the interruption."""
    return mode(RAISE)


def shielded():
    """Ctrl-C waits for the end of the block."""
    return mode(SHIELD)
