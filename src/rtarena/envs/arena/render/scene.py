"""What the renderer draws, as flat numpy arrays the compiled kernels can read.

The arena's `World` (envs/arena/world.py) is turned into these here:

- a box table: the obstacles with their heights and materials, which the column raycaster casts
  against (exact edges);
- a `HeightGrid`: the obstacles rasterised on a fine grid of heights (metres) and materials, built once
  per level layout, from which the minimap and spectator pictures are drawn;
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

from rtarena.envs.arena.render.palette import TEAM_RGB

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

TEAM_COLOURS = np.array(TEAM_RGB, dtype=np.float32)


@dataclass(frozen=True)
class HeightGrid:
    """Obstacles rasterised (for the minimap and spectator pictures): `heights[iy, ix]` (metres, 0 = open
    floor) and `material[iy, ix]`.

    Cell `(ix, iy)` covers `[x0 + ix*cell_m, x0 + (ix+1)*cell_m)` in x (likewise y). Everything outside
    the grid counts as a boundary wall `outside_height_m` tall, so every ray ends somewhere.
    """

    heights: np.ndarray  # (ny, nx) float32
    material: np.ndarray  # (ny, nx) uint8
    x0: float
    y0: float
    cell_m: float
    outside_height_m: float
    max_height_m: float
    size_m: float  # the playable floor is [0, size_m]^2


def as_points(a) -> np.ndarray:
    """`a` as an `(n, 3)` float64 array: `a` itself when it already is one (a world's positions)."""
    a = np.asarray(a, np.float64)
    return a if a.ndim == 2 and a.shape[1] == 3 else a.reshape(-1, 3)


def build_height_grid(
    boxes: np.ndarray,
    materials: np.ndarray,
    size_m: float,
    cell_m: float = 0.25,
    margin_m: float = 2.0,
) -> HeightGrid:
    """Rasterise axis-aligned boxes `(x0, y0, x1, y1, height)` with one material each (`MAT_*`).

    A cell takes the tallest box that covers its centre; a box thinner than a cell still gets one.
    """
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 5)
    materials = np.asarray(materials, dtype=np.uint8).reshape(-1)
    x0 = y0 = -margin_m
    n = int(np.ceil((size_m + 2 * margin_m) / cell_m))
    centres = x0 + (np.arange(n) + 0.5) * cell_m
    heights = np.zeros((n, n), dtype=np.float32)
    material = np.zeros((n, n), dtype=np.uint8)
    _rasterise(heights, material, boxes, materials, centres, x0, cell_m)
    top = float(heights.max()) if heights.size else 0.0
    outside = max(top, 3.0)
    return HeightGrid(heights, material, x0, y0, cell_m, outside, max(top, outside), float(size_m))


@njit(cache=True)
def _rasterise(heights, material, boxes, materials, centres, x0, cell_m):
    """Each box in turn raises the cells whose centres it covers (a box thinner than a cell: the cell its
    centre falls in) to its height where it is taller; compiled, as a numpy pass per box cost a millisecond
    a layout (issue 19). `x0` is the grid's origin on both axes."""
    n = centres.shape[0]
    xs = np.empty(n, dtype=np.int64)
    ys = np.empty(n, dtype=np.int64)
    for b in range(boxes.shape[0]):
        bx0, by0, bx1, by1, h = boxes[b, 0], boxes[b, 1], boxes[b, 2], boxes[b, 3], boxes[b, 4]
        nx = 0
        ny = 0
        for k in range(n):
            if centres[k] >= bx0 and centres[k] < bx1:
                xs[nx] = k
                nx += 1
            if centres[k] >= by0 and centres[k] < by1:
                ys[ny] = k
                ny += 1
        if nx == 0 or ny == 0:
            if nx == 0:
                xs[0] = int(min(max(((bx0 + bx1) / 2 - x0) // cell_m, 0), n - 1))
                nx = 1
            if ny == 0:
                ys[0] = int(min(max(((by0 + by1) / 2 - x0) // cell_m, 0), n - 1))
                ny = 1
        for j in range(ny):
            for i in range(nx):
                if heights[ys[j], xs[i]] < h:
                    heights[ys[j], xs[i]] = np.float32(h)
                    material[ys[j], xs[i]] = materials[b]


def grid_from_world(world, cell_m: float = 0.25) -> HeightGrid:
    """The height grid of a `World`'s obstacles; boxes outside the floor are boundary walls."""
    from rtarena.envs.arena.world import CRATE

    boxes = np.asarray(world.obstacles.boxes, dtype=np.float64).reshape(-1, 5)
    kinds = np.asarray(world.obstacles.kind)
    size = float(world.size_m)
    outside = (boxes[:, 2] <= 0) | (boxes[:, 3] <= 0) | (boxes[:, 0] >= size) | (boxes[:, 1] >= size)
    mats = np.where(kinds == CRATE, MAT_CRATE, np.where(outside, MAT_BOUNDARY, MAT_WALL)).astype(np.uint8)
    return build_height_grid(boxes, mats, size, cell_m=cell_m)


def box_table(world) -> np.ndarray:
    """The obstacles as the renderer reads them: (M, 6) float64 rows x0, y0, x1, y1, height, material
    (`MAT_WALL`, `MAT_CRATE`, or `MAT_BOUNDARY` for walls outside the floor)."""
    from rtarena.envs.arena.world import CRATE

    boxes = np.asarray(world.obstacles.boxes, dtype=np.float64).reshape(-1, 5)
    kinds = np.asarray(world.obstacles.kind)
    size = float(world.size_m)
    outside = (boxes[:, 2] <= 0) | (boxes[:, 3] <= 0) | (boxes[:, 0] >= size) | (boxes[:, 1] >= size)
    mats = np.where(kinds == CRATE, MAT_CRATE, np.where(outside, MAT_BOUNDARY, MAT_WALL))
    table = np.zeros((len(boxes), 6), dtype=np.float64)
    table[:, :5] = boxes
    table[:, 5] = mats
    return table


def world_bounds(world, margin_m: float = 2.0) -> np.ndarray:
    """(lo, hi, outside height): beyond the square `[lo, hi]^2` the renderer sees a boundary wall."""
    boxes = np.asarray(world.obstacles.boxes, dtype=np.float64).reshape(-1, 5)
    top = float(boxes[:, 4].max()) if len(boxes) else 0.0
    return np.array([-margin_m, float(world.size_m) + margin_m, max(top, 3.0)], dtype=np.float64)


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
