"""Small hand-made worlds for the senses tests: an empty square arena with its boundary walls, plus
whatever a test places in it."""

from __future__ import annotations

import math

import numpy as np

from rtarena.envs.arena.world import (
    CRATE,
    WALL,
    AmmoBoxes,
    Chickens,
    Coins,
    Obstacles,
    Players,
    Turrets,
    World,
    Zone,
)


def boundary(size: float) -> list[tuple[float, float, float, float, float]]:
    return [(-1, -1, size + 1, 0, 3), (-1, size, size + 1, size + 1, 3), (-1, 0, 0, size, 3),
            (size, 0, size + 1, size, 3)]


def make_world(
    size: float = 50.0,
    walls=(),
    crates=(),
    players=((10.0, 25.0, 0.0),),
    coins=(),
    ammo=(),
    chickens=(),
    turrets=(),
    zone: tuple[float, float, float] | None = None,
    teams=None,
) -> World:
    """`players` rows: (x, y, yaw_deg[, pitch_deg]); `walls`: (x0, y0, x1, y1) 3 m tall; `crates`:
    (x0, y0, x1, y1) 0.9 m tall; `turrets`: (x, y, barrel_yaw_deg); `zone`: (cx, cy, radius)."""
    boxes = [*boundary(size), *((*w, 3.0) for w in walls), *((*c, 0.9) for c in crates)]
    kinds = [WALL] * (4 + len(walls)) + [CRATE] * len(crates)
    p = Players.empty(len(players))
    for i, row in enumerate(players):
        p.pos[i] = (row[0], row[1], 0.0)
        p.yaw[i] = math.radians(row[2])
        p.pitch[i] = math.radians(row[3]) if len(row) > 3 else 0.0
        p.team[i] = 0 if teams is None else teams[i]
        p.health[i] = 100.0
        p.ammo[i] = 10
        p.alive[i] = True

    def xyz(rows, z=0.0):
        return np.array([(r[0], r[1], z) for r in rows], dtype=np.float64).reshape(-1, 3)

    t = Turrets(pos=xyz(turrets), barrel_yaw=np.radians([r[2] for r in turrets]).astype(np.float64),
                health=np.full(len(turrets), 100.0), alive=np.ones(len(turrets), bool),
                target=np.full(len(turrets), -1), cooldown_s=np.zeros(len(turrets)),
                wander_rate=np.zeros(len(turrets)), wander_in_s=np.zeros(len(turrets)))
    return World(
        size_m=size,
        obstacles=Obstacles(np.array(boxes, dtype=np.float64), np.array(kinds)),
        players=p,
        coins=Coins(xyz(coins, 0.5), np.ones(len(coins), bool)),
        ammo=AmmoBoxes(xyz(ammo), np.ones(len(ammo), bool), np.zeros(len(ammo))),
        chickens=Chickens(xyz(chickens), np.zeros(len(chickens)), np.ones(len(chickens), bool),
                          np.zeros(len(chickens)), np.zeros(len(chickens))),
        turrets=t,
        zone=Zone(np.array(zone[:2] if zone else (size / 2, size / 2), dtype=np.float64),
                  float(zone[2]) if zone else 1e6, enabled=zone is not None),
    )
