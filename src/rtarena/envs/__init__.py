"""Worlds: each a PettingZoo `ParallelEnv` with a fixed `dt` (see `base.py` for the contract).

Importing this package (any env module does) registers every row of `registry.ENV_TABLE` with PettingZoo
and, for one-agent envs, Gymnasium: the registry's first use, not `import rtarena`'s.
"""

from rtarena.envs.adapters import wrap_gymnasium, wrap_pettingzoo
from rtarena.envs.base import RealtimeParallelEnv
from rtarena.envs.registry import ENV_TABLE, EnvSpec, _register_with_ecosystem, make, registry_ids

__all__ = ["ENV_TABLE", "EnvSpec", "RealtimeParallelEnv", "make", "registry_ids", "wrap_gymnasium", "wrap_pettingzoo"]

_register_with_ecosystem()
