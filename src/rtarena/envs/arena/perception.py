"""What each player can see this step, computed once per step for all observation modalities.

A player sees a thing when it is within `players.view_range_m`, within the horizontal field of view
`players.fov_deg` around its yaw, and in line of sight (`visibility.py`). Other players are seen when
either their body centre or their head is in sight, so a player behind a crate is seen by its head.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rtarena.envs.arena.rules import Rules
from rtarena.envs.arena.visibility import sight
from rtarena.envs.arena.world import World


@dataclass
class Perception:
    """`(N, K)` visibility of each kind of thing for every player (rows of dead players are all False)."""

    players: np.ndarray
    coins: np.ndarray
    turrets: np.ndarray
    chickens: np.ndarray
    ammo: np.ndarray
    relations: dict[str, tuple[np.ndarray, ...]]  # per kind: (N, K) distances, bearings, rises
    ordered: dict[str, tuple[np.ndarray, np.ndarray]]  # per kind: visible columns nearest first, and counts


KINDS = ("players", "coins", "turrets", "chickens", "ammo")


def perceive(world: World, rules: Rules) -> Perception:
    p = world.players
    n = len(p)
    centres = p.pos.copy()
    centres[:, 2] += p.height_m * 0.5
    turret_points = world.turrets.pos.copy()
    turret_points[:, 2] += world.turrets.barrel_height_m
    chicken_points = world.chickens.pos.copy()
    chicken_points[:, 2] += world.chickens.radius_m
    ammo_points = world.ammo.pos.copy()
    ammo_points[:, 2] += 0.3
    groups = [centres, p.eye, world.coins.pos, turret_points, chicken_points, ammo_points]
    oks = [p.alive, p.alive, world.coins.active, world.turrets.alive, world.chickens.alive, world.ammo.active]
    points = np.vstack(groups)
    ok = np.concatenate(oks)
    owner = np.full(len(points), -1, dtype=np.int64)
    owner[:n] = np.arange(n)
    owner[n:2 * n] = np.arange(n)
    seen = sight(p.eye, p.yaw, p.alive, points, ok, owner, math.radians(float(rules.players.fov_deg)) / 2,
                 float(rules.players.view_range_m), world.obstacles.boxes, world.obstacles.kind)
    cuts = np.cumsum([len(g) for g in groups])[:-1]
    body, head, coins, turrets, chickens, ammo = np.split(seen, cuts, axis=1)
    feet, yaw = p.pos, p.yaw
    relations = {name: relation(feet, yaw, pts) for name, pts in (
        ("players", p.pos), ("coins", world.coins.pos), ("turrets", world.turrets.pos),
        ("chickens", world.chickens.pos), ("ammo", world.ammo.pos))}
    visible = {"players": body | head, "coins": coins, "turrets": turrets, "chickens": chickens, "ammo": ammo}
    ordered = {kind: nearest_first(visible[kind], relations[kind][0]) for kind in KINDS}
    return Perception(*(visible[kind] for kind in KINDS), relations, ordered)


@dataclass
class Sightings:
    """Things of one kind that one player sees, nearest first: indices, distances (m, floor plane),
    bearings (radians relative to the player's yaw, + to the left) and height differences (m)."""

    index: np.ndarray
    dist: np.ndarray
    bearing: np.ndarray
    rise: np.ndarray


def relation(origins: np.ndarray, yaws: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, ...]:
    """`(N, K)` distances, bearings and rises of K points from N viewers, all at once."""
    dx = points[None, :, 0] - origins[:, None, 0]
    dy = points[None, :, 1] - origins[:, None, 1]
    dist = np.hypot(dx, dy)
    bearing = (np.arctan2(dy, dx) - yaws[:, None] + np.pi) % (2 * np.pi) - np.pi
    return dist, bearing, points[None, :, 2] - origins[:, None, 2]


def nearest_first(visible: np.ndarray, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per viewer, the columns of visible things nearest first (`(N, K)`, valid up to `count[i]`)."""
    order = np.argsort(np.where(visible, dist, np.inf), axis=1, kind="stable")
    return order, visible.sum(axis=1)


def sightings(relations: tuple[np.ndarray, ...], ordered: tuple[np.ndarray, np.ndarray], i: int) -> Sightings:
    order, count = ordered
    index = order[i, :count[i]]
    dist_all, bearing_all, rise_all = relations
    return Sightings(index, dist_all[i, index], bearing_all[i, index], rise_all[i, index])


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
