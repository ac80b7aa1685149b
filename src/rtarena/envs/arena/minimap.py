"""What the minimap shows when a player opens it (the minimap action): obstacles, turrets with their
health, coins and ammo boxes still on the map, the toxic zone, and the player itself; never other
players. The text and state observations describe it; the renderer draws it from the same data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rtarena.envs.arena.world import World


@dataclass
class MinimapView:
    size_m: float
    me: np.ndarray  # (2,) own position
    my_yaw: float
    obstacles: np.ndarray  # (M, 5) boxes, boundary walls excluded
    obstacle_kind: np.ndarray  # (M,)
    turrets: np.ndarray  # (T, 2) living turrets
    turret_health: np.ndarray  # (T,) fraction of full health
    turret_ids: np.ndarray  # (T,)
    coins: np.ndarray  # (C, 2) coins not yet collected
    ammo: np.ndarray  # (A, 2) ammo boxes present now
    zone_enabled: bool
    zone_center: np.ndarray
    zone_radius_m: float
    zone_target_radius_m: float


def minimap_view(world: World, i: int) -> MinimapView:
    t, ob = world.turrets, world.obstacles
    return MinimapView(
        size_m=world.size_m,
        me=world.players.pos[i, :2].copy(),
        my_yaw=float(world.players.yaw[i]),
        obstacles=ob.boxes[4:],
        obstacle_kind=ob.kind[4:],
        turrets=t.pos[t.alive, :2],
        turret_health=t.health[t.alive] / t.max_health,
        turret_ids=np.flatnonzero(t.alive),
        coins=world.coins.pos[world.coins.active, :2],
        ammo=world.ammo.pos[world.ammo.active, :2],
        zone_enabled=world.zone.enabled,
        zone_center=world.zone.center.copy(),
        zone_radius_m=world.zone.radius_m,
        zone_target_radius_m=world.zone.target_radius_m,
    )
