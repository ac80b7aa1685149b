"""Workshop's scripted player: serve the oldest order it can, using the bench for upgraded ones."""

from __future__ import annotations

from typing import Any

import numpy as np

from rtarena.agents.scripted.games.steer import keys_toward, route

UP = "+"


def goal(w: dict[str, Any]) -> tuple[str, bool]:
    """The station to go to and whether to hold E there (a manual bench)."""
    held, orders, bench = w["held"], w["orders"], w["bench_item"]
    wanted = [o["item"] for o in orders]
    if held is not None:
        if held in wanted:
            return "counter", False
        if not held.endswith(UP) and held + UP in wanted and bench is None:
            return "bench", False
        return "trash", False
    if bench is not None and (bench.endswith(UP) or bench + UP in wanted or bench in wanted):
        if w["bench_left_s"] <= 1e-9:
            return "bench", False
        if w["manual"]:
            return "bench", True
    for item in wanted:
        if item.endswith(UP) and bench is not None:
            continue
        return f"{item.rstrip(UP)} bin", False
    return ("bench", w["manual"]) if bench is not None else ("counter", False)


def decide(w: dict[str, Any], space: Any, memory: dict) -> dict:
    station, hold_e = goal(w)
    target = w["stations"][station]
    pos = w["pos"]
    nearest = min(w["stations"], key=lambda s: float(np.hypot(*(w["stations"][s] - pos))))
    close = float(np.hypot(*(target - pos))) <= 0.5 * w["reach_m"] and nearest == station
    if not close:
        memory["e"] = False
        return keys_toward(space, pos, route(pos, target, w["door"]), tolerance=0.05)
    press = hold_e or not memory.get("e")
    if station == "bench" and w["bench_item"] is not None and w["held"] is None and w["bench_left_s"] > 1e-9 \
            and not hold_e:
        press = False  # wait for the upgrade
    if hold_e and memory.get("released") is False:
        press = False  # release once after putting the part down, then hold
    memory["released"] = not memory.get("e") or hold_e
    memory["e"] = press
    return space.action(["E"] if press else [])
