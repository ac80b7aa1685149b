"""Worlds: each a PettingZoo `ParallelEnv` with a fixed `dt` (see `base.py` for the contract)."""

from rtarena.envs.adapters import wrap_gymnasium, wrap_pettingzoo
from rtarena.envs.base import RealtimeParallelEnv
from rtarena.envs.registry import ENV_TABLE, EnvSpec, make, registry_ids

__all__ = ["ENV_TABLE", "EnvSpec", "RealtimeParallelEnv", "make", "registry_ids", "wrap_gymnasium", "wrap_pettingzoo"]
