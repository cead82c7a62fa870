"""The network of train_ppo.py, beside the strategy file that plays it (torch_policy.py)."""
import torch
from torch import nn


class Policy(nn.Module):
    """An MLP on the flat observation: a logit per action and the value of the decision."""

    def __init__(self, features, actions, width=256):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(features, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.logits, self.value = nn.Linear(width, actions), nn.Linear(width, 1)

    def forward(self, x, mask):
        """(the logits, illegal actions at -1e9; the values)."""
        h = self.trunk(x)
        return self.logits(h).masked_fill(~mask, -1e9), self.value(h).squeeze(-1)
