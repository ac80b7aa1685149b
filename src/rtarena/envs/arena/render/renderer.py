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
from numba import njit

from rtarena.envs.arena.render.draw import FONT
from rtarena.envs.arena.render.hud import (
    H_ALIVE,
    H_AMMO,
    H_AMMO_MAX,
    H_FIRED,
    H_HEALTH,
    H_HEALTH_FRAC,
    H_HIT,
    H_HURT,
    H_MINIMAP,
    H_SCORE,
    H_SHOW,
    H_TIME_LEFT,
    H_X,
    H_Y,
    H_YAW,
    HUD_FIELDS,
    minimap_layout,
    overlay_range,
)
from rtarena.envs.arena.render.maps import MapPainter
from rtarena.envs.arena.render.raycast import render_range
from rtarena.envs.arena.render.scene import (
    AMMO,
    CAMERA_FIELDS,
    CHICKEN,
    COIN,
    FLASH,
    PLAYER,
    S_B,
    S_G,
    S_H,
    S_KIND,
    S_OWNER,
    S_P0,
    S_P1,
    S_P2,
    S_R,
    S_W,
    S_X,
    S_Y,
    S_Z,
    SHELL,
    SPRITE_FIELDS,
    TEAM_COLOURS,
    TURRET,
    HeightGrid,
    box_table,
    grid_from_world,
    sprite_rows,
    world_bounds,
)
from rtarena.envs.arena.render.sky import sky_table
from rtarena.errors import UserError

MIN_WIDTH, MAX_WIDTH = 84, 640


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
        self.sky = sky_table()
        self.grid: HeightGrid | None = None
        self._layout_key: bytes | None = None
        self.maps: MapPainter | None = None
        self.set_world(world)

    # -- the scene --------------------------------------------------------------------------------
    def set_world(self, world) -> None:
        """Rebuild the height grid when the world's obstacles differ from the last ones seen."""
        boxes = world.obstacles.boxes
        quick = (id(boxes), len(boxes), float(np.sum(boxes)), float(world.size_m))  # cheap, every step
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
        p, coins, ammo, ch, tu = world.players, world.coins, world.ammo, world.chickens, world.turrets
        health = tu.health / tu.max_health if len(tu.alive) else np.zeros(0)
        table = _fill_sprites(
            np.asarray(p.pos, np.float64), np.asarray(p.alive, np.bool_), np.asarray(p.team, np.int64),
            float(p.height_m), TEAM_COLOURS,
            np.asarray(coins.pos, np.float64).reshape(-1, 3), np.asarray(coins.active, np.bool_),
            np.asarray(ammo.pos, np.float64).reshape(-1, 3), np.asarray(ammo.active, np.bool_),
            np.asarray(ch.pos, np.float64).reshape(-1, 3), np.asarray(ch.yaw, np.float64),
            np.asarray(ch.alive, np.bool_),
            np.asarray(tu.pos, np.float64).reshape(-1, 3), np.asarray(health, np.float64),
            np.asarray(tu.barrel_yaw, np.float64), np.asarray(tu.alive, np.bool_),
            np.asarray(tu.target, np.int64),
            np.asarray(world.projectiles.pos, np.float64).reshape(-1, 3), float(world.time_s))
        flashes = self._flashes(world, events, names)
        return np.concatenate([table, flashes]) if len(flashes) else table

    def _flashes(self, world, events, names) -> np.ndarray:
        index = {name: i for i, name in enumerate(names)}
        p, tu = world.players, world.turrets
        rows = []
        for e in events:
            kind = e.get("type")
            if kind == "shot" and e.get("shooter") in index:
                i = index[e["shooter"]]
                yaw = float(p.yaw[i])
                fx, fy, rx, ry = math.cos(yaw), math.sin(yaw), math.sin(yaw), -math.cos(yaw)
                x = p.pos[i, 0] + 0.7 * fx + 0.22 * rx
                y = p.pos[i, 1] + 0.7 * fy + 0.22 * ry
                z = p.pos[i, 2] + p.eye_height_m - 0.45
                rows.append(sprite_rows(FLASH, [(x, y, z)], 0.45, 0.45, (0, 0, 0), p0=len(rows), owner=i))
            elif kind == "turret_fire":
                j = int(e.get("turret", -1))
                if 0 <= j < len(tu.alive):
                    b = float(tu.barrel_yaw[j])
                    x = tu.pos[j, 0] + 0.9 * math.cos(b)
                    y = tu.pos[j, 1] + 0.9 * math.sin(b)
                    rows.append(sprite_rows(FLASH, [(x, y, tu.pos[j, 2] + 0.9)], 0.5, 0.5, (0, 0, 0), p0=j))
        return np.concatenate(rows) if rows else np.zeros((0, SPRITE_FIELDS), dtype=np.float32)

    def camera_table(self, world, indices: Sequence[int]) -> np.ndarray:
        p = world.players
        idx = np.asarray(indices, dtype=np.int64)
        table = np.zeros((len(idx), CAMERA_FIELDS), dtype=np.float32)
        table[:, 0] = p.pos[idx, 0]
        table[:, 1] = p.pos[idx, 1]
        table[:, 2] = p.pos[idx, 2] + p.eye_height_m
        table[:, 3] = p.yaw[idx]
        table[:, 4] = p.pitch[idx]
        table[:, 5] = self.fov
        table[:, 6] = idx
        return table

    def hud_table(self, world, indices: Sequence[int], scores=None, flags: Sequence[dict] | None = None,
                  show: bool = True) -> np.ndarray:
        """One HUD row per rendered player. `flags[k]` may hold `hit`, `hurt` and `fired` booleans."""
        p = world.players
        idx = np.asarray(indices, dtype=np.int64)
        hud = np.zeros((len(idx), HUD_FIELDS), dtype=np.float64)
        hud[:, H_SHOW] = 1.0 if show else 0.0
        hud[:, H_HEALTH] = p.health[idx]
        hud[:, H_HEALTH_FRAC] = p.health[idx] / p.max_health
        hud[:, H_AMMO] = p.ammo[idx]
        hud[:, H_AMMO_MAX] = p.ammo_max
        hud[:, H_SCORE] = 0.0 if scores is None else np.asarray(scores, dtype=np.float64)[idx]
        hud[:, H_TIME_LEFT] = world.time_left_s
        hud[:, H_MINIMAP] = p.minimap_open[idx]
        hud[:, H_X] = p.pos[idx, 0]
        hud[:, H_Y] = p.pos[idx, 1]
        hud[:, H_YAW] = p.yaw[idx]
        hud[:, H_ALIVE] = p.alive[idx]
        if flags is not None:
            for k, f in enumerate(flags):
                hud[k, H_HIT] = bool(f.get("hit"))
                hud[k, H_HURT] = bool(f.get("hurt"))
                hud[k, H_FIRED] = bool(f.get("fired"))
        return hud

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
        grid = self.grid
        zone = world.zone
        zone_arr = np.array([zone.center[0], zone.center[1], zone.radius_m, 1.0 if zone.enabled else 0.0])
        cams = np.ascontiguousarray(cams, dtype=np.float32)
        sprites = np.ascontiguousarray(sprites, dtype=np.float32)
        mm_x0, mm_y0, mm_size = minimap_layout(self.width, self.height)
        if hud is not None and (hud[:, H_MINIMAP] > 0.5).any():
            minimap = self.maps.minimap(world, mm_size)
        else:
            minimap = np.zeros((0, 0, 3), dtype=np.uint8)
        mm_scale = mm_size / grid.size_m

        def work(start: int, stop: int) -> None:
            buf = depth_out if depth_out is not None else np.empty((1, H, W), dtype=np.float32)
            render_range(self.boxes, self.bounds, cams, sprites, zone_arr, self.sky, rgb, buf, self.far_m,
                         self.fog_m, start, stop)
            if hud is not None:
                overlay_range(rgb, hud, FONT, minimap, mm_x0, mm_y0, mm_scale, grid.size_m, start, stop)

        if self._pool is None or n == 1:
            work(0, n)
        else:
            chunks = min(n, self.threads * 4)
            bounds = np.linspace(0, n, chunks + 1).astype(int)
            futures = [self._pool.submit(work, int(a), int(b)) for a, b in itertools.pairwise(bounds)
                       if b > a]
            for future in futures:
                future.result()
        return rgb, depth_out

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


@njit(cache=True)
def _fill_sprites(ppos, palive, pteam, pheight, team_colours, coin_pos, coin_active, ammo_pos, ammo_active,
                  ch_pos, ch_yaw, ch_alive, tu_pos, tu_health, tu_barrel, tu_alive, tu_target, shells, t_s):
    """The sprite table (see `scene.py` for its columns), filled in one compiled pass."""
    n = (palive.sum() + coin_active.sum() + ammo_active.sum() + ch_alive.sum() + len(tu_alive)
         + shells.shape[0])
    out = np.zeros((n, SPRITE_FIELDS), dtype=np.float32)
    out[:, S_OWNER] = -1.0
    k = 0
    for i in range(len(palive)):
        if palive[i]:
            team = pteam[i] % team_colours.shape[0]
            out[k, S_KIND] = PLAYER
            out[k, S_X], out[k, S_Y], out[k, S_Z] = ppos[i, 0], ppos[i, 1], ppos[i, 2]
            out[k, S_W], out[k, S_H] = 0.8, pheight
            out[k, S_R], out[k, S_G], out[k, S_B] = team_colours[team, 0], team_colours[team, 1], team_colours[team, 2]
            out[k, S_P1] = (ppos[i, 0] + ppos[i, 1]) * 2.2  # leg swing follows the feet
            out[k, S_OWNER] = i
            k += 1
    for j in range(len(coin_active)):
        if coin_active[j]:
            out[k, S_KIND] = COIN
            out[k, S_X], out[k, S_Y], out[k, S_Z] = coin_pos[j, 0], coin_pos[j, 1], coin_pos[j, 2] - 0.225
            out[k, S_W], out[k, S_H] = 0.45, 0.45
            out[k, S_P0] = t_s * 3.0 + j * 0.7  # spin
            k += 1
    for j in range(len(ammo_active)):
        if ammo_active[j]:
            out[k, S_KIND] = AMMO
            out[k, S_X], out[k, S_Y], out[k, S_Z] = ammo_pos[j, 0], ammo_pos[j, 1], ammo_pos[j, 2]
            out[k, S_W], out[k, S_H] = 0.7, 0.45
            k += 1
    for j in range(len(ch_alive)):
        if ch_alive[j]:
            out[k, S_KIND] = CHICKEN
            out[k, S_X], out[k, S_Y], out[k, S_Z] = ch_pos[j, 0], ch_pos[j, 1], ch_pos[j, 2]
            out[k, S_W], out[k, S_H] = 0.6, 0.56
            out[k, S_P0] = ch_yaw[j]
            out[k, S_P1] = t_s * 14.0 + j * 1.3  # legs
            k += 1
    for j in range(len(tu_alive)):
        out[k, S_KIND] = TURRET
        out[k, S_X], out[k, S_Y], out[k, S_Z] = tu_pos[j, 0], tu_pos[j, 1], tu_pos[j, 2]
        out[k, S_W], out[k, S_H] = 1.8, 1.7
        out[k, S_P0] = tu_health[j] if tu_alive[j] else -1.0  # -1: destroyed
        out[k, S_P1] = tu_barrel[j]
        out[k, S_P2] = 1.0 if (tu_alive[j] and tu_target[j] >= 0) else 0.0
        k += 1
    for j in range(shells.shape[0]):
        out[k, S_KIND] = SHELL
        out[k, S_X], out[k, S_Y], out[k, S_Z] = shells[j, 0], shells[j, 1], shells[j, 2] - 0.15
        out[k, S_W], out[k, S_H] = 0.3, 0.3
        k += 1
    return out


def depth_image(depth: np.ndarray, max_m: float = 80.0) -> np.ndarray:
    """A depth map as a grey picture for people: near is bright, `max_m` and beyond black (logarithmic,
    so near and far both keep some contrast)."""
    d = np.clip(np.asarray(depth, dtype=np.float32), 0.0, max_m)
    return (255.0 * (1.0 - np.log1p(d) / np.log1p(max_m))).astype(np.uint8)
