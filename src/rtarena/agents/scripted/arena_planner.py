"""Path planning for the arena bots: breadth-first search on an occupancy grid (8-connected)."""

from __future__ import annotations

import numpy as np
from numba import njit

NEIGHBOURS = np.array([[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1]], dtype=np.int64)


@njit(cache=True)
def _bfs(blocked, sx, sy, gx, gy, neighbours):
    nx, ny = blocked.shape
    parent = np.full(nx * ny, -1, dtype=np.int64)
    queue = np.empty(nx * ny, dtype=np.int64)
    start, goal = sx * ny + sy, gx * ny + gy
    parent[start] = start
    head, tail = 0, 1
    queue[0] = start
    while head < tail:
        cell = queue[head]
        head += 1
        if cell == goal:
            break
        cx, cy = cell // ny, cell % ny
        for k in range(neighbours.shape[0]):
            x, y = cx + neighbours[k, 0], cy + neighbours[k, 1]
            if x < 0 or y < 0 or x >= nx or y >= ny or blocked[x, y]:
                continue
            # No corner cutting: a diagonal move needs both side cells free.
            if neighbours[k, 0] != 0 and neighbours[k, 1] != 0 and (blocked[cx + neighbours[k, 0], cy]
                                                                    or blocked[cx, cy + neighbours[k, 1]]):
                continue
            nxt = x * ny + y
            if parent[nxt] >= 0:
                continue
            parent[nxt] = cell
            queue[tail] = nxt
            tail += 1
    if parent[goal] < 0:
        return np.empty((0, 2), dtype=np.int64)
    length = 1
    cell = goal
    while cell != start:
        cell = parent[cell]
        length += 1
    path = np.empty((length, 2), dtype=np.int64)
    cell = goal
    for k in range(length - 1, -1, -1):
        path[k, 0], path[k, 1] = cell // ny, cell % ny
        cell = parent[cell]
    return path


class GridPlanner:
    """Plans on a grid of `cell_m` cells; `blocked[ix, iy]` cells are obstacles grown by the body radius."""

    def __init__(self, blocked: np.ndarray, cell_m: float) -> None:
        self.blocked = blocked
        self.cell_m = cell_m

    def cell(self, xy: np.ndarray) -> tuple[int, int]:
        n = self.blocked.shape[0]
        ix = min(n - 1, max(0, int(xy[0] / self.cell_m)))
        iy = min(n - 1, max(0, int(xy[1] / self.cell_m)))
        return ix, iy

    def nearest_free(self, cell: tuple[int, int]) -> tuple[int, int]:
        if not self.blocked[cell]:
            return cell
        free = np.argwhere(~self.blocked)
        d = np.abs(free - np.asarray(cell)).sum(axis=1)
        ix, iy = free[int(np.argmin(d))]
        return int(ix), int(iy)

    def path(self, start_xy: np.ndarray, goal_xy: np.ndarray) -> np.ndarray | None:
        """Waypoints (cell centres, metres) from start to goal, or None when the goal is unreachable."""
        sx, sy = self.nearest_free(self.cell(start_xy))
        gx, gy = self.nearest_free(self.cell(goal_xy))
        cells = _bfs(self.blocked, sx, sy, gx, gy, NEIGHBOURS)
        if len(cells) == 0:
            return None
        return (cells + 0.5) * self.cell_m
