"""Chickens: harmless birds that wander and come back after being shot.

A chicken walks at `chickens.speed_m_s` in its direction and picks a new random direction every
`chickens.turn_every_s` (on average) or when an obstacle or the arena's edge is in its way. Shot, it
disappears and comes back after `chickens.respawn_s` at a random free place.
"""

from __future__ import annotations

import numpy as np

from rtarena.envs.arena.events import CHICKEN_RESPAWN, put
from rtarena.envs.arena.kernel_cache import kernel
from rtarena.envs.arena.pickups import random_free_point
from rtarena.envs.arena.rules import Rules

DRAW_BLOCK = 20  # sub-steps of random numbers drawn at once


class Flock:
    """The chicken rules as the compiled `flock_substep` takes them."""

    def __init__(self, rules: Rules) -> None:
        c = rules.chickens
        self.values = (float(c.speed_m_s), float(c.turn_every_s))


@kernel
def flock_substep(pos, yaw, alive, respawn_in, turn_in, radius, draws, fv, areas, size, boxes, ppos, palive, rng, h,
                  sub, ev, evx, evn):
    """One sub-step of the chickens: the dead wait and come back at a random free place, the living wander.
    `draws = (yaws, turns, at)`: random numbers for every sub-step (used or not), drawn `DRAW_BLOCK` sub-steps
    at a time, keep the random stream independent of what happens and of dt."""
    speed, turn_every = fv
    k_count = pos.shape[0]
    dead = ~alive
    for k in range(k_count):
        if dead[k]:
            respawn_in[k] -= h
    for k in range(k_count):
        if dead[k] and respawn_in[k] <= 0:
            pos[k, :2] = random_free_point(ppos, palive, boxes, size, rng, areas, k)
            alive[k] = True
            put(ev, evx, evn, CHICKEN_RESPAWN, sub, k, -1, -1, 0.0)
    yaws, turns, at = draws
    if at[0] == DRAW_BLOCK:  # as `rng.uniform(-pi, pi, size=(20, K))`, then `rng.uniform(0.5, 1.5, ...) * every`
        for j in range(DRAW_BLOCK):
            for k in range(k_count):
                yaws[j, k] = -np.pi + (np.pi - -np.pi) * rng.random()
        for j in range(DRAW_BLOCK):
            for k in range(k_count):
                turns[j, k] = (0.5 + (1.5 - 0.5) * rng.random()) * turn_every
        at[0] = 0
    wander(pos, yaw, alive, turn_in, yaws[at[0]], turns[at[0]], speed * h, h, size, radius, boxes)
    at[0] += 1


@kernel
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
