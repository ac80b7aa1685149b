"""Handoff's scripted players: the runner fetches the parts the open orders still lack and passes them
through a free window; the maker takes them out, upgrades where an order wants it and delivers."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from rtarena.agents.scripted.games import workshop
from rtarena.agents.scripted.games.steer import keys_toward

UP = "+"


def lacking(w: dict[str, Any]) -> list[str]:
    """Part kinds the open orders want that are not already on their way (windows, hands, bench)."""
    wanted = Counter(o["item"].rstrip(UP) for o in w["orders"])
    moving = [item for item, _ in w["windows"].values() if item] + [i for i in w["others_held"] if i]
    moving += [w["bench_item"]] if w["bench_item"] else []
    wanted.subtract(Counter(i.rstrip(UP) for i in moving))
    return [kind for kind, n in wanted.items() if n > 0]


def window_point(w: dict[str, Any], name: str) -> np.ndarray:
    """Where to stand at a window: just beside the wall on the player's own side."""
    pos, at = w["pos"], w["window_pos"][name]
    return at + np.array([-0.45 if pos[0] < at[0] else 0.45, 0.0])


def runner_goal(w: dict[str, Any]) -> tuple[str | None, np.ndarray | None]:
    if w["held"] is not None:
        free = [n for n, (item, _) in w["windows"].items() if item is None]
        name = free[0] if free else next(iter(w["window_pos"]))
        return (name if free else None), window_point(w, name)
    need = lacking(w)
    if need:
        name = f"{need[0]} bin"
        return name, w["stations"][name]
    return None, None


def maker_goal(w: dict[str, Any]) -> tuple[str | None, np.ndarray | None, bool]:
    if w["held"] is not None:
        station, hold = workshop.goal(w)
        return station, w["stations"][station], hold
    bench = w["bench_item"]
    if bench is not None and (w["bench_left_s"] <= 1e-9 or w["manual"]):
        return "bench", w["stations"]["bench"], w["manual"] and w["bench_left_s"] > 1e-9
    ready = [n for n, (item, ok) in w["windows"].items() if item and ok]
    if ready:
        return ready[0], window_point(w, ready[0]), False
    return None, w["stations"]["bench"] if bench else None, False


def decide(w: dict[str, Any], space: Any, memory: dict) -> dict:
    if w["runner"]:
        name, point = runner_goal(w)
        hold = False
    else:
        name, point, hold = maker_goal(w)
    pos = w["pos"]
    if point is None:
        return space.action([])
    if float(np.hypot(*(point - pos))) > 0.25:
        memory["e"] = False
        return keys_toward(space, pos, point, tolerance=0.05)
    press = name is not None and (hold or not memory.get("e"))
    memory["e"] = press
    return space.action(["E"] if press else [])
