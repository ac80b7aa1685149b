"""A seeded block of rooms joined by doorways: a spanning tree of doors plus a few extra (loops).

Rooms are cells `(column, row)` of `size_m` metres, row 0 in the south. A door between two neighbouring
rooms is a gap of `door_m` in the middle of the wall they share.
"""

from __future__ import annotations

import numpy as np

from rtarena.envs.games.walker import border
from rtarena.envs.search import breadth_first

Room = tuple[int, int]


def doors_of(columns: int, rows: int, extra: int, rng: np.random.Generator) -> set[tuple[Room, Room]]:
    """Door pairs (sorted room pairs): a random spanning tree, then `extra` more at random."""
    rooms = [(c, r) for c in range(columns) for r in range(rows)]
    edges = [((c, r), (c + 1, r)) for c in range(columns - 1) for r in range(rows)]
    edges += [((c, r), (c, r + 1)) for c in range(columns) for r in range(rows - 1)]
    order = [edges[i] for i in rng.permutation(len(edges))]
    parent = {room: room for room in rooms}

    def root(room: Room) -> Room:
        while parent[room] != room:
            room = parent[room]
        return room

    doors, rest = set(), []
    for a, b in order:
        if root(a) != root(b):
            parent[root(a)] = root(b)
            doors.add((a, b))
        else:
            rest.append((a, b))
    doors.update(rest[:extra])
    return doors


def door_centre(a: Room, b: Room, size: float) -> np.ndarray:
    """The middle of the doorway between neighbouring rooms a and b (metres)."""
    return (np.array(a, dtype=float) + np.array(b, dtype=float) + 1.0) * size / 2


def walls_of(columns: int, rows: int, size: float, door: float, doors: set[tuple[Room, Room]]) -> np.ndarray:
    """Wall rectangles: the border, and every inner wall with a gap where a door is."""
    t = 0.1
    walls = border(columns * size, rows * size)
    for c in range(columns):
        for r in range(rows):
            if c + 1 < columns:  # the wall east of (c, r)
                x = (c + 1) * size
                y0, y1 = r * size, (r + 1) * size
                if ((c, r), (c + 1, r)) in doors:
                    mid = (y0 + y1) / 2
                    walls += [(x - t, y0, x + t, mid - door / 2), (x - t, mid + door / 2, x + t, y1)]
                else:
                    walls.append((x - t, y0, x + t, y1))
            if r + 1 < rows:  # the wall north of (c, r)
                y = (r + 1) * size
                x0, x1 = c * size, (c + 1) * size
                if ((c, r), (c, r + 1)) in doors:
                    mid = (x0 + x1) / 2
                    walls += [(x0, y - t, mid - door / 2, y + t), (mid + door / 2, y - t, x1, y + t)]
                else:
                    walls.append((x0, y - t, x1, y + t))
    return np.array(walls, dtype=float)


def room_of(pos: np.ndarray, size: float) -> Room:
    return int(pos[0] // size), int(pos[1] // size)


def next_room(start: Room, goal: Room, doors: set[tuple[Room, Room]]) -> Room:
    """The neighbour of `start` on a shortest door path to `goal` (`start` itself when there)."""
    if start == goal:
        return start
    links: dict[Room, list[Room]] = {}
    for a, b in sorted(doors):
        links.setdefault(a, []).append(b)
        links.setdefault(b, []).append(a)
    parents = breadth_first([start], lambda room: links.get(room, []), stop=goal)
    step = goal
    while parents.get(step) not in (None, start):
        step = parents[step]
    return step
