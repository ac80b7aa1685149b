"""Top-down pictures of the arena: the agents' minimap and the spectator's view.

Both are north-up (x to the right, y up) and start from the same static layer: the obstacles
rasterised once per layout (walls light grey, crates brown). The minimap then adds only what an agent
may know from it (the toxic zone, turrets, coins, ammo boxes; never other players); the agent's own
arrow is drawn per agent by `hud.draw_minimap`. The spectator view adds everything: players in their
team colours with their heading, chickens, shells in flight, shots and turret locks.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rtarena.envs.arena.render import draw, palette
from rtarena.envs.arena.render.scene import (
    MAT_BOUNDARY,
    MAT_CRATE,
    MAT_WALL,
    TEAM_COLOURS,
    HeightGrid,
    as_points,
)

MATERIAL_RGB = {MAT_WALL: palette.WALL_RGB, MAT_CRATE: palette.CRATE_RGB, MAT_BOUNDARY: palette.BOUNDARY_RGB}
ZONE = tuple(float(c) for c in palette.ZONE_RGB)
CHICKEN = tuple(float(c) for c in palette.CHICKEN_RGB)
COIN_RGB, AMMO_RGB, TURRET_RGB = (tuple(float(c) for c in rgb) for rgb in (palette.COIN_RGB, palette.AMMO_RGB,
                                                                             palette.TURRET_RGB))


def static_layer(grid: HeightGrid, pixels: int) -> np.ndarray:
    """(pixels, pixels, 3) uint8: the floor `[0, size_m]^2` with its obstacles, north up.

    Every obstacle cell marks the pixel it falls in (so a thin wall never vanishes when the picture is
    coarser than the grid), and every pixel also samples the cell under its centre (so none is left
    empty when the picture is finer than the grid)."""
    size = grid.size_m
    img = np.empty((pixels, pixels, 3), dtype=np.uint8)
    img[:] = palette.FLOOR_RGB
    code = np.zeros((pixels, pixels), dtype=np.int16)  # material + 1 of the tallest thing seen
    best = np.zeros((pixels, pixels), dtype=np.float32)
    ny, nx = grid.heights.shape
    cx = grid.x0 + (np.arange(nx) + 0.5) * grid.cell_m
    cy = grid.y0 + (np.arange(ny) + 0.5) * grid.cell_m
    iy, ix = np.nonzero(grid.heights > 0)
    wx, wy = cx[ix], cy[iy]
    keep = (wx >= 0) & (wx < size) & (wy >= 0) & (wy < size)
    iy, ix, wx, wy = iy[keep], ix[keep], wx[keep], wy[keep]
    px = np.clip((wx / size * pixels).astype(np.int64), 0, pixels - 1)
    py = np.clip(((size - wy) / size * pixels).astype(np.int64), 0, pixels - 1)
    h = grid.heights[iy, ix]
    order = np.argsort(h, kind="stable")  # taller last, so it wins
    best[py[order], px[order]] = h[order]
    code[py[order], px[order]] = grid.material[iy, ix][order].astype(np.int16) + 1
    centres = (np.arange(pixels) + 0.5) / pixels * size
    sx = np.clip(((centres - grid.x0) / grid.cell_m).astype(np.int64), 0, nx - 1)
    sy = np.clip(((size - centres - grid.y0) / grid.cell_m).astype(np.int64), 0, ny - 1)
    sample_h = grid.heights[np.ix_(sy, sx)]
    sample_m = grid.material[np.ix_(sy, sx)].astype(np.int16) + 1
    use = (sample_h > best) & (sample_h > 0)
    code = np.where(use, sample_m, code)
    for mat, rgb in MATERIAL_RGB.items():
        img[code == mat + 1] = rgb
    return img


class MapPainter:
    """Draws minimaps and spectator views of one layout (the static layer is cached per size)."""

    def __init__(self, grid: HeightGrid) -> None:
        self.grid = grid
        self.size_m = grid.size_m
        self._static: dict[int, np.ndarray] = {}
        self._painted: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # pixels -> (minimap, what it shows)
        self._items_world, self._items_kept = None, None  # `_items_of`'s arrays of the last world

    def static(self, pixels: int) -> np.ndarray:
        if pixels not in self._static:
            self._static[pixels] = static_layer(self.grid, pixels)
        return self._static[pixels]

    def scale(self, pixels: int) -> float:
        return pixels / self.size_m

    def minimap(self, world, pixels: int) -> np.ndarray:
        """What the minimap shows this step (without the viewer's own arrow): never other players.

        One picture per size, kept and painted again only when the zone or an item changed (most steps
        change neither: painting was about 9 us of a one-agent step that held the minimap, issue 19), so
        the picture returned is shared: read it, never draw on it."""
        args = self._items(world, pixels)
        kept = self._painted.get(pixels)
        if kept is None or not _repaint(*kept, *args):
            c, a, t = (len(args[i]) for i in (7, 9, 11))
            kept = self._painted[pixels] = (np.empty((pixels, pixels, 3), np.uint8),
                                            np.full(_seen_size(c, a, t), np.nan))  # NaN: nothing seen yet
            _repaint(*kept, *args)
        return kept[0]

    def _dynamic(self, world, pixels: int) -> np.ndarray:
        """The static layer with the zone and the items drawn over it, in one compiled call."""
        return _paint_dynamic(*self._items(world, pixels))

    def _items(self, world, pixels: int) -> tuple:
        """The arguments of `_paint_dynamic`: the static layer, the scale, the zone and the items."""
        zone = world.zone
        items = self._items_kept if world is self._items_world else self._items_of(world)
        return (self.static(pixels), self.scale(pixels), float(self.size_m), bool(zone.enabled),
                float(zone.center[0]), float(zone.center[1]), float(zone.radius_m), *items)

    def _items_of(self, world) -> tuple:
        """The items' arrays as `_paint_dynamic` takes them, kept for the next call with the same world while
        they are its own arrays (none converted), as `ArenaRenderer.sprite_table` keeps its own."""
        c, a, t = world.coins, world.ammo, world.turrets
        arrays = (c.pos, c.active, a.pos, a.active, t.pos, t.alive, t.health)
        items = (as_points(c.pos), np.asarray(c.active, np.bool_), as_points(a.pos), np.asarray(a.active, np.bool_),
                 as_points(t.pos), np.asarray(t.alive, np.bool_), np.asarray(t.health, np.float64))
        own = all(x is y for x, y in zip(arrays, items, strict=True))
        self._items_world, self._items_kept = (world, (*items, float(t.max_health))) if own else (None, None)
        return (*items, float(t.max_health))

    def spectator(self, world, pixels: int, events=(), names=()) -> np.ndarray:
        """Everything, for people watching: players, chickens, shells, shots, turret locks."""
        img = self._dynamic(world, pixels)
        k = self.scale(pixels)
        s = self.size_m
        for x, y, _z in world.chickens.pos[world.chickens.alive]:
            draw.disc(img, x * k, (s - y) * k, max(1.0, 0.35 * k), *CHICKEN, 1.0)
        p = world.players
        t = world.turrets
        for j in np.flatnonzero(t.alive & (t.target >= 0)):
            i = int(t.target[j])
            draw.line(img, t.pos[j, 0] * k, (s - t.pos[j, 1]) * k, p.pos[i, 0] * k, (s - p.pos[i, 1]) * k, 1.0,
                      255.0, 60.0, 50.0, 0.5)
        for j in range(len(t.alive)):
            if t.alive[j]:
                bx, by = math.cos(t.barrel_yaw[j]), math.sin(t.barrel_yaw[j])
                x, y = t.pos[j, 0] * k, (s - t.pos[j, 1]) * k
                draw.line(img, x, y, x + bx * 1.6 * k, y - by * 1.6 * k, max(1.0, 0.25 * k), 30.0, 30.0, 30.0, 1.0)
        index = {name: i for i, name in enumerate(names)}
        for e in events:
            if e.get("type") == "shot" and e.get("shooter") in index:
                i = index[e["shooter"]]
                x, y = p.pos[i, 0] * k, (s - p.pos[i, 1]) * k
                reach = 12.0 * k
                draw.line(img, x, y, x + math.cos(p.yaw[i]) * reach, y - math.sin(p.yaw[i]) * reach, 1.0,
                          255.0, 235.0, 120.0, 0.8)
        for x, y, _z in world.projectiles.pos:
            draw.disc(img, x * k, (s - y) * k, max(1.0, 0.3 * k), 255.0, 140.0, 40.0, 1.0)
        radius = max(3.0, p.radius_m * 1.6 * k)
        for i in range(len(p)):
            x, y = p.pos[i, 0] * k, (s - p.pos[i, 1]) * k
            if not p.alive[i]:
                d = radius * 0.8
                draw.line(img, x - d, y - d, x + d, y + d, 1.5, 120.0, 120.0, 120.0, 1.0)
                draw.line(img, x - d, y + d, x + d, y - d, 1.5, 120.0, 120.0, 120.0, 1.0)
                continue
            colour = TEAM_COLOURS[int(p.team[i]) % len(TEAM_COLOURS)]
            draw.disc(img, x, y, radius + 1.0, 15.0, 15.0, 15.0, 1.0)
            draw.disc(img, x, y, radius, float(colour[0]), float(colour[1]), float(colour[2]), 1.0)
            hx, hy = math.cos(p.yaw[i]), -math.sin(p.yaw[i])
            draw.line(img, x, y, x + hx * radius * 2.2, y + hy * radius * 2.2, max(1.0, radius * 0.45),
                      255.0, 255.0, 255.0, 1.0)
        return img


@njit(cache=True, nogil=True)
def _paint_dynamic(static, k, s, zone_on, zx, zy, zr, coin_pos, coin_active, ammo_pos, ammo_active, tu_pos, tu_alive,
                   tu_health, tu_max_health):
    """A copy of the static layer with the toxic zone (tint outside, ring), then coins, ammo boxes and turrets
    (health ring, grey when destroyed); the same drawing calls, in the same order, as one call each did."""
    img = static.copy()
    _paint(img, k, s, zone_on, zx, zy, zr, coin_pos, coin_active, ammo_pos, ammo_active, tu_pos, tu_alive, tu_health,
           tu_max_health)
    return img


@njit(cache=True, nogil=True)
def _seen_size(coins, ammo, turrets):
    """The length of `_repaint`'s record of what a picture shows."""
    return 7 + 4 * coins + 4 * ammo + 5 * turrets


@njit(cache=True, nogil=True)
def _note(seen, j, value, same):
    """Record `value` at `seen[j]`; `same` and whether it was already there (the sign of a zero too)."""
    was = seen[j] == value and (value != 0.0 or math.copysign(1.0, seen[j]) == math.copysign(1.0, value))
    seen[j] = value
    return same and was


@njit(cache=True, nogil=True)
def _note_items(seen, j, pos, active, same):
    """`_note` for each item's position and whether it is active, from `seen[j]` on."""
    for i in range(pos.shape[0]):
        for d in range(3):
            same = _note(seen, j + d, pos[i, d], same)
        same = _note(seen, j + 3, 1.0 if active[i] else 0.0, same)
        j += 4
    return j, same


@njit(cache=True, nogil=True)
def _repaint(img, seen, static, k, s, zone_on, zx, zy, zr, coin_pos, coin_active, ammo_pos, ammo_active, tu_pos,
             tu_alive, tu_health, tu_max_health):
    """`img` made `_paint_dynamic`'s picture, painted only if an input differs from `seen` (the inputs of its
    last painting, updated). False, and nothing done, when `seen` has the wrong size for these items."""
    c, a, t = coin_pos.shape[0], ammo_pos.shape[0], tu_pos.shape[0]
    if seen.shape[0] != _seen_size(c, a, t):
        return False
    same = _note(seen, 0, k, True)
    same = _note(seen, 1, s, same)
    same = _note(seen, 2, 1.0 if zone_on else 0.0, same)
    same = _note(seen, 3, zx, same)
    same = _note(seen, 4, zy, same)
    same = _note(seen, 5, zr, same)
    same = _note(seen, 6, tu_max_health, same)
    j, same = _note_items(seen, 7, coin_pos, coin_active, same)
    j, same = _note_items(seen, j, ammo_pos, ammo_active, same)
    for i in range(t):
        for d in range(3):
            same = _note(seen, j + d, tu_pos[i, d], same)
        same = _note(seen, j + 3, 1.0 if tu_alive[i] else 0.0, same)
        same = _note(seen, j + 4, tu_health[i], same)
        j += 5
    if not same:
        img[:] = static
        _paint(img, k, s, zone_on, zx, zy, zr, coin_pos, coin_active, ammo_pos, ammo_active, tu_pos, tu_alive,
               tu_health, tu_max_health)
    return True


@njit(cache=True, nogil=True)
def _paint(img, k, s, zone_on, zx, zy, zr, coin_pos, coin_active, ammo_pos, ammo_active, tu_pos, tu_alive, tu_health,
           tu_max_health):
    """The zone and the items drawn over `img` (a copy of the static layer)."""
    if zone_on:
        cx = zx * k
        cy = (s - zy) * k
        draw.outside_circle(img, cx, cy, zr * k, ZONE[0], ZONE[1], ZONE[2], 0.35)
        draw.ring(img, cx, cy, zr * k, max(1.0, img.shape[0] / 120), ZONE[0], ZONE[1], ZONE[2], 1.0)
    dot = max(1.2, 0.55 * k)
    for j in range(coin_pos.shape[0]):
        if coin_active[j]:
            draw.disc(img, coin_pos[j, 0] * k, (s - coin_pos[j, 1]) * k, dot, *COIN_RGB, 1.0)
    half = max(1, round(0.6 * k))
    for j in range(ammo_pos.shape[0]):
        if ammo_active[j]:
            cx = int(ammo_pos[j, 0] * k)
            cy = int((s - ammo_pos[j, 1]) * k)
            draw.rect(img, cx - half, cy - half, cx + half + 1, cy + half + 1, *AMMO_RGB, 1.0)
    for j in range(tu_pos.shape[0]):
        x = tu_pos[j, 0] * k
        y = (s - tu_pos[j, 1]) * k
        if not tu_alive[j]:
            draw.disc(img, x, y, max(1.2, 0.5 * k), 90.0, 90.0, 90.0, 1.0)
            continue
        hr, hg, hb = _health_rgb(tu_health[j] / tu_max_health)
        draw.disc(img, x, y, max(2.0, 0.9 * k), hr, hg, hb, 1.0)
        draw.disc(img, x, y, max(1.0, 0.5 * k), *TURRET_RGB, 1.0)


@njit(cache=True, nogil=True)
def _health_rgb(fraction: float) -> tuple[float, float, float]:
    """The turrets' ring colours: green above 60 %, yellow above 30 %, red below."""
    if fraction > 0.6:
        return 40.0, 205.0, 60.0
    if fraction > 0.3:
        return 245.0, 212.0, 40.0
    return 232.0, 42.0, 30.0
