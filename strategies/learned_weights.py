"""learned's weights files: where they are (shipped, the weights store, a file of yours), reading
and writing them, the rules they were trained under, and the parameters row that carries a sheet's
layout and its weights to the kernels (weights_data)."""
import dataclasses
import datetime
import functools
import hashlib
import importlib.resources
import os
import re
import shlex
import zipfile
from pathlib import Path

import numpy as np

from sim.rules import RULEBOOK, Rules, parse_rules
from sim.sheets import BUILTIN_SHEETS, load_sheet
from sim.tables import kernel_tables


from . import store
from .table_features import N_STAGES
from .learned_value import N_FEAT, N_ROW_TABLE, N_T, sheet_layout


#: Version of the weights file layout (save_weights / read_weights).
FORMAT = 1


def weights_shape(players: int) -> tuple[int, int]:
    """Rows x entries of the weights for the solo game (players 1) or a table of `players`."""
    return (N_T, N_FEAT) if players == 1 else (N_STAGES, N_ROW_TABLE)


def weights_rules(rules, players: int) -> Rules:
    """The part of `rules` (a Rules or a --rules text) that learned's weights for the solo game
    (players 1) or a table of `players` depend on: the rest plays the same games. The solo game
    never ends by colours and has no passive seats (end-colours, free-rolls); a table's game is not
    the solo game's length (solo-rolls). Weights are trained, recorded and found by these."""
    rules = parse_rules(rules)
    if players == 1:
        return dataclasses.replace(rules, end_colours=RULEBOOK.end_colours, free_rolls=RULEBOOK.free_rolls)
    return dataclasses.replace(rules, solo_rolls=RULEBOOK.solo_rolls)


def _game(players: int) -> str:
    return "the solo game" if players == 1 else f"{players} players"


class WeightsError(ValueError):
    """A weights file that cannot be used: missing, damaged, or made for another sheet."""


def save_weights(path, W, sheet, games: int, seed: int, players: int = 1, init_sha256: str = "",
                 step=(0.0, 0.0), rules=RULEBOOK, init_name: str = "") -> None:
    """Write weights W (weights_shape(players)) trained on `sheet` under `rules` to the .npz file
    `path`, atomically: a temporary file beside it is renamed over it once complete, so an
    interrupted save leaves no half-written weights file. games, seed, init_sha256 and init_name
    (of the weights training continued from, "" if none) and step (at the start and at the end)
    record how they were trained, `trained` when (UTC); `rules` is recorded as the --rules text of
    weights_rules ("" for the rulebook)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    trained = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
    try:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, W=np.asarray(W, np.float32).reshape(weights_shape(players)), format=FORMAT,
                                sheet=sheet.text, sheet_name=sheet.name, players=players, games=games, seed=seed,
                                init_sha256=init_sha256, init_name=init_name, step=np.asarray(step, np.float64),
                                rules=weights_rules(rules, players).text, trained=trained)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_weights(path, sheet=None, players=None, rules=None) -> np.ndarray:
    """The weights (float32, weights_shape) of a file written by save_weights; WeightsError, one
    line, if it is not such a file or (with `sheet`, `players`, `rules`) was trained for another
    sheet, number of players or rules (a file without recorded rules, written before rule
    variants, was trained under the rulebook)."""
    name = Path(path).name
    try:
        with np.load(path, allow_pickle=False) as f:
            fmt, W, text, trained_on = int(f["format"]), f["W"], str(f["sheet"]), str(f["sheet_name"])
            trained_players = int(f["players"])
            trained_rules = str(f["rules"]) if "rules" in f.files else ""
    except FileNotFoundError:
        raise WeightsError(f"weights file {path} does not exist") from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as e:
        what = f"key {e}" if isinstance(e, KeyError) else "not an .npz archive, or a damaged one"
        raise WeightsError(f"{name} is not a weights file of `learned` written by encore-sim train ({what})") from None
    if fmt != FORMAT:
        raise WeightsError(f"{name} has weights format {fmt}; this version reads format {FORMAT}")
    if not 1 <= trained_players <= 6 or W.shape != weights_shape(trained_players) or not np.isfinite(W).all():
        raise WeightsError(f"{name}: damaged weights (shape {W.shape} for {trained_players} players, "
                           f"expected {weights_shape(max(1, min(trained_players, 6)))}, all finite)")
    if players is not None and players != trained_players:
        raise WeightsError(f"{name} was trained for {_game(trained_players)}, not for {_game(players)}: "
                           f"train weights for it with encore-sim train --players {players}")
    if sheet is not None and text != sheet.text:
        raise WeightsError(f"{name} was trained for sheet {trained_on!r}, not for this sheet ({sheet.name!r}): "
                           f"train weights for it with encore-sim train --sheet")
    if rules is not None:
        try:
            recorded = weights_rules(trained_rules, trained_players)
        except ValueError:
            raise WeightsError(f"{name} records rules this version does not know: {trained_rules!r}") from None
        wanted = weights_rules(rules, trained_players)
        if recorded != wanted:
            raise WeightsError(f"{name} was trained under the rules {recorded.label}, not under {wanted.label}: "
                               f"play it under its own rules, or leave weights= out to play the weights of "
                               f"{wanted.label} (shipped, or in the weights store)")
    return W.astype(np.float32, copy=False)


def shipped_name(sheet_name: str, players: int = 1, rules=RULEBOOK) -> str:
    """The file name of the shipped weights of a built-in sheet, solo or for a table, under
    `rules`: learned-SHEET[-Np][-RULES].npz, RULES the slug (sim.rules.Rules.slug) of the rules
    the weights depend on (weights_rules), none for the rulebook."""
    r = weights_rules(rules, players)
    return (f"learned-{sheet_name}" + ("" if players == 1 else f"-{players}p")
            + ("" if r.is_rulebook else f"-{r.slug}") + ".npz")


def _builtin_name(sheet) -> str | None:
    """The name of the built-in sheet with this layout, or None."""
    for name in BUILTIN_SHEETS:
        if load_sheet(name).text == sheet.text:
            return name
    return None


def shipped_file(sheet, players: int = 1, rules=RULEBOOK):
    """The shipped weights file of a built-in sheet with this layout under `rules`, or None."""
    name = _builtin_name(sheet)
    if name is None:
        return None
    f = importlib.resources.files("strategies").joinpath("data", shipped_name(name, players, rules))
    return f if f.is_file() else None


def store_name(sheet, players: int = 1, rules=RULEBOOK) -> str:
    """The file name of the weights for `sheet` (a Sheet), solo or a table of `players`, under
    `rules`, in the weights store (strategies.store): a built-in sheet's is its shipped name; any
    other sheet's carries a digest of its text, so that two sheets of one name do not share a file."""
    name = _builtin_name(sheet)
    if name is None:
        digest = hashlib.sha256(sheet.text.encode()).hexdigest()[:10]
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", sheet.name or "sheet") + f"-{digest}"
    return shipped_name(name, players, rules)


class MissingWeights(WeightsError):
    """`learned` has no weights for a sheet, table size and rules: none ship, none in the store.
    `sheet`, `players` and `rules` (weights_rules) say which; `message(train=...)` words the
    remedy for the caller (a command's --train flag, or a Python keyword)."""

    def __init__(self, sheet, players: int, rules: Rules):
        self.sheet, self.players, self.rules = sheet, players, weights_rules(rules, players)
        super().__init__(self.message())

    def message(self, train: str | None = None) -> str:
        """The one line; `train` names the caller's way to train them at once (a flag, a keyword)."""
        r = self.rules
        what = f"{_game(self.players)} on sheet {self.sheet.name!r}" + ("" if r.is_rulebook else
                                                                       f" under the rules {r.text}")
        # A sheet read from a dataset has no file of its own: the command then names the file to give.
        sheet = _builtin_name(self.sheet) or (shlex.quote(self.sheet.path) if self.sheet.path else "FILE")
        command = ("encore-sim train" + ("" if r.is_rulebook else f" --rules {r.text}")
                   + ("" if sheet == "standard" else f" --sheet {sheet}")
                   + ("" if self.players == 1 else f" --players {self.players}"))
        file = "" if sheet != "FILE" else f", FILE being sheet {self.sheet.name!r}'s file"
        return (f"`learned` has no weights for {what}, shipped or in the weights store ({store.folder()}): "
                + (f"add {train} to train them now, or " if train else "") + f"train them with `{command}`{file}")


@functools.lru_cache(maxsize=16)
def _weights_vector(sheet, file, digest, players, rules):
    if file is None:
        shipped = shipped_file(sheet, players, rules)
        if shipped is not None:
            with importlib.resources.as_file(shipped) as p:
                return read_weights(p, sheet, players, rules).ravel()
        file = store.find(store_name(sheet, players, rules))
        if file is None:
            raise MissingWeights(sheet, players, rules)
    # A stored file found by its name is still checked against what it records: a damaged or
    # mismatched one is an error naming it, never a silent fall-back to other weights.
    return read_weights(file, sheet, players, rules).ravel()


def weights_file(sheet, players: int = 1, rules=RULEBOOK):
    """Where `learned`'s own weights for `sheet`, `players` and `rules` are: (path, "shipped" or
    "yours"), or None where there are none."""
    shipped = shipped_file(sheet, players, rules)
    if shipped is not None:
        return Path(str(shipped)), "shipped"
    found = store.find(store_name(sheet, players, rules))
    return (found, "yours") if found is not None else None


def weights_array(sheet, file=None, players: int = 1, rules=RULEBOOK) -> np.ndarray:
    """The weights `learned` plays with on `sheet` (solo, or at a table of `players`) under `rules`
    (a Rules or a --rules text), flat float32: those of `file` (learned:weights=FILE; trained under
    the same rules), else the shipped ones of the sheet's layout and the rules, else those in the
    weights store (strategies.store); MissingWeights where there are none. Read-only (cached per
    file content)."""
    rules = weights_rules(rules, players)
    if file is None:
        found = weights_file(sheet, players, rules)
        file = None if found is None or found[1] == "shipped" else found[0]
    digest = hashlib.sha256(Path(file).read_bytes()).hexdigest() if file is not None else None
    v = _weights_vector(sheet, None if file is None else str(file), digest, players, rules)
    v.flags.writeable = False
    return v


def pack(W) -> np.ndarray:
    """Flat float32 weights as the float64 words that carry them after the strategy's parameters
    (two per word; the strategy views them as float32 again). float32 rather than float64 halves
    the memory a decision reads from: the tables are far larger than a core's cache."""
    return np.frombuffer(np.ascontiguousarray(W, np.float32).tobytes(), np.float64)


def layout_words(sheet, rules=RULEBOOK) -> np.ndarray:
    """The sheet's layout (sheet_layout) under `rules` as the int64 words that carry it in the
    parameters row: its placement rows are those of the rules' tables (6-box ones under joker-six)."""
    return sheet_layout(kernel_tables(sheet, parse_rules(rules))).view(np.float64)


def weights_data(sheet, file=None, players: int = 1, rules=RULEBOOK) -> np.ndarray:
    """Strategy.data of `learned`: the sheet's layout words, then weights_array packed (both for
    the run's rules)."""
    return np.concatenate((layout_words(sheet, rules), pack(weights_array(sheet, file, players, rules))))

