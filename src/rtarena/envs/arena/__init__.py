"""The arena: a multiplayer action-shooter world with four levels (basic, coop, competitive, mixed).

Module map: `world.py` (the data model), `rules.py` + `levels/*.toml` (every number), `layout.py` (maps and
procedural layouts), `physics.py`, `visibility.py`, `combat.py`, `turret.py`, `zone.py`, `pickups.py`,
`chickens.py`, `perception.py`, `minimap.py`, `observations/` (text, state, and the modality registry),
`events.py`, `metrics.py`, `env.py` (`ArenaEnv`, the protocol) and `levels.py` (the registered levels).
"""

from rtarena.envs.arena.env import ACTION_NAMES, ACTION_NVEC, ArenaEnv
from rtarena.envs.arena.levels import BasicLevel, CompetitiveLevel, CoopLevel, MixedLevel
from rtarena.envs.arena.observations import register_modality

__all__ = ["ACTION_NAMES", "ACTION_NVEC", "ArenaEnv", "BasicLevel", "CompetitiveLevel", "CoopLevel", "MixedLevel",
           "register_modality"]
