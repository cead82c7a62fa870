"""The PettingZoo environment: every seat of an Encore! table is an agent.

    env = EncoreAEC(players=4, seed=7)
    env.reset()
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else policy(obs["observation"], obs["action_mask"])
        env.step(action)

Agents are "seat_0" .. "seat_{P-1}". Each roll, the active seat acts first, then the passive seats
in seat order, as the rules have them choose; the passive seats' choices are applied together
once all have chosen (sim.step holds them), so none sees another's choice of its roll. An
observation is PettingZoo's action-masked dict: "observation" (sim.observe's arrays but the mask,
from the agent's point of view: its sheet first) and "action_mask" (int8, K + 1: sim.observe's
action encoding); an agent observed while another acts sees no die available and pass alone
in its mask. With obs="flat" the observation is one float32 vector of the agent's view
(strategies.flat; the mask among its features) and its space a Box, as PettingZoo's api_test
asks; the mask is then in the agent's info["action_mask"] (in both forms), and action_masks(agent)
gives it, bool.
Rewards as sim.agents.envs' ("score": every seat's score change at each step, which
add up, per agent, to its final score minus the starting score; "final"; "margin"). Game g of
root seed s has the dice of `run`'s game g of seed s; reset() plays games 0, 1, 2, ... of its seed.
The game is stepped by sim.vector's kernels (a batch of one game, every seat external).

No PettingZoo parallel_env: a roll is not one simultaneous move. The passive seats choose among
the dice the active seat left, after its choice, so a parallel step per roll would have to hide
that choice from them (another game), and a parallel step per phase would be this AEC order with
every other agent passing by force: AEC is the turn order itself.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .. import observe, vector
from ..state import MAX_SEATS, ST_ROLL
from ..runs.defaults import AEC_PLAYERS, ENV_REWARD, MAX_ROLLS, SHEET
from strategies.flat import flat_observation
from .envs import IllegalAction, OneGame, Table, obs_form, reward_kind
from ..runs.settings import check_int

NAME = "encore-sim AEC"
_VIEW = tuple(k for k in observe.OBS_KEYS if k != "action_mask")


class EncoreAEC(AECEnv):
    """A table of `players` (2-6; 1 is the solo game, one agent) whose every seat is an agent.
    `seed`: the root seed of its games (reset(seed=...) sets another; None: drawn at the first
    reset); reset(options={"game": g}) plays game g next. `obs`: "dict" (sim.observe's arrays but
    the mask) or "flat" (one float32 vector, strategies.flat). `skip_forced`: a decision whose only
    legal action is pass is taken inside the step (the agent is not asked)."""

    metadata = {"name": "encore_sim_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, players=AEC_PLAYERS, sheet=SHEET, rules=None, reward=ENV_REWARD, seed=None,
                 max_rolls=MAX_ROLLS, render_mode=None, obs="dict", skip_forced=False):
        super().__init__()
        players = check_int("players", players, 1, MAX_SEATS)
        self.table = Table(players, range(players), None, sheet, rules, max_rolls)
        self.possible_agents = [f"seat_{s}" for s in range(players)]
        self.render_mode = render_mode
        self.reward_kind = reward_kind(reward)
        self.obs = obs_form(obs)
        if self.obs == "flat":
            self._observation_spaces = {a: self.table.flat_space() for a in self.possible_agents}
        else:
            view = self.table.space(_VIEW)
            mask = self.table.space(("action_mask",))["action_mask"]
            self._observation_spaces = {a: spaces.Dict({"observation": view, "action_mask": mask})
                                        for a in self.possible_agents}
        self._pass_only = np.zeros(self.table.k + 1, np.int8)
        self._pass_only[-1] = 1
        self._action_spaces = {a: spaces.Discrete(self.table.k + 1) for a in self.possible_agents}
        # rewards are worked out here, for every seat
        self.one = OneGame(self.table, NAME, seed, "score", skip_forced=bool(skip_forced))
        self._rng = np.random.default_rng(seed)
        self.agents = []

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    @property
    def game(self) -> int | None:
        """The number of the game being played (None before the first reset)."""
        return self.one.game

    def reset(self, seed=None, options=None):
        self.one.begin(seed, options, lambda: int(self._rng.integers(0, 2**63)))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._scores = self._scores_now()
        self.agent_selection = self.possible_agents[self.one.seat]
        self._masks()

    def _scores_now(self) -> np.ndarray:
        """Every seat's score if the game ended now, from the deciding seat's observation (its row j
        is seat (seat + j) mod P)."""
        return np.roll(self.one.obs["score"][0].astype(np.int64), self.one.seat)

    def observe(self, agent):
        vector.observe_seat(self.one.b, 0, self.possible_agents.index(agent))
        view = self.one.view
        if self.obs == "flat":
            return flat_observation(view)[0]
        return {"observation": {k: view[k][0].copy() for k in _VIEW}, "action_mask": view["action_mask"][0].copy()}

    def action_masks(self, agent=None) -> np.ndarray:
        """`agent`'s legal actions now (the agent to act unless told), bool (K + 1,): pass alone for
        an agent that is not deciding."""
        agent = agent or self.agent_selection
        if agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent]):
            return self.one.mask.astype(bool)
        return self._pass_only.astype(bool)

    def _masks(self) -> None:
        """Every agent's info["action_mask"]: the deciding agent's mask, pass alone for the others."""
        for name in self.agents:
            self.infos[name]["action_mask"] = self._pass_only.copy()
        if not self.one.over:
            self.infos[self.agent_selection]["action_mask"] = self.one.mask.copy()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.one.step(action)
        self._cumulative_rewards[agent] = 0.0
        a = self.one.arrays
        players = self.table.players
        if a["ended"][0]:
            final = a["final_scores"][0, :players].astype(np.int64)
            for s, name in enumerate(self.possible_agents):
                if self.reward_kind == "score":
                    self.rewards[name] = float(final[s] - self._scores[s])
                elif self.reward_kind == "margin" and players > 1:
                    self.rewards[name] = float(final[s] - np.delete(final, s).max())
                else:
                    self.rewards[name] = float(final[s])
                self.terminations[name] = bool(a["terminated"][0])
                self.truncations[name] = bool(a["truncated"][0])
                self.infos[name] = {"scores": final.tolist(), "game": self.one.game}
            self._masks()
            self._accumulate_rewards()
            return
        now = self._scores_now()
        for s, name in enumerate(self.possible_agents):
            self.rewards[name] = float(now[s] - self._scores[s]) if self.reward_kind == "score" else 0.0
        self._scores = now
        self._accumulate_rewards()
        self.agent_selection = self.possible_agents[self.one.seat]
        self._masks()

    def render(self):
        """Nothing: the environment has no render modes (`encore-sim replay` draws a game's sheets)."""
        return None

    def close(self) -> None:
        """Nothing to release: the batch's arrays go with the environment."""

    def greedy_action(self) -> int:
        """sim.players.greedy's choice for the agent to act, as an action (sim.vector.greedy_actions)."""
        return self.one.greedy_action()

    @property
    def roll(self) -> int:
        return int(self.one.arrays["table"][0, ST_ROLL])


__all__ = ["EncoreAEC", "IllegalAction"]
