"""One game's decisions seen as a backgammon analyser shows them: every legal choice ranked by
`learned`'s action value, the one played and learned's (`encore-sim analyse DATASET --game N`).

    v = decisions("results/run-X", game=3, roll=5)     # a DecisionView; v.decisions, v.text()

The game is replayed from the dataset's manifest (its scores checked against the stored ones) and
judged as sim.research.analyse judges every game, by the same kernels (rollouts.judge_solo,
judge_table): the loss of a decision is learned's value of its own choice minus that of the choice
made, the very number `analyse` sums. The ranking needs the value of every choice, which the
kernels keep to themselves: so the sheets before each decision are rebuilt from the game's moves
with the engine's own steps, and learned ranks the choices there as it does in play
(rank_placements, rank_table); its best value and the played choice's must equal the kernels', or
the view refuses to show a ranking that is not the analysis's.

With `rollouts` N (solo), each choice shown is also followed by N of learned's taxed rollouts on
the rollout dice analyse uses (rollouts.rollout_key: the k-th rollout of every choice rolls the
same dice), so the rolled-out loss is analyse's loss by rollouts of that decision.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.engine import (
    LOG_ACTIVE, LOG_AVAIL, LOG_CDIE, LOG_CHOICES, LOG_COST, LOG_NDIE, LOG_ROLL, LOG_SEAT, LOG_SUB, active_move,
    end_of_roll, passive_moves, reset, start_roll,
)
from sim.rng import game_key
from sim.runs.api import check_int, play_chunk
from sim.runs.settings import MAX_ROLLOUTS
from sim.runs.dataset import done_chunks, read_part
from sim.runs.dataset import json_safe
from sim.runs.gamelog import describe
from sim.state import (
    PS_JOKERS, PS_SCORE, ST_AVAIL, ST_IS_ACTIVE, ST_SEAT, new_state,
)
from sim.tables import N_GROUPS

from strategies.features import EXPECT_SIZE
from strategies.learned import new_scratch, rank_placements, rank_table, solo_rolls
from strategies.table_features import TC_SIZE, TE_SIZE
from .analyse import AnalyseError, choice_text, dice_text, judged
from .rollouts import J_BEST, J_BEST_COST, J_BEST_SUB, J_MADE, J_SIZE, play_out, judge_solo, judge_table, rollout_key

#: Choices listed per decision (and the one played, if it ranks lower).
SHOWN = 10
#: How far the rebuilt ranking may differ from the kernels' values (float32 weights, summed in
#: another order) before it is refused.
_TOLERANCE = 1e-6


@dataclass
class DecisionView:
    """The decisions of one game (or one roll, one seat of it), each with its choices ranked."""
    dataset: str
    game: int
    seed: int
    sheet: str
    players: int
    rollouts: int
    judge: str
    seats: list[str]        # the strategy of each seat in this game
    decisions: list[dict]

    def to_dict(self) -> dict:
        return json_safe({k: getattr(self, k) for k in ("dataset", "game", "seed", "sheet", "players", "rollouts",
                                                       "judge", "seats", "decisions")})

    def text(self) -> str:
        return format_text(self)


def _stored_scores(dataset, s, game) -> list[int] | None:
    """The dataset's scores of `game`, seat by seat, or None when its chunk is not finished."""
    c = game // s.chunk_size
    if c not in done_chunks(dataset):
        return None
    p = read_part(dataset, "players", c, ["game", "seat", "score"]).to_pandas()
    return p[p["game"] == game].sort_values("seat")["score"].tolist()


def before_each(tab, seed, game, players, max_rolls, log):
    """(log row, st, ps, bb) before each decision of the game whose decisions are `log`, in the
    engine's order (sim.engine.play: the active seat, then the others, whose moves are applied
    together): the arrays as the deciding seat saw them, updated in place after each yield."""
    st, ps, bb, _ = new_state()
    reset(st, ps, bb, tab, players, max_rolls)
    key = np.uint64(game_key(np.uint64(seed), np.int64(game)))
    row = 0
    while row < len(log):
        roll = int(log[row, LOG_ROLL])
        active = start_roll(st, key, roll, players)
        pending = np.full((players, 2), -1, np.int64)
        while row < len(log) and log[row, LOG_ROLL] == roll:
            seat, sub, cost = int(log[row, LOG_SEAT]), int(log[row, LOG_SUB]), int(log[row, LOG_COST])
            st[ST_SEAT], st[ST_AVAIL], st[ST_IS_ACTIVE] = seat, log[row, LOG_AVAIL], log[row, LOG_ACTIVE]
            yield row, st, ps, bb
            if log[row, LOG_ACTIVE]:
                active_move(st, ps, bb, tab, seat, log[row, LOG_CDIE], log[row, LOG_NDIE], sub, cost, roll, 0)
            else:
                pending[seat] = sub, cost
            row += 1
        passive_moves(ps, bb, tab, pending, players, active, roll)
        end_of_roll(st, ps, bb, tab)


def _rolled(W, tab, st, ps, bb, key, roll, sub, cost, rollouts):
    """The mean taxed final score of `rollouts` of learned's rollouts after (sub, cost), the k-th on
    the dice of rollout_key(key, roll, k) as judge_solo rolls them (the last roll: one, exact)."""
    st2, ps2, bb2, _ = new_state()
    scratch = new_scratch(tab)
    reply, val = np.empty(N_GROUPS), np.empty(EXPECT_SIZE)
    n_out = rollouts if roll < solo_rolls(tab) else 1
    total = 0.0
    for k in range(n_out):
        st2[:], ps2[:], bb2[:] = st, ps, bb
        total += play_out(W, (st2, ps2, bb2), tab, (sub, cost), roll, np.uint64(rollout_key(key, roll, k)), True,
                          scratch, (reply, val))
    return total / n_out


def decisions(dataset, game, roll: int | None = None, seat: int | None = None, rollouts: int = 0, weights=None,
              checked: bool = True, shown: int = SHOWN, rules=None) -> DecisionView:
    """Game `game` of the dataset, every decision (or those of `roll`, of `seat`) with its legal
    choices ranked by learned's action value: the best `shown` and the one played. `rollouts`
    N (even, solo): every choice shown also rolled out N times. Under the rules of the dataset's
    manifest (`rules`, if given, must be those). ValueError (one line) for what cannot be shown."""
    rollouts = check_int("rollouts", rollouts, 0, MAX_ROLLOUTS)
    shown = check_int("shown", shown, 1, 1000)
    j = judged(dataset, weights, checked, rollouts, rules)
    s, tab, W = j.settings, j.tab, j.W
    game = check_int("game", game, 0, s.games - 1)
    if seat is not None:
        seat = check_int("seat", seat, 0, s.players - 1)
    label = dict(zip(j.line.specs, j.line.labels or j.line.specs))
    line_seats = [label[spec] for spec in s.seats(game)]
    chunk = play_chunk(s.seed, game, 1, j.line, players=s.players, sheet=j.sheet, max_rolls=s.max_rolls,
                       rotate=s.rotate, log_turns=True, rules=s.rules)
    replayed = chunk.seats[0, :, PS_SCORE].tolist()
    stored = _stored_scores(dataset, s, game)
    if stored is not None and stored != replayed:
        raise AnalyseError(f"game {game} of {dataset} replays to scores {replayed}, the dataset stores {stored}: "
                           "its strategies or the simulator changed since the run")
    log = chunk.log
    rolls = int(log[-1, LOG_ROLL])
    if roll is not None:
        roll = check_int("roll", roll, 1, 10**6)
        if roll > rolls:
            raise AnalyseError(f"game {game} of {dataset} has {rolls} rolls: no roll {roll}")
    out = np.empty((len(log), J_SIZE))
    games = np.array([game], np.int64)
    if s.players == 1:
        judge_solo(W, tab, np.uint64(s.seed), games, log, 0, True, out, np.empty(1, np.int64))
    else:
        judge_table(W, tab, np.uint64(s.seed), games, s.players, s.max_rolls, log, np.array([0, len(log)]), out,
                    np.empty((1, s.players), np.int64))
    key = np.uint64(game_key(np.uint64(s.seed), np.int64(game)))
    scratch = new_scratch(tab)
    subs, costs, qs = scratch[3], scratch[4], scratch[6]
    tc, te = np.empty(TC_SIZE, np.int64), np.empty(TE_SIZE)
    views = []
    for r, st, ps, bb in before_each(tab, s.seed, game, s.players, s.max_rolls, log):
        if (roll is not None and log[r, LOG_ROLL] != roll) or (seat is not None and log[r, LOG_SEAT] != seat):
            continue
        me = int(log[r, LOG_SEAT])
        if s.players == 1:
            m = rank_placements(W, 0, st, bb, 0, ps[0, PS_JOKERS], tab, scratch)
        else:
            m = rank_table(W, 0, st, ps, bb, me, tab, scratch, tc, te)
        views.append(_decision(j, chunk, log, out, r, subs[:m].copy(), costs[:m].copy(), qs[:m].copy(), shown,
                               line_seats, st, ps, bb, key, rollouts))
        if roll is not None and log[r, LOG_ROLL] > roll:
            break
    return DecisionView(str(dataset), game, s.seed, j.sheet.name, s.players, rollouts, j.judge, list(line_seats),
                        views)


def _decision(j, chunk, log, out, r, subs, costs, qs, shown, seats, st, ps, bb, key, rollouts) -> dict:
    """Decision `r` of the log as data: its choices ranked (the best `shown`, and the one played)."""
    roll, seat, avail = int(log[r, LOG_ROLL]), int(log[r, LOG_SEAT]), int(log[r, LOG_AVAIL])
    dice = chunk.dice[chunk.dice_start[0] + roll - 1]
    sub, cost = int(log[r, LOG_SUB]), int(log[r, LOG_COST])
    best = (int(out[r, J_BEST_SUB]), int(out[r, J_BEST_COST]))
    order = np.argsort(-qs, kind="mergesort")    # ties as learned.best_row breaks them
    ranked = [(int(subs[i]), int(costs[i]), float(qs[i])) for i in order]
    same = [k for k, (a, c, _) in enumerate(ranked) if a == sub and (sub < 0 or c == cost)]
    if same:
        played_at = same[0]
    else:   # paid with more '!' than the placement needs: ranked where its value puts it
        played_at = sum(v > out[r, J_MADE] for _, _, v in ranked)
        ranked.insert(played_at, (sub, cost, float(out[r, J_MADE])))
    if abs(ranked[0][2] - out[r, J_BEST]) > _TOLERANCE or abs(ranked[played_at][2] - out[r, J_MADE]) > _TOLERANCE:
        raise AnalyseError(f"the ranking of roll {roll}, seat {seat} differs from the judge's values: a bug, "
                           "please report it")
    options = []
    for k, (a, c, v) in enumerate(ranked):
        if k >= shown and k != played_at:
            continue
        is_played = k == played_at
        option = {"rank": k + 1, "value": v, "played": is_played, "learned": (a, c) == best,
                  **choice_text(j.py_tab, dice, avail, a, c, *((int(log[r, LOG_CDIE]), int(log[r, LOG_NDIE]))
                                                                  if is_played else ()))}
        if rollouts:
            option["rolled"] = _rolled(j.W, j.tab, st, ps, bb, key, roll, a, c, rollouts)
        options.append(option)
    played = next(o for o in options if o["played"])
    mine = next(o for o in options if o["learned"])
    value_loss = mine["value"] - played["value"]
    return {"roll": roll, "seat": seat, "strategy": seats[seat], "active": bool(log[r, LOG_ACTIVE]),
            "dice": dice_text(dice, len(seats)), "legal_choices": int(log[r, LOG_CHOICES]),
            "ranked": len(ranked), "value_loss": value_loss,
            "loss": mine["rolled"] - played["rolled"] if rollouts else value_loss, "options": options}


def format_text(v: DecisionView) -> str:
    out = [f"Game {v.game} of {v.dataset}: " + ("solo" if v.players == 1 else f"{v.players} players")
           + f", sheet {v.sheet}, seed {v.seed}; seats: " + ", ".join(f"{s}={n}" for s, n in enumerate(v.seats)),
           f"Every legal choice (each placement at its fewest '!', and passing) ranked by value: {v.judge}'s "
           "action value, its estimate of the points still to come "
           + ("(the margin over the best opponent at a table)" if v.players > 1 else
              "(columns, colours, +2 per star crossed, -1 per '!' spent)") + "."]
    if v.rollouts:
        out.append(f"rolled: the mean final score of {v.rollouts:,} of {v.judge}'s rollouts after the choice, less "
                   "their dice's luck, on the same dice for every choice.")
    out += [f"loss: {v.judge}'s choice's " + ("rolled score" if v.rollouts else "value")
            + " minus the played one's.", ""]
    for d in v.decisions:
        kind = "" if v.players == 1 else (", active" if d["active"] else ", passive")
        out.append(f"Roll {d['roll']}, seat {d['seat']} ({d['strategy']}{kind}), dice {d['dice']}: "
                   f"{d['legal_choices']} legal choices (dice and boxes) and passing, {d['ranked'] - 1} distinct placements")
        out.append("  rank   value" + ("  rolled" if v.rollouts else "") + "  choice")
        for o in d["options"]:
            marks = ", ".join(m for m, on in (("played", o["played"]), (v.judge, o["learned"])) if on)
            rolled = f" {o['rolled']:7.2f}" if v.rollouts else ""
            out.append(f"  {o['rank']:>4} {o['value']:7.2f}{rolled}  {describe(o)}" + (f"   <- {marks}" if marks else ""))
        played = next(o for o in d["options"] if o["played"])
        mine = next(o for o in d["options"] if o["learned"])
        key = "rolled" if v.rollouts else "value"
        # The difference of the two figures as printed, so that the line adds up as read.
        a, b = round(mine[key], 2), round(played[key], 2)
        out.append(f"  loss {a - b:.2f} = {a:.2f} - {b:.2f}" + (" (learned played it)" if mine is played else ""))
        out.append("")
    return "\n".join(out).rstrip() + "\n"
