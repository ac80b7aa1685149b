"""Kitchen's scripted cook: the workshop player, serving only its share of the orders while empty-handed
(orders alternate between the seats), so two cooks do not fetch for the same order."""

from __future__ import annotations

from typing import Any

from rtarena.agents.scripted.games import workshop


def decide(w: dict[str, Any], space: Any, memory: dict) -> dict:
    mine = w["orders"][w["seat"]::w["seats"]]
    if w["held"] is None and mine:
        w = {**w, "orders": mine}
    return workshop.decide(w, space, memory)
