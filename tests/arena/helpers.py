"""Small hand-built arenas for rule tests: a map fixes where everything is, `disable` removes the rest."""

from __future__ import annotations

from typing import Any

import numpy as np

import rtarena

NOOP = np.zeros(7, dtype=np.int64)
EMPTY = {"coins": [], "turrets": [], "ammo": [], "chickens": []}


def action(**parts: int) -> np.ndarray:
    """An action by name: action(move_x=1, fire=1)."""
    names = ("move_x", "move_y", "yaw", "pitch", "fire", "jump", "minimap")
    out = np.zeros(7, dtype=np.int64)
    for name, value in parts.items():
        out[names.index(name)] = value
    return out


def arena(level: str = "basic", *, size: float = 100.0, obstacles=(), spawns=((50, 40),), overrides=None,
          disable=("toxic_zone",), seed: int = 0, **things: Any):
    """A reset env of `arena/<level>-v0` on a hand-made map; things not given are absent."""
    game_map = {"size_m": size, "obstacles": [list(o) for o in obstacles], "spawns": [list(s) for s in spawns],
                **EMPTY, **{k: [list(p) for p in v] for k, v in things.items()}}
    env = rtarena.make(f"arena/{level}-v0", map=game_map, num_agents=len(spawns), overrides=overrides or {},
                       disable=disable)
    obs, _ = env.reset(seed=seed)
    return env, obs


def face(env, agent_index: int, point) -> None:
    """Turn a player to look at a point (test setup only)."""
    p = env.world.players
    p.yaw[agent_index] = np.arctan2(point[1] - p.pos[agent_index, 1], point[0] - p.pos[agent_index, 0])


def run(env, steps: int, actions=None) -> list[dict]:
    """Step with fixed actions (a dict agent -> action, or one action for all); return every event."""
    events = []
    for _ in range(steps):
        if not env.agents:
            break
        if actions is None or isinstance(actions, np.ndarray):
            joint = {a: (NOOP if actions is None else actions) for a in env.agents}
        else:
            joint = {a: actions.get(a, NOOP) for a in env.agents}
        before = len(env.log.all)
        env.step(joint)
        events.extend(env.log.all[before:])
    return events


def of(events: list[dict], kind: str, **match: Any) -> list[dict]:
    return [e for e in events if e["type"] == kind and all(e.get(k) == v for k, v in match.items())]
