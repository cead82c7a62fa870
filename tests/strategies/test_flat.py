"""The observation as features (strategies.flat): each feature holds what its part of the dict
says, scaled into the bounds the Box declares, the same for one decision and for a batch."""
import numpy as np
import pytest

from sim.agents.envs import Table
from sim.observe import new_obs
from strategies.flat import FEATURES, SCORE_SCALE, flat_bounds, flat_layout, flat_observation

pytest.importorskip("gymnasium")


def played(players, rules=None, games=3, decisions=40):
    """Observations of `games` games at `players` seats after up to `decisions` greedy steps, one row a step."""
    import encore_sim
    env = encore_sim.vector_env(games, players, seed=4, rules=rules)
    rows = []
    obs, _ = env.reset()
    for _ in range(decisions):
        rows.append(obs)
        obs, *_ = env.step(env.greedy_actions())
    return {k: np.concatenate([r[k] for r in rows]) for k in obs}, env.table


@pytest.mark.parametrize("players, rules", [(1, None), (4, None), (2, "joker-six,jokers=5,pass-penalty=1")])
def test_every_feature_holds_its_part_of_the_observation_within_the_bounds(players, rules):
    obs, table = played(players, rules)
    x = flat_observation(obs)
    layout = flat_layout(players, table.k)
    low, high = flat_bounds(players, table.k)
    assert x.dtype == np.float32 and x.shape == (len(obs["roll"]), layout["action_cost"].stop) == (len(x), len(low))
    assert list(layout) == list(FEATURES)
    assert (x >= low).all() and (x <= high).all()
    n = len(x)
    for name in ("crossed", "columns", "colours", "columns_taken", "colours_taken", "available", "active",
                 "action_mask"):
        assert np.array_equal(x[:, layout[name]], obs[name].reshape(n, -1)), name
    assert np.array_equal(x[:, layout["action_cost"]] * 2, obs["action_cost"])
    assert np.allclose(x[:, layout["score"]] * SCORE_SCALE, obs["score"])
    assert np.allclose(x[:, layout["jokers"]] * table.rules.jokers, obs["jokers"])
    faces = x[:, layout["dice"]].reshape(n, 6, 6)
    rolled = obs["dice"] >= 0
    assert np.array_equal(faces.sum(axis=2), rolled)
    assert np.array_equal(np.where(rolled, faces.argmax(axis=2), -1), obs["dice"])
    assert np.allclose(x[:, layout["roll"]][:, 0], np.minimum(obs["roll"][:, 0] / (2 * table.rules.solo_rolls), 1))
    assert len(np.unique(x[:, layout["rules"]], axis=0)) == 1 and (x[:, layout["rules"]] > 0).any()


def test_one_decision_is_the_row_of_a_batch_and_no_start_in_the_rules_is_no_division_by_zero():
    obs, _ = played(1, games=2, decisions=2)
    batch = flat_observation(obs)
    assert np.array_equal(flat_observation({k: v[1] for k, v in obs.items()}), batch[1])
    blank = new_obs(1, 1, 321)      # rules all 0: no '!' at the start, no solo rolls
    blank["jokers"][:] = 3
    x = flat_observation(blank)
    assert np.isfinite(x).all() and not x[0, flat_layout(1, 321)["jokers"]].any()


def test_the_flat_space_of_a_table_is_the_features_bounds():
    table = Table(3, [0])
    space = table.flat_space()
    low, high = flat_bounds(3, table.k)
    assert space.dtype == np.float32 and np.array_equal(space.low, low) and np.array_equal(space.high, high)
