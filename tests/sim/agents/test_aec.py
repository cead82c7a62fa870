"""The PettingZoo environment (sim.agents.aec): each roll its active seat acts first and every seat
once; a seat's rewards add up to its final score as its reward kind has it; an agent watching
another act may only pass. PettingZoo's own checker and `run`'s game: tests/sim/agents/test_envs.py."""
import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from sim.agents.aec import EncoreAEC  # noqa: E402

START = -22     # 8 '!' and 15 open stars at 2 points each: every game's starting score by the rulebook


def play(env, options=None):
    """A game of greedy actions: (the agents in the order they acted, with their roll; each agent's
    rewards step by step)."""
    env.reset(options=options)
    order, rewards = [], {a: [] for a in env.possible_agents}
    while not all(env.terminations.values()) and not all(env.truncations.values()):
        order.append((env.roll, env.agent_selection))
        env.step(env.greedy_action())
        for a in env.possible_agents:
            rewards[a].append(env.rewards[a])
    return order, rewards


def test_each_roll_the_active_seat_acts_first_then_each_other_seat_once():
    env = EncoreAEC(players=3, seed=5)
    order, _ = play(env)
    rolls = sorted({r for r, _ in order})
    assert rolls == list(range(1, rolls[-1] + 1))
    for r in rolls:
        agents = [a for roll, a in order if roll == r]
        assert agents[0] == f"seat_{(r - 1) % 3}" and sorted(agents) == ["seat_0", "seat_1", "seat_2"]


@pytest.mark.parametrize("players", [1, 3])
def test_score_rewards_add_up_to_the_final_score_less_the_start(players):
    env = EncoreAEC(players=players, seed=2)
    _, rewards = play(env, {"game": 4})
    assert env.game == 4
    final = env.infos["seat_0"]["scores"]
    assert [sum(rewards[a]) for a in env.possible_agents] == [s - START for s in final]


def test_final_and_margin_rewards_come_at_the_end():
    scores = {}
    for kind in ("final", "margin"):
        env = EncoreAEC(players=3, seed=2, reward=kind)
        _, rewards = play(env, {"game": 4})
        scores[kind] = [r[-1] for r in rewards.values()]
        assert all(r == 0 for rs in rewards.values() for r in rs[:-1])
    final = scores["final"]
    assert scores["margin"] == [f - max(np.delete(final, s)) for s, f in enumerate(final)]


def test_an_agent_watching_another_act_may_only_pass():
    env = EncoreAEC(players=3, seed=7)
    env.reset()
    acting = env.agent_selection
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        if agent == acting:
            assert mask[:-1].any()
        else:
            assert mask.tolist() == [0] * (len(mask) - 1) + [1]
