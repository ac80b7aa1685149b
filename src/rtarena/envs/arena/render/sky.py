"""The sky as a lookup table by direction: a haze-to-blue gradient with a cloud layer.

Clouds lie on a flat layer high above the arena and are seen in perspective, so they crowd toward the
horizon and sweep across the view when the camera turns. The table is indexed by azimuth and by the
square root of the elevation's tangent (finer near the horizon, where the gradient changes fastest).
"""

from __future__ import annotations

import functools
import sys

import numpy as np

from rtarena.envs.arena.render.surfaces import FOG_RGB

SKY_AZIMUTHS = 2048
SKY_ELEVATIONS = 384
SKY_MAX_TAN = 8.0  # elevations steeper than this (about 83 degrees) use the top row
SKY_BLOCK = 128  # azimuths built at a time


def _value_noise(x: np.ndarray, y: np.ndarray, lattice: np.ndarray) -> np.ndarray:
    n = lattice.shape[0]
    ix = np.floor(x).astype(np.int64)
    iy = np.floor(y).astype(np.int64)
    fx = x - ix
    fy = y - iy
    fx = fx * fx * (3 - 2 * fx)
    fy = fy * fy * (3 - 2 * fy)
    x0, y0 = ix % n, iy % n
    x1, y1 = (ix + 1) % n, (iy + 1) % n
    top = lattice[y0, x0] * (1 - fx) + lattice[y0, x1] * fx
    bottom = lattice[y1, x0] * (1 - fx) + lattice[y1, x1] * fx
    return top * (1 - fy) + bottom * fy


@functools.lru_cache(maxsize=1)
def sky_table() -> np.ndarray:
    """(SKY_ELEVATIONS, SKY_AZIMUTHS, 3) uint8, built once per process (about 0.1 s). Elevation-major:
    the renderer reads it a screen row at a time, along which the elevation barely changes, so its
    reads stay in nearby memory (the table is larger than a core's cache)."""
    rng = np.random.default_rng(20240601)
    lattice = rng.random((128, 128))
    az = (np.arange(SKY_AZIMUTHS) + 0.5) / SKY_AZIMUTHS * 2 * np.pi - np.pi
    root = (np.arange(SKY_ELEVATIONS) + 0.5) / SKY_ELEVATIONS
    tan_el = (root * root * SKY_MAX_TAN)[None, :]
    s = np.minimum(1.0, np.arctan(tan_el) * 1.6)
    fog = np.array(FOG_RGB)
    blue = np.array([70.0, 125.0, 205.0])
    base = fog * (1 - s[..., None]) + blue * s[..., None]
    reach = 60.0 / np.maximum(tan_el, 1e-3)  # where the direction meets the cloud layer, in layer units
    cos_az, sin_az = np.cos(az)[:, None], np.sin(az)[:, None]
    out = np.empty((SKY_AZIMUTHS, SKY_ELEVATIONS, 3), dtype=np.uint8)
    # a block of azimuths at a time: the same numbers element by element, but the float64 temporaries
    # stay about 1 MB instead of 100 MB at once (the process's peak memory, issue 19)
    for a0 in range(0, SKY_AZIMUTHS, SKY_BLOCK):
        a1 = a0 + SKY_BLOCK
        cx = cos_az[a0:a1] * reach / 40.0
        cy = sin_az[a0:a1] * reach / 40.0
        cloud = np.zeros((a1 - a0, SKY_ELEVATIONS))
        amplitude, freq = 0.55, 1.0
        for _ in range(4):
            cloud += amplitude * _value_noise(cx * freq + 17.3, cy * freq + 5.1, lattice)
            amplitude *= 0.5
            freq *= 2.07
        cover = np.clip((cloud - 0.52) * 3.2, 0.0, 1.0)
        cover *= np.clip((tan_el - 0.03) / 0.2, 0.0, 1.0)  # far clouds dissolve into the haze
        sky = base * (1 - cover[..., None] * 0.85) + np.array([248.0, 248.0, 252.0]) * (cover[..., None] * 0.85)
        out[a0:a1] = np.clip(sky, 0, 255).astype(np.uint8)
    return np.ascontiguousarray(out.transpose(1, 0, 2))


@functools.lru_cache(maxsize=1)
def sky_words() -> np.ndarray:
    """`sky_table()` as the renderer reads it: (SKY_ELEVATIONS, SKY_AZIMUTHS) uint32 whose bytes in memory
    are R, G, B, 0, so that a sky pixel is one load and, inside a run of sky, one 4-byte store (its fourth
    byte lands on the next pixel's red, which is written next). Little-endian machines only (x86, ARM)."""
    assert sys.byteorder == "little"
    table = sky_table().astype(np.uint32)
    return np.ascontiguousarray(table[..., 0] | (table[..., 1] << 8) | (table[..., 2] << 16))
