"""Chickens: harmless birds that wander and come back after being shot.

A chicken walks at `chickens.speed_m_s` in its direction and picks a new random direction every
`chickens.turn_every_s` (on average) or when an obstacle or the arena's edge is in its way. Shot, it
disappears and comes back after `chickens.respawn_s` at a random free place.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rtarena.envs.arena.events import EventLog
from rtarena.envs.arena.pickups import random_free_point
from rtarena.envs.arena.rules import Rules
from rtarena.envs.arena.world import World

DRAW_BLOCK = 20  # sub-steps of random numbers drawn at once


class Flock:
    def __init__(self, rules: Rules) -> None:
        c = rules.chickens
        self.speed = float(c.speed_m_s)
        self.turn_every = float(c.turn_every_s)
        self._world: World | None = None
        self._draw_at = 0

    def step(self, world: World, log: EventLog, rng: np.random.Generator, h: float) -> None:
        ch = world.chickens
        if len(ch.alive) == 0:
            return
        dead = ~ch.alive
        if dead.any():
            ch.respawn_in_s[dead] -= h
        for k in np.flatnonzero(dead & (ch.respawn_in_s <= 0)):
            ch.pos[k, :2] = random_free_point(world, rng, areas=world.chicken_areas, index=int(k))
            ch.alive[k] = True
            log.emit("chicken_respawn", chicken=int(k))
        # Draws for every sub-step (used or not), in blocks of sub-steps, keep the random stream independent
        # of what happens and of dt.
        if self._world is not world or self._draw_at == DRAW_BLOCK:
            shape = (DRAW_BLOCK, len(ch.alive))
            self._world, self._draw_at = world, 0
            self._draws = (rng.uniform(-np.pi, np.pi, size=shape), rng.uniform(0.5, 1.5, size=shape) * self.turn_every)
        new_yaw, new_turn = self._draws[0][self._draw_at], self._draws[1][self._draw_at]
        self._draw_at += 1
        wander(ch.pos, ch.yaw, ch.alive, ch.turn_in_s, new_yaw, new_turn, self.speed * h, h, world.size_m,
               ch.radius_m, world.obstacles.boxes)


@njit(cache=True)
def wander(pos, yaw, alive, turn_in, new_yaw, new_turn, step, h, size, r, boxes):
    for k in range(pos.shape[0]):
        if not alive[k]:
            continue
        turn_in[k] -= h
        if turn_in[k] <= 0:
            yaw[k] = new_yaw[k]
            turn_in[k] = new_turn[k]
        x = pos[k, 0] + step * np.cos(yaw[k])
        y = pos[k, 1] + step * np.sin(yaw[k])
        ok = r <= x <= size - r and r <= y <= size - r
        for b in range(boxes.shape[0]):
            if boxes[b, 0] - r < x < boxes[b, 2] + r and boxes[b, 1] - r < y < boxes[b, 3] + r:
                ok = False
                break
        if ok:
            pos[k, 0] = x
            pos[k, 1] = y
        else:
            yaw[k] = new_yaw[k]
