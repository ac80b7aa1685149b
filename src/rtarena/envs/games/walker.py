"""Top-down walking shared by the suite's indoor and open-area games: walls, movement, reach.

Positions are metres (x east, y north). Walls are axis-aligned rectangles `(x0, y0, x1, y1)`; a walker is a
disc of `radius` that slides along walls (each axis is moved and checked on its own).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
from pydantic import Field

from rtarena.envs.games.canvas import Canvas
from rtarena.envs.games.reports import COMPASS, Place
from rtarena.envs.games.rules import Section

WALL_COLOR = (70, 70, 80)


class WalkerRules(Section):
    """A walker's `[player]` table: speed, body radius and how far it reaches to interact."""

    speed_m_s: float = Field(gt=0)
    radius_m: float = Field(gt=0)
    reach_m: float = Field(gt=0)


def blocked(pos: np.ndarray, radius: float, walls: np.ndarray) -> bool:
    """Whether a disc at `pos` overlaps any wall rectangle."""
    return len(walls) > 0 and bool(np.any(_overlaps(pos[0], pos[1], radius, walls)))


def blocked_at(points: np.ndarray, radius: float, walls: np.ndarray) -> np.ndarray:
    """For each of the `(k, 2)` points, whether a disc there overlaps any wall rectangle: one array pass, so a
    planner can test a whole grid at once."""
    if len(walls) == 0:
        return np.zeros(len(points), dtype=bool)
    return np.any(_overlaps(points[:, :1], points[:, 1:], radius, walls), axis=1)


def _overlaps(x, y, radius: float, walls: np.ndarray) -> np.ndarray:
    """Disc-rectangle overlap per wall (per point and wall when x and y are columns): the nearest point of each
    rectangle is closer than the radius."""
    nearest_x = np.clip(x, walls[:, 0], walls[:, 2])
    nearest_y = np.clip(y, walls[:, 1], walls[:, 3])
    return (nearest_x - x) ** 2 + (nearest_y - y) ** 2 < radius * radius - 1e-12


def walk(pos: np.ndarray, direction: tuple[float, float], distance: float, radius: float,
         walls: np.ndarray) -> np.ndarray:
    """The position after moving `distance` metres in `direction`, sliding along walls."""
    out = np.array(pos, dtype=float)
    for axis in (0, 1):
        trial = out.copy()
        trial[axis] += direction[axis] * distance
        if not blocked(trial, radius, walls):
            out = trial
    return out


def within(pos: np.ndarray, point: Iterable[float], reach: float) -> bool:
    return float(np.hypot(*(np.asarray(point, dtype=float) - pos))) <= reach


def nearest_in_reach(pos: np.ndarray, points: Mapping[str, Iterable[float]], reach: float) -> str | None:
    """The name of the nearest point within `reach` metres, or None."""
    best, best_d = None, reach
    for name, point in points.items():
        d = float(np.hypot(*(np.asarray(point, dtype=float) - pos)))
        if d <= best_d:
            best, best_d = name, d
    return best


def border(width: float, height: float, thickness: float = 0.2) -> list[tuple[float, float, float, float]]:
    """The four walls around a `width` x `height` area whose inside starts at (0, 0)."""
    t = thickness
    return [(-t, -t, width + t, 0.0), (-t, height, width + t, height + t), (-t, 0.0, 0.0, height),
            (width, 0.0, width + t, height)]


def draw_walls(canvas: Canvas, walls: np.ndarray, color=WALL_COLOR) -> None:
    for x0, y0, x1, y1 in walls:
        canvas.rect(x0, y0, x1, y1, color)


def place(pos: np.ndarray, point: Iterable[float]) -> Place:
    """Where a point lies from `pos`: a distance and one of eight compass words; `here` within 0.3 m."""
    d = np.asarray(point, dtype=float) - pos
    dist = float(np.hypot(*d))
    if dist < 0.3:
        return Place(dist, "")
    sector = int(np.round(np.degrees(np.arctan2(d[1], d[0])) / 45.0)) % 8
    return Place(dist, tuple(COMPASS)[sector])  # east, then counter-clockwise


def bearing(pos: np.ndarray, point: Iterable[float]) -> str:
    """Where a point lies from `pos` in words: `3.2 m north-east` (`reports.Place` reads them back)."""
    return place(pos, point).words()


@dataclass
class Carry:
    """What a walker holds (one item, or none): picking up needs empty hands."""

    item: str | None = None

    def take(self, item: str) -> bool:
        if self.item is not None:
            return False
        self.item = item
        return True

    def give(self) -> str | None:
        item, self.item = self.item, None
        return item
