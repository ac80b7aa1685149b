"""Tilefall's scripted player: walk to the solid tile farthest from any warned or dropped tile."""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from rtarena.agents.scripted.games.steer import keys_toward
from rtarena.envs.search import breadth_first, grid

STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def safety(safe: np.ndarray) -> np.ndarray:
    """Per tile, the 4-neighbour step count to the nearest unsafe tile or the edge (0 for unsafe ones)."""
    n = safe.shape[0]
    dist = np.where(safe, np.inf, 0.0)
    queue = deque((int(c), int(r)) for c, r in np.argwhere(~safe))
    for c in range(n):  # the void beyond the edge counts as unsafe
        for r in (0, n - 1):
            for cc, rr in ((c, r), (r, c)):
                if safe[cc, rr] and dist[cc, rr] > 1:
                    dist[cc, rr] = 1
                    queue.append((cc, rr))
    while queue:
        c, r = queue.popleft()
        for dc, dr in STEPS:
            nc, nr = c + dc, r + dr
            if 0 <= nc < n and 0 <= nr < n and dist[nc, nr] > dist[c, r] + 1:
                dist[nc, nr] = dist[c, r] + 1
                queue.append((nc, nr))
    return dist


def path_from(start: tuple[int, int], passable: np.ndarray) -> dict[tuple[int, int], tuple[int, int] | None]:
    """BFS parents over passable tiles from `start`."""
    return breadth_first([start], grid(passable.shape, lambda tile: bool(passable[tile]), STEPS))


def next_tile(gone: np.ndarray, safe: np.ndarray, here: tuple[int, int]) -> tuple[int, int]:
    """The next tile on the way to the safest reachable tile (safety minus a cost per step of path)."""
    score = safety(safe)
    parents = path_from(here, ~gone)
    best, best_value = here, -np.inf
    for tile in parents:
        depth, node = 0, tile
        while parents[node] is not None:
            node, depth = parents[node], depth + 1
        value = score[tile] - 0.35 * depth
        if value > best_value:
            best, best_value = tile, value
    step = best
    while parents.get(step) not in (None, here):
        step = parents[step]
    return step


def decide(w: dict[str, Any], space: Any, memory: dict) -> dict:
    tile_m = w["tile_m"]
    here = (int(w["pos"][0] // tile_m), int(w["pos"][1] // tile_m))
    step = next_tile(w["gone"], ~w["gone"] & ~np.isfinite(w["warn_left"]), here)
    target = ((step[0] + 0.5) * tile_m, (step[1] + 0.5) * tile_m)
    return keys_toward(space, w["pos"], target, tolerance=0.1 * tile_m)
