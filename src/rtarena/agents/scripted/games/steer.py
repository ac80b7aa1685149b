"""Top-down steering shared by the suite's scripted players: W A S D toward a point."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def through_door(pos: np.ndarray, door: np.ndarray, axis: int) -> np.ndarray:
    """The next point for crossing a doorway in a wall across `axis` (0: a wall of constant x): line
    up with the door on this side, then go straight through to the other side."""
    side = 1.0 if pos[axis] > door[axis] else -1.0
    other = 1 - axis
    point = np.array(door, dtype=float)
    if abs(pos[other] - door[other]) > 0.15:
        point[axis] = door[axis] + side * 0.6
    else:  # lined up: straight across, without drifting sideways
        point[axis], point[other] = door[axis] - side * 0.6, pos[other]
    return point


def route(pos: np.ndarray, target: np.ndarray, door: np.ndarray | None) -> np.ndarray:
    """The next point on the way to `target` in a two-room layout (a wall of constant x with one door)."""
    if door is None or (pos[0] - door[0]) * (target[0] - door[0]) > 0:
        return np.asarray(target, dtype=float)
    return through_door(pos, door, 0)


def keys_toward(space, pos: Sequence[float], target: Sequence[float], tolerance: float = 0.1,
                extra: Sequence[str] = ()) -> dict:
    """The action holding the keys that move from `pos` toward `target` (x east = D, y north = W)."""
    dx, dy = np.asarray(target, dtype=float) - np.asarray(pos, dtype=float)
    held = list(extra)
    if dx > tolerance:
        held.append("D")
    elif dx < -tolerance:
        held.append("A")
    if dy > tolerance:
        held.append("W")
    elif dy < -tolerance:
        held.append("S")
    return space.action(held)


def tap(space, key: str, memory: dict) -> dict:
    """Press `key` on every other call, so that each press is a new one (tap keys act when they go down)."""
    memory[key] = not memory.get(key)
    return space.action([key] if memory[key] else [])


def grid_path(pos: np.ndarray, target: np.ndarray, walls: np.ndarray, radius: float, size: float,
              cell: float = 0.5) -> list[np.ndarray]:
    """Waypoints of a shortest free path over a grid of `cell`-metre squares (for areas whose obstacles
    block straight lines), ending at the target; just the target when no path is found."""
    from rtarena.envs.games.walker import blocked_at
    from rtarena.envs.search import breadth_first, grid, path_back

    n = int(np.ceil(size / cell))

    def centre(c: tuple[int, int]) -> np.ndarray:
        return (np.array(c, dtype=float) + 0.5) * cell

    def cell_of(p: np.ndarray) -> tuple[int, int]:
        return (min(n - 1, max(0, int(p[0] // cell))), min(n - 1, max(0, int(p[1] // cell))))

    start, goal = cell_of(pos), cell_of(target)
    # every cell's centre tested against the walls in one pass (the search reaches most of them anyway)
    cells = np.stack(np.meshgrid(np.arange(n), np.arange(n), indexing="ij"), axis=-1).reshape(-1, 2)
    open_cell = ~blocked_at((cells + 0.5) * cell, radius + 0.05, walls).reshape(n, n)
    free = grid((n, n), lambda c: c == start or bool(open_cell[c]))
    between = path_back(breadth_first([goal], free, stop=start), start)[1:-1]  # start and goal left out
    return [*(centre(c) for c in between), np.asarray(target, dtype=float)]


def follow(memory: dict, key: Any, pos: np.ndarray, plan) -> np.ndarray:
    """The current waypoint of a path planned once per `key` (`plan()` makes it), dropping reached ones."""
    if memory.get("path_key") != key or not memory.get("path"):
        memory["path_key"], memory["path"] = key, plan()
    path = memory["path"]
    while len(path) > 1 and float(np.hypot(*(path[0] - pos))) < 0.2:
        path.pop(0)
    return path[0]
