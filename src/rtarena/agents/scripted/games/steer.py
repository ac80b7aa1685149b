"""Top-down steering shared by the suite's scripted players: W A S D toward a point."""

from __future__ import annotations

from collections.abc import Sequence

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
