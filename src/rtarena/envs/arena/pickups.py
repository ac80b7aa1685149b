"""Coins and ammo boxes: picked up by walking over them.

A living player picks up an item when its feet are within `pickup_radius_m` of the item in the floor
plane and it is not in the air far above it. Coins never come back. Ammo boxes refill a player to
`players.ammo_max` (a full player leaves the box where it is) and come back after `ammo.respawn_s` at a
random free place. Every `ammo.relocate_every_s` of sim time (0 = never, the older rule) the boxes lying on
the floor also respawn at new random free places, so supplies move around as the match goes on.
"""

from __future__ import annotations

import numpy as np

from rtarena.envs.arena.events import AMMO_MOVED, AMMO_PICKUP, AMMO_RESPAWN, COIN, put
from rtarena.envs.arena.kernel_cache import kernel
from rtarena.envs.arena.rules import Rules

REACH_ABOVE_M = 1.0  # a player whose feet are higher than this above an item passes over it


@kernel
def random_free_point(ppos, palive, boxes, size, rng, areas, index, clearance=1.0, away_m=2.0):
    """A uniformly random floor point at least `clearance` from obstacles and `away_m` from living players;
    inside area `index mod len(areas)` when the map gives areas (x0, y0, x1, y1). Tries batches of 32
    points drawn as `rng.uniform(lo, hi, size=(32, 2))` would draw them."""
    lo0, lo1, hi0, hi1 = clearance, clearance, size - clearance, size - clearance
    if areas.shape[0]:
        area = areas[index % areas.shape[0]]
        lo0, lo1 = max(lo0, area[0]), max(lo1, area[1])
        hi0, hi1 = max(min(hi0, area[2]), lo0), max(min(hi1, area[3]), lo1)
    points = np.empty((32, 2))
    c2 = clearance * clearance
    for _ in range(100):
        for j in range(32):
            points[j, 0] = lo0 + (hi0 - lo0) * rng.random()
            points[j, 1] = lo1 + (hi1 - lo1) * rng.random()
        for j in range(32):
            x, y = points[j, 0], points[j, 1]
            ok = True
            for b in range(boxes.shape[0]):
                dx = max(max(boxes[b, 0] - x, x - boxes[b, 2]), 0.0)
                dy = max(max(boxes[b, 1] - y, y - boxes[b, 3]), 0.0)
                if not dx * dx + dy * dy >= c2:
                    ok = False
                    break
            for i in range(ppos.shape[0]):
                if ok and palive[i] and not np.hypot(x - ppos[i, 0], y - ppos[i, 1]) >= away_m:
                    ok = False
            if ok:
                return points[j].copy()
    return np.array([size / 2, size / 2])


@kernel
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
    """The pickup rules as the compiled `pickup_substep` takes them."""

    def __init__(self, rules: Rules) -> None:
        self.values = (float(rules.coins.pickup_radius_m), float(rules.ammo.pickup_radius_m),
                       float(rules.ammo.respawn_s))
        self.relocate_every_s = float(rules.ammo.relocate_every_s)

    def relocates(self, t: float, h: float) -> bool:
        """Periodic respawn: at each whole multiple of `relocate_every_s` the boxes on the floor move."""
        every = self.relocate_every_s
        return every > 0 and int((t + h + 1e-9) // every) != int((t + 1e-9) // every)


@kernel
def pickup_substep(pos, alive, ammo, ammo_max, coin_pos, coin_active, box_pos, box_active, box_respawn, areas, size,
                   boxes, relocate, rng, pv, h, sub, ev, evx, evn):
    """One sub-step of coins and ammo boxes: pick-ups, respawns, and (`relocate`) the periodic move."""
    coin_radius, ammo_radius, respawn_s = pv
    if coin_pos.shape[0]:
        who = first_reacher(pos, alive, coin_pos, coin_active, coin_radius, REACH_ABOVE_M)
        for k in range(who.shape[0]):
            if who[k] >= 0:
                coin_active[k] = False
                put(ev, evx, evn, COIN, sub, who[k], k, -1, 0.0)
    if box_pos.shape[0] == 0:
        return
    who = first_reacher(pos, alive & (ammo < ammo_max), box_pos, box_active, ammo_radius, REACH_ABOVE_M)
    for k in range(who.shape[0]):
        i = who[k]
        if i < 0 or not ammo[i] < ammo_max:
            continue  # nobody, or already refilled by another box this sub-step
        amount = ammo_max - ammo[i]
        ammo[i] = ammo_max
        box_active[k] = False
        box_respawn[k] = respawn_s
        put(ev, evx, evn, AMMO_PICKUP, sub, i, k, amount, 0.0)
    if not box_active.all():
        waiting = ~box_active
        for k in range(waiting.shape[0]):
            if waiting[k]:
                box_respawn[k] -= h
        for k in range(waiting.shape[0]):
            if waiting[k] and box_respawn[k] <= 0:
                box_pos[k, :2] = random_free_point(pos, alive, boxes, size, rng, areas, k)
                box_active[k] = True
                put(ev, evx, evn, AMMO_RESPAWN, sub, k, -1, -1, 0.0)
    if relocate:
        on_floor = box_active.copy()
        for k in range(on_floor.shape[0]):
            if on_floor[k]:
                box_pos[k, :2] = random_free_point(pos, alive, boxes, size, rng, areas, k)
                put(ev, evx, evn, AMMO_MOVED, sub, k, -1, -1, 0.0)
