"""Errands' scripted player: fetch the wanted item from whoever gives it, then bring it over."""

from __future__ import annotations

from typing import Any

import numpy as np

from rtarena.agents.scripted.games.steer import follow, grid_path, keys_toward, tap


def decide(w: dict[str, Any], space: Any, memory: dict) -> dict:
    if w["errand"] is None:
        return space.action([])
    who, item = w["errand"]
    pos, people = w["pos"], w["people"]
    if item in w["bag"]:
        person = who
    else:
        if len(w["bag"]) >= w["inventory"]:
            return tap(space, "Space", memory)
        person = next(n for n, gives in w["gives"].items() if gives == item)
    target = people[person]
    nearest = min(people, key=lambda n: float(np.hypot(*(people[n] - pos))))
    if float(np.hypot(*(target - pos))) <= 0.5 * w["reach_m"] and nearest == person:
        return tap(space, "F", memory)
    waypoint = target
    if len(w["walls"]) > 4:  # houses: find a way around them
        waypoint = follow(memory, (person, w["bag"] == []), pos,
                          lambda: grid_path(pos, target, w["walls"], w["radius_m"], w["size_m"]))
    return keys_toward(space, pos, waypoint, tolerance=0.05)
