"""Stable-Baselines3 on the compiled vector env (sim.agents.sb3): SB3's own checker passes on the
flat observation without a warning, the adapter's games are `run`'s, and MaskablePPO learns on it
without a wrapper of the user's, its checkpoint then playing `compare` as a batched strategy."""
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="the sb3 extra (pip install 'encore-sim[sb3]') is not installed")
pytest.importorskip("sb3_contrib", reason="the sb3 extra (pip install 'encore-sim[sb3]') is not installed")

import torch  # noqa: E402
from numba.core.errors import NumbaExperimentalFeatureWarning  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

import encore_sim  # noqa: E402
from sim.runs.api import play_chunk  # noqa: E402
from sim.state import PS_SCORE  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "docs" / "examples"


def no_warnings():
    catch = warnings.catch_warnings()
    catch.__enter__()
    warnings.simplefilter("error")
    warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)
    return catch


@pytest.mark.parametrize("players", [1, 4])
def test_sb3_check_env_passes_without_a_warning_on_the_flat_observation(players):
    env = encore_sim.env(players, seed=3, obs="flat")
    catch = no_warnings()
    try:
        check_env(env)
    finally:
        catch.__exit__(None, None, None)


@pytest.mark.parametrize("players", [1, 3])
def test_the_adapter_plays_run_s_games_and_reports_their_ends_as_sb3_does(players):
    n = 4
    venv = encore_sim.sb3_vec_env(n, players, seed=12)
    obs = venv.reset()
    assert obs.shape == (n, *venv.observation_space.shape) and obs.dtype == np.float32
    scores, steps = {}, 0
    while len(scores) < 2 * n:
        masks = np.stack(venv.env_method("action_masks"))
        assert np.array_equal(masks, venv.action_masks()) and masks.dtype == bool
        actions = venv.env_method("greedy_actions")
        assert all(masks[i, a] for i, a in enumerate(actions))
        obs, rewards, dones, infos = venv.step(np.array(actions))
        steps += 1
        assert rewards.dtype == np.float32 and dones.dtype == bool
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert venv.observation_space.contains(info["terminal_observation"])
            assert not info["TimeLimit.truncated"] and info["episode"]["r"] == info["scores"][0] + 22
            scores[info["game"]] = info["scores"]
    expected = play_chunk(12, 0, 2 * n, ["greedy"] * players, players=players, rotate=False).seats[:, :, PS_SCORE]
    assert [scores[g] for g in range(2 * n)] == expected.tolist()
    assert venv.get_attr("render_mode") == [None] * n and venv.env_is_wrapped(DummyVecEnv) == [False] * n


def test_maskable_ppo_learns_on_the_adapter_and_its_checkpoint_plays_compare(tmp_path):
    torch.manual_seed(0)
    venv = encore_sim.sb3_vec_env(16, seed=1)
    catch = no_warnings()
    try:
        model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=256, n_epochs=2, seed=0)
        model.learn(2048)
    finally:
        catch.__exit__(None, None, None)
    assert model.num_timesteps == 2048 and len(model.ep_info_buffer) == 16 * (2048 // 16 // 30)   # 30 decisions a game
    model.save(tmp_path / "ppo.zip")
    shutil.copy(EXAMPLES / "sb3_policy.py", tmp_path / "policy.py")
    table = encore_sim.compare(f"{tmp_path / 'policy.py'}:ppo", "greedy", games=64, seed=5)
    assert table["strategy"].tolist() == ["policy.py:ppo", "greedy"]
    # the strategy plays the checkpoint's choices: its first game, stepped through the env by hand
    env = encore_sim.env(seed=5, obs="flat")
    x, _ = env.reset()
    while True:
        action, _ = model.predict(x, action_masks=env.action_masks(), deterministic=True)
        x, _, terminated, _, info = env.step(int(action))
        if terminated:
            break
    assert play_chunk(5, 0, 1, [f"{tmp_path / 'policy.py'}:ppo"]).seats[0, 0, PS_SCORE] == info["scores"][0]


def test_the_recipes_in_the_docs_are_the_example_files():
    text = (ROOT / "docs" / "agents.md").read_text()
    for name in ("sb3_policy.py", "net.py", "torch_policy.py", "train_ppo.py", "train_sb3.py"):
        block = text.split(f"<!-- docs-check: file {name} -->\n```python\n", 1)[1].split("```", 1)[0]
        assert block == (EXAMPLES / name).read_text(), name


def test_the_pytorch_recipe_trains_on_the_vector_env_and_its_network_plays_compare_from_beside_it(tmp_path):
    """train_ppo.py for one update (4,096 decisions), then torch_policy.py, which imports the network's
    class from net.py beside it, in compare from another working directory."""
    for name in ("net.py", "torch_policy.py", "train_ppo.py"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    trained = subprocess.run([sys.executable, "train_ppo.py", "4096"], cwd=tmp_path, env=env, capture_output=True,
                             text=True)
    assert trained.returncode == 0, trained.stderr[-2000:]
    assert trained.stdout.splitlines()[-1].startswith("4,096 steps in ") and (tmp_path / "policy.pt").is_file()
    table = encore_sim.compare(f"{tmp_path / 'torch_policy.py'}:ppo", "greedy", games=64, seed=5)
    assert table["strategy"].tolist() == ["torch_policy.py:ppo", "greedy"]
