"""Chickens: harmless birds that wander and come back after being shot.

A chicken walks at `chickens.speed_m_s` in its direction and picks a new random direction every
`chickens.turn_every_s` (on average) or when an obstacle or the arena's edge is in its way. Shot, it
disappears and comes back after `chickens.respawn_s` at a random free place.
"""

from __future__ import annotations

import numpy as np

from rtarena.envs.arena.events import EventLog
from rtarena.envs.arena.pickups import random_free_point
from rtarena.envs.arena.rules import Rules
from rtarena.envs.arena.world import World


class Flock:
    def __init__(self, rules: Rules) -> None:
        c = rules.chickens
        self.speed = float(c.speed_m_s)
        self.turn_every = float(c.turn_every_s)

    def step(self, world: World, log: EventLog, rng: np.random.Generator, h: float) -> None:
        ch = world.chickens
        if len(ch.alive) == 0:
            return
        for k in np.flatnonzero(~ch.alive):
            ch.respawn_in_s[k] -= h
            if ch.respawn_in_s[k] <= 0:
                ch.pos[k, :2] = random_free_point(world, rng)
                ch.alive[k] = True
                log.emit("chicken_respawn", chicken=int(k))
        ch.turn_in_s -= h
        for k in np.flatnonzero(ch.alive & (ch.turn_in_s <= 0)):
            ch.yaw[k] = rng.uniform(-np.pi, np.pi)
            ch.turn_in_s[k] = self.turn_every * rng.uniform(0.5, 1.5)
        step = self.speed * h * np.column_stack([np.cos(ch.yaw), np.sin(ch.yaw)])
        new = ch.pos[:, :2] + step
        r = ch.radius_m
        ok = ch.alive & (new >= r).all(axis=1) & (new <= world.size_m - r).all(axis=1)
        b = world.obstacles.boxes
        inside = ((new[:, None, 0] > b[None, :, 0] - r) & (new[:, None, 0] < b[None, :, 2] + r)
                  & (new[:, None, 1] > b[None, :, 1] - r) & (new[:, None, 1] < b[None, :, 3] + r))
        ok &= ~inside.any(axis=1)
        ch.pos[ok, :2] = new[ok]
        for k in np.flatnonzero(ch.alive & ~ok):
            ch.yaw[k] = rng.uniform(-np.pi, np.pi)
