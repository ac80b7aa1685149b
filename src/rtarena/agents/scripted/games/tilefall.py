"""Tilefall's scripted player: walk to the solid tile farthest from any warned or dropped tile."""

from __future__ import annotations

from typing import Any

import numpy as np

from rtarena.agents.scripted.games.steer import keys_toward
from rtarena.envs.search import STEPS4, breadth_first, depths, grid

VOID = (-1, -1)  # the void beyond the board's edge: unsafe, one step from every edge tile


def safety(safe: np.ndarray) -> np.ndarray:
    """Per tile, the 4-neighbour step count to the nearest unsafe tile or the edge (0 for unsafe ones)."""
    n = safe.shape[0]
    inside = grid(safe.shape, lambda tile: True, STEPS4)
    edge = [(c, r) for c in range(n) for r in range(n) if c in (0, n - 1) or r in (0, n - 1)]
    unsafe = [(int(c), int(r)) for c, r in np.argwhere(~safe)]
    steps = depths(breadth_first([*unsafe, VOID], lambda tile: edge if tile == VOID else inside(tile)))
    dist = np.full(safe.shape, np.inf)
    for tile, count in steps.items():
        if tile != VOID:
            dist[tile] = count
    return dist


def path_from(start: tuple[int, int], passable: np.ndarray) -> dict[tuple[int, int], tuple[int, int] | None]:
    """BFS parents over passable tiles from `start`."""
    return breadth_first([start], grid(passable.shape, lambda tile: bool(passable[tile]), STEPS4))


def next_tile(gone: np.ndarray, safe: np.ndarray, here: tuple[int, int]) -> tuple[int, int]:
    """The next tile on the way to the safest reachable tile (safety minus a cost per step of path)."""
    score = safety(safe)
    parents = path_from(here, ~gone)
    steps = depths(parents)
    best, best_value = here, -np.inf
    for tile in parents:
        value = score[tile] - 0.35 * steps[tile]
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
