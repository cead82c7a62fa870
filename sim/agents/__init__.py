"""The learning environments over the compiled stepped games of `sim.vector`: Gymnasium's
single and vector environments (`envs`), PettingZoo's AEC environment (`aec`) and
Stable-Baselines3's VecEnv over the vector one (`sb3`). Built on the runs' settings and line-ups;
imported only by those who use them (the `rl` and `sb3` extras), never by a plain run.

The Gymnasium ids are registered here without importing the environments (nor Gymnasium, if no
one has): `register_when_imported()`, which `import encore_sim` calls, registers them at once if
Gymnasium is loaded, else as soon as it is (a plain `run` never imports it).
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import sys

SOLO_ID = "encore-sim/Solo-v0"
TABLE_ID = "encore-sim/Table-v0"
_ENVS = "sim.agents.envs"


def register() -> None:
    """Register the ids for gymnasium.make and gymnasium.make_vec: `Solo-v0` the solo game,
    `Table-v0` 4 players with greedy opponents; the envs' module loads only when one is made."""
    import gymnasium
    for env_id, players in ((SOLO_ID, 1), (TABLE_ID, 4)):
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=f"{_ENVS}:EncoreEnv", kwargs={"players": players},
                               vector_entry_point=f"{_ENVS}:EncoreVectorEnv")


class _AfterGymnasium(importlib.abc.MetaPathFinder):
    """Registers the ids once the gymnasium package has run its own module (a post-import hook:
    Gymnasium 1.x reads no plug-in entry points)."""

    def find_spec(self, name, path=None, target=None):
        if name != "gymnasium":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            register()

        spec.loader.exec_module = exec_module
        return spec


def register_when_imported() -> None:
    """Register the ids now if Gymnasium is loaded, else right after it is (once)."""
    if "gymnasium" in sys.modules:
        register()
    elif not any(isinstance(f, _AfterGymnasium) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterGymnasium())
