"""Midline's scripted player: the workshop player, with the nearest loose part of each kind standing in
for that kind's bin (parts lie on the midline, not in bins); it waits at the midline when none fits."""

from __future__ import annotations

from typing import Any

import numpy as np

from rtarena.agents.scripted.games import workshop
from rtarena.agents.scripted.games.steer import keys_toward

UP = "+"


def decide(w: dict[str, Any], space: Any, memory: dict) -> dict:
    pos = w["pos"]
    loose: dict[str, np.ndarray] = {}
    for item, at in sorted(w["floor"], key=lambda f: float(np.hypot(*(f[1] - pos)))):
        loose.setdefault(f"{item} bin", at)
    stations = {**w["stations"], **loose}
    orders = w["orders"]
    if w["held"] is None:  # only orders whose part lies loose can be fetched (with the bench busy too)
        orders = [o for o in orders if f"{o['item'].rstrip(UP)} bin" in loose]
        if not orders and w["bench_item"] is None:
            side = 1.0 if pos[0] > w["mid"] else -1.0  # wait beside the midline for a part to appear
            return keys_toward(space, pos, np.array([w["mid"] + side * 1.0, pos[1]]), tolerance=0.2)
    return workshop.decide({**w, "stations": stations, "orders": orders}, space, memory)
