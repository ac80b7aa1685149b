"""Procedural textures, compiled: colours are computed from world coordinates, so surfaces need no
texture memory and stay sharp at any resolution.

Every function returns an `(r, g, b)` tuple of floats in 0..255. The patterns (floor tiles, crate
planks; wall blocks and bricks are drawn course by course in `raycast._draw_face`, the floor's common
case in `raycast._draw_floor`) exist so that distance and motion can be perceived: tiles shrink toward
the horizon and slide under the camera. The sky is a table (`sky.py`).
"""

from __future__ import annotations

import math

from numba import njit

from rtarena.envs.arena.render.scene import MAT_CRATE, MAT_FLOOR, MAT_WALL

FOG_RGB = (188.0, 198.0, 212.0)
ZONE_RGB = (150.0, 40.0, 190.0)


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def hash01(ix, iy, salt):
    """A repeatable pseudo-random number in [0, 1) for an integer cell."""
    h = (ix * 374761393 + iy * 668265263 + salt * 982451653) & 0xFFFFFFFF
    h = ((h ^ (h >> 13)) * 1274126177) & 0xFFFFFFFF
    return ((h ^ (h >> 16)) & 0xFFFF) / 65536.0


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def fog(r, g, b, dist, fog_m):
    """Blend toward the haze colour with distance (exponential fog)."""
    s = math.exp(-dist / fog_m)
    return r * s + FOG_RGB[0] * (1.0 - s), g * s + FOG_RGB[1] * (1.0 - s), b * s + FOG_RGB[2] * (1.0 - s)


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def floor_colour(wx, wy, dist, zx, zy, zr2):
    """Floor tiles of 2 m with grout lines that fade with distance (no shimmer far away); purple tint
    outside the toxic zone (centre `zx, zy`, squared radius `zr2`, negative when there is none).

    Scalars rather than a zone array: array arguments keep small functions from being inlined."""
    fx = wx * 0.5
    fy = wy * 0.5
    ix = math.floor(fx)
    iy = math.floor(fy)
    ux = fx - ix
    uy = fy - iy
    v = 0.88 + 0.16 * hash01(int(ix), int(iy), 7)
    if (int(ix) + int(iy)) & 1:
        v *= 0.93
    r = 150.0 * v
    g = 142.0 * v
    b = 122.0 * v
    contrast = max(0.0, 1.0 - dist / 45.0)
    if ux < 0.035 or uy < 0.035:
        k = 1.0 - 0.35 * contrast
        r *= k
        g *= k
        b *= k
    if zr2 >= 0.0:
        ddx = wx - zx
        ddy = wy - zy
        if ddx * ddx + ddy * ddy > zr2:
            r = r * 0.55 + ZONE_RGB[0] * 0.45
            g = g * 0.55 + ZONE_RGB[1] * 0.45
            b = b * 0.55 + ZONE_RGB[2] * 0.45
    return r, g, b


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def top_colour(mat, wx, wy, dist, zx, zy, zr2):
    """The horizontal top of a cell run: the floor, or the top of a crate or wall."""
    if mat == MAT_FLOOR:
        return floor_colour(wx, wy, dist, zx, zy, zr2)
    if mat == MAT_CRATE:
        plank = math.floor(wx / 0.25)
        fx = wx / 0.25 - plank
        v = 0.9 + 0.2 * hash01(int(plank), math.floor(wy), 13)
        r, g, b = 190.0 * v, 138.0 * v, 78.0 * v
        if fx < 0.08:
            k = 1.0 - 0.4 * max(0.0, 1.0 - dist / 50.0)
            r, g, b = r * k, g * k, b * k
        return r, g, b
    if mat == MAT_WALL:
        return 120.0, 122.0, 130.0
    return 120.0, 80.0, 70.0


__all__ = ["FOG_RGB", "ZONE_RGB", "floor_colour", "fog", "hash01", "top_colour"]
