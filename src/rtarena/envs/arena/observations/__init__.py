"""Observation modalities of the arena, chosen at construction: `obs=("text", "state")`.

Each modality is a builder class registered by name. `ArenaEnv` builds one instance per env; after
every reset and step it calls `prepare()` once (batch work for all agents, such as rendering) and then
`build(i)` for each living player. The rendering package registers `rgb`, `depth` and `audio` the same
way, without touching the env's step logic:

    from rtarena.envs.arena.observations import register_modality
    register_modality("rgb", RgbObservation)   # RgbObservation(env) with .space, .prepare(), .build(i)
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from gymnasium import spaces

from rtarena.errors import UserError


class ObservationBuilder(Protocol):
    space: spaces.Space

    def prepare(self) -> None: ...

    def build(self, index: int) -> Any: ...


MODALITIES: dict[str, type] = {}
# Modalities that live in other modules, imported the first time they are asked for.
LAZY_MODULES = {
    "text": "rtarena.envs.arena.observations.text",
    "state": "rtarena.envs.arena.observations.state",
    "rgb": "rtarena.envs.arena.render",
    "depth": "rtarena.envs.arena.render",
    "minimap": "rtarena.envs.arena.render",
    "audio": "rtarena.envs.arena.audio",
}


def register_modality(name: str, builder: type) -> None:
    """Make `obs=(name, ...)` build observations with `builder(env)`."""
    MODALITIES[name] = builder


def modality(name: str) -> type:
    if name not in MODALITIES and name in LAZY_MODULES:
        try:
            importlib.import_module(LAZY_MODULES[name])
        except ImportError as error:
            raise UserError(f"observation {name!r} needs a missing module: {error.name}", field="obs") from None
    if name not in MODALITIES:
        known = ", ".join(sorted(set(MODALITIES) | set(LAZY_MODULES)))
        raise UserError(f"unknown observation modality {name!r}; modalities: {known}", field="obs")
    return MODALITIES[name]
