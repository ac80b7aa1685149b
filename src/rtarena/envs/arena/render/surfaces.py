"""Procedural textures and sky, compiled: colours are computed from world coordinates, so surfaces
need no texture memory and stay sharp at any resolution.

Every function returns an `(r, g, b)` tuple of floats in 0..255. The patterns (floor tiles, wall
blocks, crate planks, clouds) exist so that distance and motion can be perceived: tiles shrink toward
the horizon and slide under the camera, clouds move when the camera turns.
"""

from __future__ import annotations

import math

from numba import njit

from rtarena.envs.arena.render.scene import MAT_BOUNDARY, MAT_CRATE, MAT_FLOOR, MAT_WALL

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
def face_colour(mat, u, z, side, dist):
    """A vertical face: `u` runs along the face (metres), `z` is the height; `side` 1 faces north/south
    and is drawn darker, so corners read."""
    contrast = max(0.0, 1.0 - dist / 50.0)
    if mat == MAT_CRATE:
        plank = math.floor(z / 0.25)
        fz = z / 0.25 - plank
        col = math.floor(u / 1.0)
        fu = u - col
        v = 0.85 + 0.2 * hash01(int(col), int(plank), 3)
        r, g, b = 170.0 * v, 118.0 * v, 62.0 * v
        if fz < 0.08 or fu < 0.04:
            k = 1.0 - 0.45 * contrast
            r, g, b = r * k, g * k, b * k
    elif mat == MAT_BOUNDARY:
        row = math.floor(z / 0.25)
        bu = u / 0.5 + 0.5 * (int(row) & 1)
        col = math.floor(bu)
        fu = bu - col
        fz = z / 0.25 - row
        v = 0.85 + 0.25 * hash01(int(col), int(row), 5)
        r, g, b = 150.0 * v, 72.0 * v, 58.0 * v
        if fz < 0.1 or fu < 0.05:
            k = 1.0 - 0.3 * contrast
            r, g, b = 185.0 * k + r * (1 - k), 178.0 * k + g * (1 - k), 165.0 * k + b * (1 - k)
    else:  # MAT_WALL: concrete blocks 1 m x 0.5 m, offset every other course
        row = math.floor(z / 0.5)
        bu = u + 0.5 * (int(row) & 1)
        col = math.floor(bu)
        fu = bu - col
        fz = z / 0.5 - row
        v = 0.86 + 0.2 * hash01(int(col), int(row), 11)
        r, g, b = 158.0 * v, 162.0 * v, 170.0 * v
        if fz < 0.06 or fu < 0.03:
            k = 1.0 - 0.4 * contrast
            r, g, b = r * k, g * k, b * k
    if side == 1:
        r, g, b = r * 0.78, g * 0.78, b * 0.78
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


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def sky_colour(azimuth, elevation):
    """Sky by direction: a gradient from haze at the horizon to blue overhead, with clouds fixed to the
    world's directions (so turning is visible even in an open field)."""
    if elevation < 0.0:
        return FOG_RGB[0], FOG_RGB[1], FOG_RGB[2]
    s = min(1.0, elevation * 1.6)
    r = FOG_RGB[0] * (1 - s) + 70.0 * s
    g = FOG_RGB[1] * (1 - s) + 125.0 * s
    b = FOG_RGB[2] * (1 - s) + 205.0 * s
    c = math.sin(azimuth * 5.0 + 1.7 * math.sin(azimuth * 3.0) + elevation * 7.0) * math.sin(
        azimuth * 9.0 - elevation * 11.0 + 0.6 + math.sin(azimuth * 2.0)
    )
    if c > 0.25 and elevation > 0.03:
        k = min(1.0, (c - 0.25) * 2.5) * min(1.0, (elevation - 0.03) * 12.0) * 0.75
        r = r * (1 - k) + 245.0 * k
        g = g * (1 - k) + 245.0 * k
        b = b * (1 - k) + 250.0 * k
    return r, g, b


__all__ = ["MAT_BOUNDARY", "MAT_CRATE", "MAT_FLOOR", "MAT_WALL", "face_colour", "fog", "sky_colour",
           "top_colour"]
