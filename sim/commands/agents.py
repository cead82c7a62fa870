"""The learning environments, made as the commands are (their defaults sim.runs.defaults'): a
Gymnasium env of one seat, a vector env of many games stepped in one compiled call, a PettingZoo
AEC env whose agents are the seats (the `rl` extra: gymnasium and pettingzoo, imported only here
and by the env modules, never by a plain run); a Stable-Baselines3 VecEnv over the vector env (the
`sb3` extra). obs: "dict" (sim.observe's arrays) or "flat" (one float32 vector, strategies.flat);
skip_forced: a decision whose only legal action is pass is taken inside the step (off unless told)."""
from __future__ import annotations

from ..runs import defaults as D


def env(players: int = D.PLAYERS, opponents=None, *, seat: int = 0, sheet=D.SHEET, rules=None, reward: str = D.ENV_REWARD,
        seed: int | None = None, max_rolls: int = D.MAX_ROLLS, obs: str = "dict", skip_forced: bool = False):
    """A gymnasium.Env of one seat (`seat`): the solo game, or a table of `players` whose other seats
    `opponents` play (one strategy spec, or a list; sim.runs.defaults.ENV_OPPONENTS unless told).
    reward: "score", "final" or "margin". Game g of `seed` has run's game g's dice (sim.agents.envs)."""
    from ..agents.envs import EncoreEnv
    return EncoreEnv(players=players, opponents=opponents, seat=seat, sheet=sheet, rules=rules, reward=reward,
                     seed=seed, max_rolls=max_rolls, obs=obs, skip_forced=skip_forced)


def vector_env(num_envs: int = D.VECTOR_ENVS, players: int = D.PLAYERS, opponents=None, *, seat: int = 0, sheet=D.SHEET,
               rules=None, reward: str = D.ENV_REWARD, seed: int | None = None, max_rolls: int = D.MAX_ROLLS,
               autoreset_mode=None, copy: bool = True, obs: str = "dict", skip_forced: bool = False):
    """A gymnasium.vector.VectorEnv of num_envs games (env's settings) stepped in one compiled call;
    autoreset_mode: gymnasium.vector.AutoresetMode (NEXT_STEP unless told)."""
    from gymnasium.vector import AutoresetMode
    from ..agents.envs import EncoreVectorEnv
    return EncoreVectorEnv(num_envs, players=players, opponents=opponents, seat=seat, sheet=sheet, rules=rules,
                           reward=reward, seed=seed, max_rolls=max_rolls,
                           autoreset_mode=autoreset_mode or AutoresetMode.NEXT_STEP, copy=copy, obs=obs,
                           skip_forced=skip_forced)


def sb3_vec_env(num_envs: int = D.VECTOR_ENVS, players: int = D.PLAYERS, opponents=None, *, seat: int = 0,
                sheet=D.SHEET, rules=None, reward: str = D.ENV_REWARD, seed: int | None = None,
                max_rolls: int = D.MAX_ROLLS, obs: str = "flat", skip_forced: bool = False):
    """A stable_baselines3 VecEnv of num_envs games (vector_env's settings) stepped in one compiled
    call, with the masks MaskablePPO asks for (sim.agents.sb3; obs "flat" unless told)."""
    try:
        from ..agents.sb3 import EncoreSB3VecEnv
    except ImportError as e:
        raise ImportError(f"sb3_vec_env needs the sb3 extra (pip install 'encore-sim[sb3]'): {e}") from None
    return EncoreSB3VecEnv(num_envs, players=players, opponents=opponents, seat=seat, sheet=sheet, rules=rules,
                           reward=reward, seed=seed, max_rolls=max_rolls, obs=obs, skip_forced=skip_forced)


def aec_env(players: int = D.AEC_PLAYERS, *, sheet=D.SHEET, rules=None, reward: str = D.ENV_REWARD,
            seed: int | None = None, max_rolls: int = D.MAX_ROLLS, obs: str = "dict", skip_forced: bool = False):
    """A PettingZoo AEC environment whose agents are the seats (seat_0 ...): the roll's active seat
    acts first, then the passive seats, whose choices apply together (sim.agents.aec)."""
    from ..agents.aec import EncoreAEC
    return EncoreAEC(players=players, sheet=sheet, rules=rules, reward=reward, seed=seed, max_rolls=max_rolls, obs=obs,
                     skip_forced=skip_forced)
