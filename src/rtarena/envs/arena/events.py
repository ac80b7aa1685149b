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

from typing import Any

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
