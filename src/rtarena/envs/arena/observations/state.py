"""`state`: a fixed-length float32 vector with the same information as the text, for RL.

Every entry is scaled into [-1, 1]. Angles are given as (sin, cos) of the bearing relative to the
player's heading (positive sine: to the left). Slots of a kind are filled nearest first; an empty slot
is all zeros (its `present` entry is 0). The layout, block by block (`STATE_LAYOUT`, `state_index()`):

| block | slots x fields | fields |
|---|---|---|
| self | 1 x 24 | `SELF_FIELDS` (below): time, health, ammo, score, pose, zone, minimap, head counts |
| events | 1 x 8 | hit_by_player, hit_by_turret, zone_damage, picked_coin, picked_ammo, my_shot_hit, killed, dry_fire |
| players | 8 x 8 | present, distance, sin, cos, rise, enemy, health, facing_me |
| coins | 8 x 4 | present, distance, sin, cos |
| turrets | 4 x 6 | present, distance, sin, cos, health, locked_on_me |
| chickens | 4 x 4 | present, distance, sin, cos |
| ammo | 4 x 4 | present, distance, sin, cos |
| map_coins | 16 x 3 | present, x, y (minimap, zeros while closed) |
| map_turrets | 6 x 4 | present, x, y, health (minimap) |
| map_ammo | 6 x 3 | present, x, y (minimap) |

Distances are divided by the view range, positions by the arena size, times by the time limit, `rise`
(height difference) by 5 m; `score` is the level's normalised score.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from rtarena.envs.arena.minimap import minimap_view
from rtarena.envs.arena.observations import register_modality

SELF_FIELDS = ("time_left", "health", "ammo", "score", "x", "y", "z", "sin_yaw", "cos_yaw", "pitch", "on_ground",
               "can_fire", "zone_enabled", "in_zone", "zone_distance", "zone_sin", "zone_cos", "zone_radius",
               "next_shrink", "zone_target_radius", "minimap_open", "teammates_alive", "opponents_alive",
               "coins_left")
EVENT_FIELDS = ("hit_by_player", "hit_by_turret", "zone_damage", "picked_coin", "picked_ammo", "my_shot_hit",
                "killed", "dry_fire")
STATE_LAYOUT: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("self", 1, SELF_FIELDS),
    ("events", 1, EVENT_FIELDS),
    ("players", 8, ("present", "distance", "sin", "cos", "rise", "enemy", "health", "facing_me")),
    ("coins", 8, ("present", "distance", "sin", "cos")),
    ("turrets", 4, ("present", "distance", "sin", "cos", "health", "locked_on_me")),
    ("chickens", 4, ("present", "distance", "sin", "cos")),
    ("ammo", 4, ("present", "distance", "sin", "cos")),
    ("map_coins", 16, ("present", "x", "y")),
    ("map_turrets", 6, ("present", "x", "y", "health")),
    ("map_ammo", 6, ("present", "x", "y")),
)


def _offsets() -> dict[str, tuple[int, int, int]]:
    out, start = {}, 0
    for name, slots, fields in STATE_LAYOUT:
        out[name] = (start, slots, len(fields))
        start += slots * len(fields)
    return out


BLOCKS = _offsets()
STATE_SIZE = sum(slots * len(fields) for _, slots, fields in STATE_LAYOUT)


def block(vector: np.ndarray, name: str) -> np.ndarray:
    """The `(slots, fields)` view of one block of a state vector."""
    start, slots, width = BLOCKS[name]
    return vector[start:start + slots * width].reshape(slots, width)


def state_index(name: str, field: str, slot: int = 0) -> int:
    """Position of one entry: `state_index("self", "health")`."""
    start, _, width = BLOCKS[name]
    fields = next(f for n, _, f in STATE_LAYOUT if n == name)
    return start + slot * width + fields.index(field)


def _angle(bearing: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.sin(bearing), np.cos(bearing)


class StateObservation:
    """Builds the state vector of each player from the world and its perception."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.space = spaces.Box(-1.0, 1.0, shape=(STATE_SIZE,), dtype=np.float32)

    def prepare(self) -> None:
        world = self.env.world
        self._minimap = minimap_view(world, 0) if len(world.players) else None

    def build(self, i: int) -> np.ndarray:
        env, world = self.env, self.env.world
        p, rules = world.players, env.rules
        out = np.zeros(STATE_SIZE, dtype=np.float64)
        size, vr = world.size_m, float(rules.players.view_range_m)
        view = env.view(i)
        zone = env.zone_report(i)
        team = p.team[i]
        others = p.alive.copy()
        others[i] = False
        n = max(1, len(p) - 1)
        coins_total = max(1, len(world.coins.active))
        next_shrink = zone["next_shrink_in_s"]
        out[:len(SELF_FIELDS)] = (
            world.time_left_s / world.time_limit_s, p.health[i] / p.max_health, p.ammo[i] / max(1, p.ammo_max),
            env.score(i), p.pos[i, 0] / size, p.pos[i, 1] / size, p.pos[i, 2] / 3.0, math.sin(p.yaw[i]),
            math.cos(p.yaw[i]), p.pitch[i] / math.radians(float(rules.players.pitch_limit_deg)),
            float(p.on_ground[i]), float(p.fire_cooldown_s[i] <= 0 and p.ammo[i] > 0), float(world.zone.enabled),
            float(zone["inside"]), zone["distance_m"] / size, math.sin(zone["bearing"]), math.cos(zone["bearing"]),
            world.zone.radius_m / size,
            min(1.0, next_shrink / world.time_limit_s) if math.isfinite(next_shrink) else 1.0,
            world.zone.target_radius_m / size, float(p.minimap_open[i]),
            np.count_nonzero(others & (p.team == team)) / n, np.count_nonzero(others & (p.team != team)) / n,
            np.count_nonzero(world.coins.active) / coins_total,
        )
        flags = env.event_flags(i)
        if flags:
            start = BLOCKS["events"][0]
            for k, name in enumerate(EVENT_FIELDS):
                out[start + k] = float(flags.get(name, False))

        def fill(name: str, seen, extra=()) -> np.ndarray | None:
            start, slots, width = BLOCKS[name]
            k = min(slots, len(seen.index))
            if not k:
                return None
            rows = out[start:start + slots * width].reshape(slots, width)
            rows[:k, 0] = 1.0
            rows[:k, 1] = seen.dist[:k] / vr
            rows[:k, 2] = np.sin(seen.bearing[:k])
            rows[:k, 3] = np.cos(seen.bearing[:k])
            return rows[:k]

        rows = fill("players", view.players)
        if rows is not None:
            idx = view.players.index[:len(rows)]
            back = np.arctan2(p.pos[i, 1] - p.pos[idx, 1], p.pos[i, 0] - p.pos[idx, 0]) - p.yaw[idx]
            rows[:, 4] = view.players.rise[:len(rows)] / 5.0
            rows[:, 5] = p.team[idx] != team
            rows[:, 6] = p.health[idx] / p.max_health
            rows[:, 7] = np.cos(back)
        fill("coins", view.coins)
        fill("chickens", view.chickens)
        fill("ammo", view.ammo)
        rows = fill("turrets", view.turrets)
        if rows is not None:
            idx = view.turrets.index[:len(rows)]
            rows[:, 4] = world.turrets.health[idx] / world.turrets.max_health
            rows[:, 5] = world.turrets.target[idx] == i
        if p.minimap_open[i] and self._minimap is not None:
            mm = self._minimap
            me = p.pos[i, :2]
            for name, points, extra in (("map_coins", mm.coins, None), ("map_turrets", mm.turrets, mm.turret_health),
                                        ("map_ammo", mm.ammo, None)):
                start, slots, width = BLOCKS[name]
                if not len(points):
                    continue
                d = points - me
                order = np.argsort(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1], kind="stable")[:slots]
                rows = out[start:start + slots * width].reshape(slots, width)
                k = len(order)
                rows[:k, 0] = 1.0
                rows[:k, 1:3] = points[order] / size
                if extra is not None:
                    rows[:k, 3] = extra[order]
        np.clip(out, -1.0, 1.0, out=out)
        return out.astype(np.float32)


register_modality("state", StateObservation)
