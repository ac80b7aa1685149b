"""The event log: what happened, step by step, from which every arena metric is computed.

An event is a flat dict with a `type`, the sim time `t_s`, and the agents it involves by agent id (for
example `{"type": "hit", "shooter": "p0", "target": "p2", "damage": 25.0}`). Each step's events are
routed to the `infos[agent]["events"]` of every agent they involve; the log keeps every event once.

| type | fields | involves |
|---|---|---|
| `shot` | shooter, aimed_at (agent or None), hit (what was hit: player/turret/chicken/None) | shooter, aimed_at |
| `hit` | shooter, target, damage | shooter, target |
| `kill` | shooter, target | shooter, target |
| `death` | agent, cause (player/turret/zone), by | agent |
| `dry_fire` | agent (fired with no ammunition) | agent |
| `turret_hit` / `turret_destroyed` | shooter, turret, damage | shooter |
| `chicken_shot` | shooter, chicken | shooter |
| `coin` | agent, coin | agent |
| `ammo_pickup` | agent, box, amount | agent |
| `turret_lock` / `turret_unlock` | turret, target | target |
| `turret_fire` | turret, target | target |
| `turret_hold` | turret, target (aimed at a moving player but held fire; `turret.moving_fire_chance`) | target |
| `turret_shell_hit` | turret, target, damage | target |
| `zone_damage` | agent, damage (summed over the step) | agent |
| `ammo_respawn`, `chicken_respawn` | box / chicken (`moved: true`: a box on the floor moved) | nobody |
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rtarena.envs.arena.kernel_cache import kernel

AGENT_FIELDS = ("shooter", "target", "aimed_at", "agent")


class EventLog:
    """Collects events for the current step and keeps the whole episode's."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.all: list[dict[str, Any]] = []
        self.step: list[dict[str, Any]] = []
        self.time_s = 0.0

    def emit(self, type_: str, **fields: Any) -> dict[str, Any]:
        event = {"type": type_, "t_s": round(self.time_s, 6), **fields}
        self.step.append(event)
        self.all.append(event)
        return event

    def name(self, index: int) -> str:
        return self.names[index]

    def start_step(self) -> None:
        self.step = []

    def routed(self) -> dict[str, list[dict[str, Any]]]:
        """This step's events per involved agent id."""
        out: dict[str, list[dict[str, Any]]] = {}
        for event in self.step:
            seen = set()
            for key in AGENT_FIELDS:
                agent = event.get(key)
                if isinstance(agent, str) and agent not in seen:
                    seen.add(agent)
                    out.setdefault(agent, []).append(event)
        return out


# -- events raised inside the compiled sub-steps (`sim.py`) --------------------------------------------
# A compiled kernel cannot build dicts, so it writes rows `(code, sub-step, a, b, c)` plus one float into
# preallocated arrays; `decode` turns each row into the same event `emit` would have made, field for field.
DRY_FIRE, SHOT, HIT, DEATH, KILL, TURRET_HIT, TURRET_DESTROYED, CHICKEN_SHOT = range(8)
TURRET_UNLOCK, TURRET_LOCK, TURRET_HOLD, TURRET_FIRE, TURRET_SHELL_HIT = range(8, 13)
CHICKEN_RESPAWN, COIN, AMMO_PICKUP, AMMO_RESPAWN, AMMO_MOVED = range(13, 18)
CAUSE_PLAYER, CAUSE_TURRET, CAUSE_ZONE = range(3)
CAUSES = ("player", "turret", "zone")
TARGET_KINDS = ("player", "turret", "chicken")


@kernel
def put(ev, evx, evn, code, sub, a, b, c, x):
    """Record one event row (the compiled side of `EventLog.emit`)."""
    k = evn[0]
    ev[k, 0], ev[k, 1], ev[k, 2], ev[k, 3], ev[k, 4] = code, sub, a, b, c
    evx[k] = x
    evn[0] = k + 1


def _opt(log: EventLog, i: int) -> str | None:
    return log.name(i) if i >= 0 else None


def _by(log: EventLog, cause: int, by: int) -> str | int | None:
    if cause == CAUSE_PLAYER:
        return log.name(by)
    return by if cause == CAUSE_TURRET else None


# code -> (type, fields from the log, a, b, c and x), in the order `emit` gave them
DECODERS: tuple[tuple[str, Callable[[EventLog, int, int, int, float], dict[str, Any]]], ...] = (
    ("dry_fire", lambda log, a, b, c, x: {"agent": log.name(a)}),
    ("shot", lambda log, a, b, c, x: {"shooter": log.name(a), "aimed_at": _opt(log, b),
                                      "hit": TARGET_KINDS[c] if c >= 0 else None}),
    ("hit", lambda log, a, b, c, x: {"shooter": log.name(a), "target": log.name(b), "damage": x}),
    ("death", lambda log, a, b, c, x: {"agent": log.name(a), "cause": CAUSES[b], "by": _by(log, b, c)}),
    ("kill", lambda log, a, b, c, x: {"shooter": log.name(a), "target": log.name(b)}),
    ("turret_hit", lambda log, a, b, c, x: {"shooter": log.name(a), "turret": b, "damage": x}),
    ("turret_destroyed", lambda log, a, b, c, x: {"shooter": log.name(a), "turret": b}),
    ("chicken_shot", lambda log, a, b, c, x: {"shooter": log.name(a), "chicken": b}),
    ("turret_unlock", lambda log, a, b, c, x: {"turret": a, "target": log.name(b)}),
    ("turret_lock", lambda log, a, b, c, x: {"turret": a, "target": log.name(b)}),
    ("turret_hold", lambda log, a, b, c, x: {"turret": a, "target": log.name(b)}),
    ("turret_fire", lambda log, a, b, c, x: {"turret": a, "target": log.name(b)}),
    ("turret_shell_hit", lambda log, a, b, c, x: {"turret": a, "target": log.name(b), "damage": x,
                                                  "intended": log.name(c)}),
    ("chicken_respawn", lambda log, a, b, c, x: {"chicken": a}),
    ("coin", lambda log, a, b, c, x: {"agent": log.name(a), "coin": b}),
    ("ammo_pickup", lambda log, a, b, c, x: {"agent": log.name(a), "box": b, "amount": c}),
    ("ammo_respawn", lambda log, a, b, c, x: {"box": a}),
    ("ammo_respawn", lambda log, a, b, c, x: {"box": a, "moved": True}),
)


def decode(log: EventLog, rows: np.ndarray, values: np.ndarray, times: list[float]) -> None:
    """Emit the kernel's event rows into `log`, each at the sim time its sub-step started: the events
    `log.emit` would make, built here without its keyword round trip, and `log.time_s` left as it left it."""
    step, every = log.step, log.all
    for (code, sub, a, b, c), x in zip(rows.tolist(), values.tolist(), strict=True):
        kind, fields = DECODERS[code]
        event = {"type": kind, "t_s": round(times[sub], 6), **fields(log, a, b, c, x)}
        step.append(event)
        every.append(event)
        log.time_s = times[sub]
