"""Map validation: every problem of a map as one line naming the file, the field and the value.

`validate_map(data, source, players=4)` returns a list of `Problem`s (empty when the map is fine);
`check_map` raises the first as a `UserError`. The checks are listed in `maps/format.py`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from rtarena.envs.arena.maps.format import (
    AREA_KEYS,
    MAP_KEYS,
    MAX_SIZE_M,
    MIN_SIZE_M,
    POINT_KEYS,
    TEXT_KEYS,
    ZONE_KEYS,
)
from rtarena.envs.arena.maps.grid import BoxIndex, blocked_grid, cell_size_for, label_at, label_free
from rtarena.envs.arena.world import OBSTACLE_KINDS
from rtarena.errors import UserError
from rtarena.limits import LIMITS, limit_message

DEFAULT_SIZE_M = 100.0
PLAYER_RADIUS_M = 0.4
DEFAULT_JUMP_M = 6.5**2 / (2 * 20.0)  # apex of a jump with the levels' jump speed and gravity
EPS = 1e-6


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a map."""

    source: str
    field: str
    message: str

    def line(self) -> str:
        return f"{self.source}: {self.field}: {self.message}"

    def __str__(self) -> str:
        return self.line()


def fmt(value: Any) -> str:
    """A value as it would be written in the map, numbers rounded to millimetres."""
    if isinstance(value, float):
        return f"{round(float(value), 3):g}"
    if isinstance(value, (list, tuple, np.ndarray)):
        return "[" + ", ".join(fmt(v) for v in list(value)) + "]"
    if isinstance(value, (np.floating, np.integer)):
        return fmt(value.item())
    if isinstance(value, str):
        return repr(value)
    return str(value)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


class _Checker:
    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[Problem] = []

    def add(self, field: str, message: str) -> None:
        self.problems.append(Problem(self.source, field, message))

    def rows(self, data: Mapping[str, Any], key: str, lengths: tuple[int, ...], what: str) -> list[tuple[int, list]]:
        """The well-formed rows of list `key`; each malformed one is a problem."""
        value = data.get(key, [])
        if not isinstance(value, (list, tuple)):
            self.add(key, f"must be a list of {what}, got {fmt(value)}")
            return []
        out = []
        for i, row in enumerate(value):
            if not isinstance(row, (list, tuple)) or len(row) not in lengths:
                self.add(f"{key}[{i}]", f"must be {what}, got {fmt(row)}")
                continue
            numeric = row[:5] if key == "obstacles" else row
            if not all(_number(v) for v in numeric):
                self.add(f"{key}[{i}]", f"must be {what} (numbers), got {fmt(row)}")
                continue
            out.append((i, list(row)))
        return out


def validate_map(
    data: Mapping[str, Any],
    source: str = "map",
    players: int | None = None,
    jump_m: float = DEFAULT_JUMP_M,
    player_radius_m: float = PLAYER_RADIUS_M,
    size_m: float | None = None,
) -> list[Problem]:
    """Every problem of a map table. `players` is the level's player count (spawn check); `size_m` the
    level's arena size, used when the map gives none. The checks run in order: keys, size, obstacles,
    points, areas, zone, reachability, spawn count."""
    check = _Checker(source)
    if not isinstance(data, Mapping):
        check.add("map", f"must be a table of keys, got {fmt(data)}")
        return check.problems
    _check_keys(check, data)
    if not _check_counts(check, data):
        return check.problems
    size = data.get("size_m", size_m if size_m is not None else DEFAULT_SIZE_M)
    if not _number(size) or not MIN_SIZE_M <= size <= MAX_SIZE_M:
        check.add("size_m", f"must be a number of metres from {MIN_SIZE_M:g} to {MAX_SIZE_M:g}, got {fmt(size)}")
        return check.problems
    arena = _Arena(float(size))
    boxes = _check_obstacles(check, data, arena)
    points = _check_points(check, data, arena, boxes)
    areas = _check_areas(check, data, arena)
    _check_zone(check, data.get("toxic_zone"), arena.inside)
    _check_reachability(check, arena.size, boxes, points, areas, jump_m, player_radius_m)
    if players is not None and "spawns" in data and isinstance(data["spawns"], (list, tuple)):
        given = len(data["spawns"])
        if given < players:
            check.add("spawns", f"{given} spawns for the level's {players} players; add {players - given}")
    return check.problems


@dataclass(frozen=True)
class _Arena:
    size: float  # metres

    def inside(self, x: float, y: float, margin: float = 0.0) -> bool:
        return margin - EPS <= x <= self.size - margin + EPS and margin - EPS <= y <= self.size - margin + EPS


Box = tuple[int, np.ndarray, str]  # index in the file, [x0, y0, x1, y1, height_m], kind
Point = tuple[str, np.ndarray, float, bool]  # field, xy, radius, must be reachable


def _check_counts(check: _Checker, data: Mapping[str, Any]) -> bool:
    """Whether every list of the map is within its documented limit (checked before any geometry)."""
    within = True
    for key, limit in (("obstacles", "map.obstacles"), *((k, "map.points") for k in (*POINT_KEYS, *AREA_KEYS))):
        rows = data.get(key)
        if isinstance(rows, (list, tuple)) and len(rows) > LIMITS[limit].value:
            check.add(key, f"{limit_message(limit)}, got {len(rows)}")
            within = False
    return within


def _check_keys(check: _Checker, data: Mapping[str, Any]) -> None:
    for key in data:
        if key not in MAP_KEYS:
            check.add(str(key), f"unknown key; keys are {', '.join(MAP_KEYS)}")
    for key in TEXT_KEYS:
        if key in data and not isinstance(data[key], str):
            check.add(key, f"must be text, got {fmt(data[key])}")


def _check_obstacles(check: _Checker, data: Mapping[str, Any], arena: _Arena) -> list[Box]:
    """The well-formed obstacles inside the arena; then every pair that overlaps is a problem."""
    boxes: list[Box] = []
    for i, row in check.rows(data, "obstacles", (5, 6), '[x0, y0, x1, y1, height_m, "wall"|"crate"]'):
        kind = row[5] if len(row) == 6 else "wall"
        field = f"obstacles[{i}]"
        if kind not in OBSTACLE_KINDS:
            check.add(field, f"kind must be \"wall\" or \"crate\", got {fmt(kind)}")
            continue
        x0, y0, x1, y1, h = (float(v) for v in row[:5])
        x0, x1, y0, y1 = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
        if x1 - x0 < EPS or y1 - y0 < EPS:
            check.add(field, f"has no area: {fmt(row)}")
            continue
        if h <= 0:
            check.add(field, f"height must be above 0 m, got {fmt(h)} in {fmt(row)}")
            continue
        if not (arena.inside(x0, y0) and arena.inside(x1, y1)):
            check.add(field, f"{fmt(row)} is outside the {arena.size:g} m arena")
            continue
        boxes.append((i, np.array([x0, y0, x1, y1, h]), kind))
    index = BoxIndex(arena.size, len(boxes))  # the obstacles that overlap none before them
    kept: list[int] = []
    for k, (i, box, _kind) in enumerate(boxes):
        hit = index.first_touching(box)
        if hit is not None:
            a = boxes[kept[hit]]
            check.add(f"obstacles[{i}]", f"{fmt(box[:4])} overlaps obstacles[{a[0]}] {fmt(a[1][:4])}")
            continue
        index.add(box)
        kept.append(k)
    return boxes


def _check_points(check: _Checker, data: Mapping[str, Any], arena: _Arena, boxes: list[Box]) -> list[Point]:
    """Spawns, coins, turrets, ammo and chickens clear of the edge and the obstacles; then those that
    stand on each other are problems (the later one is dropped)."""
    points: list[Point] = []
    under = BoxIndex(arena.size, len(boxes))  # the obstacles, in file order: a bounded look per point
    for _j, box, _kind in boxes:
        under.add(box[:4])
    for key, (radius, reach) in POINT_KEYS.items():
        shape = "[x, y] or [x, y, team]" if key == "spawns" else "[x, y]"
        lengths = (2, 3) if key == "spawns" else (2,)
        for i, row in check.rows(data, key, lengths, shape):
            field = f"{key}[{i}]"
            if len(row) == 3 and (int(row[2]) != row[2] or row[2] < 0):
                check.add(field, f"team must be a whole number >= 0, got {fmt(row[2])}")
                continue
            xy = np.array(row[:2], dtype=float)
            if not arena.inside(*xy, margin=radius):
                check.add(field, f"{fmt(row[:2])} is outside the {arena.size:g} m arena (or within {radius:g} m of "
                          "its edge)")
                continue
            blocked_by = _obstacle_under(xy, radius, boxes, under)
            if blocked_by is not None:
                check.add(field, f"{fmt(row[:2])} overlaps obstacles[{blocked_by}]")
                continue
            points.append((field, xy, radius, reach))
    return _drop_clashes(check, arena, points)


def _drop_clashes(check: _Checker, arena: _Arena, points: list[Point]) -> list[Point]:
    """The points clear of the ones before them; each that stands on an earlier one is a problem."""
    reach = max((p[2] for p in points), default=0.0)
    index = BoxIndex(arena.size, len(points))
    kept: list[Point] = []
    radii = np.empty(len(points))
    for point in points:
        field, xy, radius, _reach = point
        near = index.near((xy[0] - radius - reach, xy[1] - radius - reach, xy[0] + radius + reach,
                           xy[1] + radius + reach))
        centres = index.rects[near, :2]
        hit = np.flatnonzero(np.hypot(centres[:, 0] - xy[0], centres[:, 1] - xy[1]) < radii[near] + radius - EPS)
        if len(hit):
            clash = kept[int(near[hit[0]])]
            check.add(field, f"{fmt(xy)} overlaps {clash[0]} {fmt(clash[1])}")
            continue
        radii[index.add((xy[0], xy[1], xy[0], xy[1]))] = radius
        kept.append(point)
    return kept


def _obstacle_under(xy: np.ndarray, radius: float, boxes: list[Box], under: BoxIndex) -> int | None:
    """The file index of the first obstacle closer than `radius` to `xy`, or None (`under`: the boxes, in
    order, in an index, so the test looks at those near the point only)."""
    near = under.near((xy[0] - radius, xy[1] - radius, xy[0] + radius, xy[1] + radius))
    rects = under.rects[near]
    dx = np.maximum(np.maximum(rects[:, 0] - xy[0], xy[0] - rects[:, 2]), 0.0)
    dy = np.maximum(np.maximum(rects[:, 1] - xy[1], xy[1] - rects[:, 3]), 0.0)
    hit = np.flatnonzero(np.hypot(dx, dy) < radius - EPS)
    return boxes[int(near[hit[0]])][0] if len(hit) else None


def _check_areas(check: _Checker, data: Mapping[str, Any], arena: _Arena) -> list[tuple[str, np.ndarray]]:
    areas: list[tuple[str, np.ndarray]] = []
    for key in AREA_KEYS:
        for i, row in check.rows(data, key, (4,), "[x0, y0, x1, y1]"):
            field = f"{key}[{i}]"
            x0, y0, x1, y1 = min(row[0], row[2]), min(row[1], row[3]), max(row[0], row[2]), max(row[1], row[3])
            if x1 - x0 < EPS or y1 - y0 < EPS:
                check.add(field, f"has no area: {fmt(row)}")
            elif not (arena.inside(x0, y0) and arena.inside(x1, y1)):
                check.add(field, f"{fmt(row)} is outside the {arena.size:g} m arena")
            else:
                areas.append((field, np.array([x0, y0, x1, y1], dtype=float)))
    return areas


def _check_reachability(check: _Checker, size: float, boxes: list[Box], points: list[Point],
                        areas: list[tuple[str, np.ndarray]], jump_m: float, player_radius_m: float) -> None:
    """Every spawn, coin and ammo box, and some floor of every area, lies on the floor the spawns share
    (a flood fill over an occupancy grid; crates low enough to jump count as passable)."""
    cell = cell_size_for(size)
    walls = [b for _, b, kind in boxes if kind == "wall" or b[4] > jump_m]
    labels = label_free(blocked_grid(size, walls, cell, inflate_m=player_radius_m))
    spawn_labels = [label_at(labels, p[1], cell) for p in points if p[0].startswith("spawns")]
    spawn_labels = [s for s in spawn_labels if s]
    if spawn_labels:
        main = int(np.bincount(spawn_labels).argmax())
        where = "from the other spawns" if len(spawn_labels) > 1 else "from the spawns"
    else:
        counts = np.bincount(labels.ravel())
        counts[0] = 0
        main = int(counts.argmax()) if counts.any() else 0
        where = "from the open floor"
    if not main:  # nowhere to stand: the level could place no spawn, coin or pickup
        check.add("obstacles", f"leave no open floor a player fits on in the {size:g} m arena")
        return
    for field, xy, _radius, reach in points:
        if reach and label_at(labels, xy, cell) != main:
            check.add(field, f"{fmt(xy)} cannot be reached {where} (walled in, or in a gap narrower than "
                      f"{2 * player_radius_m:g} m)")
    for field, area in areas:
        n = labels.shape[0]
        ix0, iy0 = int(area[0] // cell), int(area[1] // cell)
        ix1, iy1 = min(int(np.ceil(area[2] / cell)), n), min(int(np.ceil(area[3] / cell)), n)
        if not (labels[ix0:ix1, iy0:iy1] == main).any():
            check.add(field, f"{fmt(area)} has no floor a player can reach {where}")


def _check_zone(check: _Checker, zone: Any, inside) -> None:
    if zone is None:
        return
    if not isinstance(zone, Mapping):
        check.add("toxic_zone", f"must be a table, got {fmt(zone)}")
        return
    for key, value in zone.items():
        field = f"toxic_zone.{key}"
        if key not in ZONE_KEYS:
            check.add(field, f"unknown key; keys are {', '.join(ZONE_KEYS)}")
        elif key == "center":
            if not (isinstance(value, (list, tuple)) and len(value) == 2 and all(_number(v) for v in value)):
                check.add(field, f"must be [x, y], got {fmt(value)}")
            elif not inside(*value):
                check.add(field, f"{fmt(value)} is outside the arena")
        elif not _number(value) or value < 0:
            check.add(field, f"must be a number >= 0, got {fmt(value)}")
        elif key == "stages" and (int(value) != value or value < 1):
            check.add(field, f"must be a whole number >= 1, got {fmt(value)}")
    start, end = zone.get("start_radius_m"), zone.get("end_radius_m")
    if _number(start) and _number(end) and end > start:
        check.add("toxic_zone.end_radius_m", f"{fmt(end)} is larger than start_radius_m {fmt(start)}")


def check_map(data: Mapping[str, Any], source: str = "map", **kwargs: Any) -> None:
    """Raise the map's first problem as a `UserError` (with the count of the others)."""
    problems = validate_map(data, source, **kwargs)
    if problems:
        more = f" (and {len(problems) - 1} more: rtarena map validate)" if len(problems) > 1 else ""
        raise UserError(problems[0].message + more, source=problems[0].source, field=problems[0].field)
