"""Breadth-first search, one home: over rooms, tiles and grid cells, for the games and the scripted players.

`breadth_first(starts, neighbours)` returns the BFS parents (start -> None), in the order nodes were
reached, so a caller can walk a shortest path back (`path_back`), count each node's steps from the
nearest start (`depths`: a distance transform when there are many starts) or count what is reachable. `grid`
makes the `neighbours` of a 2D grid: the steps that stay inside and land on a passable cell. The arena
bots' planner (`agents/scripted/arena_planner.py`) keeps its compiled copy for an 8-connected grid
without corner cutting, planned every few steps; the map checker labels whole grids by flat index in
a compiled fill (`envs/arena/maps/grid.py`: 160,000 cells, twice per generated map).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TypeVar

N = TypeVar("N", bound=Hashable)
Cell = tuple[int, int]
STEPS4 = ((1, 0), (-1, 0), (0, 1), (0, -1))


def breadth_first(starts: Iterable[N], neighbours: Callable[[N], Iterable[N]],
                  stop: N | None = None) -> dict[N, N | None]:
    """BFS parents of every node reachable from `starts`; the search ends once `stop` is reached."""
    parents: dict[N, N | None] = dict.fromkeys(starts)
    if stop is not None and stop in parents:
        return parents
    queue = deque(parents)
    while queue:
        node = queue.popleft()
        for nxt in neighbours(node):
            if nxt not in parents:
                parents[nxt] = node
                if nxt == stop:
                    return parents
                queue.append(nxt)
    return parents


def path_back(parents: dict[N, N | None], node: N) -> list[N]:
    """The nodes from `node` back to its search's start (both included); [] when `node` was not reached."""
    if node not in parents:
        return []
    path = [node]
    while parents[path[-1]] is not None:
        path.append(parents[path[-1]])
    return path


def depths(parents: dict[N, N | None]) -> dict[N, int]:
    """Each node's steps from its search's nearest start, from `breadth_first`'s parents (in the order
    reached, so a parent's count is known before its children's)."""
    steps: dict[N, int] = {}
    for node, parent in parents.items():
        steps[node] = 0 if parent is None else steps[parent] + 1
    return steps


def grid(shape: tuple[int, int], passable: Callable[[Cell], bool],
         steps: Iterable[tuple[int, int]] = STEPS4) -> Callable[[Cell], Iterator[Cell]]:
    """The neighbours of a cell of a `shape` grid: each step that stays inside and lands on a passable cell."""
    steps = tuple(steps)

    def neighbours(cell: Cell) -> Iterator[Cell]:
        c, r = cell
        for dc, dr in steps:
            nxt = (c + dc, r + dr)
            if 0 <= nxt[0] < shape[0] and 0 <= nxt[1] < shape[1] and passable(nxt):
                yield nxt

    return neighbours


__all__ = ["STEPS4", "breadth_first", "depths", "grid", "path_back"]
