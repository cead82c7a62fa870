"""What the commands share: the Default marker, training on demand, a dataset's rules."""
from __future__ import annotations

import inspect
import sys
from pathlib import Path

from ..errors import SettingError


class Default:
    """A keyword's default, told apart from the same value given by the caller."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self) -> str:     # a signature shows the value, as for any default
        return repr(self.value)


def value(x):
    """x, or the value of a Default."""
    return x.value if isinstance(x, Default) else x


def default(fn, name: str):
    """The default of keyword `name` of command `fn` (for a front end's help and option defaults)."""
    return value(inspect.signature(fn).parameters[name].default)


def given(**keywords) -> list[str]:
    """The names of the keywords whose value is not a Default: those the caller gave."""
    return [k for k, v in keywords.items() if not isinstance(v, Default)]


def trained(call, train: bool, threads, progress: bool, say):
    """call(), training the weights `learned` lacks first where `train` (sim.training.ondemand);
    without it, the missing weights' error tells how to ask for that."""
    if train:
        from sim.training.ondemand import with_training
        return with_training(call, threads=threads, progress=progress, say=say)
    try:
        return call()
    except ValueError as e:
        # Not imported up front: a command that plays no `learned` never loads it.
        learned = sys.modules.get("strategies.learned")
        if learned is not None and isinstance(e, learned.MissingWeights):
            raise SettingError(e.message(train="{train=True}")) from None
        raise


def check_file(path) -> None:
    """A file a command writes after long work: refused at once if it cannot be written."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a folder: give a file name")
    if not path.parent.is_dir():
        raise ValueError(f"cannot write {path}: folder {path.parent} does not exist")


def rules_of(dataset, rules):
    """The rules a dataset's games are read under: its own; `rules`, if given, must be those."""
    from ..runs.dataset import read_manifest
    from ..runs.manifest import dataset_rules
    return dataset_rules(read_manifest(dataset), rules)
