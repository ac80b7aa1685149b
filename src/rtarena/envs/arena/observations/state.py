"""`state`: a fixed-length float32 vector with the same information as the text, for RL.

Every entry is scaled into [-1, 1]. Angles are given as (sin, cos) of the bearing relative to the
player's heading (positive sine: to the left). Slots of a kind are filled nearest first; an empty slot
is all zeros (its `present` entry is 0). The layout, block by block (`STATE_LAYOUT`, `state_index()`):

| block | slots x fields | fields |
|---|---|---|
| self | 1 x 24 | time_left, health, ammo, score, x, y, z, sin_yaw, cos_yaw, pitch, on_ground, can_fire, zone_enabled, in_zone, zone_distance, zone_sin, zone_cos, zone_radius, next_shrink, zone_target_radius, minimap_open, teammates_alive, opponents_alive, coins_left |
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
        pass

    def build(self, i: int) -> np.ndarray:
        env, world = self.env, self.env.world
        p, rules = world.players, env.rules
        out = np.zeros(STATE_SIZE, dtype=np.float64)
        size, vr = world.size_m, float(rules.players.view_range_m)
        view = env.view(i)
        zone = env.zone_report(i)
        team = p.team[i]
        others = p.alive & (np.arange(len(p)) != i)
        n = max(1, len(p) - 1)
        coins_total = max(1, len(world.coins.active))
        s = block(out, "self")[0]
        s[:] = (
            world.time_left_s / world.time_limit_s, p.health[i] / p.max_health, p.ammo[i] / max(1, p.ammo_max),
            env.score(i), p.pos[i, 0] / size, p.pos[i, 1] / size, p.pos[i, 2] / 3.0, math.sin(p.yaw[i]),
            math.cos(p.yaw[i]), p.pitch[i] / math.radians(float(rules.players.pitch_limit_deg)),
            float(p.on_ground[i]), float(p.fire_cooldown_s[i] <= 0 and p.ammo[i] > 0), float(world.zone.enabled),
            float(zone["inside"]), zone["distance_m"] / size, math.sin(zone["bearing"]), math.cos(zone["bearing"]),
            world.zone.radius_m / size,
            min(1.0, zone["next_shrink_in_s"] / world.time_limit_s) if math.isfinite(zone["next_shrink_in_s"]) else 1.0,
            world.zone.target_radius_m / size, float(p.minimap_open[i]),
            np.sum(others & (p.team == team)) / n, np.sum(others & (p.team != team)) / n,
            world.coins.active.sum() / coins_total,
        )
        flags = env.event_flags(i)
        block(out, "events")[0] = [float(flags.get(name, False)) for name in EVENT_FIELDS]

        pl = block(out, "players")
        k = min(len(pl), len(view.players.index))
        if k:
            idx = view.players.index[:k]
            sin, cos = _angle(view.players.bearing[:k])
            back = np.arctan2(p.pos[i, 1] - p.pos[idx, 1], p.pos[i, 0] - p.pos[idx, 0]) - p.yaw[idx]
            pl[:k] = np.column_stack([np.ones(k), view.players.dist[:k] / vr, sin, cos, view.players.rise[:k] / 5.0,
                                      (p.team[idx] != team).astype(float), p.health[idx] / p.max_health, np.cos(back)])
        for name, seen in (("coins", view.coins), ("chickens", view.chickens), ("ammo", view.ammo)):
            rows = block(out, name)
            k = min(len(rows), len(seen.index))
            if k:
                sin, cos = _angle(seen.bearing[:k])
                rows[:k] = np.column_stack([np.ones(k), seen.dist[:k] / vr, sin, cos])
        tu = block(out, "turrets")
        k = min(len(tu), len(view.turrets.index))
        if k:
            idx = view.turrets.index[:k]
            sin, cos = _angle(view.turrets.bearing[:k])
            tu[:k] = np.column_stack([np.ones(k), view.turrets.dist[:k] / vr, sin, cos,
                                      world.turrets.health[idx] / world.turrets.max_health,
                                      (world.turrets.target[idx] == i).astype(float)])
        if p.minimap_open[i]:
            mm = minimap_view(world, i)
            me = p.pos[i, :2]
            for name, points, extra in (("map_coins", mm.coins, None), ("map_turrets", mm.turrets, mm.turret_health),
                                        ("map_ammo", mm.ammo, None)):
                rows = block(out, name)
                order = np.argsort(np.hypot(*(points - me).T), kind="stable")[:len(rows)]
                k = len(order)
                if k:
                    cols = [np.ones(k), points[order, 0] / size, points[order, 1] / size]
                    if extra is not None:
                        cols.append(extra[order])
                    rows[:k] = np.column_stack(cols)
        return np.clip(out, -1.0, 1.0).astype(np.float32)


register_modality("state", StateObservation)
