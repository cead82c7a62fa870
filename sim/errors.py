"""Errors about a setting, in the words of whoever reads them.

One setting has two names: `--max-rolls` on the command line, `max_rolls=` in Python. The layers
below the front ends write a setting's Python name in braces, `{max_rolls}`, and `{force=True}`
for the way to turn a flag on; each front end renders them (SettingError.words) with its own
names, so a notebook is never told to use a flag it does not have.
"""
from __future__ import annotations

import re

_TOKEN = re.compile(r"\{([a-z][a-z0-9_]*)(=True)?\}")


def python_name(name: str, on: bool) -> str:
    """A keyword argument: `games`, or `force=True`."""
    return f"{name}=True" if on else name


def flag_name(name: str, on: bool) -> str:
    """A command-line option: `--games`, `--force`."""
    return "--" + name.replace("_", "-")


class Worded:
    """An error whose line names settings by `{name}` tokens (mixed into an exception class)."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text

    def words(self, name=python_name) -> str:
        """The line with each setting named by `name(setting, on)` (python_name, flag_name)."""
        return _TOKEN.sub(lambda m: name(m.group(1), bool(m.group(2))), self.text)

    def __str__(self) -> str:
        return self.words()


class SettingError(Worded, ValueError):
    """A bad setting (or combination of them): one line whose `{name}` tokens name the settings."""


def setting(name: str) -> str:
    """The token of a setting written `max-rolls` or `max_rolls`; a name that is not one
    (`first game`) stays as it is."""
    key = name.replace("-", "_")
    return "{" + key + "}" if re.fullmatch(r"[a-z][a-z0-9_]*", key) else name
