"""The learning environments (sim.agents.envs, sim.agents.aec over sim.vector): Gymnasium's and
PettingZoo's own checkers pass, and a game played through them is `run`'s game: greedy's choices
taken through the action encoding score exactly as `run -s greedy`, seats not rotated."""
import subprocess
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from loaded import modules_loaded_by

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

import encore_sim  # noqa: E402
from sim.agents.aec import EncoreAEC  # noqa: E402
from sim.runs.api import play_chunk  # noqa: E402
from sim.agents.envs import SOLO_ID, TABLE_ID, EncoreEnv, EncoreVectorEnv, IllegalAction  # noqa: E402
from sim.state import PS_SCORE  # noqa: E402
from strategies import flat_observation  # noqa: E402
from strategies.flat import flat_bounds  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
START = -22     # 8 '!' and 15 open stars at 2 points each: every game's starting score by the rulebook


@contextmanager
def warnings_are_errors():
    """Every warning an error, but Numba's of its own experimental features (the kernels' function
    values), which pytest's settings leave out."""
    from numba.core.errors import NumbaExperimentalFeatureWarning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)
        yield


def run_scores(seed, games, players, opponents="greedy"):
    specs = ["greedy"] + [opponents] * (players - 1)
    chunk = play_chunk(seed, 0, games, specs, players=players, rotate=False)
    return chunk.seats[:, :, PS_SCORE]


@pytest.mark.parametrize("players", [1, 4])
def test_check_env_passes(players):
    env = EncoreEnv(players=players, seed=3)
    check_env(env)
    check_env(gymnasium.make(SOLO_ID if players == 1 else TABLE_ID).unwrapped)


@pytest.mark.parametrize("players", [1, 4])
@pytest.mark.parametrize("obs", ["dict", "flat"])
def test_check_env_passes_without_a_warning_in_both_forms(players, obs):
    env = gymnasium.make(SOLO_ID if players == 1 else TABLE_ID, seed=3, obs=obs)
    with warnings_are_errors():
        check_env(env.unwrapped)


@pytest.mark.parametrize("players", [1, 2, 4])
def test_pettingzoo_api_test_passes(players):
    api_test(EncoreAEC(players=players, seed=1), num_cycles=300)


@pytest.mark.parametrize("players", [1, 4])
def test_pettingzoo_api_test_passes_without_a_warning_with_the_flat_observation(players):
    env = EncoreAEC(players=players, seed=1, obs="flat")
    with warnings_are_errors():
        api_test(env, num_cycles=300)


def test_the_flat_observation_is_the_dict_s_features_and_action_masks_are_the_masks_everywhere():
    flat, plain = EncoreEnv(players=2, seed=6, obs="flat"), EncoreEnv(players=2, seed=6)
    (x, info), (obs, _) = flat.reset(), plain.reset()
    while True:
        assert np.array_equal(x, flat_observation(obs)) and flat.observation_space.contains(x)
        assert np.array_equal(flat.action_masks(), info["action_mask"] == 1)
        action = plain.greedy_action()
        x, _, terminated, _, info = flat.step(action)
        obs, *_ = plain.step(action)
        if terminated:
            break
    venv = EncoreVectorEnv(3, players=4, seed=2, obs="flat", autoreset_mode=AutoresetMode.SAME_STEP)
    x, info = venv.reset()
    assert venv.observation_space.contains(x)
    ended = False
    while not ended:
        assert np.array_equal(venv.action_masks(), info["action_mask"] == 1)
        x, _, terminated, _, info = venv.step(venv.greedy_actions())
        ended = terminated.any()
    row = int(np.flatnonzero(terminated)[0])
    assert info["final_obs"][row].shape == x[row].shape and venv.single_observation_space.contains(x[row])
    aec = EncoreAEC(players=3, seed=5)
    aec.reset()
    for _ in range(12):
        agent = aec.agent_selection
        for other in aec.possible_agents:
            mask = aec.action_masks(other)
            assert np.array_equal(mask, aec.observe(other)["action_mask"] == 1)
            assert np.array_equal(mask, aec.infos[other]["action_mask"] == 1)
        assert aec.action_masks().tolist() == aec.action_masks(agent).tolist()
        aec.step(aec.greedy_action())


@pytest.mark.parametrize("players", [1, 4])
def test_greedy_through_the_vector_env_scores_as_run(players):
    n = 6
    env = encore_sim.vector_env(n, players, seed=11)
    env.reset()
    scores = {}
    while len(scores) < 3 * n:
        _, _, _, _, info = env.step(env.greedy_actions())
        for i in np.flatnonzero(info.get("_scores", [])):
            scores[int(info["game"][i])] = info["scores"][i].tolist()
    # env i plays games i, i + n, i + 2n, ...: the first three rounds are games 0 .. 3n - 1
    assert sorted(scores)[:3 * n] == list(range(3 * n))
    expected = run_scores(11, 3 * n, players)
    assert all(scores[g] == expected[g].tolist() for g in range(3 * n))


def test_greedy_through_the_env_scores_as_run_with_learned_opponents_and_the_agent_not_first():
    env = encore_sim.env(3, opponents="learned", seat=1, seed=5)
    for game in range(2):
        obs, info = env.reset()
        assert info["game"] == game
        while True:
            obs, reward, terminated, truncated, info = env.step(env.greedy_action())
            if terminated or truncated:
                break
        chunk = play_chunk(5, game, 1, ["learned", "greedy", "learned"], players=3, rotate=False)
        assert info["scores"] == chunk.seats[0, :, PS_SCORE].tolist()


def test_greedy_through_the_aec_env_at_every_seat_scores_as_run():
    env = EncoreAEC(players=3, seed=8)
    for game in range(2):
        env.reset()
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            totals[agent] += reward
            if terminated or truncated:
                scores = info["scores"]
                env.step(None)
                continue
            assert obs["action_mask"].tolist() == env.observe(agent)["action_mask"].tolist()
            env.step(env.greedy_action())
        expected = run_scores(8, game + 1, 3)[game].tolist()
        assert scores == expected
        assert [totals[a] for a in env.possible_agents] == [s - START for s in expected]


def test_rewards_add_up_to_the_final_score_change_and_final_and_margin_come_at_the_end():
    got = {}
    for reward in ("score", "final", "margin"):
        env = EncoreEnv(players=4, seed=2, reward=reward)
        env.reset()
        rewards = []
        while True:
            _, r, terminated, truncated, info = env.step(env.greedy_action())
            rewards.append(r)
            if terminated or truncated:
                break
        got[reward] = rewards, info["scores"]
    (score_rewards, scores), (final_rewards, _), (margin_rewards, _) = got.values()
    assert sum(score_rewards) == scores[0] - START
    assert final_rewards[:-1] == [0] * (len(final_rewards) - 1) and final_rewards[-1] == scores[0]
    assert margin_rewards[-1] == scores[0] - max(scores[1:])


def test_the_mask_is_in_the_observation_and_the_info_and_reset_with_a_seed_repeats_the_game():
    env = EncoreEnv(players=2, seed=0)
    obs, info = env.reset(seed=9)
    again, _ = env.reset(seed=9)
    assert all(np.array_equal(obs[k], again[k]) for k in obs)
    assert np.array_equal(obs["action_mask"], info["action_mask"]) and obs["action_mask"][-1] == 1
    assert env.observation_space.contains(obs)
    other, info = env.reset()
    assert info["game"] == 1


def test_an_illegal_action_is_refused_in_one_line_naming_env_seat_and_action_and_changes_nothing():
    env = EncoreEnv(players=2, seed=4)
    obs, _ = env.reset()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = {k: v.copy() for k, v in env.one.arrays.items() if k != "moves"}     # moves: the check's scratch
    for action in (bad, -1, env.table.k + 1, 1.0, True, "3"):
        with pytest.raises(IllegalAction) as e:
            env.step(action)
        message = str(e.value)
        assert "\n" not in message and message.startswith("encore-sim/Table-v0")
        assert "seat 0" in message and f"action {action!r}" in message
    assert all(np.array_equal(v, env.one.arrays[k]) for k, v in before.items())

    venv = EncoreVectorEnv(4, players=1, seed=4)
    obs, _ = venv.reset()
    actions = venv.greedy_actions()
    actions[2] = int(np.flatnonzero(obs["action_mask"][2] == 0)[0])
    before = {k: v.copy() for k, v in venv._arrays.items() if k != "moves"}     # moves: the check's scratch
    with pytest.raises(IllegalAction, match=rf"^encore-sim/Solo-v0 env 2: seat 0 cannot take action {actions[2]} "):
        venv.step(actions)
    assert all(np.array_equal(v, venv._arrays[k]) for k, v in before.items())
    with pytest.raises(ValueError, match="actions must be 4 integers"):
        venv.step(actions[:3])

    aec = EncoreAEC(players=3, seed=4)
    aec.reset()
    mask = aec.observe(aec.agent_selection)["action_mask"]
    with pytest.raises(IllegalAction, match=r"^encore-sim AEC: seat \d cannot take action"):
        aec.step(int(np.flatnonzero(mask == 0)[0]))


def test_autoreset_next_step_and_same_step():
    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        env = EncoreVectorEnv(3, players=1, seed=6, autoreset_mode=mode)
        assert env.metadata["autoreset_mode"] == mode
        obs, _ = env.reset()
        for _ in range(30):
            obs, reward, terminated, truncated, info = env.step(env.greedy_actions())
        assert terminated.all() and not truncated.any() and info["game"].tolist() == [0, 1, 2]
        if mode == AutoresetMode.NEXT_STEP:
            assert obs["roll"][:, 0].tolist() == [30] * 3 and (obs["action_mask"][:, :-1] == 0).all()
            obs, reward, terminated, truncated, info = env.step(np.zeros(3, np.int64))   # ignored
            assert not reward.any() and not terminated.any()
        else:
            assert info["_final_obs"].all() and info["final_obs"][0]["roll"][0] == 30
        assert obs["roll"][:, 0].tolist() == [1] * 3 and env.games.tolist() == [3, 4, 5]


def test_random_masked_play_through_the_action_space_is_legal():
    env = EncoreVectorEnv(8, players=2, seed=1)
    env.reset(seed=1)
    env.action_space.seed(0)
    for _ in range(80):
        env.step(env.action_space.sample())
    state = np.array([7], np.uint64)
    for _ in range(80):
        env.step(env.random_actions(state))


def printed(code: str) -> list[str]:
    """What `code` prints in a fresh process, word by word."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          check=True).stdout.split()


def test_import_encore_sim_registers_the_ids_without_importing_gymnasium_and_module_id_names_it():
    size = len(flat_bounds(4, EncoreEnv(players=4).table.k)[0])
    assert printed("import sys, encore_sim\n"
                   "assert 'gymnasium' not in sys.modules\n"
                   "import gymnasium\n"
                   "env = gymnasium.make('encore-sim/Table-v0', opponents='heuristic', obs='flat')\n"
                   "print(env.unwrapped.table.specs, env.observation_space.shape)\n") == \
        f"('random', 'heuristic', 'heuristic', 'heuristic') ({size},)".split()
    assert printed("import gymnasium\n"
                   "env = gymnasium.make('encore_sim:encore-sim/Solo-v0', seed=1)\n"
                   "print(env.reset()[1]['game'])\n"
                   "import encore_sim\n"
                   "print(gymnasium.make('encore-sim/Solo-v0').unwrapped.table.players)\n") == ["0", "1"]


def test_gymnasium_make_finds_the_envs_by_module_without_an_import_first_and_run_imports_neither(tmp_path):
    code = ("import gymnasium, sys\n"
            "env = gymnasium.make('sim.agents.envs:encore-sim/Solo-v0', seed=1)\n"
            "env.reset()\n"
            "venv = gymnasium.make_vec('encore-sim/Solo-v0', num_envs=2, vectorization_mode='vector_entry_point')\n"
            "print(type(venv).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip().splitlines()[-1] == "EncoreVectorEnv"
    args = ["run", "-n", "20", "-s", "greedy", "-q", "--out", tmp_path / "r"]
    assert modules_loaded_by(args, ("gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib",
                                    "sim.agents.envs", "sim.agents.aec", "sim.agents.sb3")) == []


def test_a_game_in_progress_steps_after_the_vector_kernels_took_advance():
    """sim.vector takes sim.step.advance as sim.runs.game does (stepper: compiled once, no other
    types), so that the play page's games still step (under Numba 0.60 a second compile failed)."""
    from sim.runs.game import GameInProgress
    EncoreVectorEnv(2, players=2, seed=0).reset()
    g = GameInProgress(0, 0, [None, "greedy"])
    g.play(-1)
    assert g.roll == 2


def test_a_game_stopped_by_the_roll_cap_is_truncated():
    env = EncoreEnv(players=2, seed=3, max_rolls=3)
    env.reset()
    steps = []
    while True:
        _, _, terminated, truncated, info = env.step(env.greedy_action())
        steps.append((terminated, truncated))
        if terminated or truncated:
            break
    assert steps == [(False, False), (False, False), (False, True)]    # a decision a roll, as active or passive
    assert len(info["scores"]) == 2


def test_another_sheet_and_rules_have_their_own_action_space_and_play_run_s_games():
    env = EncoreVectorEnv(3, players=2, sheet="orange", rules="joker-six,pass-penalty=1", seed=2)
    assert env.single_action_space.n == 292 + 1 and env.single_observation_space["action_mask"].shape == (293,)
    obs, _ = env.reset()
    assert obs["rules"][0].tolist() == env.table.tab_rules
    scores = {}
    while len(scores) < 3:
        _, _, _, _, info = env.step(env.greedy_actions())
        for i in np.flatnonzero(info.get("_scores", [])):
            scores[int(info["game"][i])] = info["scores"][i].tolist()
    chunk = play_chunk(2, 0, 3, ["greedy"] * 2, players=2, sheet="orange", rules="joker-six,pass-penalty=1",
                       rotate=False)
    assert [scores[g] for g in range(3)] == chunk.seats[:, :, PS_SCORE].tolist()


def test_the_dict_s_bounds_are_the_rules_own():
    solo = EncoreEnv().observation_space
    assert (solo["score"].low.min(), solo["score"].high.max()) == (-30, 74)     # 15 stars open, 0 '!'; 41 + 25 + 8
    assert (solo["roll"].low.min(), solo["roll"].high.max()) == (0, 30)
    table = EncoreEnv(players=2, rules="pass-penalty=1,colour-bonus=6/3", max_rolls=50).observation_space
    assert (table["score"].low.min(), table["score"].high.max()) == (-30 - 50, 41 + 30 + 8)
    assert table["roll"].high.max() == 50 and table["rules"].high.max() == 31


def test_a_users_strategy_writing_to_the_game_is_refused_as_in_run(tmp_path):
    """An opponent from a user's file is watched as in `run` (sim.guard): its write to the game
    stops the env's game with run's error."""
    from sim.runs.api import StrategyError, play_game
    f = tmp_path / "cheat.py"
    f.write_text("from sim.state import PS_JOKERS, ST_SEAT\n\n\n"
                 "def jokers(st, ps, bb, cands, n, tab, params, rng):\n"
                 "    ps[st[ST_SEAT], PS_JOKERS] += 1\n"
                 "    return n - 1\n")
    spec = f"{f}:jokers"
    with pytest.raises(StrategyError, match="wrote to ps") as ran:
        play_game(4, 2, ["greedy", spec])
    env = EncoreEnv(players=2, opponents=spec, seed=4)
    env.reset(options={"game": 2})
    with pytest.raises(StrategyError) as stepped:
        while True:
            env.step(env.greedy_action())
    assert str(stepped.value) == str(ran.value)


@pytest.mark.parametrize("players", [1, 4])
def test_skipping_forced_passes_plays_the_same_games_and_rewards_in_fewer_decisions(players):
    """skip_forced takes a decision whose only legal action is pass inside the step: the games, their
    final scores and the rewards' sums are the same, and the agent is asked only the rest."""
    played = {}
    for skip in (False, True):
        env = encore_sim.env(players, seed=9, skip_forced=skip)
        games = []
        for _ in range(3):
            _, info = env.reset()
            decisions = forced = 0
            total = 0.0
            while True:
                forced += int(info["action_mask"].sum() == 1)
                _, reward, terminated, truncated, info = env.step(env.greedy_action())
                decisions += 1
                total += reward
                if terminated or truncated:
                    break
            games.append((info["scores"], total, decisions, forced))
        played[skip] = games
    for (scores, total, decisions, forced), (scores_, total_, decisions_, forced_) in zip(*played.values()):
        assert (scores_, total_, forced_) == (scores, total, 0)
        assert decisions_ == decisions - forced
    if players > 1:
        assert sum(g[3] for g in played[False]) > 0
    expected = run_scores(9, 3, players)
    assert [g[0] for g in played[True]] == expected.tolist()


def test_skipping_forced_passes_in_the_vector_env_and_the_aec_env():
    n = 3
    counts, scores = {}, {}
    for skip in (False, True):
        venv = encore_sim.vector_env(n, 4, seed=13, skip_forced=skip)
        venv.reset()
        got, steps = {}, 0
        while len(got) < n:
            _, _, _, _, info = venv.step(venv.greedy_actions())
            steps += 1
            for i in np.flatnonzero(info.get("_scores", [])):
                got[int(info["game"][i])] = info["scores"][i].tolist()
        scores[skip], counts[skip] = got, steps
    assert scores[True] == scores[False] == {g: s.tolist() for g, s in enumerate(run_scores(13, n, 4))}
    assert counts[True] < counts[False]
    steps = {}
    for skip in (False, True):
        aec = encore_sim.aec_env(3, seed=8, skip_forced=skip)
        aec.reset()
        steps[skip] = 0
        for agent in aec.agent_iter():
            _, _, terminated, truncated, info = aec.last()
            if terminated or truncated:
                final = info["scores"]
                aec.step(None)
                continue
            assert not skip or aec.action_masks().sum() > 1
            aec.step(aec.greedy_action())
            steps[skip] += 1
        assert final == run_scores(8, 1, 3)[0].tolist()
    assert steps[True] < steps[False]
