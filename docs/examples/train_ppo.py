"""Masked PPO in PyTorch, CleanRL's way, on the compiled vector env: python train_ppo.py STEPS."""
import sys
import time

import numpy as np
import torch
from gymnasium.vector import AutoresetMode

import encore_sim
from net import Policy

ENVS, STEPS, EPOCHS, MINIBATCHES = 64, 64, 4, 4           # 4,096 decisions an update
total = int(sys.argv[1])
torch.manual_seed(0)
torch.set_num_threads(1)
env = encore_sim.vector_env(ENVS, seed=1, obs="flat", autoreset_mode=AutoresetMode.SAME_STEP)
x, _ = env.reset()
actions = env.single_action_space.n
net = Policy(x.shape[1], actions)
opt = torch.optim.Adam(net.parameters(), lr=3e-4, eps=1e-5)
obs, masks = torch.zeros(STEPS, ENVS, x.shape[1]), torch.zeros(STEPS, ENVS, actions, dtype=torch.bool)
acts, logps, rewards, dones, values = (torch.zeros(STEPS, ENVS) for _ in range(5))
x, done, scores, start = torch.from_numpy(x), torch.zeros(ENVS), [], time.time()
for update in range(1, total // (ENVS * STEPS) + 1):
    for t in range(STEPS):                                  # rollouts: one compiled step for all envs
        obs[t], dones[t], masks[t] = x, done, torch.from_numpy(env.action_masks())
        with torch.no_grad():
            logits, values[t] = net(x, masks[t])
        dist = torch.distributions.Categorical(logits=logits)
        acts[t] = dist.sample()
        logps[t] = dist.log_prob(acts[t])
        x, r, terminated, truncated, info = env.step(acts[t].long().numpy())
        x, done, rewards[t] = torch.from_numpy(x), torch.from_numpy(terminated | truncated).float(), torch.from_numpy(r)
        scores += info["scores"][info["_scores"], 0].tolist() if "scores" in info else []
    with torch.no_grad():                                   # advantages: GAE, gamma 1 (a game is 30 decisions)
        next_value = net(x, torch.from_numpy(env.action_masks()))[1]
        adv, last = torch.zeros(STEPS, ENVS), 0
        for t in reversed(range(STEPS)):
            alive = 1 - (done if t == STEPS - 1 else dones[t + 1])
            following = next_value if t == STEPS - 1 else values[t + 1]
            last = rewards[t] + following * alive - values[t] + 0.95 * alive * last
            adv[t] = last
        returns = adv + values
    b = [a.reshape(STEPS * ENVS, *a.shape[2:]) for a in (obs, masks, acts, logps, adv, returns)]
    for _ in range(EPOCHS):                                 # the clipped objective, as CleanRL writes it
        for idx in torch.randperm(STEPS * ENVS).chunk(MINIBATCHES):
            bo, bm, ba, blp, badv, bret = (a[idx] for a in b)
            logits, v = net(bo, bm)
            dist = torch.distributions.Categorical(logits=logits)
            ratio = (dist.log_prob(ba) - blp).exp()
            badv = (badv - badv.mean()) / (badv.std() + 1e-8)
            pg = torch.max(-badv * ratio, -badv * ratio.clamp(0.8, 1.2)).mean()
            loss = pg + 0.5 * ((v - bret) ** 2).mean() - 0.01 * dist.entropy().mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            opt.step()
    if update % 10 == 0 or update * ENVS * STEPS >= total:
        print(f"{update * ENVS * STEPS:>9,} steps: mean score of the last 500 games {np.mean(scores[-500:]):6.2f}")
took = time.time() - start
print(f"{update * ENVS * STEPS:,} steps in {took:.0f} s: {update * ENVS * STEPS / took:,.0f} a second")
torch.save(net.state_dict(), "policy.pt")
