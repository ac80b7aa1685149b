"""Runner 2D's scripted player: run right, jump at the end of each platform (releasing Space between
jumps), and in the air steer to land on the middle of the next platform."""

from __future__ import annotations

from typing import Any

import numpy as np

EDGE_STEPS = 1.5  # jump when the platform ends within this many steps of running


def decide(w: dict[str, Any], space: Any, memory: dict) -> dict:
    p, x = w["platforms"], w["x"]
    held = []
    if w["ground"] is not None:
        memory["target"] = min(w["ground"] + 1, len(p) - 1)
        x1 = p[w["ground"], 1]
        held.append("D")
        at_edge = x >= x1 - w["run_m_s"] * w["dt"] * EDGE_STEPS
        crumbling = w["crumble_left_s"] <= w["dt"] * EDGE_STEPS
        if (at_edge or crumbling) and x1 < w["flag_x"] and not memory.get("space"):
            held.append("Space")
    else:
        target = memory.get("target", int(np.searchsorted(p[:, 0], x)))
        x0, x1, top = p[min(target, len(p) - 1)]
        aim = x0 + min(1.0, 0.5 * (x1 - x0))
        if x < aim and (w["y"] >= top or x < x0 - 0.5):
            held.append("D")
    memory["space"] = "Space" in held
    return space.action(held)
