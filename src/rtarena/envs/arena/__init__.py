"""The arena: a multiplayer action-shooter world with four levels (basic, coop, competitive, mixed).

Module map: `world.py` (the data model), `rules.py` + `levels/*.toml` (every number), `layout.py` (maps and
procedural layouts), `physics.py`, `visibility.py`, `combat.py`, `turret.py`, `zone.py`, `pickups.py`,
`chickens.py`, `perception.py`, `minimap.py`, `observations/` (text, state, and the modality registry),
`events.py`, `metrics.py`, `env.py` (`ArenaEnv`, the protocol) and `levels.py` (the registered levels).
"""

from importlib import import_module as _import_module

# Attributes load on first use (PEP 562): a light module of the package (the text report's reader, the
# world's data model) does not pay for the compiled step and the levels.
_LAZY = {"ACTION_NAMES": "rtarena.envs.arena.env", "ACTION_NVEC": "rtarena.envs.arena.env",
         "ArenaEnv": "rtarena.envs.arena.env", "BasicLevel": "rtarena.envs.arena.levels",
         "CompetitiveLevel": "rtarena.envs.arena.levels", "CoopLevel": "rtarena.envs.arena.levels",
         "MixedLevel": "rtarena.envs.arena.levels", "register_modality": "rtarena.envs.arena.observations"}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rtarena.envs.arena' has no attribute {name!r}")
    value = getattr(_import_module(module), name)
    globals()[name] = value
    return value
