"""Top-down steering shared by the suite's scripted players: W A S D toward a point."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


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
