"""train_ppo.py's network (policy.pt, net.py: beside this file) as a batched strategy."""
from pathlib import Path

import torch

from net import Policy
from strategies import batched, flat_observation


def load(sheet, players, rules):
    state = torch.load(Path(__file__).with_name("policy.pt"))
    net = Policy(state["trunk.0.weight"].shape[1], state["logits.weight"].shape[0])
    net.load_state_dict(state)
    return net


@batched(setup=load)
def ppo(obs, net):
    """The network's most likely legal action."""
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(flat_observation(obs)), torch.from_numpy(obs["action_mask"] == 1))
    return logits.argmax(dim=1).numpy()
