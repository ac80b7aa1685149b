"""`ArenaRenderer`: every agent's first-person view (RGB + depth, HUD, minimap) in one batch call.

The batch is split into chunks that run in a thread pool; each chunk is one call into compiled code
that releases the GIL (`nogil`), so the chunks really run in parallel and the calling thread (the env
loop of the wall clock, say) is never blocked by rendering in another env.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from rtarena.envs.arena.render.draw import FONT
from rtarena.envs.arena.render.hud import H_MINIMAP, minimap_layout, overlay_range
from rtarena.envs.arena.render.maps import MapPainter
from rtarena.envs.arena.render.raycast import render_range
from rtarena.envs.arena.render.scene import (
    FLASH,
    S_H,
    S_KIND,
    S_OWNER,
    S_P0,
    S_W,
    S_X,
    S_Z,
    SPRITE_FIELDS,
    TEAM_COLOURS,
    HeightGrid,
    as_points,
    box_table,
    grid_from_world,
    world_bounds,
)
from rtarena.envs.arena.render.sky import sky_words
from rtarena.envs.arena.render.tables import camera_rows, fill_sprites, hud_rows
from rtarena.errors import UserError

MIN_WIDTH, MAX_WIDTH = 84, 640
NO_MARKS = np.zeros((0, 3))  # a HUD table without hit, hurt and fired flags
NO_SCORES = np.zeros(0)  # ... and without scores
NO_MINIMAP = np.zeros((0, 0, 3), dtype=np.uint8)  # nobody holds the minimap action


def parse_resolution(resolution) -> tuple[int, int]:
    """`128` -> (128, 128); `(320, 240)` -> width 320, height 240. Widths from 84 to 640 px."""
    if isinstance(resolution, bool):
        raise UserError(f"resolution must be an int or (width, height), got {resolution!r}", field="resolution")
    if isinstance(resolution, (int, np.integer)):
        width = height = int(resolution)
    elif isinstance(resolution, (tuple, list)) and len(resolution) == 2:
        try:
            width, height = int(resolution[0]), int(resolution[1])
        except (TypeError, ValueError):
            raise UserError(f"resolution must be an int or (width, height), got {resolution!r}",
                            field="resolution") from None
    else:
        raise UserError(f"resolution must be an int or (width, height), got {resolution!r}", field="resolution")
    if not MIN_WIDTH <= width <= MAX_WIDTH:
        raise UserError(f"resolution width must be {MIN_WIDTH}..{MAX_WIDTH} px, got {width}", field="resolution")
    if not 48 <= height <= 2 * MAX_WIDTH:
        raise UserError(f"resolution height must be 48..{2 * MAX_WIDTH} px, got {height}", field="resolution")
    return width, height


def default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class ArenaRenderer:
    """Renders a `World` for any set of its players.

    `width`/`height` in pixels, `fov_deg` the horizontal field of view (the same as the world's
    visibility rule), `threads` the worker threads of a batch (default: the CPUs this process may use).
    Depth is in metres; the sky and anything beyond `far_m` read `far_m`.
    """

    def __init__(
        self,
        world,
        width: int = 128,
        height: int = 128,
        fov_deg: float = 90.0,
        threads: int | None = None,
        far_m: float | None = None,
        fog_m: float | None = None,
        cell_m: float = 0.25,
    ) -> None:
        self.width, self.height = parse_resolution((width, height))
        self.fov = math.radians(float(fov_deg))
        self.cell_m = cell_m
        self.far_m = float(far_m) if far_m is not None else round(float(world.size_m) * 1.5, 3)
        self.fog_m = float(fog_m) if fog_m is not None else 0.8 * float(world.size_m)
        self.threads = int(threads) if threads else default_threads()
        self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="arena-render") if self.threads > 1 else None
        self.sky = sky_words()
        self._minimap = minimap_layout(self.width, self.height)  # x0, y0, size of the inset, px
        self._scratch: list[np.ndarray] = []  # depth images nobody asked for, kept for the next call
        self.grid: HeightGrid | None = None
        self._layout_key: bytes | None = None
        self.maps: MapPainter | None = None
        self._things_world, self._things = None, None  # `sprite_table`'s arrays of the last world
        self.set_world(world)

    # -- the scene --------------------------------------------------------------------------------
    def set_world(self, world) -> None:
        """Rebuild the height grid when the world's obstacles differ from the last ones seen."""
        boxes = world.obstacles.boxes
        quick = (id(boxes), len(boxes), float(boxes.sum()), float(world.size_m))  # cheap, every step
        if quick == getattr(self, "_quick_key", None):
            return
        self._quick_key = quick
        key = np.ascontiguousarray(boxes, dtype=np.float64).tobytes() + np.asarray(
            world.obstacles.kind).tobytes() + str(world.size_m).encode()
        if key != self._layout_key:
            self.grid = grid_from_world(world, cell_m=self.cell_m)
            self.boxes = box_table(world)
            self.bounds = world_bounds(world)
            self.maps = MapPainter(self.grid)
            self._layout_key = key

    def sprite_table(self, world, events: Iterable[dict] = (), names: Sequence[str] = ()) -> np.ndarray:
        """Every billboard of this instant: players, coins, ammo, chickens, turrets, shells, flashes."""
        things = self._things if world is self._things_world else self._things_of(world)
        table = fill_sprites(*things, np.asarray(world.projectiles.pos, np.float64).reshape(-1, 3),
                             float(world.time_s))
        if not events:
            return table
        flashes = self._flashes(world, events, names)
        return np.concatenate([table, flashes]) if len(flashes) else table

    def _things_of(self, world) -> tuple:
        """`fill_sprites`'s arguments for everything but the shells and the clock. Kept for the next call with
        the same world when they are its own arrays (none converted): a world's arrays are updated in place,
        never rebound, and converting seventeen of them cost more than filling the table (issue 19)."""
        p, coins, ammo, ch, tu = world.players, world.coins, world.ammo, world.chickens, world.turrets
        arrays = ((p.pos, np.float64, 2), (p.alive, np.bool_, 1), (p.team, np.int64, 1), (coins.pos, np.float64, 2),
                  (coins.active, np.bool_, 1), (ammo.pos, np.float64, 2), (ammo.active, np.bool_, 1),
                  (ch.pos, np.float64, 2), (ch.yaw, np.float64, 1), (ch.alive, np.bool_, 1), (tu.pos, np.float64, 2),
                  (tu.health, np.float64, 1), (tu.barrel_yaw, np.float64, 1), (tu.alive, np.bool_, 1),
                  (tu.target, np.int64, 1))
        out = [as_points(a) if ndim == 2 else np.asarray(a, dtype) for a, dtype, ndim in arrays]
        (ppos, palive, pteam, cpos, cactive, apos, aactive, chpos, chyaw, chalive, tpos, thealth, tbarrel, talive,
         ttarget) = out
        things = (ppos, palive, pteam, float(p.height_m), TEAM_COLOURS, cpos, cactive, apos, aactive, chpos, chyaw,
                  chalive, tpos, thealth, float(tu.max_health), tbarrel, talive, ttarget)
        own = all(a is b for (a, _, _), b in zip(arrays, out, strict=True))
        self._things_world, self._things = (world, things) if own else (None, None)
        return things

    def _flashes(self, world, events, names) -> np.ndarray:
        """Muzzle flashes of this step's shots and turret fire. Each flash is gathered as a tuple and the
        table made once: a `sprite_rows` call and a concatenation per flash were a tenth of the Python
        of a 16-agent step, where half the players fire (issue 19). Same float32 rows."""
        index = {name: i for i, name in enumerate(names)}
        p, tu = world.players, world.turrets
        flashes = []  # (x, y, z, size, p0, owner)
        for e in events:
            kind = e.get("type")
            if kind == "shot" and e.get("shooter") in index:
                i = index[e["shooter"]]
                yaw = float(p.yaw[i])
                fx, fy, rx, ry = math.cos(yaw), math.sin(yaw), math.sin(yaw), -math.cos(yaw)
                x = p.pos[i, 0] + 0.7 * fx + 0.22 * rx
                y = p.pos[i, 1] + 0.7 * fy + 0.22 * ry
                z = p.pos[i, 2] + p.eye_height_m - 0.45
                flashes.append((x, y, z, 0.45, len(flashes), i))
            elif kind == "turret_fire":
                j = int(e.get("turret", -1))
                if 0 <= j < len(tu.alive):
                    b = float(tu.barrel_yaw[j])
                    x = tu.pos[j, 0] + 0.9 * math.cos(b)
                    y = tu.pos[j, 1] + 0.9 * math.sin(b)
                    flashes.append((x, y, tu.pos[j, 2] + 0.9, 0.5, j, -1))
        rows = np.zeros((len(flashes), SPRITE_FIELDS), dtype=np.float32)
        if flashes:
            values = np.array(flashes, dtype=np.float64)
            rows[:, S_KIND] = FLASH
            rows[:, S_X:S_Z + 1] = values[:, :3]
            rows[:, S_W] = rows[:, S_H] = values[:, 3]
            rows[:, S_P0] = values[:, 4]
            rows[:, S_OWNER] = values[:, 5]
        return rows

    def camera_table(self, world, indices: Sequence[int]) -> np.ndarray:
        p = world.players
        return camera_rows(p.pos, p.yaw, p.pitch, float(p.eye_height_m), self.fov, np.asarray(indices, np.int64))

    def hud_table(self, world, indices: Sequence[int], scores=None, flags: Sequence[dict] | None = None,
                  show: bool = True) -> np.ndarray:
        """One HUD row per rendered player. `flags[k]` may hold `hit`, `hurt` and `fired` booleans."""
        p = world.players
        marks = NO_MARKS if not flags else np.array(
            [(bool(f.get("hit")), bool(f.get("hurt")), bool(f.get("fired"))) for f in flags], dtype=np.float64)
        return hud_rows(np.asarray(indices, np.int64), p.health, float(p.max_health), p.ammo, float(p.ammo_max),
                        NO_SCORES if scores is None else np.asarray(scores, np.float64), float(world.time_left_s),
                        p.minimap_open, p.pos, p.yaw, p.alive, bool(show), marks)

    # -- rendering --------------------------------------------------------------------------------
    def render(
        self,
        world,
        indices: Sequence[int] | None = None,
        events: Iterable[dict] = (),
        names: Sequence[str] = (),
        hud: np.ndarray | None = None,
        sprites: np.ndarray | None = None,
        depth: bool = True,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Render players `indices` (default: all): `(rgb (N, H, W, 3) uint8, depth (N, H, W) float32)`.

        `hud` is a `hud_table` (None: no HUD and no minimap); `depth=False` returns None for the depth."""
        if indices is None:
            indices = range(len(world.players))
        cams = self.camera_table(world, indices)
        if sprites is None:
            sprites = self.sprite_table(world, events, names)
        return self.render_cameras(world, cams, sprites, hud, depth)

    def render_cameras(self, world, cams: np.ndarray, sprites: np.ndarray, hud: np.ndarray | None = None,
                       depth: bool = True):
        """The core batch call, for any camera table (tests and benchmarks place cameras freely).

        Sprites and the zone are depth-tested against the walls, floors and tops, so a depth buffer is
        always drawn; without `depth` it is one small scratch image per worker, reused camera after camera
        (it stays in cache, and N depth images are neither written to memory nor kept)."""
        n = len(cams)
        H, W = self.height, self.width
        rgb = np.empty((n, H, W, 3), dtype=np.uint8)
        depth_out = np.empty((n, H, W), dtype=np.float32) if depth else None
        if n == 0:
            return rgb, depth_out
        zone = world.zone
        zone_arr = np.array([zone.center[0], zone.center[1], zone.radius_m, 1.0 if zone.enabled else 0.0])
        cams = np.ascontiguousarray(cams, dtype=np.float32)
        sprites = np.ascontiguousarray(sprites, dtype=np.float32)
        minimap = NO_MINIMAP
        if hud is not None and (hud[0, H_MINIMAP] > 0.5 if n == 1 else (hud[:, H_MINIMAP] > 0.5).any()):
            minimap = self.maps.minimap(world, self._minimap[2])
        if self._pool is None or n == 1:
            self._draw(rgb, depth_out, cams, sprites, zone_arr, hud, minimap, 0, n)
            return rgb, depth_out

        def work(start: int, stop: int) -> None:
            self._draw(rgb, depth_out, cams, sprites, zone_arr, hud, minimap, start, stop)

        chunks = min(n, self.threads * 4)
        bounds = np.linspace(0, n, chunks + 1).astype(int)
        futures = [self._pool.submit(work, int(a), int(b)) for a, b in itertools.pairwise(bounds) if b > a]
        for future in futures:
            future.result()
        return rgb, depth_out

    def _draw(self, rgb, depth, cams, sprites, zone, hud, minimap, start: int, stop: int) -> None:
        """Views `start..stop`, then their HUD and minimap (one worker's share of a batch). Without `depth`,
        a scratch depth image kept from an earlier call is reused (a fresh one while all are in use)."""
        scratch = None
        if depth is None:
            try:
                scratch = self._scratch.pop()  # one atomic call: no two threads get the same image
            except IndexError:
                scratch = np.empty((1, self.height, self.width), dtype=np.float32)
        render_range(self.boxes, self.bounds, cams, sprites, zone, self.sky, rgb,
                     depth if scratch is None else scratch, self.far_m, self.fog_m, start, stop)
        if scratch is not None:
            self._scratch.append(scratch)
        if hud is not None:
            mm_x0, mm_y0, mm_size = self._minimap
            size_m = self.grid.size_m
            overlay_range(rgb, hud, FONT, minimap, mm_x0, mm_y0, mm_size / size_m, size_m, start, stop)

    def minimap_view(self, world, index: int) -> np.ndarray:
        """The minimap picture alone for player `index`, with its own arrow (what the inset shows)."""
        from rtarena.envs.arena.render.hud import draw_minimap

        _, _, size = minimap_layout(self.width, self.height)
        base = self.maps.minimap(world, size)
        img = np.zeros_like(base)
        p = world.players
        draw_minimap(img, base, 0, 0, float(p.pos[index, 0]), float(p.pos[index, 1]), float(p.yaw[index]),
                     size / self.grid.size_m, self.grid.size_m)
        return img

    def spectator(self, world, pixels: int = 256, events: Iterable[dict] = (), names: Sequence[str] = ()):
        return self.maps.spectator(world, pixels, list(events), names)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def depth_image(depth: np.ndarray, max_m: float = 80.0) -> np.ndarray:
    """A depth map as a grey picture for people: near is bright, `max_m` and beyond black (logarithmic,
    so near and far both keep some contrast)."""
    d = np.clip(np.asarray(depth, dtype=np.float32), 0.0, max_m)
    return (255.0 * (1.0 - np.log1p(d) / np.log1p(max_m))).astype(np.uint8)
