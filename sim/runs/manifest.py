"""What a dataset's manifest says of how its games were played: the sheet, the strategies'
files, the arguments to resume it with. A run writes it (sim.runs.runner); replay, resume and
the summary read it back."""
from __future__ import annotations

import hashlib
from pathlib import Path

from ..rules import Rules, parse_rules
from ..sheets import Sheet, parse_sheet
from .dataset import DatasetError, read_manifest
from .settings import Settings
from ..errors import SettingError


def manifest_sheet(manifest: dict) -> Sheet:
    sheet = manifest.get("sheet") or {}
    try:
        return parse_sheet(sheet["text"], sheet["name"])
    except (KeyError, TypeError, ValueError) as e:
        raise DatasetError(f"the manifest's sheet is unusable: {e}") from None


def manifest_rules(manifest: dict) -> Rules:
    """The rules a dataset was played under: its settings' --rules text (none in a dataset from
    before rule variants: the rulebook)."""
    text = (manifest.get("settings") or {}).get("rules") or ""
    try:
        return parse_rules(text)
    except ValueError as e:
        raise DatasetError(f"the manifest's rules are unusable: {e}") from None


def dataset_rules(manifest: dict, given=None) -> Rules:
    """The rules to read a dataset's games under: its own. `given` (a --rules the user named with
    the dataset; None: not named) must be the same rules: a dataset's games were played under one
    set, and reading them under another would judge or replay other games."""
    rules = manifest_rules(manifest)
    if given is not None and parse_rules(given) != rules:
        raise SettingError(f"{{rules}} {parse_rules(given).label} contradicts the dataset, played under the rules "
                         f"{rules.label}: leave {{rules}} out, a dataset is read under its own rules")
    return rules


def manifest_files(manifest: dict) -> dict[str, str]:
    """spec -> absolute path of the file, for each user strategy file the run was started with
    (its spec names the file relative to the folder it was started in)."""
    return {info["spec"]: info["file"] for info in manifest.get("strategies") or []
            if isinstance(info, dict) and info.get("file") and info.get("spec")}


def check_files(manifest: dict) -> None:
    """ValueError if a file the run's strategies were played with (a user's strategy, learned's
    weights) is gone or has changed since: replaying it would play other games."""
    for info in manifest.get("strategies") or []:
        if not (isinstance(info, dict) and info.get("file") and info.get("sha256")):
            continue
        path = Path(info["file"])
        if not path.is_file():
            raise ValueError(f"the file of strategy {info.get('spec')!r} ({path}) is gone")
        if hashlib.sha256(path.read_bytes()).hexdigest() != info["sha256"]:
            raise ValueError(f"the file of strategy {info.get('spec')!r} ({path}) has changed since the run, "
                             "so its games cannot be replayed")


def stored_run_args(out) -> dict:
    """The arguments of sim.runs.runner.run that the dataset in `out` was started with (its
    settings, the sheet as a Sheet), to resume it: `run(out, resume=True, **stored_run_args(out))`."""
    manifest = read_manifest(out)
    settings = Settings.from_manifest(manifest, manifest_sheet(manifest))
    return {**settings.stored(), "sheet": settings.sheet}
