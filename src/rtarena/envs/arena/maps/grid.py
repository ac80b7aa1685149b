"""Occupancy grids for maps: rasterising boxes, flood fill, and turning painted cells back into boxes.

Pure numpy plus a compiled breadth-first fill (no scipy): a 100 m map at 0.25 m is 160,000 cells, which
the Python deque it replaced took 0.4 s to walk, twice per generated map (generation, then validation).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numba import njit


def cell_size_for(size_m: float, finest_m: float = 0.25, max_cells: int = 256) -> float:
    """A cell size no finer than `finest_m` that keeps the grid at most `max_cells` on a side."""
    return max(finest_m, float(size_m) / max_cells)


def blocked_grid(size_m: float, boxes: Iterable[Iterable[float]], cell_m: float, inflate_m: float = 0.0) -> np.ndarray:
    """`grid[ix, iy]` is True where the cell centre lies within `inflate_m` of a box (x0, y0, x1, y1, ...).

    The inflation is square (Chebyshev), slightly conservative at box corners; callers inflate by a body
    radius so that a free cell is a place a body's centre can stand.
    """
    n = round(size_m / cell_m)
    centres = (np.arange(n) + 0.5) * cell_m
    rows = np.array([list(box)[:4] for box in boxes], dtype=float).reshape(-1, 4)
    # Each box covers the cells whose centre lies strictly inside it (grown by `inflate_m`): index ranges
    # [lo, hi) found by binary search, painted at once through a 2-D difference array (linear in boxes).
    lo_x = np.searchsorted(centres, rows[:, 0] - inflate_m, side="right")
    hi_x = np.searchsorted(centres, rows[:, 2] + inflate_m, side="left")
    lo_y = np.searchsorted(centres, rows[:, 1] - inflate_m, side="right")
    hi_y = np.searchsorted(centres, rows[:, 3] + inflate_m, side="left")
    keep = (lo_x < hi_x) & (lo_y < hi_y)
    diff = np.zeros((n + 1, n + 1), dtype=np.int64)
    for xs, ys, sign in ((lo_x, lo_y, 1), (hi_x, lo_y, -1), (lo_x, hi_y, -1), (hi_x, hi_y, 1)):
        np.add.at(diff, (xs[keep], ys[keep]), sign)
    grid = diff.cumsum(axis=0).cumsum(axis=1)[:n, :n] > 0
    # The boundary walls: a body centre cannot come closer than its radius to the arena's edge.
    edge = int(np.ceil(inflate_m / cell_m - 0.5)) if inflate_m > 0 else 0
    if edge:
        grid[:edge, :] = grid[-edge:, :] = True
        grid[:, :edge] = grid[:, -edge:] = True
    return grid


def label_free(blocked: np.ndarray) -> np.ndarray:
    """Connected components (4-neighbour) of the free cells: `labels[ix, iy]` >= 1, 0 where blocked,
    numbered in the order of their first cell (row-major)."""
    nx, ny = blocked.shape
    return _fill_labels(~np.ascontiguousarray(blocked).ravel(), nx, ny).reshape(nx, ny)


@njit(cache=True)
def _fill_labels(free, nx, ny):
    """Breadth-first fill from each unlabelled free cell in turn (a queue in an array)."""
    labels = np.zeros(nx * ny, dtype=np.int32)
    queue = np.empty(nx * ny, dtype=np.int64)
    current = 0
    for start in range(nx * ny):
        if not free[start] or labels[start]:
            continue
        current += 1
        labels[start] = current
        queue[0], head, tail = start, 0, 1
        while head < tail:
            i = queue[head]
            head += 1
            x, y = i // ny, i % ny
            for j, ok in ((i - ny, x > 0), (i + ny, x < nx - 1), (i - 1, y > 0), (i + 1, y < ny - 1)):
                if ok and free[j] and not labels[j]:
                    labels[j] = current
                    queue[tail] = j
                    tail += 1
    return labels


def cell_of(point: Iterable[float], cell_m: float, n: int) -> tuple[int, int]:
    x, y = (float(v) for v in list(point)[:2])
    return min(max(int(x // cell_m), 0), n - 1), min(max(int(y // cell_m), 0), n - 1)


def label_at(labels: np.ndarray, point: Iterable[float], cell_m: float) -> int:
    """The component a point stands in; a point on a blocked cell takes the nearest free cell's label
    within one cell (grid rounding), else 0."""
    n = labels.shape[0]
    ix, iy = cell_of(point, cell_m, n)
    if labels[ix, iy]:
        return int(labels[ix, iy])
    near = labels[max(ix - 1, 0):ix + 2, max(iy - 1, 0):iy + 2]
    found = near[near > 0]
    return int(np.bincount(found).argmax()) if len(found) else 0


def boxes_from_cells(values: np.ndarray, cell_m: float, empty: int = 0) -> list[tuple[float, float, float, float, int]]:
    """Non-overlapping rectangles covering the cells of an integer grid `values[ix, iy]` that are not
    `empty`, each of one value: `(x0, y0, x1, y1, value)` in metres. Greedy: runs along y, grown along x
    while the next column has the same run."""
    nx, ny = values.shape
    used = np.zeros_like(values, dtype=bool)
    out = []
    for ix in range(nx):
        iy = 0
        while iy < ny:
            v = values[ix, iy]
            if v == empty or used[ix, iy]:
                iy += 1
                continue
            end = iy
            while end + 1 < ny and values[ix, end + 1] == v and not used[ix, end + 1]:
                end += 1
            right = ix
            while (right + 1 < nx and np.all(values[right + 1, iy:end + 1] == v)
                   and not used[right + 1, iy:end + 1].any()):
                right += 1
            used[ix:right + 1, iy:end + 1] = True
            out.append((ix * cell_m, iy * cell_m, (right + 1) * cell_m, (end + 1) * cell_m, int(v)))
            iy = end + 1
    return out


class BoxIndex:
    """A uniform grid of buckets over the arena, for overlap checks whose work per object is bounded.

    Each rectangle added is filed under the cells it covers (about one object per cell on average), or in a
    short list of wide ones when it covers more than `WIDE` cells. A query gathers the rectangles of the
    cells it covers plus the wide ones, but never more than `SCAN` of them one by one: past that (a wide
    query, a crowded cell, many wide rectangles: the hostile layouts of issue 47) it tests every rectangle
    at once in numpy instead. So the Python work per query is bounded, and the worst case is one vector
    pass over the rectangles per query: 10,000 tiny obstacles in one cell, or 10,000 wide strips, validate
    in about a second (docs/limits.md), where the bucket walk took 13 and 22 s and the N x N pair matrix
    gigabytes (issue 29).
    """

    WIDE = 64
    SCAN = 256

    def __init__(self, size_m: float, expected: int) -> None:
        self.n = max(1, min(512, int(np.sqrt(max(expected, 1)))))
        self.cell = float(size_m) / self.n
        self.buckets: dict[tuple[int, int], list[int]] = {}
        self.wide: list[int] = []
        self.rects = np.empty((max(expected, 16), 4))
        self.count = 0

    def _span(self, x0: float, y0: float, x1: float, y1: float) -> tuple[range, range]:
        top, cell = self.n - 1, self.cell
        return (range(min(max(int(x0 // cell), 0), top), min(max(int(x1 // cell), 0), top) + 1),
                range(min(max(int(y0 // cell), 0), top), min(max(int(y1 // cell), 0), top) + 1))

    def add(self, rect: Iterable[float]) -> int:
        """File a rectangle (x0, y0, x1, y1); returns its index in the order added."""
        x0, y0, x1, y1 = (float(v) for v in list(rect)[:4])
        index = self.count
        if index == len(self.rects):
            self.rects = np.concatenate([self.rects, np.empty_like(self.rects)])
        self.rects[index] = (x0, y0, x1, y1)
        self.count += 1
        xs, ys = self._span(x0, y0, x1, y1)
        if len(xs) * len(ys) > self.WIDE:
            self.wide.append(index)
            return index
        for ix in xs:
            for iy in ys:
                self.buckets.setdefault((ix, iy), []).append(index)
        return index

    def near(self, rect: Iterable[float]) -> np.ndarray:
        """Indices (ascending) of added rectangles that may touch `rect`: a superset of those that do (every
        rectangle when gathering them one by one would take more than `SCAN` steps)."""
        x0, y0, x1, y1 = (float(v) for v in list(rect)[:4])
        xs, ys = self._span(x0, y0, x1, y1)
        everything = np.arange(self.count)
        if len(xs) * len(ys) > self.WIDE or len(self.wide) > self.SCAN:
            return everything
        found = list(self.wide)
        for ix in xs:
            for iy in ys:
                bucket = self.buckets.get((ix, iy), ())
                if len(found) + len(bucket) > self.SCAN:
                    return everything
                found.extend(bucket)
        return np.unique(np.array(found, dtype=np.int64))

    def first_touching(self, rect: Iterable[float], margin: float = 0.0) -> int | None:
        """The lowest index of an added rectangle whose overlap with `rect` grown by `margin` has area."""
        x0, y0, x1, y1 = (float(v) for v in list(rect)[:4])
        x0, y0, x1, y1 = x0 - margin, y0 - margin, x1 + margin, y1 + margin
        near = self.near((x0, y0, x1, y1))
        if not len(near):
            return None
        a = self.rects[near]
        hit = np.flatnonzero((np.minimum(a[:, 2], x1) - np.maximum(a[:, 0], x0) > 1e-6)
                             & (np.minimum(a[:, 3], y1) - np.maximum(a[:, 1], y0) > 1e-6))
        return int(near[hit[0]]) if len(hit) else None
