"""Top-down steering shared by the suite's scripted players: W A S D toward a point."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def route(pos: np.ndarray, target: np.ndarray, door: np.ndarray | None) -> np.ndarray:
    """The next point on the way to `target` in a two-room layout: the doorway (approached straight
    across the dividing wall) while target and walker are on different sides, else the target."""
    if door is None or (pos[0] - door[0]) * (target[0] - door[0]) > 0:
        return np.asarray(target, dtype=float)
    side = 1.0 if pos[0] > door[0] else -1.0
    if abs(pos[1] - door[1]) > 0.15:
        return np.array([door[0] + side * 0.6, door[1]])
    return np.array([door[0] - side * 0.6, door[1]])


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
