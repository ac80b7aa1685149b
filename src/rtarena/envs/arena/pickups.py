"""Coins and ammo boxes: picked up by walking over them.

A living player picks up an item when its feet are within `pickup_radius_m` of the item in the floor
plane and it is not in the air far above it. Coins never come back. Ammo boxes refill a player to
`players.ammo_max` (a full player leaves the box where it is) and come back after `ammo.respawn_s` at a
random free place. Every `ammo.relocate_every_s` of sim time (0 = never, the older rule) the boxes lying on
the floor also respawn at new random free places, so supplies move around as the match goes on.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rtarena.envs.arena.events import EventLog
from rtarena.envs.arena.rules import Rules
from rtarena.envs.arena.world import World

REACH_ABOVE_M = 1.0  # a player whose feet are higher than this above an item passes over it


def random_free_point(world: World, rng: np.random.Generator, clearance: float = 1.0, away_m: float = 2.0,
                      areas: np.ndarray | None = None, index: int = 0) -> np.ndarray:
    """A uniformly random floor point at least `clearance` from obstacles and `away_m` from living players;
    inside area `index mod len(areas)` when the map gives areas (x0, y0, x1, y1)."""
    boxes = world.obstacles.boxes
    size = world.size_m
    alive = world.players.pos[world.players.alive, :2]
    lo, hi = np.array([clearance, clearance]), np.array([size - clearance, size - clearance])
    if areas is not None and len(areas):
        area = areas[index % len(areas)]
        lo, hi = np.maximum(lo, area[:2]), np.maximum(np.minimum(hi, area[2:]), np.maximum(lo, area[:2]))
    for _ in range(100):
        points = rng.uniform(lo, hi, size=(32, 2))
        ok = np.ones(len(points), dtype=bool)
        for x0, y0, x1, y1, _h in boxes:
            dx = np.maximum(np.maximum(x0 - points[:, 0], points[:, 0] - x1), 0)
            dy = np.maximum(np.maximum(y0 - points[:, 1], points[:, 1] - y1), 0)
            ok &= dx * dx + dy * dy >= clearance * clearance
        if len(alive):
            d = np.hypot(points[:, None, 0] - alive[None, :, 0], points[:, None, 1] - alive[None, :, 1])
            ok &= d.min(axis=1) >= away_m
        if ok.any():
            return points[np.argmax(ok)]
    return np.array([size / 2, size / 2])


@njit(cache=True)
def first_reacher(ppos, able, items, active, radius, above):
    """Per item, the lowest-index able player that reaches it (-1 none): ties resolve deterministically."""
    out = np.full(items.shape[0], -1, dtype=np.int64)
    r2 = radius * radius
    for k in range(items.shape[0]):
        if not active[k]:
            continue
        for i in range(ppos.shape[0]):
            if able[i] and (ppos[i, 0] - items[k, 0]) ** 2 + (ppos[i, 1] - items[k, 1]) ** 2 <= r2 \
                    and ppos[i, 2] - items[k, 2] <= above:
                out[k] = i
                break
    return out


class Pickups:
    def __init__(self, rules: Rules) -> None:
        self.coin_radius = float(rules.coins.pickup_radius_m)
        self.ammo_radius = float(rules.ammo.pickup_radius_m)
        self.ammo_respawn_s = float(rules.ammo.respawn_s)
        self.relocate_every_s = float(rules.ammo.relocate_every_s)

    def step(self, world: World, log: EventLog, rng: np.random.Generator, h: float) -> None:
        coins, boxes, players = world.coins, world.ammo, world.players
        if len(coins.active):
            who = first_reacher(players.pos, players.alive, coins.pos, coins.active, self.coin_radius, REACH_ABOVE_M)
            for k in np.flatnonzero(who >= 0) if who.max() >= 0 else ():
                i = int(who[k])
                coins.active[k] = False
                log.emit("coin", agent=log.name(i), coin=int(k))
        if len(boxes.active):
            able = players.alive & (players.ammo < players.ammo_max)
            who = first_reacher(players.pos, able, boxes.pos, boxes.active, self.ammo_radius, REACH_ABOVE_M)
            for k in np.flatnonzero(who >= 0) if who.max() >= 0 else ():
                i = int(who[k])
                if not (players.ammo[i] < players.ammo_max):
                    continue  # already refilled by another box this sub-step
                amount = int(players.ammo_max - players.ammo[i])
                players.ammo[i] = players.ammo_max
                boxes.active[k] = False
                boxes.respawn_in_s[k] = self.ammo_respawn_s
                log.emit("ammo_pickup", agent=log.name(i), box=int(k), amount=amount)
            if not boxes.active.all():
                waiting = ~boxes.active
                boxes.respawn_in_s[waiting] -= h
                for k in np.flatnonzero(waiting & (boxes.respawn_in_s <= 0)):
                    boxes.pos[k, :2] = random_free_point(world, rng, areas=world.ammo_areas, index=int(k))
                    boxes.active[k] = True
                    log.emit("ammo_respawn", box=int(k))
            self._relocate(world, log, rng, h)

    def _relocate(self, world: World, log: EventLog, rng: np.random.Generator, h: float) -> None:
        """Periodic respawn: at each whole multiple of `relocate_every_s` the boxes on the floor move."""
        every, boxes = self.relocate_every_s, world.ammo
        if every <= 0 or int((world.time_s + h + 1e-9) // every) == int((world.time_s + 1e-9) // every):
            return
        for k in np.flatnonzero(boxes.active):
            boxes.pos[k, :2] = random_free_point(world, rng, areas=world.ammo_areas, index=int(k))
            log.emit("ammo_respawn", box=int(k), moved=True)
