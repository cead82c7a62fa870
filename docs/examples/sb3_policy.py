"""A MaskablePPO checkpoint (ppo.zip, beside this file) as a batched strategy (docs/agents.md)."""
from pathlib import Path

from strategies import batched, flat_observation


def load(sheet, players, rules):
    from sb3_contrib import MaskablePPO
    return MaskablePPO.load(Path(__file__).with_name("ppo.zip"), device="cpu")


@batched(setup=load)
def ppo(obs, model):
    """MaskablePPO's most likely legal action."""
    actions, _ = model.predict(flat_observation(obs), action_masks=obs["action_mask"] == 1, deterministic=True)
    return actions
