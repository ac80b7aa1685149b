"""Per-agent metrics of an arena episode, computed from the event log and the final world state.

Definitions are in `docs/metrics.md`; in short, for agent a:
score (the level's normalised score), points, outcome, coins, kills, deaths, turrets_destroyed,
chickens, shots (trigger pulls that fired a round), hits (shots that hit anything), accuracy = hits /
shots, incoming_shots (player shots aimed at a plus turret shells fired at a, plus shells that hit a while
aimed at someone else), incoming_hits (player hits and shell hits on a), incoming_hit_rate =
incoming_hits / incoming_shots, damage_taken, zone_damage, survival = time alive / episode time (the time
limit when the episode ended with nobody alive),
alive_at_end. Ratios with a zero denominator are None.
"""

from __future__ import annotations

from typing import Any


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


# The events that score, one table for the reward (`env.py`) and the counters here:
# event type -> (the event field naming who scores, its key in the level's `[points]`, the metric it counts)
SCORED = {
    "coin": ("agent", "coin", "coins"),
    "kill": ("shooter", "kill", "kills"),
    "turret_destroyed": ("shooter", "turret", "turrets_destroyed"),
    "chicken_shot": ("shooter", "chicken", "chickens"),
}
# Events that add one to one agent's counter: event type -> (the event field naming the agent, metric)
COUNTED = {
    **{kind: (who, metric) for kind, (who, _, metric) in SCORED.items()},
    "death": ("agent", "deaths"),
    "dry_fire": ("agent", "dry_fires"),
    "ammo_pickup": ("agent", "ammo_pickups"),
    "turret_fire": ("target", "incoming_shots"),
}


def episode_metrics(env: Any) -> dict[str, dict[str, Any]]:
    world = env.world
    names = env.possible_agents
    count = {a: dict.fromkeys(("coins", "kills", "deaths", "turrets_destroyed", "chickens", "shots", "hits",
                               "incoming_shots", "incoming_hits", "dry_fires", "ammo_pickups"), 0) for a in names}
    damage = {a: {"damage_taken": 0.0, "zone_damage": 0.0, "damage_dealt": 0.0} for a in names}
    for e in env.log.all:
        kind = e["type"]
        if kind in COUNTED:
            who, metric = COUNTED[kind]
            count[e[who]][metric] += 1
        elif kind == "shot":
            count[e["shooter"]]["shots"] += 1
            if e["hit"]:
                count[e["shooter"]]["hits"] += 1
            if e["aimed_at"]:
                count[e["aimed_at"]]["incoming_shots"] += 1
        elif kind == "hit":
            count[e["target"]]["incoming_hits"] += 1
            damage[e["target"]]["damage_taken"] += e["damage"]
            damage[e["shooter"]]["damage_dealt"] += e["damage"]
        elif kind == "turret_shell_hit":
            count[e["target"]]["incoming_hits"] += 1
            damage[e["target"]]["damage_taken"] += e["damage"]
            if e["intended"] != e["target"]:
                count[e["target"]]["incoming_shots"] += 1
        elif kind == "zone_damage":
            damage[e["agent"]]["damage_taken"] += e["damage"]
            damage[e["agent"]]["zone_damage"] += e["damage"]
        elif kind == "turret_hit":
            damage[e["shooter"]]["damage_dealt"] += e["damage"]
    # An episode cut short because nobody was left alive counts as lasting its full time limit: otherwise
    # a lone player who dies early would have "survived the whole episode".
    duration = world.time_s if world.players.alive.any() else max(world.time_s, world.time_limit_s)
    out: dict[str, dict[str, Any]] = {}
    p = world.players
    for i, a in enumerate(names):
        alive_s = min(duration, float(p.death_time_s[i]))
        c = count[a]
        out[a] = {
            "score": float(env.score(i)),
            "points": float(env.points[i]),
            "outcome": env.outcome(i),
            "result": {"win": 1.0, "draw": 0.5, "loss": 0.0}[env.outcome(i)],
            "team": int(p.team[i]),
            **c,
            "accuracy": _ratio(c["hits"], c["shots"]),
            "incoming_hit_rate": _ratio(c["incoming_hits"], c["incoming_shots"]),
            **{k: round(v, 6) for k, v in damage[a].items()},
            "survival": alive_s / duration if duration > 0 else 1.0,
            "alive_at_end": bool(p.alive[i]),
        }
    return out
