"""Your game, analysed: what the play page shows when a game against the bots is over.

    a = game_analysis("results/play-20260101-120000")      # a dict of plain JSON data

The folder is the dataset sim.play.game saved (the manifest's "play" says whose seat), so the
analysis is `encore-sim analyse`'s on it (sim.research.analyse), its rows filtered to your
seat (several people at one screen: each one's, under "people"): every decision of yours judged against learned's choice (loss: learned's value of its
choice minus that of yours), the luck of every roll (solo: the best value the dice allowed minus
its mean over all faces of the roll), and your largest mistakes each with its decision view (every
choice ranked, sim.research.decisions). The per-decision figures are analyse's own table of
decisions, written into the game's folder (decisions.parquet) and read back.
"""
from __future__ import annotations

import math
from pathlib import Path

from sim.runs.dataset import done_chunks, json_safe, read_manifest, read_part
from sim.runs.summary import SOLO_BANDS, band_label

from ..research.analyse import analyse
from ..research.decisions import decisions

#: analyse's table of the game's decisions, kept in the game's folder.
DECISIONS_FILE = "decisions.parquet"
#: Mistakes shown, largest first.
MISTAKES = 5


def game_analysis(folder, mistakes: int = MISTAKES) -> dict:
    """The analysis of the finished game saved in `folder` (sim.play.game.Game.save), as plain
    JSON data: your score and (solo) its rating band, the winners, your loss per decision (mean,
    total), each decision's loss and luck, your largest `mistakes` losses with their decision views.
    ValueError (one line) for a folder that holds no finished game of play."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    play = manifest.get("play")
    if not isinstance(play, dict) or not isinstance(play.get("game"), int):
        raise ValueError(f"{folder} holds no game of play (its manifest names no seat of yours)")
    game = play["game"]
    if game not in done_chunks(folder):
        raise ValueError(f"{folder}: the game is not over")
    players = read_part(folder, "players", game, ["seat", "strategy", "score", "winner"]).to_pylist()
    players.sort(key=lambda r: r["seat"])
    a = analyse(folder, decisions_out=folder / DECISIONS_FILE, threads=1, mistakes=0)
    table = read_part_file(folder / DECISIONS_FILE)
    seats = play.get("seats") if isinstance(play.get("seats"), list) else [int(play.get("seat", 0))]
    labels = play.get("labels") if isinstance(play.get("labels"), list) else [str(play.get("label", "you"))]
    each = [_person(folder, play, a, table, players, game, int(seat), str(label), mistakes)
            for seat, label in zip(seats, labels)]
    if len(each) == 1:
        return each[0]
    # Several people at one screen: each one's analysis, the first's also at the top (what a
    # reader of one person's game finds there).
    return json_safe({**each[0], "people": each, "ratings": a.ratings})


def _person(folder: Path, play: dict, a, table: list[dict], players: list[dict], game: int, seat: int, label: str,
            mistakes: int) -> dict:
    """The analysis of the seat of one person (`label` in the results)."""
    mine = [r for r in table if r["seat"] == seat]
    solo = len(players) == 1
    score = players[seat]["score"]
    losses = [r["loss"] for r in mine]
    rolls = [{"roll": r["roll"], "active": r["active"], "loss": r["loss"],
              "luck": r["luck"] if solo and math.isfinite(r["luck"]) else None,
              "chosen": _choice(r, "chosen"), "best": _choice(r, "best")} for r in mine]
    worst = sorted((r for r in rolls if r["loss"] > 0), key=lambda r: -r["loss"])[:mistakes]
    for m in worst:
        view = decisions(folder, game, roll=m["roll"], seat=seat).to_dict()["decisions"]
        m["view"] = next(d for d in view if d["roll"] == m["roll"] and d["seat"] == seat)
    row = next(r for r in a.rows if r["strategy"] == label and r["seat"] == (None if solo else seat))
    luck = [r["luck"] for r in rolls if r["luck"] is not None]
    names = play.get("names")
    return json_safe({
        "folder": str(folder), "game": game, "seed": a.seed, "players": len(players), "seat": seat,
        "label": label, "name": names[seat] if isinstance(names, list) and seat < len(names) else label,
        "judge": a.judge,
        "score": score, "band": solo_band(score) if solo else None,
        "scores": [{"seat": p["seat"], "label": p["strategy"], "score": p["score"], "winner": p["winner"]}
                   for p in players],
        "winners": [p["seat"] for p in players if p["winner"]],
        "you_won": bool(players[seat]["winner"]),
        "decisions": len(mine), "loss_total": sum(losses), "loss_per_decision": sum(losses) / len(mine) if mine
        else None, "differs": int(sum(r["chosen"] != r["best"] for r in rolls)),
        "luck_total": sum(luck) if solo else None,
        "rolls": rolls, "mistakes": worst, "rating": (a.ratings or {}).get(label, a.rating),
        "practice": bool(play.get("practice")), "takebacks": int(play.get("takebacks", 0)),
        "names": names,
        "row": {k: row[k] for k in ("loss_per_game", "loss_per_decision", "differ_share", "mean_score")},
    })


def solo_band(score: int) -> dict:
    """The rulebook's rating of a solo score (docs/rules.md section 8): score range, stars, rating."""
    for lo, hi, stars, rating in SOLO_BANDS:
        if (lo is None or score >= lo) and (hi is None or score <= hi):
            return {"scores": band_label(lo, hi), "stars": stars, "rating": rating}
    raise AssertionError("the bands cover every score")


def read_part_file(path: Path) -> list[dict]:
    """The rows of analyse's decisions table (a Parquet file) as dicts."""
    import pyarrow.parquet as pq
    return pq.read_table(path).to_pylist()


def _choice(row: dict, which: str) -> dict:
    if row[f"{which}_pass"]:
        return {"pass": True, "cells": [], "jokers": 0}
    return {"pass": False, "cells": row[f"{which}_cells"].split(), "jokers": row[f"{which}_jokers"]}
