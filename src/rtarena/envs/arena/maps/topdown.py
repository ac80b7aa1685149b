"""A top-down picture of a map (numpy only), for `rtarena map render` and the editor's thumbnails.

North is up, in the game's top-down palette (`render/palette.py`, the minimap's colours): walls light
grey, crates brown (lighter when lower), spawns team-coloured discs, coins gold, turrets red, ammo boxes
green, chickens white, ammo and chicken areas outlined, the toxic zone's start circle purple. Unlike the
minimap it draws a map *file*, rows as written (malformed rows are skipped), so the editor can show a map
that does not validate yet.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from rtarena.envs.arena.render.palette import (
    AMMO_RGB,
    AREA_RGB,
    CHICKEN_RGB,
    COIN_RGB,
    CRATE_RGB,
    FLOOR_RGB,
    GRID_RGB,
    TEAM_RGB,
    TURRET_RGB,
    WALL_RGB,
    ZONE_RGB,
)

COLOURS = {
    "floor": FLOOR_RGB, "wall": WALL_RGB, "crate": CRATE_RGB, "coins": COIN_RGB, "turrets": TURRET_RGB,
    "ammo": AMMO_RGB, "chickens": CHICKEN_RGB, "ammo_areas": AMMO_RGB, "chicken_areas": AREA_RGB,
    "zone": ZONE_RGB, "grid": GRID_RGB,
}
RADII_M = {"spawns": 0.9, "coins": 0.5, "turrets": 0.8, "ammo": 0.6, "chickens": 0.4}


def palette_css() -> dict[str, Any]:
    """The same palette as CSS colours, for the editor's canvas: `{"colours": {...}, "teams": [...], "radii_m"}`."""
    def css(rgb: tuple[int, int, int]) -> str:
        return "#" + "".join(f"{int(c):02x}" for c in rgb)

    return {"colours": {k: css(v) for k, v in COLOURS.items()}, "teams": [css(t) for t in TEAM_RGB],
            "radii_m": RADII_M}


def topdown(data: Mapping[str, Any], px_per_m: float = 6.0, size_m: float | None = None) -> np.ndarray:
    """An (H, W, 3) uint8 picture of a map table (malformed rows are skipped, not drawn)."""
    size = float(data.get("size_m", size_m or 100.0))
    n = max(16, round(size * px_per_m))
    scale = n / size
    img = np.empty((n, n, 3), dtype=np.uint8)
    img[:] = COLOURS["floor"]
    step = max(1, round(10 * scale))
    img[::step, :] = COLOURS["grid"]  # a line every 10 m
    img[:, ::step] = COLOURS["grid"]

    def rect(x0, y0, x1, y1, colour, outline: bool = False) -> None:
        c0, c1 = int(np.floor(x0 * scale)), int(np.ceil(x1 * scale))
        r0, r1 = n - int(np.ceil(y1 * scale)), n - int(np.floor(y0 * scale))
        c0, c1, r0, r1 = max(c0, 0), min(c1, n), max(r0, 0), min(r1, n)
        if c1 <= c0 or r1 <= r0:
            return
        if outline:
            img[r0:r1, [c0, c1 - 1]] = colour
            img[[r0, r1 - 1], c0:c1] = colour
        else:
            img[r0:r1, c0:c1] = colour

    def disc(x, y, radius_m, colour) -> None:
        cx, cy, r = x * scale, n - y * scale, max(1.5, radius_m * scale)
        r0, r1 = max(int(cy - r), 0), min(int(cy + r) + 1, n)
        c0, c1 = max(int(cx - r), 0), min(int(cx + r) + 1, n)
        if r1 <= r0 or c1 <= c0:
            return
        yy, xx = np.mgrid[r0:r1, c0:c1]
        mask = (xx + 0.5 - cx) ** 2 + (yy + 0.5 - cy) ** 2 <= r * r
        img[r0:r1, c0:c1][mask] = colour

    def rows(key: str, length: int) -> list:
        value = data.get(key, [])
        if not isinstance(value, (list, tuple)):
            return []
        return [r for r in value if isinstance(r, (list, tuple)) and len(r) >= length
                and all(isinstance(v, (int, float)) for v in r[:length])]

    for key in ("chicken_areas", "ammo_areas"):
        for row in rows(key, 4):
            x0, y0, x1, y1 = row[:4]
            rect(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1), COLOURS[key], outline=True)
    for row in rows("obstacles", 5):
        x0, y0, x1, y1, h = row[:5]
        kind = row[5] if len(row) > 5 else "wall"
        colour = COLOURS["wall"] if kind != "crate" else tuple(
            int(c * (1.25 - 0.25 * min(h, 2.0))) for c in COLOURS["crate"])
        rect(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1), colour)
    for key in ("coins", "turrets", "ammo", "chickens"):
        for row in rows(key, 2):
            disc(row[0], row[1], RADII_M[key], COLOURS[key])
    for i, row in enumerate(rows("spawns", 2)):
        team = int(row[2]) if len(row) > 2 else i
        disc(row[0], row[1], RADII_M["spawns"], TEAM_RGB[team % len(TEAM_RGB)])
        disc(row[0], row[1], RADII_M["spawns"] * 0.4, (255, 255, 255))
    zone = data.get("toxic_zone")
    if isinstance(zone, Mapping) and isinstance(zone.get("start_radius_m"), (int, float)):
        cx, cy = zone.get("center", [size / 2, size / 2])
        angles = np.linspace(0, 2 * np.pi, int(8 * n))
        r = float(zone["start_radius_m"])
        cols = (cx + r * np.cos(angles)) * scale
        rws = n - (cy + r * np.sin(angles)) * scale
        keep = (cols >= 0) & (cols < n) & (rws >= 0) & (rws < n)
        img[rws[keep].astype(int), cols[keep].astype(int)] = COLOURS["zone"]
    return img


def write_topdown_png(data: Mapping[str, Any], path: str | Path, px_per_m: float = 6.0) -> Path:
    """Save the map's top-down picture as a PNG."""
    from rtarena.media import write_png

    return write_png(path, topdown(data, px_per_m))
