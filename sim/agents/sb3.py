"""Stable-Baselines3 on the compiled vector environment: an SB3 VecEnv whose n games are stepped
in one compiled call (sim.agents.envs.EncoreVectorEnv), with the masks sb3-contrib's MaskablePPO
asks for (the `sb3` extra: stable-baselines3, sb3-contrib, torch).

    venv = EncoreSB3VecEnv(64, seed=7)              # solo; any option of EncoreVectorEnv
    model = MaskablePPO("MlpPolicy", venv)          # obs="flat" by default: one float32 Box
    model.learn(100_000)

SB3's conventions: a game's end begins the env's next game in the same step (Gymnasium's
SAME_STEP autoreset), its last observation in info["terminal_observation"]; `dones` is
terminated or truncated, info["TimeLimit.truncated"] tells a truncation. A game's end also puts
"episode" (r: its rewards' sum, l: its decisions, t: seconds since the env was made, as SB3's
Monitor writes it), "scores" and "game" in its env's info. env_method("action_masks") and
action_masks() give the masks (bool, one row per env).
"""
from __future__ import annotations

import time

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv

from .envs import EncoreVectorEnv


class EncoreSB3VecEnv(VecEnv):
    """num_envs games of one seat, as EncoreVectorEnv's options say (obs: "flat" unless told),
    behind Stable-Baselines3's VecEnv interface. `venv`: the Gymnasium vector env it steps."""

    def __init__(self, num_envs, obs="flat", **options):
        self.venv = EncoreVectorEnv(num_envs, obs=obs, autoreset_mode=AutoresetMode.SAME_STEP, **options)
        super().__init__(num_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self._actions = None
        self._returns = np.zeros(num_envs)
        self._lengths = np.zeros(num_envs, np.int64)
        self._start = time.perf_counter()

    def reset(self):
        obs, _ = self.venv.reset(seed=self._seeds[0], options=self._options[0] or None)
        self._reset_seeds()
        self._reset_options()
        self._returns[:] = 0
        self._lengths[:] = 0
        return obs

    def step_async(self, actions) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        obs, rewards, terminated, truncated, info = self.venv.step(self._actions)
        self._returns += rewards
        self._lengths += 1
        dones = terminated | truncated
        infos = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i] = {"terminal_observation": info["final_obs"][i],
                        "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                        "episode": {"r": float(self._returns[i]), "l": int(self._lengths[i]),
                                    "t": round(time.perf_counter() - self._start, 6)},
                        "scores": info["scores"][i].tolist(), "game": int(info["game"][i])}
            self._returns[i] = 0
            self._lengths[i] = 0
        return obs, rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """The legal actions of every env's decision, bool (num_envs, K + 1): what MaskablePPO reads."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name, indices=None):
        target = self if attr_name == "action_masks" else self.venv
        value = getattr(target, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name, value, indices=None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        """Each env's result of the vector env's method: one row per env of a per-env array
        (action_masks, greedy_actions), else the one result for each env."""
        fn = getattr(self, method_name) if method_name == "action_masks" else getattr(self.venv, method_name)
        result = fn(*method_args, **method_kwargs)
        rows = isinstance(result, np.ndarray) and result.shape[:1] == (self.num_envs,)
        return [result[i] if rows else result for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False for _ in self._get_indices(indices)]
