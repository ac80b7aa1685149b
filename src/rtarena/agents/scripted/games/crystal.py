"""Crystal's scripted player: go to the nearest spot in range with a clear line to the other crystal,
turning toward it on the way, and throw whenever aimed and clear."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rtarena.agents.scripted.games.steer import follow, grid_path
from rtarena.envs.games.firstperson import relative_bearing_deg
from rtarena.envs.games.monsters import segment_blocked, segments_blocked

MAX_TURN_DEG = 45.0
MARGIN_M = 0.3


def obstacles(w: dict[str, Any]) -> np.ndarray:
    """Gates and pillars grown by a margin, so a line that clears them clears the ball too."""
    return w["solids"][4:] + np.array([-MARGIN_M, -MARGIN_M, MARGIN_M, MARGIN_M])


def spot(w: dict[str, Any]) -> np.ndarray:
    """The nearest place within 0.6 x range of the target from which a straight throw is clear."""
    target, pos, solids = w["target"], w["pos"], obstacles(w)
    toward = 1.0 if w["side"] == 0 else -1.0
    reach = 0.6 * w["range_m"]
    best, best_d = target - np.array([toward * reach, 0.0]), math.inf
    points = np.array([[target[0] - toward * dx, y] for dx in np.linspace(3.0, reach, 5)
                       for y in np.linspace(1.0, w["width_m"] - 1.0, 9)])
    clear = ~(segments_blocked(points, np.broadcast_to(target, points.shape), solids)
              | segments_blocked(points - 0.4, points + 0.4, solids))
    for point in points[clear]:
        d = float(np.hypot(*(point - pos)))
        if d < best_d:
            best, best_d = point, d
    return best


def move_keys(pos: np.ndarray, yaw: float, point: np.ndarray) -> list[str]:
    """W A S D that move toward `point` given the view direction."""
    d = point - pos
    dist = float(np.hypot(*d))
    if dist < 0.15:
        return []
    forward = d @ np.array([math.cos(yaw), math.sin(yaw)])
    right = d @ np.array([math.sin(yaw), -math.cos(yaw)])
    keys = []
    if abs(forward) > 0.35 * dist:
        keys.append("W" if forward > 0 else "S")
    if abs(right) > 0.35 * dist:
        keys.append("D" if right > 0 else "A")
    return keys


def decide(w: dict[str, Any], space: Any, memory: dict) -> dict:
    if not w["up"]:
        return space.action([])
    pos, target = w["pos"], w["target"]
    bearing = relative_bearing_deg(*pos, w["yaw"], *target)
    turn = float(np.clip(-bearing, -MAX_TURN_DEG, MAX_TURN_DEG))
    memory["age"] = memory.get("age", 0) + 1
    if "spot" not in memory or memory["age"] % 10 == 0:  # re-planned every second (gates may break)
        memory["spot"] = spot(w)
    goal = memory["spot"]
    waypoint = follow(memory, tuple(np.round(goal, 2)), pos,
                      lambda: grid_path(pos, goal, w["solids"], w["radius_m"], w["length_m"]))
    held = move_keys(pos, w["yaw"] - math.radians(turn), waypoint)
    dist = float(np.hypot(*(target - pos)))
    aimed = abs(bearing + turn) < math.degrees(math.atan2(0.6 * w["crystal_radius_m"], max(dist, 0.1)))
    clear = not segment_blocked(pos, target, obstacles(w))
    if aimed and clear and dist < 0.9 * w["range_m"] and w["ready"] and not memory.get("threw"):
        held.append("LMB")
    memory["threw"] = "LMB" in held
    return space.action(held, dx=turn)
