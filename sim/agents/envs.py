"""Gymnasium environments over the vector kernels: one seat of Encore! for a learning agent.

    env = EncoreEnv(players=1)                          # the solo game; or players=4, opponents="learned"
    obs, info = env.reset(seed=7)                       # game 0 of root seed 7 (run's game 0 of seed 7)
    obs, reward, terminated, truncated, info = env.step(action)

    venv = EncoreVectorEnv(1024, players=1, seed=7)     # 1024 games stepped in one compiled call
    obs, info = venv.reset()
    obs, rewards, terminated, truncated, info = venv.step(actions)

The spaces and the action encoding are sim.observe's: Discrete(K + 1) (placement row a at its fewest
'!', or K: pass), the observation a Dict of Box spaces holding the mask ("action_mask", also in
info["action_mask"] and action_masks()) and the costs ("action_cost"); obs="flat" makes it one
float32 Box of features scaled to [0, 1] or [-1, 1], the mask among them (strategies.flat). The other seats are built-in strategies (any
spec; "greedy" unless told), seats not rotated. Game g of root seed s has the dice of `run`'s game g
of seed s, so an agent that chooses as a strategy would plays that strategy's game, move for move.
EncoreEnv plays games 0, 1, 2, ... of its seed, one per reset; the vector env's env i plays games
i, i + n, i + 2n, ... (n envs), whatever the others' games (sim.vector).

Rewards (`reward`): "score" (the change of the agent's score, as if the game ended now, since its
last decision: a game's rewards add up to its final score minus the starting score), "final" (the
final score at the end, else 0), "margin" (at the end, the final score minus the best opponent's;
solo: the final score). A game stopped by the roll cap (never reached in practice) is truncated.

The ids "encore-sim/Solo-v0" and "encore-sim/Table-v0" (4 players, greedy opponents) are
registered for gymnasium.make and gymnasium.make_vec (which builds EncoreVectorEnv, one compiled
call, for vectorization_mode="vector_entry_point") by sim.agents.register, which `import
encore_sim` and this module call.
"""
from __future__ import annotations

import numpy as np
import gymnasium
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .. import observe, vector
from ..engine import GR_ERROR, GR_ERR_ROLL, GR_ERR_SEAT, GR_ERR_VALUE
from ..state import MAX_SEATS, ST_ROLL
from ..step import SP_GAME, SP_SEAT
from ..tables import build_tables, kernel_tables
from strategies.flat import flat_bounds, flat_observation
from . import SOLO_ID, TABLE_ID, register
from ..runs.game import GameInProgress, outside_lineup
from ..runs.defaults import ENV_OPPONENTS, ENV_REWARD, MAX_ROLLS, PLAYERS, SHEET, VECTOR_ENVS
from ..runs.settings import MAX_GAME_INDEX, MAX_SEED, check_int

#: The observation's forms: sim.observe's dict of arrays, or one float32 vector (strategies.flat).
OBS_FORMS = ("dict", "flat")
_AUTORESET = {AutoresetMode.NEXT_STEP: vector.AUTORESET_NEXT_STEP, AutoresetMode.SAME_STEP: vector.AUTORESET_SAME_STEP,
              AutoresetMode.DISABLED: vector.AUTORESET_DISABLED}


class IllegalAction(ValueError):
    """An action that is not legal for the deciding seat (its action_mask is 0); nothing changed."""


class SampledAction(int):
    """An action LegalActions.sample() drew: a legal action of the decision it was drawn at, and
    the draw (a uniform number in [0, 1)) that chose it among that decision's legal actions.
    Stepped at another decision where it is not legal (the environment was reset in between, as
    gymnasium's env checker does), it stands for the same draw among that decision's actions."""

    def __new__(cls, action, draw):
        self = super().__new__(cls, action)
        self.draw = draw
        return self

    def among(self, mask) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[min(int(self.draw * len(legal)), len(legal) - 1)])


class LegalActions(spaces.Discrete):
    """Discrete(K + 1) whose sample() draws one of the legal actions of the decision at hand (the
    environment's current action_mask, which `legal` is a view of) unless given a mask or
    probabilities: random play, as gymnasium's env checker and users' loops call it, is legal."""

    def __init__(self, n, legal, seed=None):
        super().__init__(n, seed=seed)
        self.legal = legal

    def sample(self, mask=None, **kwargs):
        if mask is not None or kwargs:
            return super().sample(mask, **kwargs)
        draw = float(self.np_random.random())
        return SampledAction(SampledAction(0, draw).among(self.legal), draw)


class LegalActionsBatch(spaces.MultiDiscrete):
    """MultiDiscrete over the envs of a vector env, whose sample() draws a legal action in each
    (`legal`: a view of the current action masks, one row per env) unless given masks."""

    def __init__(self, n, legal, seed=None):
        super().__init__(np.full(legal.shape[0], n), seed=seed)
        self.legal = legal

    def sample(self, mask=None, **kwargs):
        if mask is not None or kwargs:
            return super().sample(mask, **kwargs)
        counts = self.legal.sum(axis=1, dtype=np.int64)
        picks = (self.np_random.random(len(counts)) * counts).astype(np.int64)
        return (self.legal.cumsum(axis=1, dtype=np.int64) > picks[:, None]).argmax(axis=1).astype(self.dtype)


class Table:
    """What an environment plays: the players, which seats are decided outside (the agents'), the
    other seats' strategies, the sheet, the rules, the roll cap; the spaces and the batch arrays."""

    def __init__(self, players, external, opponents=None, sheet=SHEET, rules=None, max_rolls=MAX_ROLLS):
        self.players = players = check_int("players", players, 1, MAX_SEATS)
        self.external = tuple(sorted(check_int("seat", s, 0, players - 1) for s in external))
        others = players - len(self.external)
        if opponents is None:
            opponents = [ENV_OPPONENTS] * others
        elif isinstance(opponents, str):
            opponents = [opponents] * others
        opponents = list(opponents)
        if len(opponents) != others:
            raise ValueError(f"opponents must be one strategy spec, or a list of {others} (one per other seat), "
                             f"got {len(opponents)}")
        rest = iter(opponents)
        #: The seats' specs, None for the agents' (sim.runs.game.outside_lineup).
        self.strategies = [None if s in self.external else next(rest) for s in range(players)]
        line = outside_lineup(self.strategies, sheet, rules)
        self.line, self.kinds, self.specs = line, line.kinds, tuple(line.specs)
        self.opponents = tuple(opponents)
        self.sheet, self.rules = line.sheet, line.rules
        self.max_rolls = self.rules.solo_rolls if players == 1 else check_int("max_rolls", max_rolls, 1, 10_000)
        tables = build_tables(self.sheet, self.rules)
        self.k = len(tables.size)
        self.tab_rules = tables.rules.tolist()      # the observation's "rules"
        self.tab = kernel_tables(self.sheet, self.rules)
        self.spec = observe.obs_spec(players, self.k)
        self._bound()

    def _bound(self) -> None:
        """The spec's bounds of the roll, the scores and the rules, narrowed to those these
        rules allow (the kernels' dtypes allow more)."""
        r = self.rules
        columns = sum(max(first, later) for first, later in zip(*r.column_points))
        high = columns + 5 * max(r.colour_bonus) + r.jokers
        low = -(15 * r.star_penalty + self.max_rolls * r.pass_penalty)     # every sheet has 15 stars
        for name, lo, hi in (("roll", 0, self.max_rolls), ("score", low, high), ("rules", 0, max(self.tab_rules))):
            shape, dtype, _, _ = self.spec[name]
            limits = np.iinfo(dtype)      # what the array holds: a long table's pass penalties can pass it
            self.spec[name] = shape, dtype, max(lo, limits.min), min(hi, limits.max)

    def space(self, keys=observe.OBS_KEYS) -> spaces.Dict:
        """The observation space of one decision (the arrays named by `keys`)."""
        return spaces.Dict({name: spaces.Box(low, high, shape, dtype)
                            for name, (shape, dtype, low, high) in self.spec.items() if name in keys})

    def flat_space(self) -> spaces.Box:
        """The observation space of one decision as features (obs="flat": strategies.flat)."""
        low, high = flat_bounds(self.players, self.k)
        return spaces.Box(low, high, dtype=np.float32)

    def observation_space(self, obs: str):
        """The space of one decision's observation in the form `obs` ("dict" or "flat")."""
        return self.flat_space() if obs_form(obs) == "flat" else self.space()

    def batch(self, n, root, reward, autoreset, skip_forced=False):
        """A sim.vector.Rows of n games and its arrays; obs and final_obs by name."""
        b, arrays = vector.new_rows(n, self.line.fns, self.kinds, self.line.params, self.tab, self.k,
                                    self.players, self.max_rolls, root=root, reward=reward_kind(reward),
                                    autoreset=autoreset, skip_forced=skip_forced)
        return b, arrays, arrays["obs"], arrays["final_obs"]


def reward_kind(reward) -> str:
    """`reward` if it names a kind of reward (sim.vector.REWARDS), else ValueError in one line."""
    if reward not in vector.REWARDS:
        raise ValueError(f"reward must be one of {', '.join(vector.REWARDS)}, got {reward!r}")
    return reward


def obs_form(obs) -> str:
    """`obs` if it names a form of the observation (OBS_FORMS), else ValueError in one line."""
    if obs not in OBS_FORMS:
        raise ValueError(f"obs must be one of {', '.join(OBS_FORMS)}, got {obs!r}")
    return obs


def _root(seed) -> int:
    return check_int("seed", seed, 0, MAX_SEED)


def _action(action, where: str) -> int:
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise IllegalAction(f"{where}: action {action!r} is not an action: an integer of the action space")
    return int(action)


def _failed(arrays, row: int, where: str) -> RuntimeError:
    gres = arrays["gres"][row]
    return RuntimeError(f"{where}: a built-in strategy failed at roll {gres[GR_ERR_ROLL]}, seat {gres[GR_ERR_SEAT]} "
                        f"(error {gres[GR_ERROR]}, value {gres[GR_ERR_VALUE]}); the game stops there")


def _illegal(name, arrays, obs, row, action, env_label):
    seat = int(arrays["sp"][row, SP_SEAT])
    roll = int(arrays["table"][row, ST_ROLL])
    legal = int(obs["action_mask"][row].sum())
    return IllegalAction(f"{name}{env_label}: seat {seat} cannot take action {action} at roll {roll}: it is not "
                         f"one of its {legal} legal actions (action_mask)")


class OneGame:
    """One game at a time of a Table: games 0, 1, 2, ... of a root seed, one a begin(). What
    EncoreEnv and the PettingZoo env (sim.agents.aec) step: a sim.runs.game.GameInProgress (the one
    game stepped from outside, as the play page's) stepped by actions; `arrays`, `obs` and `view`
    are its rows' arrays (sim.vector.new_rows), its observation and a seat's look
    (sim.vector.observe_seat), rows of one."""

    def __init__(self, table: Table, name: str, seed, reward, skip_forced=False):
        self.table, self.name = table, name
        self.root = None if seed is None else _root(seed)
        self.gip = GameInProgress(self.root or 0, 0, table.strategies, table.sheet, table.rules, table.max_rolls,
                                  line=table.line, reward=reward, logged=False, skip_forced=skip_forced, start=False)
        self.b, self.arrays, self.obs, self.view = self.gip.b, self.gip.arrays, self.gip.obs, self.gip.view
        vector.compiled()   # greedy_actions and observe_seat too, which GameInProgress leaves
        self.game = None

    def begin(self, seed, options, draw) -> None:
        """The next game: game 0 of `seed` if given, options["game"] if given, else the one after
        the last; draw() gives the root seed when none was ever given. A strategy that fails (a
        user's writing to the game) raises StrategyError, as in `run`."""
        if seed is not None:
            self.root, self.game = _root(seed), None
        elif self.root is None:
            self.root = draw()
        game = 0 if self.game is None else self.game + 1
        if options and "game" in options:
            game = check_int("game", options["game"], 0, MAX_GAME_INDEX)
        self.game = game
        self.gip.begin(game, self.root)

    def step(self, action) -> None:
        """The deciding seat takes `action`: IllegalAction, and nothing changed, if it may not."""
        action = _action(action, f"{self.name}, seat {self.seat}")
        if self.gip.act(action) == 0:
            raise _illegal(self.name, self.arrays, self.obs, 0, action, "")

    @property
    def seat(self) -> int:
        """The seat deciding now; -1 once the game is over."""
        return int(self.arrays["sp"][0, SP_SEAT])

    @property
    def over(self) -> bool:
        return bool(self.arrays["wait"][0])

    @property
    def mask(self) -> np.ndarray:
        """The deciding seat's action mask (the array the kernels write)."""
        return self.obs["action_mask"][0]

    def greedy_action(self) -> int:
        """sim.players.greedy's choice now, as an action (sim.vector.greedy_actions)."""
        out = np.empty(1, np.int64)
        vector.greedy_actions(self.b, out)
        return int(out[0])


class EncoreEnv(gymnasium.Env):
    """One seat of Encore! (`seat`, 0 by default): the solo game (players=1) or a table of 2-6 against
    built-in strategies (`opponents`: one spec for every other seat, or one each; "greedy" unless
    told). `seed`: the root seed of the games (reset(seed=...) sets another; None: drawn at the first
    reset). reset(options={"game": g}) plays game g next. `obs`: "dict" (sim.observe's arrays) or
    "flat" (one float32 vector, strategies.flat). action_masks(): the legal actions now.
    `skip_forced`: a decision whose only legal action is pass is taken inside the step, its reward
    added to the next one's (the same games and scores, fewer decisions)."""

    metadata = {"render_modes": []}

    def __init__(self, players=PLAYERS, opponents=None, seat=0, sheet=SHEET, rules=None, reward=ENV_REWARD, seed=None,
                 max_rolls=MAX_ROLLS, render_mode=None, obs="dict", skip_forced=False):
        self.table = Table(players, [seat], opponents, sheet, rules, max_rolls)
        self.seat = seat
        self.name = SOLO_ID if players == 1 else TABLE_ID
        self.reward_kind = reward_kind(reward)
        self.obs = obs_form(obs)
        self.one = OneGame(self.table, self.name, seed, reward, skip_forced=bool(skip_forced))
        self.observation_space = self.table.observation_space(self.obs)
        self.action_space = LegalActions(self.table.k + 1, self.one.mask)
        self.render_mode = render_mode

    @property
    def game(self) -> int | None:
        """The number of the game being played (None before the first reset)."""
        return self.one.game

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.one.begin(seed, options, lambda: int(self.np_random.integers(0, 2**63)))
        return self._observation(), self._info()

    def step(self, action):
        if self.one.game is None:
            raise gymnasium.error.ResetNeeded(f"{self.name}: call reset() before step()")
        if self.one.over:
            raise gymnasium.error.ResetNeeded(f"{self.name}: the game is over: call reset() before step()")
        if isinstance(action, SampledAction) and not self.one.mask[int(action)]:
            action = action.among(self.one.mask)
        self.one.step(action)
        a = self.one.arrays
        info = self._info()
        if a["ended"][0]:
            info["scores"] = a["final_scores"][0, :self.table.players].tolist()
        return self._observation(), float(a["reward"][0]), bool(a["terminated"][0]), bool(a["truncated"][0]), info

    def greedy_action(self) -> int:
        """sim.players.greedy's choice now, as an action (sim.vector.greedy_actions): the reference
        player through this encoding."""
        return self.one.greedy_action()

    def action_masks(self) -> np.ndarray:
        """The legal actions of the decision at hand, bool (K + 1,): info["action_mask"] as
        sb3-contrib's MaskablePPO and ActionMasker read it."""
        return self.one.mask.astype(bool)

    def _observation(self):
        if self.obs == "flat":
            return flat_observation(self.one.obs)[0]
        return {name: array[0].copy() for name, array in self.one.obs.items()}

    def _info(self) -> dict:
        return {"action_mask": self.one.mask.copy(), "game": self.one.game,
                "roll": int(self.one.arrays["table"][0, ST_ROLL])}


class EncoreVectorEnv(VectorEnv):
    """num_envs games of one seat each (EncoreEnv's settings), stepped in one compiled call
    (sim.vector.step_rows): env i plays games first + i, first + i + num_envs, ... of the root
    seed (reset(seed=s, options={"game": first}); first 0 by default). `autoreset_mode`: Gymnasium's
    (metadata["autoreset_mode"]); NEXT_STEP by default, SAME_STEP puts the ended game's last
    observation in info["final_obs"]. `copy`: return copies of the observation arrays (the
    kernels write the same arrays at every step; copy=False hands them out as they are). `obs`:
    "dict" or "flat", `skip_forced` (EncoreEnv's). action_masks(): every env's legal actions."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs=VECTOR_ENVS, players=PLAYERS, opponents=None, seat=0, sheet=SHEET, rules=None,
                 reward=ENV_REWARD, seed=None, max_rolls=MAX_ROLLS, autoreset_mode=AutoresetMode.NEXT_STEP, copy=True,
                 render_mode=None, obs="dict", skip_forced=False):
        self.num_envs = n = check_int("num_envs", num_envs, 1, 1 << 24)
        self.table = Table(players, [seat], opponents, sheet, rules, max_rolls)
        self.seat = seat
        self.name = SOLO_ID if players == 1 else TABLE_ID
        mode = AutoresetMode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.obs = obs_form(obs)
        self.single_observation_space = self.table.observation_space(self.obs)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.render_mode = render_mode
        self.copy = copy
        self._root = None if seed is None else _root(seed)
        self._b, self._arrays, self._obs, self._final_obs = self.table.batch(n, self._root or 0, reward_kind(reward),
                                                                            _AUTORESET[mode], bool(skip_forced))
        self.single_action_space = spaces.Discrete(self.table.k + 1)
        self.action_space = LegalActionsBatch(self.table.k + 1, self._obs["action_mask"])
        self._reset, self._step, self._check = vector.compiled()[:3]
        self._started = False

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        n = self.num_envs
        options = options or {}
        which = np.ones(n, np.int8)
        if "reset_mask" in options:
            which = np.asarray(options["reset_mask"], bool).astype(np.int8)
            if which.shape != (n,):
                raise ValueError(f"{self.name}: reset_mask must have {n} items, got shape {which.shape}")
        if seed is not None:
            self._root, self._started = _root(seed), False
        elif self._root is None:
            self._root = int(self.np_random.integers(0, 2**63))
        if "game" in options:
            first = check_int("game", options["game"], 0, MAX_GAME_INDEX - n)
            games = first + np.arange(n, dtype=np.int64)
        elif not self._started:
            games = np.arange(n, dtype=np.int64)
        else:
            games = self._arrays["sp"][:, SP_GAME] + n
        self._arrays["config"][vector.CF_ROOT] = np.uint64(self._root).astype(np.int64)
        failed = self._reset(self._b, np.ascontiguousarray(which), games)
        self._started = True
        if failed != vector.OK:
            raise _failed(self._arrays, failed, f"{self.name} env {failed}")
        return self._observation(), self._info()

    def step(self, actions):
        if not self._started:
            raise gymnasium.error.ResetNeeded(f"{self.name}: call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or a.dtype.kind not in "iu":
            raise ValueError(f"{self.name}: actions must be {self.num_envs} integers (one per env), got "
                             f"{a.dtype} of shape {a.shape}")
        a = np.ascontiguousarray(a, np.int64)
        games = self._arrays["sp"][:, SP_GAME].copy()
        status = self._step(self._b, a)
        if status >= 0:
            raise _illegal(self.name, self._arrays, self._obs, status, int(a[status]), f" env {status}")
        if status != vector.OK:
            raise _failed(self._arrays, -2 - status, f"{self.name} env {-2 - status}")
        arrays = self._arrays
        info = self._info()
        ended = arrays["ended"]
        if ended.any():
            players = self.table.players
            info["scores"] = arrays["final_scores"][:, :players].copy()
            info["_scores"] = ended.copy()
            info["game"] = games
            info["_game"] = ended.copy()
            if self.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP:
                rows = np.flatnonzero(ended)
                final = np.full(self.num_envs, None, object)
                final_info = np.full(self.num_envs, None, object)
                flat = flat_observation(self._final_obs) if self.obs == "flat" else None
                for i in rows:
                    final[i] = flat[i] if flat is not None else {name: array[i].copy()
                                                                 for name, array in self._final_obs.items()}
                    final_info[i] = {"scores": info["scores"][i].tolist(), "game": int(games[i])}
                info["final_obs"], info["_final_obs"] = final, ended.copy()
                info["final_info"], info["_final_info"] = final_info, ended.copy()
        return (self._observation(), self._copied(arrays["reward"]), self._copied(arrays["terminated"]),
                self._copied(arrays["truncated"]), info)

    def _copied(self, array):
        return array.copy() if self.copy else array

    def _observation(self):
        if self.obs == "flat":
            return flat_observation(self._obs)
        return {name: self._copied(array) for name, array in self._obs.items()}

    def action_masks(self) -> np.ndarray:
        """The legal actions of every env's decision, bool (num_envs, K + 1)."""
        return self._obs["action_mask"].astype(bool)

    def _info(self) -> dict:
        return {"action_mask": self._copied(self._obs["action_mask"]), "_action_mask": np.ones(self.num_envs, bool)}

    @property
    def batch(self):
        """The sim.vector.Rows that the kernels step (for kernels of one's own, and benchmarks)."""
        return self._b

    @property
    def masks(self) -> np.ndarray:
        """The action masks of the envs' decisions (N, K + 1): the array the kernels write in place."""
        return self._obs["action_mask"]

    @property
    def games(self) -> np.ndarray:
        """The number of each env's game in progress (or just ended)."""
        return self._arrays["sp"][:, SP_GAME].copy()

    def greedy_actions(self) -> np.ndarray:
        """sim.players.greedy's choice in every env, as actions (sim.vector.greedy_actions): the
        reference player through this encoding."""
        out = np.empty(self.num_envs, np.int64)
        vector.greedy_actions(self._b, out)
        return out

    def random_actions(self, state: np.ndarray) -> np.ndarray:
        """A uniformly random legal action in every env, from the SplitMix64 stream state (a uint64
        array of one item, sim.rng): random masked play, compiled."""
        out = np.empty(self.num_envs, np.int64)
        vector.random_actions(self._obs["action_mask"], state, out)
        return out


register()
