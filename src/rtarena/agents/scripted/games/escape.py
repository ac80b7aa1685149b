"""Escape's scripted player: walk room to room toward the current task's object, then press F."""

from __future__ import annotations

from typing import Any

import numpy as np

from rtarena.agents.scripted.games.steer import keys_toward, tap, through_door
from rtarena.envs.games.rooms import door_centre, next_room, room_of


def decide(w: dict[str, Any], space: Any, memory: dict) -> dict:
    pos, target, size = w["pos"], w["target"], w["size_m"]
    if target is None:
        return space.action([])
    here, goal = room_of(pos, size), room_of(target, size)
    if here != goal:
        step = next_room(here, goal, w["doors"])
        waypoint = through_door(pos, door_centre(here, step, size), 0 if step[0] != here[0] else 1)
        return keys_toward(space, pos, waypoint, tolerance=0.05)
    if float(np.hypot(*(target - pos))) > min(0.2, 0.5 * w["reach_m"]):  # close: other objects may be near
        return keys_toward(space, pos, target, tolerance=0.05)
    return tap(space, "F", memory)
