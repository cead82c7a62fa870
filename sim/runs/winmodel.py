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
The solo game needs no fit: the expected score is p + learned's solo value, the chance 1.

Fitted on `learned`'s own games (self-play: every seat learned) on FIT_SEED's dice, per sheet,
players and rules (learned's weights' rules): fit(sheet, players, rules). The shipped models, for
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
from strategies.learned import store_name, weights_array, weights_file, weights_rules

from ..rules import RULEBOOK, parse_rules
from ..sheets import load_sheet
from ..state import PS_SCORE, PS_WINNER
from .dataset import atomic_write_bytes
from .defaults import TRACE_FIT_GAMES, TRACE_FIT_SEED
from .summary import Z95

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
    seed: int = 0
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
                   int(d.get("games", 0)), int(d.get("seed", 0)), str(d.get("weights", "")))

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


def _digest(W) -> str:
    return hashlib.sha256(np.ascontiguousarray(W).tobytes()).hexdigest()[:16]


def fit(sheet="standard", players: int = 4, rules=RULEBOOK, games: int = TRACE_FIT_GAMES,
        seed: int = TRACE_FIT_SEED) -> WinModel:
    """The model of `sheet`, `players` and `rules`, fitted on `games` games of learned's self-play
    on `seed`'s dice (learned's weights for them: shipped or in the store)."""
    from .api import play_chunk
    from .trace import trace_chunk_arrays
    sheet = load_sheet(sheet)
    rules = parse_rules(rules)
    W = weights_array(sheet, None, players, rules)
    chunk = play_chunk(seed, 0, games, ["learned"], players=players, sheet=sheet, log_turns=True, rules=rules)
    a = trace_chunk_arrays(chunk, sheet, rules, samples=0)
    keep = ~a.last
    win = chunk.seats[:, :, PS_WINNER].astype(float)
    share = win / win.sum(axis=1, keepdims=True)
    final = chunk.seats[:, :, PS_SCORE].astype(float)
    g = a.game_index[keep]
    m = fit_rows(a.points[keep], a.value[keep], a.end[keep], a.roll[keep], share[g], final[g], players)
    return WinModel(players, m.win, m.score, games, seed, _digest(W))


def key(sheet, players: int, rules) -> str:
    """A model's name: that of learned's weights it reads (learned.shipped_name / store_name)."""
    return store_name(load_sheet(sheet), players, parse_rules(rules)).removesuffix(".npz")


def shipped() -> dict:
    """The shipped models, by key."""
    f = importlib.resources.files("sim.runs").joinpath("data", SHIPPED)
    return json.loads(f.read_text()) if f.is_file() else {}


def write_shipped(models: dict, path) -> None:
    atomic_write_bytes(path, (json.dumps(models, indent=1, sort_keys=True) + "\n").encode())


def _stored_path(sheet, players, rules):
    return store.path_for(f"{key(sheet, players, rules)}.winmodel.json")


def model_for(sheet, players: int, rules=RULEBOOK, fit_missing: bool = True, games: int = TRACE_FIT_GAMES) -> WinModel | None:
    """The model for learned's weights of `sheet`, `players`, `rules`: shipped (for the shipped
    weights), else kept in the weights store beside the weights (fitted on first use when
    `fit_missing`, and again when the weights changed); None at 1 player (no fit needed) or when
    there is none and `fit_missing` is false. MissingWeights if learned has no weights for them."""
    if players == 1:
        return None
    sheet = load_sheet(sheet)
    rules = weights_rules(parse_rules(rules), players)
    found = weights_file(sheet, players, rules)
    digest = _digest(weights_array(sheet, None, players, rules))
    if found is not None and found[1] == "shipped":
        d = shipped().get(key(sheet, players, rules))
        if d is not None and d.get("weights") == digest:
            return WinModel.from_dict(d)
    path = _stored_path(sheet, players, rules)
    if path.is_file():
        try:
            m = WinModel.from_dict(json.loads(path.read_text()))
            if m.weights == digest:
                return m
        except (ValueError, KeyError, TypeError):
            pass
    if not fit_missing:
        return None
    m = fit(sheet, players, rules, games)
    store.writable()
    atomic_write_bytes(path, (json.dumps(m.to_dict()) + "\n").encode())
    return m


#: Calibration: games of unseen seeds (the fit's seed + 1 on) against which each decile of the
#: predicted chances is checked.
CALIBRATION_SEED = TRACE_FIT_SEED + 1


def calibration(sheet="standard", players: int = 4, rules=RULEBOOK, games: int = 2000,
                seed: int = CALIBRATION_SEED, model: WinModel | None = None):
    """Each decile of the predicted chances of winning (every seat after every roll but the last
    of `games` games of learned's self-play on `seed`'s dice), with the mean predicted and the
    observed win rate (a tie's share to each tied winner), in percent: a DataFrame with columns
    decile, rows, predicted, observed, and ci: the observed rate's 95% half-width (the rows of one
    game are not independent: by the games, as a ratio's delta method)."""
    import pandas as pd
    from .api import play_chunk
    from .trace import trace_chunk_arrays
    sheet = load_sheet(sheet)
    rules = parse_rules(rules)
    model = model_for(sheet, players, rules) if model is None else model
    chunk = play_chunk(seed, 0, games, ["learned"], players=players, sheet=sheet, log_turns=True, rules=rules)
    a = trace_chunk_arrays(chunk, sheet, rules, samples=0)
    keep = ~a.last
    win = chunk.seats[:, :, PS_WINNER].astype(float)
    share = (win / win.sum(axis=1, keepdims=True))[a.game_index[keep]].ravel()
    p = model.win_prob(a.points[keep], a.value[keep], a.end[keep], a.roll[keep]).ravel()
    game = np.repeat(a.game_index[keep], players)
    d = np.minimum((p * 10).astype(int), 9)
    rows = []
    for k in range(10):
        sel = d == k
        n = int(sel.sum())
        row = {"decile": f"{10 * k}-{10 * k + 10}%", "rows": n, "predicted": np.nan, "observed": np.nan,
               "ci": np.nan}
        if n:
            y = np.bincount(game[sel], share[sel], minlength=games)
            c = np.bincount(game[sel], minlength=games).astype(float)
            r = y.sum() / n
            used = c > 0
            g = int(used.sum())
            var = g / max(g - 1, 1) * ((y - r * c)[used] ** 2).sum() / n ** 2
            row.update(predicted=100 * p[sel].mean(), observed=100 * r, ci=100 * Z95 * np.sqrt(var))
        rows.append(row)
    return pd.DataFrame(rows)
