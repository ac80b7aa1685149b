"""Parkour's scripted player: face the next platform, run to the edge of the current one, jump, and
steer in the air to the next platform's centre."""

from __future__ import annotations

from typing import Any

import numpy as np

from rtarena.envs.games.firstperson import relative_bearing_deg

MAX_TURN_DEG = 30.0


def exit_distance(pos: np.ndarray, direction: np.ndarray, rect: np.ndarray) -> float:
    """How far from `pos` along `direction` the platform `rect` (cx, cy, hw, hd, top) ends."""
    out = np.inf
    for axis in (0, 1):
        if abs(direction[axis]) > 1e-9:
            edge = rect[axis] + np.sign(direction[axis]) * rect[2 + axis]
            out = min(out, (edge - pos[axis]) / direction[axis])
    return float(out)


def decide(w: dict[str, Any], space: Any, memory: dict) -> dict:
    plats, pos = w["platforms"], w["pos"]
    last = len(plats) - 1
    if w["ground"] is not None:
        memory["target"] = min(w["ground"] + 1, last)
    target = plats[memory.get("target", min(w["best"] + 1, last))]
    gap = target[:2] - pos[:2]
    bearing = relative_bearing_deg(pos[0], pos[1], w["yaw"], target[0], target[1])
    turn = float(np.clip(-bearing, -MAX_TURN_DEG, MAX_TURN_DEG))
    held = []
    if w["ground"] is not None:
        if w["ground"] == last:
            return space.action([])
        if abs(bearing) < 12:
            held.append("W")
            direction = gap / max(float(np.hypot(*gap)), 1e-9)
            if exit_distance(pos[:2], direction, plats[w["ground"]]) < w["speed_m_s"] * w["dt"] * 2 \
                    and not memory.get("space"):
                held.append("Space")
    elif float(np.hypot(*gap)) > 0.4:
        held.append("W")
    memory["space"] = "Space" in held
    return space.action(held, dx=turn)
