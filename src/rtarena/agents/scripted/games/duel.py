"""Duel's scripted player: stand between the other fighter and the centre, strike it outward."""

from __future__ import annotations

from typing import Any

import numpy as np

from rtarena.agents.scripted.games.steer import keys_toward

EDGE_MARGIN_M = 1.0


def safe(w: dict[str, Any], point: np.ndarray) -> bool:
    lo, hi = w["inset"] + EDGE_MARGIN_M, w["side_m"] - w["inset"] - EDGE_MARGIN_M
    pad = EDGE_MARGIN_M * 0.8
    in_hole = any(h[0] - pad <= point[0] <= h[2] + pad and h[1] - pad <= point[1] <= h[3] + pad for h in w["holes"])
    return lo <= point[0] <= hi and lo <= point[1] <= hi and not in_hole


def decide(w: dict[str, Any], space: Any, memory: dict) -> dict:
    pos, other = w["pos"], w["other"]
    centre = np.full(2, w["side_m"] / 2)
    inward = centre - other
    norm = float(np.hypot(*inward))
    target = other + (inward / norm if norm > 1e-6 else np.array([1.0, 0.0])) * 0.7 * w["reach_m"]
    if not safe(w, target) or not safe(w, pos):
        target = centre if safe(w, centre) else target
    strike = bool(w["ready"] and np.hypot(*(other - pos)) <= 0.95 * w["reach_m"] and not memory.get("struck"))
    memory["struck"] = strike
    action = keys_toward(space, pos, target, tolerance=0.1)
    if strike:
        action["keys"][list(space.key_names).index("Space")] = 1
    return action
