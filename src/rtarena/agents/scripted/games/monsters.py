"""Monsters' scripted player: turn to the nearest monster it can see (else the nearest), fire when on
target, back away from close ones while strafing."""

from __future__ import annotations

from typing import Any

import numpy as np

from rtarena.envs.games.firstperson import relative_bearing_deg
from rtarena.envs.games.monsters import segment_blocked

MAX_TURN_DEG = 45.0


def decide(w: dict[str, Any], space: Any, memory: dict) -> dict:
    pos, monsters = w["pos"], w["monsters"]
    if len(monsters) == 0:
        return space.action([])
    dists = np.hypot(*(monsters - pos).T)
    clear = np.array([not segment_blocked(pos, m, w["pillars"]) for m in monsters])
    order = np.argsort(np.where(clear, dists, dists + 100.0))
    target = monsters[order[0]]
    bearing = relative_bearing_deg(*pos, w["yaw"], *target)
    turn = float(np.clip(-bearing, -MAX_TURN_DEG, MAX_TURN_DEG))
    held = []
    aimed = abs(bearing + turn) < np.degrees(np.arctan2(w["radius_m"] * 0.7, max(dists[order[0]], 0.1)))
    if aimed and clear[order[0]] and w["ready"] and not memory.get("fired"):
        held.append("LMB")
    memory["fired"] = "LMB" in held
    if dists.min() < 4.0:
        held.append("S")
        memory["strafe"] = memory.get("strafe", 0) + 1
        held.append("A" if (memory["strafe"] // 15) % 2 else "D")
    return space.action(held, dx=turn)
