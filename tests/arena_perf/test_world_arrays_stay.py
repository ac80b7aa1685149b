"""The compiled world step, the sprite table and the minimap keep references to a world's arrays for the
whole episode (`sim.Held`, gathered once per world: issue 19). That is only right while every array is
updated in place and never rebound, so this holds every registered level to it: a level hook that assigned
a fresh array to a world field would leave the kernels stepping a stale copy, and fail here."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rtarena.envs.registry import env_spec, registry_ids

EVERY_MODALITY = ("rgb", "depth", "minimap", "text", "state", "audio")
LEVELS = [i for i in registry_ids() if env_spec(i).family == "arena"]


def world_arrays(world) -> dict[str, np.ndarray]:
    """Every numpy array in the world's dataclasses, by dotted name (but the shells in flight: their
    arrays grow and shrink, and the step takes them afresh every call)."""
    out = {}
    for group in dataclasses.fields(world):
        if group.name == "projectiles":
            continue
        value = getattr(world, group.name)
        if isinstance(value, np.ndarray):
            out[group.name] = value
        elif dataclasses.is_dataclass(value):
            out |= {f"{group.name}.{f.name}": getattr(value, f.name) for f in dataclasses.fields(value)
                    if isinstance(getattr(value, f.name), np.ndarray)}
    return out


@pytest.mark.parametrize("env_id", LEVELS)
def test_a_world_s_arrays_are_updated_in_place_for_the_whole_episode(env_id):
    import rtarena

    env = rtarena.make(env_id, obs=EVERY_MODALITY, resolution=84)
    env.reset(seed=3)
    world, before = env.world, world_arrays(env.world)  # the arrays themselves: ids could be reused
    assert len(before) > 20
    rng = np.random.default_rng(3)
    for _ in range(80):
        if not env.agents:
            break
        env.step({a: rng.integers(0, env.action_space(a).nvec) for a in env.agents})
    assert env.world is world
    after = world_arrays(world)
    assert [name for name in before if after[name] is not before[name]] == []
