"""What the renderer draws, as flat numpy arrays the compiled kernels can read.

The arena's `World` (envs/arena/world.py) is turned into three things here:

- a `HeightGrid`: the obstacles rasterised on a fine grid of heights (metres) and materials, built once
  per level layout, which the column raycaster walks;
- a sprite table `(S, SPRITE_FIELDS)` float32: one row per billboard (players, coins, ammo boxes,
  chickens, turrets, shells, muzzle flashes), rebuilt every step;
- a camera table `(N, CAMERA_FIELDS)` float32: one row per agent's eye, rebuilt every step.

Conventions are the world's: `x` east, `y` north, `z` up, yaw counter-clockwise from `+x`, pitch up
positive, all angles in radians, all lengths in metres.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

# -- materials of the height grid ----------------------------------------------------------------------
MAT_FLOOR = 0
MAT_WALL = 1
MAT_CRATE = 2
MAT_BOUNDARY = 3

# -- sprite kinds and the sprite table's columns ---------------------------------------------------------
PLAYER, COIN, AMMO, CHICKEN, TURRET, FLASH, SHELL = range(7)
SPRITE_KINDS = ("player", "coin", "ammo", "chicken", "turret", "flash", "shell")
# kind, x, y, z (bottom), width, height, r, g, b, p0, p1, p2, owner (player index or -1)
S_KIND, S_X, S_Y, S_Z, S_W, S_H, S_R, S_G, S_B, S_P0, S_P1, S_P2, S_OWNER = range(13)
SPRITE_FIELDS = 13

# -- camera table's columns ------------------------------------------------------------------------------
# x, y, eye z, yaw, pitch, horizontal fov, own player index (its sprite is not drawn), unused
C_X, C_Y, C_Z, C_YAW, C_PITCH, C_FOV, C_SELF = range(7)
CAMERA_FIELDS = 8

TEAM_COLOURS = np.array(
    [[40, 110, 235], [225, 50, 45], [40, 185, 75], [240, 200, 30], [170, 70, 220], [30, 200, 210],
     [245, 130, 30], [235, 90, 170]],
    dtype=np.float32,
)


@dataclass(frozen=True)
class HeightGrid:
    """Obstacles rasterised: `heights[iy, ix]` (metres, 0 = open floor) and `material[iy, ix]`.

    Cell `(ix, iy)` covers `[x0 + ix*cell_m, x0 + (ix+1)*cell_m)` in x (likewise y). Everything outside
    the grid counts as a boundary wall `outside_height_m` tall, so every ray ends somewhere.
    """

    heights: np.ndarray  # (ny, nx) float32
    material: np.ndarray  # (ny, nx) uint8
    skip: np.ndarray  # (ny, nx) int32: every cell within this Chebyshev distance has the same height
    x0: float
    y0: float
    cell_m: float
    outside_height_m: float
    max_height_m: float
    size_m: float  # the playable floor is [0, size_m]^2

    def params(self) -> np.ndarray:
        """The scalars the kernels need, packed: x0, y0, cell, outside height, max height, size."""
        return np.array(
            [self.x0, self.y0, self.cell_m, self.outside_height_m, self.max_height_m, self.size_m],
            dtype=np.float64,
        )


def build_height_grid(
    boxes: np.ndarray,
    materials: np.ndarray,
    size_m: float,
    cell_m: float = 0.25,
    margin_m: float = 2.0,
) -> HeightGrid:
    """Rasterise axis-aligned boxes `(x0, y0, x1, y1, height)` with one material each (`MAT_*`).

    A cell takes the tallest box that covers its centre. `cell_m` sets how finely box edges are
    placed; 0.25 m keeps edges within 12.5 cm of the world's while a 100 m arena stays 0.7 MB.
    """
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 5)
    materials = np.asarray(materials, dtype=np.uint8).reshape(-1)
    x0 = y0 = -margin_m
    n = int(np.ceil((size_m + 2 * margin_m) / cell_m))
    centres = x0 + (np.arange(n) + 0.5) * cell_m
    heights = np.zeros((n, n), dtype=np.float32)
    material = np.zeros((n, n), dtype=np.uint8)
    for (bx0, by0, bx1, by1, h), mat in zip(boxes, materials, strict=True):
        xs = np.nonzero((centres >= bx0) & (centres < bx1))[0]
        ys = np.nonzero((centres >= by0) & (centres < by1))[0]
        if len(xs) == 0 or len(ys) == 0:
            # a box thinner than a cell still blocks: give it the cell its centre falls in
            xs = xs if len(xs) else np.array([int(np.clip(((bx0 + bx1) / 2 - x0) // cell_m, 0, n - 1))])
            ys = ys if len(ys) else np.array([int(np.clip(((by0 + by1) / 2 - y0) // cell_m, 0, n - 1))])
        block = np.ix_(ys, xs)
        taller = heights[block] < h
        heights[block] = np.where(taller, np.float32(h), heights[block])
        material[block] = np.where(taller, mat, material[block])
    top = float(heights.max()) if heights.size else 0.0
    outside = max(top, 3.0)
    skip = same_height_radius(heights)
    return HeightGrid(heights, material, skip, x0, y0, cell_m, outside, max(top, outside), float(size_m))


def same_height_radius(heights: np.ndarray) -> np.ndarray:
    """For each cell, the Chebyshev radius (in cells) of the square around it whose cells all share its
    height: a ray may jump across that square without missing an edge (empty-space skipping).

    A chessboard distance transform to the nearest cell that has a differently tall neighbour (or lies
    on the grid's border), by erosion: cheap for a grid built once per layout.
    """
    h = np.asarray(heights, dtype=np.float32)
    edge = np.zeros(h.shape, dtype=bool)
    edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = True
    edge[1:, :] |= h[1:, :] != h[:-1, :]
    edge[:-1, :] |= h[:-1, :] != h[1:, :]
    edge[:, 1:] |= h[:, 1:] != h[:, :-1]
    edge[:, :-1] |= h[:, :-1] != h[:, 1:]
    edge[1:, 1:] |= h[1:, 1:] != h[:-1, :-1]
    edge[:-1, :-1] |= h[:-1, :-1] != h[1:, 1:]
    edge[1:, :-1] |= h[1:, :-1] != h[:-1, 1:]
    edge[:-1, 1:] |= h[:-1, 1:] != h[1:, :-1]
    return _chessboard_distance(edge)


@njit(cache=True)
def _chessboard_distance(edge):
    """Two-pass chessboard distance transform: 0 on `edge` cells."""
    ny, nx = edge.shape
    big = ny + nx
    d = np.empty((ny, nx), dtype=np.int32)
    for y in range(ny):
        for x in range(nx):
            if edge[y, x]:
                d[y, x] = 0
                continue
            m = big
            if y > 0:
                m = min(m, d[y - 1, x])
                if x > 0:
                    m = min(m, d[y - 1, x - 1])
                if x + 1 < nx:
                    m = min(m, d[y - 1, x + 1])
            if x > 0:
                m = min(m, d[y, x - 1])
            d[y, x] = m + 1
    for y in range(ny - 1, -1, -1):
        for x in range(nx - 1, -1, -1):
            m = d[y, x]
            if y + 1 < ny:
                m = min(m, d[y + 1, x] + 1)
                if x > 0:
                    m = min(m, d[y + 1, x - 1] + 1)
                if x + 1 < nx:
                    m = min(m, d[y + 1, x + 1] + 1)
            if x + 1 < nx:
                m = min(m, d[y, x + 1] + 1)
            d[y, x] = m
    return d


def grid_from_world(world, cell_m: float = 0.25) -> HeightGrid:
    """The height grid of a `World`'s obstacles; boxes outside the floor are boundary walls."""
    from rtarena.envs.arena.world import CRATE

    boxes = np.asarray(world.obstacles.boxes, dtype=np.float64).reshape(-1, 5)
    kinds = np.asarray(world.obstacles.kind)
    size = float(world.size_m)
    outside = (boxes[:, 2] <= 0) | (boxes[:, 3] <= 0) | (boxes[:, 0] >= size) | (boxes[:, 1] >= size)
    mats = np.where(kinds == CRATE, MAT_CRATE, np.where(outside, MAT_BOUNDARY, MAT_WALL)).astype(np.uint8)
    return build_height_grid(boxes, mats, size, cell_m=cell_m)


def empty_sprites(n: int = 0) -> np.ndarray:
    table = np.zeros((n, SPRITE_FIELDS), dtype=np.float32)
    table[:, S_OWNER] = -1
    return table


def sprite_rows(kind: int, xyz: np.ndarray, width: float, height: float, colour, p0=0.0, p1=0.0, p2=0.0,
                owner=-1) -> np.ndarray:
    """Sprite rows of one kind; `xyz` is (n, 3) bottom-centre positions, the rest broadcast."""
    xyz = np.asarray(xyz, dtype=np.float32).reshape(-1, 3)
    rows = np.zeros((len(xyz), SPRITE_FIELDS), dtype=np.float32)
    rows[:, S_KIND] = kind
    rows[:, S_X:S_Z + 1] = xyz
    rows[:, S_W] = width
    rows[:, S_H] = height
    rows[:, S_R:S_B + 1] = np.asarray(colour, dtype=np.float32)
    rows[:, S_P0] = p0
    rows[:, S_P1] = p1
    rows[:, S_P2] = p2
    rows[:, S_OWNER] = owner
    return rows


def cameras(x, y, eye_z, yaw, pitch, fov_rad, self_index=None) -> np.ndarray:
    """A camera table from per-camera arrays (or scalars, broadcast)."""
    x, y, eye_z, yaw, pitch, fov_rad = np.broadcast_arrays(
        *(np.atleast_1d(np.asarray(v, dtype=np.float64)) for v in (x, y, eye_z, yaw, pitch, fov_rad))
    )
    table = np.zeros((len(x), CAMERA_FIELDS), dtype=np.float32)
    table[:, C_X], table[:, C_Y], table[:, C_Z] = x, y, eye_z
    table[:, C_YAW], table[:, C_PITCH], table[:, C_FOV] = yaw, pitch, fov_rad
    table[:, C_SELF] = -1 if self_index is None else np.asarray(self_index)
    return table
