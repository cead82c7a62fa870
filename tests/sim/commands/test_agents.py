"""The learning environments made as commands (sim.commands.agents): each hands its settings, and
sim.runs.defaults' defaults, to its environment class."""
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import sim.agents.aec as aec  # noqa: E402
import sim.agents.envs as envs  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

from sim.commands.agents import aec_env, env, vector_env  # noqa: E402
from sim.runs import defaults as D  # noqa: E402


@pytest.fixture
def made(monkeypatch):
    """The environment classes, each recording what it was made with."""
    calls = []

    def recorder(name):
        return lambda *args, **kw: calls.append((name, args, kw)) or name
    monkeypatch.setattr(envs, "EncoreEnv", recorder("env"))
    monkeypatch.setattr(envs, "EncoreVectorEnv", recorder("vector"))
    monkeypatch.setattr(aec, "EncoreAEC", recorder("aec"))
    return calls


def test_the_defaults_are_sim_runs_defaults(made):
    assert (env(), vector_env(), aec_env()) == ("env", "vector", "aec")
    (_, _, e), (_, v_args, v), (_, _, a) = made
    assert (e["players"], e["opponents"], e["reward"], e["max_rolls"], e["sheet"]) == (
        D.PLAYERS, None, D.ENV_REWARD, D.MAX_ROLLS, D.SHEET)
    assert v_args == (D.VECTOR_ENVS,) and v["autoreset_mode"] == AutoresetMode.NEXT_STEP and v["copy"] is True
    assert a["players"] == D.AEC_PLAYERS and a["reward"] == D.ENV_REWARD


def test_the_settings_given_are_handed_on(made):
    env(4, ["greedy", "random", "learned"], seat=2, sheet="blue", rules="jokers=6", reward="margin", seed=5,
        max_rolls=80, obs="flat", skip_forced=True)
    vector_env(8, 2, "random", autoreset_mode=AutoresetMode.SAME_STEP, copy=False, seed=1)
    aec_env(3, reward="final", seed=9)
    (_, _, e), (_, v_args, v), (_, _, a) = made
    assert e == {"players": 4, "opponents": ["greedy", "random", "learned"], "seat": 2, "sheet": "blue",
                 "rules": "jokers=6", "reward": "margin", "seed": 5, "max_rolls": 80, "obs": "flat",
                 "skip_forced": True}
    assert v_args == (8,) and (v["players"], v["opponents"], v["autoreset_mode"], v["copy"], v["seed"]) == (
        2, "random", AutoresetMode.SAME_STEP, False, 1)
    assert (a["players"], a["reward"], a["seed"]) == (3, "final", 9)
