"""Every seat's chance of winning after a roll, from `learned`'s values: a small model fitted on
simulated games (the trace of sim.runs.trace reads it).

After each roll every seat has its points now p (its score if the game ended then) and learned's
table value V of its sheet: learned's estimate of the points it will still gain minus the best
opponent's final score, so m = p + V is its expected final margin over the best opponent. The
model turns these into

- **win probabilities**, a conditional logit over the seats: P(s) = exp(z_s) / sum_t exp(z_t),
  z_s = b1 m_s + b2 p_s + b3 [s is the next roll's active seat] + b4 max(m_s - max_(t != s) m_t, 0),
  with one set of the four coefficients per bucket of the game's distance to its end (the fewest
  boxes any seat must still cross to complete its end colours: how much game is left);
- **expected final scores**: p_s + a0 + a1 V_s + a2 p_s per bucket (least squares), since V is
  a margin, not points.

The last term of z, the lead over the best rival, keeps a clear leader's chance from being
overstated at 3-6 players, where the plain logit of m overstated it by up to 6 points.
sim.runs.trace.model_for finds the model of a sheet, table and rules, and .calibration checks it.
The solo game needs no fit: the expected score is p + learned's solo value, the chance 1.

Fitted on `learned`'s own games (self-play: every seat learned) on FIT_SEED's dice, per sheet,
players and rules (learned's weights' rules): sim.runs.trace.fit_model, which replays them. The shipped models, for
the shipped weights, are in sim/runs/data/winmodel.json (`python -m bench.winmodel` refits them);
for weights of the store (`--train`) a model is fitted on first use and kept beside them.
"""
from __future__ import annotations

import hashlib
import importlib.resources
import json
from dataclasses import dataclass

import numpy as np

from strategies import store
from strategies.learned import store_name

from ..rules import parse_rules
from ..sheets import load_sheet
from .dataset import atomic_write_bytes
from .defaults import TRACE_FIT_SEED

#: Buckets of the distance to the game's end (boxes): bucket k holds EDGES[k] <= d < EDGES[k + 1].
EDGES = (0, 2, 4, 6, 8, 10, 13, 16, 20, 25, 30, 36)
N_WIN = 4
N_SCORE = 3
#: Fewest rows of a bucket to fit it (else the coefficients of the nearest fitted bucket).
MIN_ROWS = 50
SHIPPED = "winmodel.json"


@dataclass(frozen=True)
class WinModel:
    """The fitted coefficients of one sheet, table size and rules: win (len(EDGES), N_WIN),
    score (len(EDGES), N_SCORE); what they were fitted on."""
    players: int
    win: np.ndarray
    score: np.ndarray
    games: int = 0
    seed: int = TRACE_FIT_SEED
    weights: str = ""       # sha256 of the weights the values came from

    def to_dict(self) -> dict:
        return {"players": self.players, "games": self.games, "seed": self.seed, "weights": self.weights,
                "edges": list(EDGES), "win": np.round(self.win, 6).tolist(),
                "score": np.round(self.score, 6).tolist()}

    @classmethod
    def from_dict(cls, d: dict) -> WinModel:
        if tuple(d.get("edges", ())) != EDGES:
            raise ValueError("a win model fitted with other buckets: refit it")
        return cls(int(d["players"]), np.asarray(d["win"], float), np.asarray(d["score"], float),
                   int(d.get("games", 0)), int(d.get("seed", TRACE_FIT_SEED)), str(d.get("weights", "")))

    def win_prob(self, points, value, end, roll) -> np.ndarray:
        """(rows, seats) chances of winning from points now, values, each seat's distance to the end
        (rows, seats) and the roll just played (rows,)."""
        X = features(points, value, roll)
        coef = self.win[bucket(end)]
        return softmax_rows(np.einsum("rsf,rf->rs", X, coef))

    def expected_score(self, points, value, end) -> np.ndarray:
        c = self.score[bucket(end)]
        return points + c[:, :1] + c[:, 1:2] * value + c[:, 2:3] * points


def bucket(end) -> np.ndarray:
    """Each row's bucket: of the fewest boxes any seat still needs to end the game."""
    d = np.asarray(end).min(axis=1)
    return np.searchsorted(np.asarray(EDGES), d, side="right") - 1


def features(points, value, roll) -> np.ndarray:
    """(rows, seats, N_WIN): margin m, points now, next roll's active seat, lead over the best rival."""
    points = np.asarray(points, float)
    m = points + value
    seats = m.shape[1]
    active = (np.asarray(roll)[:, None] % seats == np.arange(seats)[None, :]).astype(float)
    if seats > 1:
        rival = np.stack([np.delete(m, s, axis=1).max(axis=1) for s in range(seats)], axis=1)
    else:
        rival = m
    return np.stack([m, points, active, np.maximum(m - rival, 0.0)], axis=-1)


def softmax_rows(z) -> np.ndarray:
    from scipy.special import softmax
    return softmax(z, axis=1)


def _fill(coef, fitted):
    """Buckets too small to fit take the nearest fitted bucket's coefficients."""
    ok = np.flatnonzero(fitted)
    if ok.size == 0:
        return coef
    for k in np.flatnonzero(~fitted):
        coef[k] = coef[ok[np.argmin(abs(ok - k))]]
    return coef


def fit_rows(points, value, end, roll, share, final, players: int) -> WinModel:
    """The model fitted by maximum likelihood (win) and least squares (score) on trace rows
    (rows, seats) before each game's end; share: each seat's share of its game's win (1/k to each
    of k tied winners), final: its final score."""
    from scipy.optimize import minimize
    from scipy.special import log_softmax

    k = bucket(end)
    X = features(points, value, roll)
    win = np.zeros((len(EDGES), N_WIN))
    score = np.zeros((len(EDGES), N_SCORE))
    fitted = np.zeros(len(EDGES), bool)
    for b in range(len(EDGES)):
        sel = k == b
        if sel.sum() < MIN_ROWS:
            continue
        Xs, ys = X[sel], share[sel]

        def nll(c, Xs=Xs, ys=ys):
            lp = log_softmax(Xs @ c, axis=1)
            return -(ys * lp).sum(), -np.einsum("rs,rsf->f", ys - np.exp(lp), Xs)
        win[b] = minimize(nll, np.zeros(N_WIN), jac=True, method="L-BFGS-B").x
        A = np.stack([np.ones(int(sel.sum()) * players), value[sel].ravel(), points[sel].ravel()], axis=1)
        score[b] = np.linalg.lstsq(A, (final[sel] - points[sel]).ravel(), rcond=None)[0]
        fitted[b] = True
    return WinModel(players, _fill(win, fitted), _fill(score, fitted))


def digest(W) -> str:
    return hashlib.sha256(np.ascontiguousarray(W).tobytes()).hexdigest()[:16]


def key(sheet, players: int, rules) -> str:
    """A model's name: that of learned's weights it reads (learned.shipped_name / store_name)."""
    return store_name(load_sheet(sheet), players, parse_rules(rules)).removesuffix(".npz")


def shipped() -> dict:
    """The shipped models, by key."""
    f = importlib.resources.files("sim.runs").joinpath("data", SHIPPED)
    return json.loads(f.read_text()) if f.is_file() else {}


def write_shipped(models: dict, path) -> None:
    atomic_write_bytes(path, (json.dumps(models, indent=1, sort_keys=True) + "\n").encode())


def stored_path(sheet, players, rules):
    return store.path_for(f"{key(sheet, players, rules)}.winmodel.json")




#: Calibration: games of unseen seeds (the fit's seed + 1 on) against which each decile of the
#: predicted chances is checked (sim.runs.trace.calibration).
CALIBRATION_SEED = TRACE_FIT_SEED + 1
