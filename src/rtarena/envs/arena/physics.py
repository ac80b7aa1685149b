"""Player movement: turning, walking, jumping with gravity, and collision with obstacles and each other.

One call advances every player by one fixed sub-step `h` (seconds). The env calls it `dt / h` times per
step, so how far a player walks or how high it jumps does not depend on the env's `dt`. Compiled with
numba; the loops are plain so they read like the rules they implement.
"""

from __future__ import annotations

import math

import numpy as np

from rtarena.envs.arena.kernel_cache import kernel
from rtarena.envs.arena.world import CRATE

EPS = 1e-6


@kernel
def _circle_box_push(x, y, r, x0, y0, x1, y1):
    """The (dx, dy) that moves a circle at (x, y) of radius r out of a box; (0, 0) when apart."""
    cx = min(max(x, x0), x1)
    cy = min(max(y, y0), y1)
    dx, dy = x - cx, y - cy
    d2 = dx * dx + dy * dy
    if d2 >= r * r:
        return 0.0, 0.0
    if d2 > EPS * EPS:
        d = math.sqrt(d2)
        return dx / d * (r - d), dy / d * (r - d)
    # Centre inside the box: leave along the side of least penetration.
    left, right, down, up = x - x0 + r, x1 - x + r, y - y0 + r, y1 - y + r
    m = min(left, right, down, up)
    if m == left:
        return -left, 0.0
    if m == right:
        return right, 0.0
    if m == down:
        return 0.0, -down
    return 0.0, up


@kernel
def _overlaps(x, y, r, x0, y0, x1, y1):
    cx = min(max(x, x0), x1)
    cy = min(max(y, y0), y1)
    return (x - cx) ** 2 + (y - cy) ** 2 < r * r


@kernel
def move_players(pos, vel_z, yaw, pitch, on_ground, alive, move, turn, tilt, jump, boxes, kinds,
                 radius, height, speed, turn_rate, pitch_rate, pitch_limit, jump_speed, gravity, h):
    """Advance all living players by `h` seconds.

    `move[i] = (left, forward)` in {-1, 0, 1} in the player's own frame (diagonals are normalised),
    `turn[i]` +1 turns left, `tilt[i]` +1 looks up, `jump[i]` jumps when standing. Arrays change in place.
    """
    n = pos.shape[0]
    for i in range(n):
        if not alive[i]:
            continue
        yaw[i] = (yaw[i] + turn[i] * turn_rate * h + math.pi) % (2 * math.pi) - math.pi
        pitch[i] = min(max(pitch[i] + tilt[i] * pitch_rate * h, -pitch_limit), pitch_limit)
        left, fwd = move[i, 0], move[i, 1]
        norm = math.sqrt(left * left + fwd * fwd)
        if norm > 0:
            c, s = math.cos(yaw[i]), math.sin(yaw[i])
            vx = speed * (fwd * c - left * s) / norm
            vy = speed * (fwd * s + left * c) / norm
            pos[i, 0] += vx * h
            pos[i, 1] += vy * h
        if jump[i] and on_ground[i]:
            vel_z[i] = jump_speed
            on_ground[i] = False
        z_before = pos[i, 2]
        vel_z[i] -= gravity * h
        pos[i, 2] += vel_z[i] * h
        # Land on the floor or on a crate the feet were above before this sub-step.
        support = 0.0
        for b in range(boxes.shape[0]):
            if kinds[b] == CRATE and boxes[b, 4] <= z_before + EPS and boxes[b, 4] > support \
                    and _overlaps(pos[i, 0], pos[i, 1], radius, boxes[b, 0], boxes[b, 1], boxes[b, 2], boxes[b, 3]):
                support = boxes[b, 4]
        if pos[i, 2] <= support:
            pos[i, 2] = support
            vel_z[i] = 0.0
            on_ground[i] = True
        else:
            on_ground[i] = False
        # Walls block at every height; crates only below their top.
        for b in range(boxes.shape[0]):
            if kinds[b] == CRATE and pos[i, 2] >= boxes[b, 4] - EPS:
                continue
            dx, dy = _circle_box_push(pos[i, 0], pos[i, 1], radius, boxes[b, 0], boxes[b, 1], boxes[b, 2], boxes[b, 3])
            pos[i, 0] += dx
            pos[i, 1] += dy
    # Players are solid to each other: overlapping pairs are pushed apart equally.
    for i in range(n):
        if not alive[i]:
            continue
        for j in range(i + 1, n):
            if not alive[j] or abs(pos[i, 2] - pos[j, 2]) >= height:
                continue
            dx, dy = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1]
            d = math.sqrt(dx * dx + dy * dy)
            if d >= 2 * radius:
                continue
            if d < EPS:
                dx, dy, d = 1.0, 0.0, 1.0
                overlap = 2 * radius
            else:
                overlap = 2 * radius - d
            pos[i, 0] -= dx / d * overlap / 2
            pos[i, 1] -= dy / d * overlap / 2
            pos[j, 0] += dx / d * overlap / 2
            pos[j, 1] += dy / d * overlap / 2


SIGN = np.array([0.0, 1.0, -1.0])  # action value 1 -> +1, value 2 -> -1


@kernel
def commands(actions):
    """Decode `(N, 7)` MultiDiscrete actions into movement commands for `move_players`.

    Index 0 move_x (1 left, 2 right), 1 move_y (1 backward, 2 forward), 2 yaw (1 left, 2 right),
    3 pitch (1 down, 2 up), 4 fire, 5 jump, 6 minimap.
    """
    n = actions.shape[0]
    move = np.empty((n, 2))
    turn, tilt, jump = np.empty(n), np.empty(n), np.empty(n, dtype=np.bool_)
    for i in range(n):
        move[i, 0] = SIGN[actions[i, 0]]  # +1 = left
        move[i, 1] = -SIGN[actions[i, 1]]  # +1 = forward
        turn[i] = SIGN[actions[i, 2]]  # +1 = left
        tilt[i] = -SIGN[actions[i, 3]]  # +1 = up
        jump[i] = actions[i, 5] != 0
    return move, turn, tilt, jump
