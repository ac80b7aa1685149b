"""What each player can see this step, computed once per step for all observation modalities.

A player sees a thing when it is within `players.view_range_m`, within the horizontal field of view
`players.fov_deg` around its yaw, and in line of sight (`visibility.py`). Other players are seen when
either their body centre or their head is in sight, so a player behind a crate is seen by its head.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rtarena.envs.arena.kernel_cache import kernel
from rtarena.envs.arena.rules import Rules
from rtarena.envs.arena.visibility import segment_box_t
from rtarena.envs.arena.world import WALL, World


@dataclass
class Perception:
    """`(N, K)` visibility of each kind of thing for every player (rows of dead players are all False)."""

    players: np.ndarray
    coins: np.ndarray
    turrets: np.ndarray
    chickens: np.ndarray
    ammo: np.ndarray
    # per kind: the columns of the `NEAREST` nearest visible things, nearest first (`(N, NEAREST)`, -1 past
    # the end), and how many are visible in all (`(N,)`)
    ordered: dict[str, tuple[np.ndarray, np.ndarray]]
    relations: dict[str, tuple[np.ndarray, ...]]  # per kind: distances, bearings, rises of those, (N, NEAREST)
    # the same, every kind stacked in KINDS order: order and distances, bearings, rises `(G, N, NEAREST)`,
    # counts `(G, N)` (the state vector fills every kind in one compiled call from these)
    stacked: tuple[np.ndarray, ...]


KINDS = ("players", "coins", "turrets", "chickens", "ammo")
# The most things of one kind an observation lists (text: `MAX_LISTED` 10, state: 8 slots); only these are
# sorted and related, which at 512 players was a third of a state step (issue 19).
NEAREST = 10


def perceive(world: World, rules: Rules) -> Perception:
    p, turrets, chickens = world.players, world.turrets, world.chickens
    # sight, listing and the relations' inputs in one compiled call (`_perceive_all`): the numpy glue around
    # separate calls was most of a one-player state step
    seen, bounds, order, count, dist, flat, dx, dy, yaw_rows, rise_flat = _perceive_all(
        p.pos, p.yaw, p.alive, p.height_m * 0.5, p.eye_height_m, world.coins.pos, world.coins.active,
        turrets.pos, turrets.barrel_height_m, turrets.alive, chickens.pos, chickens.radius_m, chickens.alive,
        world.ammo.pos, world.ammo.active, math.radians(float(rules.players.fov_deg)) / 2,
        float(rules.players.view_range_m), world.obstacles.boxes, world.obstacles.kind, NEAREST)
    # numpy's `arctan2`, as `bearing_and_rise` (the reference): the compiled one differs in the last bit
    bearing, rise = np.zeros(order.shape), np.zeros(order.shape)
    bearing.reshape(-1)[flat] = (np.arctan2(dy, dx) - yaw_rows + np.pi) % (2 * np.pi) - np.pi
    rise.reshape(-1)[flat] = rise_flat
    visible = {kind: seen[:, bounds[g]:bounds[g + 1]] for g, kind in enumerate(KINDS)}
    ordered = {kind: (order[g], count[g]) for g, kind in enumerate(KINDS)}
    relations = {kind: (dist[g], bearing[g], rise[g]) for g, kind in enumerate(KINDS)}
    return Perception(*(visible[kind] for kind in KINDS), ordered, relations, (order, count, dist, bearing, rise))


@kernel
def _perceive_all(pos, yaw, alive, half_height, eye_height, coin_pos, coin_ok, turret_pos, barrel_height, turret_ok,
                  chicken_pos, chicken_radius, chicken_ok, ammo_pos, ammo_ok, half_fov, view_range, boxes, kinds,
                  nearest):
    """What `perceive` needs, at once: the sight points (players' body centres, coins, turret muzzles, chicken
    bodies, ammo boxes 0.3 m up) and `player_sight`, the kinds' column bounds, `nearest_by_kind` over the
    feet positions, and for each listed thing (in `np.nonzero` order of the `(G, N, nearest)` listing) its
    flat index, its offset from the viewer and the viewer's yaw, and its rise."""
    n = pos.shape[0]
    sizes = (n, coin_pos.shape[0], turret_pos.shape[0], chicken_pos.shape[0], ammo_pos.shape[0])
    bounds = np.zeros(6, dtype=np.int64)
    for g in range(5):
        bounds[g + 1] = bounds[g] + sizes[g]
    m = bounds[5]
    points, feet, ok = np.empty((m, 3)), np.empty((m, 3)), np.empty(m, dtype=np.bool_)
    for g, (src, flags, lift) in enumerate(((pos, alive, half_height), (coin_pos, coin_ok, 0.0),
                                            (turret_pos, turret_ok, barrel_height),
                                            (chicken_pos, chicken_ok, chicken_radius), (ammo_pos, ammo_ok, 0.3))):
        for k in range(src.shape[0]):
            at = bounds[g] + k
            feet[at, 0], feet[at, 1], feet[at, 2] = src[k, 0], src[k, 1], src[k, 2]
            points[at, 0], points[at, 1] = src[k, 0], src[k, 1]
            points[at, 2] = src[k, 2] + lift if g != 1 else src[k, 2]
            ok[at] = flags[k]
    eyes = pos.copy()
    head_z = np.empty(n)
    for i in range(n):
        eyes[i, 2] = pos[i, 2] + eye_height
        head_z[i] = eyes[i, 2]
    seen = player_sight(eyes, yaw, alive, head_z, points, ok, half_fov, view_range, boxes, kinds)
    order, count, dist = nearest_by_kind(seen, pos, feet, bounds, nearest)
    listed = 0
    for v in order.ravel():
        if v >= 0:
            listed += 1
    flat = np.empty(listed, dtype=np.int64)
    dx, dy, yaw_rows, rise = np.empty(listed), np.empty(listed), np.empty(listed), np.empty(listed)
    at = 0
    for g in range(order.shape[0]):
        for i in range(order.shape[1]):
            for s in range(order.shape[2]):
                j = order[g, i, s]
                if j < 0:
                    continue
                col = j + bounds[g]
                flat[at] = (g * order.shape[1] + i) * order.shape[2] + s
                dx[at], dy[at] = feet[col, 0] - pos[i, 0], feet[col, 1] - pos[i, 1]
                yaw_rows[at], rise[at] = yaw[i], feet[col, 2] - pos[i, 2]
                at += 1
    return seen, bounds, order, count, dist, flat, dx, dy, yaw_rows, rise


# A box is skipped for a sight line only when the line's bounding square misses it by more than this; the
# exact slab test would reject it too, so the answer is the same, only cheaper.
_BROAD_MARGIN_M = 1e-6
# Field-of-view decisions by the cosine of the angle are taken only this far from the edge; nearer the
# edge the exact bearing test (`atan2`) decides, so no thing on the border changes side.
_COS_MARGIN = 1e-6


@kernel
def _clear(ax, ay, az, bx, by, bz, boxes, kinds):
    """Line of sight a->b is not blocked: `visibility.blocked`, with a bounding-square broad phase."""
    lox, hix = min(ax, bx) - _BROAD_MARGIN_M, max(ax, bx) + _BROAD_MARGIN_M
    loy, hiy = min(ay, by) - _BROAD_MARGIN_M, max(ay, by) + _BROAD_MARGIN_M
    for k in range(boxes.shape[0]):
        if boxes[k, 2] < lox or boxes[k, 0] > hix or boxes[k, 3] < loy or boxes[k, 1] > hiy:
            continue
        top = 1e9 if kinds[k] == WALL else boxes[k, 4]
        if segment_box_t(ax, ay, az, bx, by, bz, boxes[k, 0], boxes[k, 1], boxes[k, 2], boxes[k, 3], top) <= 1.0:
            return False
    return True


@kernel
def _in_view(dx, dy, yaw, cos_yaw, sin_yaw, half_fov, cos_half, range2):
    """`visibility.sight`'s range and field-of-view test. The cosine of the angle decides the field of view
    away from its edge; near the edge the exact bearing (`atan2`) does, so no point changes side."""
    d2 = dx * dx + dy * dy
    if d2 > range2:
        return False
    if half_fov >= math.pi:
        return True
    c = (dx * cos_yaw + dy * sin_yaw) / math.sqrt(d2) if d2 > 1e-12 else cos_half
    if c < cos_half - _COS_MARGIN:
        return False
    if c > cos_half + _COS_MARGIN:
        return True
    return abs((math.atan2(dy, dx) - yaw + math.pi) % (2 * math.pi) - math.pi) <= half_fov


@kernel
def player_sight(eyes, yaws, alive, head_z, points, point_ok, half_fov, view_range, boxes, kinds):
    """`(N, K)` bool, the answer of `visibility.sight` for every player. The first N points are the players'
    body centres; a player is seen when its centre or its head (straight above, at `head_z`) is in sight,
    the head tried only when the centre is hidden. A player never sees itself."""
    n, m = eyes.shape[0], points.shape[0]
    out = np.zeros((n, m), dtype=np.bool_)
    range2 = view_range * view_range
    cos_half = math.cos(half_fov)
    for i in range(n):
        if not alive[i]:
            continue
        ex, ey, ez, yaw = eyes[i, 0], eyes[i, 1], eyes[i, 2], yaws[i]
        cy, sy = math.cos(yaw), math.sin(yaw)
        for k in range(m):
            if not point_ok[k] or k == i:
                continue
            px, py = points[k, 0], points[k, 1]
            if not _in_view(px - ex, py - ey, yaw, cy, sy, half_fov, cos_half, range2):
                continue
            seen = _clear(ex, ey, ez, px, py, points[k, 2], boxes, kinds)
            if not seen and k < n:
                seen = _clear(ex, ey, ez, px, py, head_z[k], boxes, kinds)
            out[i, k] = seen
    return out


@dataclass
class Sightings:
    """Things of one kind that one player sees, nearest first (the `NEAREST` nearest): indices, distances
    (m, floor plane), bearings (radians relative to the player's yaw, + to the left), height differences (m)."""

    index: np.ndarray
    dist: np.ndarray
    bearing: np.ndarray
    rise: np.ndarray


def relation(origins: np.ndarray, yaws: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, ...]:
    """`(N, K)` distances, bearings and rises of K points from N viewers, all at once (the reference the
    compiled `nearest_first` and `bearing_and_rise` agree with bit for bit)."""
    dx = points[None, :, 0] - origins[:, None, 0]
    dy = points[None, :, 1] - origins[:, None, 1]
    dist = np.hypot(dx, dy)
    bearing = (np.arctan2(dy, dx) - yaws[:, None] + np.pi) % (2 * np.pi) - np.pi
    return dist, bearing, points[None, :, 2] - origins[:, None, 2]


def bearing_and_rise(origins: np.ndarray, yaws: np.ndarray, points: np.ndarray,
                     order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bearings and rises of the listed things (`order`: `(..., N, slots)` columns of `points`, -1: none;
    zero there). numpy's `arctan2`, not the compiled one: the two differ in the last bit, and observations
    must stay what they were (numpy's answer for one element does not depend on the others)."""
    listed = np.nonzero(order >= 0)
    rows, cols = listed[-2], order[listed]
    dx = points[cols, 0] - origins[rows, 0]
    dy = points[cols, 1] - origins[rows, 1]
    bearing, rise = np.zeros(order.shape), np.zeros(order.shape)
    bearing[listed] = (np.arctan2(dy, dx) - yaws[rows] + np.pi) % (2 * np.pi) - np.pi
    rise[listed] = points[cols, 2] - origins[rows, 2]
    return bearing, rise


@kernel
def nearest_by_kind(visible, origins, points, bounds, nearest=NEAREST):
    """Per kind `g` (the columns `bounds[g]:bounds[g + 1]`) and viewer, the `nearest` nearest visible points
    nearest first (columns counted from the kind's first; ties in column order, as a stable sort), padded
    with -1; how many are visible in all; and their distances in the floor plane. `(G, N, nearest)`,
    `(G, N)`, `(G, N, nearest)`."""
    kinds, n = bounds.shape[0] - 1, visible.shape[0]
    order = np.full((kinds, n, nearest), -1, dtype=np.int64)
    dist = np.zeros((kinds, n, nearest))
    count = np.zeros((kinds, n), dtype=np.int64)
    for g in range(kinds):
        for i in range(n):
            c = 0
            for j in range(bounds[g], bounds[g + 1]):
                if not visible[i, j]:
                    continue
                d = math.hypot(points[j, 0] - origins[i, 0], points[j, 1] - origins[i, 1])
                c += 1
                kept = min(c - 1, nearest)
                if kept == nearest and d >= dist[g, i, nearest - 1]:
                    continue
                at = min(kept, nearest - 1)
                while at > 0 and dist[g, i, at - 1] > d:  # strictly farther ones move down: equal ones stay first
                    order[g, i, at], dist[g, i, at] = order[g, i, at - 1], dist[g, i, at - 1]
                    at -= 1
                order[g, i, at], dist[g, i, at] = j - bounds[g], d
            count[g, i] = c
    return order, count, dist


def nearest_first(visible: np.ndarray, origins: np.ndarray, points: np.ndarray,
                  nearest: int = NEAREST) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`nearest_by_kind` for one kind: `(N, nearest)` columns, `(N,)` counts, `(N, nearest)` distances."""
    order, count, dist = nearest_by_kind(visible, origins, points, np.array([0, visible.shape[1]]), nearest)
    return order[0], count[0], dist[0]


def sightings(relations: tuple[np.ndarray, ...], ordered: tuple[np.ndarray, np.ndarray], i: int) -> Sightings:
    order, count = ordered
    listed = min(int(count[i]), order.shape[1])
    dist, bearing, rise = relations
    return Sightings(order[i, :listed], dist[i, :listed], bearing[i, :listed], rise[i, :listed])


@dataclass
class AgentView:
    """Everything one player perceives this step, shared by the text and state observations."""

    players: Sightings
    coins: Sightings
    turrets: Sightings
    chickens: Sightings
    ammo: Sightings


def agent_view(world: World, seen: Perception, i: int) -> AgentView:
    rel, order = seen.relations, seen.ordered
    return AgentView(**{kind: sightings(rel[kind], order[kind], i) for kind in KINDS})
