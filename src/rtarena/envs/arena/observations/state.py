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


def _nearest(visible: np.ndarray, dist: np.ndarray, slots: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the column indices of the `slots` nearest visible things (nearest first) and which of those
    slots are filled."""
    n, k = visible.shape
    masked = np.where(visible, dist, np.inf)
    order = np.argsort(masked, axis=1, kind="stable")[:, :slots]
    if k < slots:
        order = np.hstack([order, np.zeros((n, slots - k), dtype=order.dtype)])
    present = np.zeros((n, slots), dtype=bool)
    if k:
        present = np.isfinite(np.take_along_axis(masked, order, axis=1))
        present[:, k:] = False  # padding columns
    return order, present


class StateObservation:
    """Builds the state vectors of all players at once (after each step), then hands out rows."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.space = spaces.Box(-1.0, 1.0, shape=(STATE_SIZE,), dtype=np.float32)

    def build(self, i: int) -> np.ndarray:
        return self._matrix[i].copy()

    def _rows(self, out: np.ndarray, name: str) -> np.ndarray:
        start, slots, width = BLOCKS[name]
        return out[:, start:start + slots * width].reshape(len(out), slots, width)

    def _seen(self, out: np.ndarray, name: str, visible: np.ndarray, relation: tuple[np.ndarray, ...]):
        """Fill present, distance, sin, cos of a block; returns the chosen columns and the filled mask."""
        dist, bearing, _rise = relation
        rows = self._rows(out, name)
        order, present = _nearest(visible, dist, rows.shape[1])
        if not visible.shape[1]:
            return order, present, rows
        b = np.take_along_axis(bearing, order, axis=1)
        rows[:, :, 0] = present
        rows[:, :, 1] = np.where(present, np.take_along_axis(dist, order, axis=1) / self._view_range, 0.0)
        rows[:, :, 2] = np.where(present, np.sin(b), 0.0)
        rows[:, :, 3] = np.where(present, np.cos(b), 0.0)
        return order, present, rows

    def prepare(self) -> None:
        env, world = self.env, self.env.world
        p, rules, zone = world.players, env.rules, world.zone
        n = len(p)
        size = world.size_m
        self._view_range = float(rules.players.view_range_m)
        out = np.zeros((n, STATE_SIZE), dtype=np.float64)
        me = out[:, :len(SELF_FIELDS)]
        me[:, 0] = world.time_left_s / world.time_limit_s
        me[:, 1] = p.health / p.max_health
        me[:, 2] = p.ammo / max(1, p.ammo_max)
        me[:, 3] = env.scores()
        me[:, 4:6] = p.pos[:, :2] / size
        me[:, 6] = p.pos[:, 2] / 3.0
        me[:, 7], me[:, 8] = np.sin(p.yaw), np.cos(p.yaw)
        me[:, 9] = p.pitch / math.radians(float(rules.players.pitch_limit_deg))
        me[:, 10] = p.on_ground
        me[:, 11] = (p.fire_cooldown_s <= 0) & (p.ammo > 0)
        me[:, 12] = zone.enabled
        to_centre = zone.center - p.pos[:, :2]
        d = np.hypot(to_centre[:, 0], to_centre[:, 1])
        inside = (d <= zone.radius_m) | (not zone.enabled)
        bearing = (np.arctan2(to_centre[:, 1], to_centre[:, 0]) - p.yaw + np.pi) % (2 * np.pi) - np.pi
        me[:, 13] = inside
        me[:, 14] = np.where(inside, 0.0, d - zone.radius_m) / size
        me[:, 15], me[:, 16] = np.sin(bearing), np.cos(bearing)
        me[:, 17] = zone.radius_m / size
        shrink_in = max(0.0, zone.next_shrink_s - world.time_s) if zone.enabled else math.inf
        me[:, 18] = min(1.0, shrink_in / world.time_limit_s) if math.isfinite(shrink_in) else 1.0
        me[:, 19] = zone.target_radius_m / size
        me[:, 20] = p.minimap_open
        alive_by_team = np.bincount(p.team[p.alive], minlength=int(p.team.max()) + 1) if n else np.zeros(1)
        others = max(1, n - 1)
        me[:, 21] = (alive_by_team[p.team] - p.alive) / others
        me[:, 22] = (p.alive.sum() - alive_by_team[p.team]) / others
        me[:, 23] = np.count_nonzero(world.coins.active) / max(1, len(world.coins.active))
        events_at = BLOCKS["events"][0]
        for agent in env._routed:
            i = env.agent_index[agent]
            flags = env.event_flags(i)
            for k, name in enumerate(EVENT_FIELDS):
                out[i, events_at + k] = float(flags.get(name, False))

        seen, rel = env.perception, env.perception.relations
        order, present, rows = self._seen(out, "players", seen.players, rel["players"])
        if n:
            j = order
            back = np.arctan2(p.pos[:, None, 1] - p.pos[j, 1], p.pos[:, None, 0] - p.pos[j, 0]) - p.yaw[j]
            rows[:, :, 4] = np.where(present, np.take_along_axis(rel["players"][2], j, axis=1) / 5.0, 0.0)
            rows[:, :, 5] = present & (p.team[j] != p.team[:, None])
            rows[:, :, 6] = np.where(present, p.health[j] / p.max_health, 0.0)
            rows[:, :, 7] = np.where(present, np.cos(back), 0.0)
        self._seen(out, "coins", seen.coins, rel["coins"])
        self._seen(out, "chickens", seen.chickens, rel["chickens"])
        self._seen(out, "ammo", seen.ammo, rel["ammo"])
        tu = world.turrets
        order, present, rows = self._seen(out, "turrets", seen.turrets, rel["turrets"])
        if len(tu.alive):
            rows[:, :, 4] = np.where(present, tu.health[order] / tu.max_health, 0.0)
            rows[:, :, 5] = present & (tu.target[order] == np.arange(n)[:, None])

        viewers = np.flatnonzero(p.minimap_open)
        if len(viewers):
            mm = minimap_view(world, int(viewers[0]))
            mine = p.pos[viewers, :2]
            for name, points, extra in (("map_coins", mm.coins, None), ("map_turrets", mm.turrets, mm.turret_health),
                                        ("map_ammo", mm.ammo, None)):
                if not len(points):
                    continue
                rows = self._rows(out, name)
                dist = np.hypot(mine[:, None, 0] - points[None, :, 0], mine[:, None, 1] - points[None, :, 1])
                order, present = _nearest(np.ones_like(dist, dtype=bool), dist, rows.shape[1])
                k = min(rows.shape[1], len(points))
                order, present = order[:, :k], present[:, :k]
                rows[viewers, :k, 0] = present
                rows[viewers, :k, 1] = points[order, 0] / size
                rows[viewers, :k, 2] = points[order, 1] / size
                if extra is not None:
                    rows[viewers, :k, 3] = extra[order]
        np.clip(out, -1.0, 1.0, out=out)
        self._matrix = out.astype(np.float32)


register_modality("state", StateObservation)
