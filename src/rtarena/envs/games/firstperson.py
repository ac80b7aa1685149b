"""First-person views for the suite's 3D games, drawn by the arena's compiled raycaster.

The arena's renderer (`envs/arena/render/raycast.py`) casts columns against axis-aligned boxes that rise
from the floor `(x0, y0, x1, y1, height, material)` and draws billboard sprites with a depth test; a
game here lists its boxes once per layout and its sprites each frame (`sprite`), and gets an RGB image.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rtarena.envs.arena.render.raycast import render_view
from rtarena.envs.arena.render.scene import (
    CAMERA_FIELDS,
    CHICKEN,
    COIN,
    MAT_BOUNDARY,
    MAT_CRATE,
    MAT_WALL,
    PLAYER,
    SPRITE_FIELDS,
    TURRET,
    sprite_rows,
)
from rtarena.envs.arena.render.sky import sky_words

__all__ = ["CHICKEN", "COIN", "MAT_BOUNDARY", "MAT_CRATE", "MAT_WALL", "PLAYER", "TURRET", "FirstPersonView",
           "crosshair", "sprite_rows"]
_SKY: list[np.ndarray] = []


class FirstPersonView:
    """A camera over one layout of boxes; `draw()` renders a square RGB view."""

    def __init__(self, size: int, boxes: np.ndarray, extent_m: float, fov_deg: float = 90.0) -> None:
        if not _SKY:
            _SKY.append(sky_words())
        self.size = size
        self.boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 6)
        top = float(self.boxes[:, 4].max()) if len(self.boxes) else 0.0
        self.bounds = np.array([-2.0, extent_m + 2.0, max(top, 3.0)], dtype=np.float64)
        self.far_m = round(extent_m * 1.5, 3)
        self.fog_m = 0.8 * extent_m
        self.fov = math.radians(fov_deg)
        self.rgb = np.zeros((size, size, 3), dtype=np.uint8)
        self.depth = np.zeros((size, size), dtype=np.float32)
        self.zone = np.zeros(4, dtype=np.float64)

    def draw(self, x: float, y: float, eye_z: float, yaw_rad: float, pitch_rad: float,
             sprites: np.ndarray | None = None) -> np.ndarray:
        cam = np.zeros(CAMERA_FIELDS, dtype=np.float32)
        cam[:7] = (x, y, eye_z, yaw_rad, pitch_rad, self.fov, -1)
        table = sprites if sprites is not None and len(sprites) else np.zeros((0, SPRITE_FIELDS), np.float32)
        render_view(self.boxes, self.bounds, cam, table, self.zone, _SKY[0], self.rgb, self.depth, self.far_m,
                    self.fog_m)
        return self.rgb.copy()


MAX_PITCH_DEG = 30.0


def look(yaw_rad: float, pitch_rad: float, dx_deg: float, dy_deg: float) -> tuple[float, float]:
    """Yaw and pitch after a mouse move: dx > 0 turns right (clockwise), dy > 0 looks up."""
    yaw = (yaw_rad - math.radians(dx_deg) + math.pi) % (2 * math.pi) - math.pi
    pitch = max(-math.radians(MAX_PITCH_DEG), min(math.radians(MAX_PITCH_DEG), pitch_rad + math.radians(dy_deg)))
    return yaw, pitch


def heading_move(yaw_rad: float, forward: float, right: float) -> tuple[float, float]:
    """A unit world direction from W/S (forward) and D/A (right) relative to the view, (0, 0) if none."""
    fx, fy = math.cos(yaw_rad), math.sin(yaw_rad)
    x, y = forward * fx + right * fy, forward * fy - right * fx
    norm = math.hypot(x, y)
    return (x / norm, y / norm) if norm else (0.0, 0.0)


def relative_bearing_deg(x: float, y: float, yaw_rad: float, tx: float, ty: float) -> float:
    """Angle of a point from the view direction, degrees, positive to the left."""
    angle = math.atan2(ty - y, tx - x) - yaw_rad
    return math.degrees((angle + math.pi) % (2 * math.pi) - math.pi)


def crosshair(canvas: Any, size: int, look: Any) -> None:
    """The aiming cross at the centre of the view, in the table's colour."""
    mid, arm = size / 2, max(2, size // 32)
    canvas.rect(mid - arm, mid - 1, mid + arm, mid + 1, look.color)
    canvas.rect(mid - 1, mid - arm, mid + 1, mid + arm, look.color)


def radar(canvas: Any, size: int, extent: tuple[float, float], rects: list[tuple[np.ndarray, tuple]],
          dots: list[tuple[np.ndarray, float, tuple]], viewer: np.ndarray, yaw_rad: float, label: str = "") -> None:
    """A top-down map in the bottom-right third of a first-person frame (as many shooters have): `rects`
    (x0, y0, x1, y1 in metres, colour), `dots` (position, radius in pixels, colour), the viewer in white,
    `label` a name plate over it
    and a white dot ahead of it where it faces. What a game's text view says about things behind the
    player is then on the screen too (the information-parity test checks it)."""
    side_px = size // 3
    scale = side_px / max(extent)
    x0, y0 = size - side_px - 1, 1.0

    def at(p: np.ndarray) -> tuple[float, float]:
        return x0 + float(p[0]) * scale, y0 + float(p[1]) * scale

    canvas.rect(x0, y0, x0 + extent[0] * scale, y0 + extent[1] * scale, (35, 45, 35))
    for box, color in rects:
        canvas.rect(*at(box[:2]), *at(box[2:]), color)
    for pos, radius, color in dots:
        canvas.disc(*at(pos), radius, color)
    dot = max(1.6, size / 160)
    canvas.disc(*at(viewer), dot, (255, 255, 255))
    canvas.disc(*at(viewer + 1.5 * np.array([np.cos(yaw_rad), np.sin(yaw_rad)])), dot / 2, (255, 255, 255))
    if label:
        canvas.label(label, x0 + extent[0] * scale / 2, y0 + extent[1] * scale + 2)
