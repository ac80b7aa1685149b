"""`text`: a compact report an LLM can act on, in the same order every step.

    Time 12.5 s (287.5 s left). Health 85/100. Ammo 12/30. Score 0.12 (3 points). Position (23.0, 40.1),
    heading 45 deg (NE), looking level.
    In view: coin 12.3 m, 20 deg left; enemy p2 (team 1, health 60) 25.0 m, 5 deg right; ...
    Toxic zone: inside, edge 20.0 m away; next shrink in 15 s (to radius 30 m).
    Minimap: closed.
    Just now: hit by turret 1 (-15 health); picked up 18 ammo.
    Heard: gunshot, 35 deg left, about 12 m; footstep, 80 deg right, about 6 m.

Bearings are relative to the heading ("ahead" within 3 degrees); distances are in metres in the floor
plane. The minimap line lists what the minimap shows when the minimap action was taken this step. The
"Heard" line says what the `audio` observation carries (others' sounds, loudest first; `audio/sources.py`).
Only ASCII is used (the observation space is a Gymnasium `Text` over printable characters).

Its reader stands beside it: `report.py: read_report` reads a report back into an `ArenaReport` (what the
policy server's scripted arena player, `policy_server/arena_text.py`, acts on), importing nothing of the
world so the server stays light; `tests/test_text_formats.py` checks it against the world that wrote it.
"""

from __future__ import annotations

import math
import string
from typing import Any

from gymnasium import spaces

from rtarena.envs.arena.audio.sources import heard_line
from rtarena.envs.arena.minimap import minimap_view
from rtarena.envs.arena.observations import register_modality
from rtarena.envs.arena.turret import health_colour
from rtarena.envs.arena.world import OBSTACLE_KINDS

MAX_TEXT = 8192
MAX_LISTED = 10  # things of one kind listed in view
COMPASS = ("E", "NE", "N", "NW", "W", "SW", "S", "SE")


def bearing_words(bearing_rad: float) -> str:
    deg = math.degrees(bearing_rad)
    if abs(deg) < 3:
        return "ahead"
    return f"{abs(deg):.0f} deg {'left' if deg > 0 else 'right'}"


def heading_words(yaw_rad: float) -> str:
    deg = math.degrees(yaw_rad) % 360
    return f"{deg:.0f} deg ({COMPASS[int((deg + 22.5) // 45) % 8]})"


def pitch_words(pitch_rad: float) -> str:
    deg = math.degrees(pitch_rad)
    if abs(deg) < 3:
        return "looking level"
    return f"looking {abs(deg):.0f} deg {'up' if deg > 0 else 'down'}"


def event_words(event: dict[str, Any], me: str) -> str | None:
    """One clause describing an event from `me`'s point of view (None for events not worth saying)."""
    kind = event["type"]
    if kind == "hit":
        if event["target"] == me:
            return f"hit by {event['shooter']} (-{event['damage']:g} health)"
        return f"your shot hit {event['target']}"
    if kind == "shot" and event["shooter"] == me:
        return None if event["hit"] else "you fired and missed"
    if kind == "shot":
        return None if event["hit"] == "player" else f"{event['shooter']} shot at you and missed"
    if kind == "kill":
        return f"you killed {event['target']}" if event["shooter"] == me else f"killed by {event['shooter']}"
    if kind == "death" and event["cause"] != "player":
        return f"you died ({event['cause']})"
    template = EVENT_TEMPLATES.get(kind)
    return template.format(**event) if template else None


# Events whose wording does not depend on who is reading: one format string each, filled from the event.
EVENT_TEMPLATES = {
    "dry_fire": "out of ammo: the gun clicked",
    "turret_hit": "your shot hit turret {turret}",
    "turret_destroyed": "you destroyed turret {turret}",
    "chicken_shot": "you shot chicken {chicken}",
    "coin": "picked up a coin",
    "ammo_pickup": "picked up {amount} ammo",
    "turret_lock": "turret {turret} locked on you",
    "turret_unlock": "turret {turret} lost its lock on you",
    "turret_fire": "turret {turret} fired at you",
    "turret_shell_hit": "hit by turret {turret} (-{damage:g} health)",
    "zone_damage": "the toxic zone hurt you (-{damage:.1f} health)",
}


class TextObservation:
    """Builds each player's text report."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.space = spaces.Text(max_length=MAX_TEXT, min_length=0, charset=string.printable)
        self._world: Any = None  # the world the obstacle line below describes (one per episode)

    def prepare(self) -> None:
        self._minimap_common: str | None = None  # the part of the minimap text every player shares
        if self._world is not self.env.world:
            self._world = self.env.world
            mm = minimap_view(self._world, 0) if len(self._world.players) else None
            self._obstacles = ", ".join(
                f"{OBSTACLE_KINDS[k]} ({b[0]:.0f},{b[1]:.0f})-({b[2]:.0f},{b[3]:.0f})"
                for b, k in zip(mm.obstacles, mm.obstacle_kind, strict=True)) or "none" if mm else "none"

    def build(self, i: int) -> str:
        env, world = self.env, self.env.world
        p = world.players
        me = env.possible_agents[i]
        lines = [
            f"Time {world.time_s:.1f} s ({world.time_left_s:.1f} s left). "
            f"Health {p.health[i]:.0f}/{p.max_health:.0f}. Ammo {p.ammo[i]}/{p.ammo_max}. "
            f"Score {env.score(i):.2f} ({env.points[i]:g} points). Coins left {int(world.coins.active.sum())}"
            f"/{len(world.coins.active)}. You are {me}, team {p.team[i]}. "
            f"Position ({p.pos[i, 0]:.1f}, {p.pos[i, 1]:.1f}), heading {heading_words(p.yaw[i])}, "
            f"{pitch_words(p.pitch[i])}{'' if p.on_ground[i] else ', in the air'}."
        ]
        lines.append("In view: " + (self._in_view(i) or "nothing") + ".")
        lines.append(self._zone(i))
        lines.append(self._minimap(i))
        said = [w for w in (event_words(e, me) for e in env.events_of(me)) if w]
        lines.append("Just now: " + ("; ".join(dict.fromkeys(said)) if said else "nothing happened") + ".")
        lines.append(heard_line(env, i))  # sounds, as in the audio observation (envs/arena/audio)
        text = "\n".join(lines)
        return text[:MAX_TEXT]

    def _in_view(self, i: int) -> str:
        env, world = self.env, self.env.world
        view, p, tu = env.view(i), world.players, world.turrets
        parts = []

        def listed(seen) -> list[tuple[int, float, str]]:
            k = min(MAX_LISTED, len(seen.index))
            return list(zip(seen.index[:k].tolist(), seen.dist[:k].tolist(),
                            map(bearing_words, seen.bearing[:k].tolist()), strict=True))

        my_team = p.team[i]
        for j, d, b in listed(view.players):
            role = "teammate" if p.team[j] == my_team else "enemy"
            parts.append(f"{role} {env.possible_agents[j]} (team {p.team[j]}, health {p.health[j]:.0f}) {d:.1f} m, {b}")
        for t, d, b in listed(view.turrets):
            lock = ", locked on you" if tu.target[t] == i else ""
            parts.append(f"turret {t} (health {health_colour(tu.health[t] / tu.max_health)}{lock}) {d:.1f} m, {b}")
        for name, seen in (("coin", view.coins), ("ammo box", view.ammo), ("chicken", view.chickens)):
            parts.extend(f"{name} {d:.1f} m, {b}" for _, d, b in listed(seen))
        return "; ".join(parts)

    def _zone(self, i: int) -> str:
        world = self.env.world
        if not world.zone.enabled:
            return "Toxic zone: none in this level."
        z = self.env.zone_report(i)
        if z["inside"]:
            where = f"inside, edge {z['distance_to_edge_m']:.1f} m away"
        else:
            where = f"OUTSIDE, losing health; safety {z['distance_m']:.1f} m away, {bearing_words(z['bearing'])}"
        if math.isfinite(z["next_shrink_in_s"]):
            if z["next_shrink_in_s"] > 0:
                nxt = f"next shrink in {z['next_shrink_in_s']:.0f} s (to radius {world.zone.target_radius_m:.0f} m)"
            else:
                nxt = f"shrinking now (to radius {world.zone.target_radius_m:.0f} m)"
        else:
            nxt = "no more shrinks"
        return f"Toxic zone: {where}; radius {world.zone.radius_m:.0f} m; {nxt}."

    def _minimap(self, i: int) -> str:
        world = self.env.world
        if not world.players.minimap_open[i]:
            return "Minimap: closed."
        if self._minimap_common is None:
            mm = minimap_view(world, i)

            def pts(points) -> str:
                return ", ".join(f"({x:.0f}, {y:.0f})" for x, y in points) or "none"

            turrets = ", ".join(f"{t} at ({x:.0f}, {y:.0f}) {health_colour(h)}" for t, (x, y), h
                                in zip(mm.turret_ids, mm.turrets, mm.turret_health, strict=True)) or "none"
            zone = (f"zone centre ({mm.zone_center[0]:.0f}, {mm.zone_center[1]:.0f}) radius {mm.zone_radius_m:.0f} m"
                    if mm.zone_enabled else "no zone")
            self._minimap_common = (f"coins {pts(mm.coins)}; ammo boxes {pts(mm.ammo)}; turrets {turrets}; {zone}; "
                                    f"obstacles {self._obstacles}.")
        x, y = world.players.pos[i, :2]
        return f"Minimap ({world.size_m:.0f} x {world.size_m:.0f} m; you at ({x:.0f}, {y:.0f})): {self._minimap_common}"


register_modality("text", TextObservation)
