"""`encore-sim train`: check the arguments, train `learned`'s weights, write them (host side).

The kernels and their drivers are in sim.training.solo (solo) and sim.training.table (tables).
"""
from __future__ import annotations

import hashlib
import math
import time
from pathlib import Path

import numba
import numpy as np

from sim.runs.defaults import PLAYERS, SHEET, TRAIN_SEED
from sim.runs import interrupts
from sim.runs.api import MAX_SEED, check_int, player_kind
from sim.runs.settings import MAX_GAMES, check_threads
from sim.runs.progress import Progress
from sim.rules import parse_rules
from sim.sheets import load_sheet
from sim.state import MAX_SEATS

from strategies import store
from strategies.learned import DATA_W, N_PARAMS, N_ROW_TABLE, read_weights, save_weights, store_name, weights_rules
from strategies.registry import resolve
from strategies.table_features import N_STAGES
from .solo import DEFAULT_GAMES, Settings, train
from .table import DEFAULT_GAMES as TABLE_GAMES
from .table import OPPONENTS, train_table


def table_lineup():
    """Decision functions, kinds and parameters for play_games: slot 0 is learned, with room for
    the sheet's layout and table weights after its parameters (train_table fills both), slots 1..
    the OPPONENTS of table training."""
    specs = [resolve("learned:deny=0")] + [resolve(o) for o in OPPONENTS]   # trained without denial
    width = DATA_W + N_STAGES * N_ROW_TABLE // 2      # the layout, then float32 weights packed (learned.pack)
    params = np.zeros((MAX_SEATS, width))
    params[0, :N_PARAMS] = specs[0].params
    for i, r in enumerate(specs[1:], 1):
        params[i, :len(r.params)] = r.params
    fns = tuple(r.fn for r in specs) + (specs[0].fn,) * (MAX_SEATS - len(specs))
    kinds = np.array([player_kind(f) for f in fns], np.int64)
    return fns, kinds, params


def check_step(step) -> tuple[float, float]:
    """The step size at the start and at the end of a run (it falls linearly between them)."""
    try:
        start, end = (float(x) for x in step)
    except (TypeError, ValueError):
        raise ValueError(f"step must be two numbers (at the start and at the end), got {step!r}") from None
    for x in (start, end):
        if not (math.isfinite(x) and 0 < x <= 1):
            raise ValueError(f"step sizes must be in (0, 1], got {x:g}")
    return start, end


#: Training games a second on one core, solo and at tables of 2-6: training on demand's warm
#: starts (sim.training.ondemand.WARM_GAMES) take about two minutes on two cores, measured for
#: docs/variants.md; an announcement's estimate scales these.
CORE_RATE = {1: 4_200, 2: 1_700, 3: 1_700, 4: 1_700, 5: 1_250, 6: 1_050}


def estimate(games: int, players: int, threads: int | None = None) -> str:
    """How long training `games` games for `players` takes on `threads` cores (default: Numba's),
    as an announcement says it."""
    cores = threads or numba.config.NUMBA_NUM_THREADS
    seconds = games / (CORE_RATE[players] * cores)
    span = f"{seconds / 60:.0f} minutes" if seconds >= 90 else f"{seconds:.0f} s"
    return f"about {span} on {cores} core{'s' if cores != 1 else ''} (longer on a loaded machine)"


def train_file(out=None, sheet=SHEET, players: int = PLAYERS, games: int | None = None, seed: int = TRAIN_SEED,
               threads: int | None = None, progress: bool = False, init=None, step=None,
               rules=None, lines=None, say=None, init_sheet=None) -> Path:
    """`encore-sim train`: check the arguments, train (solo, or a table of `players`: see
    sim.training.table), and write the weights to `out` atomically (nothing is written if
    training is interrupted). Returns the file written.

    out: the weights file; None: the weights store's file for the sheet, players and rules
    (strategies.store), where `learned` finds them. init: a weights file of the same sheet and
    number of players to continue training from, under any rules (a variant's training may start
    from the rulebook's weights); without it, training starts afresh. step: (at the start, at the
    end) of the step size, which falls linearly over the run (default 0.5 to 0.03); rules: the
    rules the training games are played under (a sim.rules.Rules or a --rules text; None: the
    rulebook), which the file records (learned.weights_rules: the part of them the game of
    `players` depends on), and by which `learned` finds the weights it plays under those rules."""
    sheet = load_sheet(sheet)
    rules = parse_rules(rules)
    players = check_int("players", players, 1, MAX_SEATS)
    games = check_int("games", (DEFAULT_GAMES if players == 1 else TABLE_GAMES[players]) if games is None else games,
                      1, MAX_GAMES)
    seed = check_int("seed", seed, 0, MAX_SEED)
    threads = check_threads(threads)
    if out is None:
        out = store.writable() / store_name(sheet, players, rules)
    out = Path(out)
    if out.suffix != ".npz":
        raise ValueError(f"the weights file must end in .npz, got {out}")
    if not out.parent.is_dir():
        raise ValueError(f"cannot write {out}: folder {out.parent} does not exist")
    if out.is_dir():
        raise ValueError(f"cannot write {out}: it is a folder")
    alpha, alpha_end = check_step((Settings.alpha, Settings.alpha_end) if step is None else step)
    W0, init_sha256, init_name = None, "", ""
    if init is not None:
        # read before training, so out may be init itself
        W0 = read_weights(init, sheet if init_sheet is None else load_sheet(init_sheet), players)
        init_sha256 = hashlib.sha256(Path(init).read_bytes()).hexdigest()
        init_name = Path(init).name
    numba.set_num_threads(threads)
    if say is not None:      # once the arguments are known to be good: how long it will take
        say(f"Training `learned`: {games:,} games, {estimate(games, players, threads)}")
    # lines(text): where no progress line can be shown (a file, a pipe), a line every few seconds
    bar = Progress(games, 0, enabled=progress, unit="training games", lines=lines)
    last = [0.0, None]

    def show(done, figure):
        last[1] = last[1] if figure is None else figure
        if time.monotonic() - last[0] > 0.5 or done == games:   # a batch takes ~30 ms
            last[0] = time.monotonic()
            bar.update(done, "" if last[1] is None else f"mean score {last[1]:5.2f}" if players == 1 else
                       f"wins {100 * last[1]:3.0f}% against built-ins")

    if players == 1:
        W = train(sheet, games, seed, settings=Settings(alpha=alpha, alpha_end=alpha_end), progress=show, init=W0,
                  rules=rules)
    else:
        W = train_table(table_lineup(), sheet, players, games, seed, alpha=alpha, alpha_end=alpha_end,
                        progress=show, init=W0, rules=rules)
    bar.close()
    # Ctrl-C while saving raises (the command line otherwise exits at once, sim.runs.interrupts), so
    # that save_weights removes its temporary file: no half-written weights are left behind.
    with interrupts.raising():
        save_weights(out, W, sheet, games, seed, players, init_sha256=init_sha256, step=(alpha, alpha_end),
                     rules=weights_rules(rules, players), init_name=init_name)
    return out
