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
from numba import njit

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
    """Builds the state vectors of all players at once (after each step), then hands out rows."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.space = spaces.Box(-1.0, 1.0, shape=(STATE_SIZE,), dtype=np.float32)

    def build(self, i: int) -> np.ndarray:
        return self._matrix[i].copy()

    def prepare(self) -> None:
        env, world = self.env, self.env.world
        p, rules, zone = world.players, env.rules, world.zone
        n = len(p)
        size = world.size_m
        out = np.zeros((n, STATE_SIZE), dtype=np.float64)
        shrink_in = max(0.0, zone.next_shrink_s - world.time_s) if zone.enabled else math.inf
        _fill_self(out, p.pos, p.yaw, p.pitch, p.health, p.ammo, p.team, p.alive, p.on_ground, p.fire_cooldown_s,
                   p.minimap_open, np.asarray(env.scores(), dtype=np.float64), world.time_left_s / world.time_limit_s,
                   p.max_health, max(1, p.ammo_max), size, math.radians(float(rules.players.pitch_limit_deg)),
                   zone.enabled, zone.center[0], zone.center[1], zone.radius_m,
                   min(1.0, shrink_in / world.time_limit_s) if math.isfinite(shrink_in) else 1.0,
                   zone.target_radius_m, np.count_nonzero(world.coins.active) / max(1, len(world.coins.active)))
        events_at = BLOCKS["events"][0]
        for agent in env._routed:
            i = env.agent_index[agent]
            flags = env.event_flags(i)
            for k, name in enumerate(EVENT_FIELDS):
                out[i, events_at + k] = float(flags.get(name, False))
        order, count, dist, bearing, rise = env.perception.stacked
        _fill_kinds(out, _KIND_STARTS, _KIND_WIDTHS, _KIND_SLOTS, order, count, dist, bearing, rise,
                    float(rules.players.view_range_m), p.pos, p.yaw, p.team, p.health, p.max_health,
                    world.turrets.health, world.turrets.target, world.turrets.max_health)
        if p.minimap_open.any():
            mm = minimap_view(world, int(np.argmax(p.minimap_open)))
            for name, points, extra in (("map_coins", mm.coins, _NONE), ("map_turrets", mm.turrets, mm.turret_health),
                                        ("map_ammo", mm.ammo, _NONE)):
                start, slots, width = BLOCKS[name]
                _fill_map(out, start, width, slots, p.minimap_open, p.pos,
                          np.ascontiguousarray(points, dtype=np.float64), np.asarray(extra, dtype=np.float64), size)
        np.clip(out, -1.0, 1.0, out=out)
        self._matrix = out.astype(np.float32)


_NONE = np.zeros(0)
# the blocks of the things a player sees, in `perception.KINDS` order (players, coins, turrets, chickens, ammo)
_KIND_STARTS, _KIND_SLOTS, _KIND_WIDTHS = (np.array([BLOCKS[name][k] for name in ("players", "coins", "turrets",
                                                                                   "chickens", "ammo")])
                                           for k in range(3))


@njit(cache=True)
def _fill_self(out, pos, yaw, pitch, health, ammo, team, alive, on_ground, cooldown, minimap_open, scores, time_frac,
               max_health, ammo_max, size, pitch_limit, zone_enabled, cx, cy, radius, shrink_frac, target_radius,
               coins_frac):
    n = pos.shape[0]
    if n == 0:
        return
    teams = np.zeros(team.max() + 1)
    total = 0
    for i in range(n):
        if alive[i]:
            teams[team[i]] += 1
            total += 1
    others = max(1, n - 1)
    for i in range(n):
        dx, dy = cx - pos[i, 0], cy - pos[i, 1]
        d = math.sqrt(dx * dx + dy * dy)
        inside = d <= radius or not zone_enabled
        bearing = (math.atan2(dy, dx) - yaw[i] + math.pi) % (2 * math.pi) - math.pi
        row = out[i]
        row[0], row[1], row[2], row[3] = time_frac, health[i] / max_health, ammo[i] / ammo_max, scores[i]
        row[4], row[5], row[6] = pos[i, 0] / size, pos[i, 1] / size, pos[i, 2] / 3.0
        row[7], row[8], row[9] = math.sin(yaw[i]), math.cos(yaw[i]), pitch[i] / pitch_limit
        row[10] = 1.0 if on_ground[i] else 0.0
        row[11] = 1.0 if (cooldown[i] <= 0 and ammo[i] > 0) else 0.0
        row[12] = 1.0 if zone_enabled else 0.0
        row[13] = 1.0 if inside else 0.0
        row[14] = 0.0 if inside else (d - radius) / size
        row[15], row[16], row[17] = math.sin(bearing), math.cos(bearing), radius / size
        row[18], row[19] = shrink_frac, target_radius / size
        row[20] = 1.0 if minimap_open[i] else 0.0
        mine = 1 if alive[i] else 0
        row[21] = (teams[team[i]] - mine) / others
        row[22] = (total - teams[team[i]]) / others
        row[23] = coins_frac


@njit(cache=True)
def _fill_kinds(out, starts, widths, slots, order, count, dist, bearing, rise, view_range, pos, yaw, team, health,
                max_health, turret_health, turret_target, turret_max_health):
    """Every seen kind's block (`_fill_seen`, and `_fill_players` and `_fill_turrets`' extra fields) in one call;
    kind `g` of the stacked `(G, N, NEAREST)` perception arrays goes to the block at `starts[g]`."""
    for g in range(starts.shape[0]):
        _fill_seen(out, starts[g], widths[g], slots[g], dist[g], bearing[g], order[g], count[g], view_range)
        if g == 0:
            _fill_players(out, starts[g], widths[g], slots[g], order[g], count[g], rise[g], pos, yaw, team, health,
                          max_health)
        elif g == 2:
            _fill_turrets(out, starts[g], widths[g], slots[g], order[g], count[g], turret_health, turret_target,
                          turret_max_health)


@njit(cache=True)
def _fill_seen(out, start, width, slots, dist, bearing, order, count, view_range):
    """`dist` and `bearing` are per listed slot (`perception.NEAREST` of them), nearest first."""
    for i in range(out.shape[0]):
        for s in range(min(slots, count[i], order.shape[1])):
            at = start + s * width
            out[i, at] = 1.0
            out[i, at + 1] = dist[i, s] / view_range
            out[i, at + 2] = math.sin(bearing[i, s])
            out[i, at + 3] = math.cos(bearing[i, s])


@njit(cache=True)
def _fill_players(out, start, width, slots, order, count, rise, pos, yaw, team, health, max_health):
    for i in range(out.shape[0]):
        for s in range(min(slots, count[i], order.shape[1])):
            j = order[i, s]
            at = start + s * width
            out[i, at + 4] = rise[i, s] / 5.0
            out[i, at + 5] = 1.0 if team[j] != team[i] else 0.0
            out[i, at + 6] = health[j] / max_health
            out[i, at + 7] = math.cos(math.atan2(pos[i, 1] - pos[j, 1], pos[i, 0] - pos[j, 0]) - yaw[j])


@njit(cache=True)
def _fill_turrets(out, start, width, slots, order, count, health, target, max_health):
    for i in range(out.shape[0]):
        for s in range(min(slots, count[i], order.shape[1])):
            t = order[i, s]
            at = start + s * width
            out[i, at + 4] = health[t] / max_health
            out[i, at + 5] = 1.0 if target[t] == i else 0.0


@njit(cache=True)
def _fill_map(out, start, width, slots, viewers, pos, points, extra, size):
    m = points.shape[0]
    if m == 0:
        return
    d = np.empty(m)
    for i in range(out.shape[0]):
        if not viewers[i]:
            continue
        for k in range(m):
            d[k] = math.hypot(pos[i, 0] - points[k, 0], pos[i, 1] - points[k, 1])
        order = np.argsort(d, kind="mergesort")
        for s in range(min(slots, m)):
            k = order[s]
            at = start + s * width
            out[i, at] = 1.0
            out[i, at + 1] = points[k, 0] / size
            out[i, at + 2] = points[k, 1] / size
            if extra.shape[0]:
                out[i, at + 3] = extra[k]


register_modality("state", StateObservation)
