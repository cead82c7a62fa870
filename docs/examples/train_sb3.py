"""sb3-contrib's MaskablePPO on the compiled vector env: python train_sb3.py STEPS."""
import sys
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO

import encore_sim

torch.set_num_threads(1)
env = encore_sim.sb3_vec_env(64, seed=1)      # 64 solo games, one compiled step; the flat observation
model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=1024, n_epochs=4, gamma=1.0, seed=0,
                    policy_kwargs={"net_arch": [256, 256]})
start = time.time()
model.learn(int(sys.argv[1]))
# a game's rewards add up to its final score less the start (-22 on the standard sheet)
score = np.mean([e["r"] for e in model.ep_info_buffer]) - 22
print(f"mean score of the last 100 games {score:.2f}")
took = time.time() - start
print(f"{model.num_timesteps:,} steps in {took:.0f} s: {model.num_timesteps / took:,.0f} a second")
model.save("ppo.zip")
