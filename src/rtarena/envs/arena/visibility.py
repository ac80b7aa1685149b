"""Line of sight and field of view: what a player, turret or shot can see or reach.

A segment is blocked by a wall at any height and by a crate only below the crate's top. A viewer sees a
point when it is within the view range, within the horizontal field of view of its yaw, and not blocked.
Observations are built only from what these functions let through, so nothing hidden leaks.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rtarena.envs.arena.world import WALL


@njit(cache=True)
def segment_box_t(ax, ay, az, bx, by, bz, x0, y0, x1, y1, top):
    """The fraction t in [0, 1] along a->b where the segment enters the box, or 2.0 when it misses."""
    t0, t1 = 0.0, 1.0
    for a, d, lo, hi in ((ax, bx - ax, x0, x1), (ay, by - ay, y0, y1), (az, bz - az, -1.0, top)):
        if abs(d) < 1e-12:
            if a < lo or a > hi:
                return 2.0
        else:
            u, v = (lo - a) / d, (hi - a) / d
            if u > v:
                u, v = v, u
            t0, t1 = max(t0, u), min(t1, v)
            if t0 > t1:
                return 2.0
    return t0


@njit(cache=True)
def first_obstacle_t(a, b, boxes, kinds):
    """The smallest t at which segment a->b enters an obstacle (2.0 when it reaches b)."""
    best = 2.0
    for k in range(boxes.shape[0]):
        top = 1e9 if kinds[k] == WALL else boxes[k, 4]
        t = segment_box_t(a[0], a[1], a[2], b[0], b[1], b[2], boxes[k, 0], boxes[k, 1], boxes[k, 2], boxes[k, 3], top)
        if t < best:
            best = t
    return best


@njit(cache=True)
def blocked(a, b, boxes, kinds):
    return first_obstacle_t(a, b, boxes, kinds) <= 1.0


@njit(cache=True)
def sight(eyes, yaws, viewer_ok, points, point_ok, point_owner, half_fov, view_range, boxes, kinds):
    """`(N, K)` bool: viewer i sees point k (in range, in the field of view, line of sight clear).

    `point_owner[k]` is the viewer a point belongs to (its own body), or -1; a viewer never sees itself.
    `half_fov >= pi` means all around (turrets).
    """
    n, m = eyes.shape[0], points.shape[0]
    out = np.zeros((n, m), dtype=np.bool_)
    for i in range(n):
        if not viewer_ok[i]:
            continue
        for k in range(m):
            if not point_ok[k] or point_owner[k] == i:
                continue
            dx, dy = points[k, 0] - eyes[i, 0], points[k, 1] - eyes[i, 1]
            d2 = dx * dx + dy * dy
            if d2 > view_range * view_range:
                continue
            if half_fov < math.pi:
                bearing = (math.atan2(dy, dx) - yaws[i] + math.pi) % (2 * math.pi) - math.pi
                if abs(bearing) > half_fov:
                    continue
            if not blocked(eyes[i], points[k], boxes, kinds):
                out[i, k] = True
    return out


def relative(origin: np.ndarray, yaw: float, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distances (m, in the floor plane) and bearings (radians, + is to the left) of points from a viewer."""
    d = points[:, :2] - origin[:2]
    dist = np.hypot(d[:, 0], d[:, 1])
    bearing = (np.arctan2(d[:, 1], d[:, 0]) - yaw + np.pi) % (2 * np.pi) - np.pi
    return dist, bearing
