"""A scripted arena policy that reads only the arena's `text` report, through the report's own reader
(`envs/arena/observations/report.py: read_report`, beside its writer `text.py`).

It is what the policy server answers for arena prompts: stateless (one report in, one 7-number action
out), so the same report always gets the same action. In order of priority:

1. outside the toxic zone: turn toward safety and run;
2. an enemy in view and ammo left: turn toward it, fire when it is nearly ahead;
3. a turret locked on: strafe (a moving player makes turrets miss);
4. out of ammo and an ammo box in view: go and get it;
5. a coin in view: turn toward the nearest one and walk to it;
6. a chicken close by and ammo to spare: shoot it;
7. otherwise open the minimap; with the minimap open, head for the nearest coin it shows; with nothing
   known, turn and walk to explore.
"""

from __future__ import annotations

import math

from rtarena.envs.arena.observations.report import ArenaReport, Seen, looks_like_report, read_report

AIM_DEG = 4.0  # fire when the target is this close to the crosshair
TURN_DEG = 10.0  # turn when the target is further off than this
WALK_DEG = 50.0  # walk forward while the target is within this
EXPLORE = (0, 2, 2, 0, 0, 0, 0)


def looks_like_arena(text: str) -> bool:
    return looks_like_report(text)


def turn_toward(bearing_deg: float, tolerance: float = TURN_DEG) -> int:
    if abs(bearing_deg) <= tolerance:
        return 0
    return 1 if bearing_deg > 0 else 2


def go_to(bearing_deg: float) -> list[int]:
    return [0, 2 if abs(bearing_deg) <= WALK_DEG else 0, turn_toward(bearing_deg), 0, 0, 0, 0]


def minimap_target(report: ArenaReport) -> float | None:
    """Bearing (deg, + left) of the nearest coin on the open minimap, or None."""
    if report.minimap_you is None or not report.minimap_coins:
        return None
    mx, my = report.minimap_you
    cx, cy = min(report.minimap_coins, key=lambda c: (c[0] - mx) ** 2 + (c[1] - my) ** 2)
    absolute = math.degrees(math.atan2(cy - my, cx - mx))
    return (absolute - report.heading_deg + 180.0) % 360.0 - 180.0


def urgent(report: ArenaReport) -> list[int] | None:
    """The action of the first three priorities (the zone, an enemy, no ammo), else None: these a body
    handles on its own, with or without a team."""
    if report.outside_zone_bearing_deg is not None:
        return go_to(report.outside_zone_bearing_deg)
    enemies = nearest(report, "enemy")
    if enemies and report.ammo > 0:
        target = enemies[0]
        fire = int(abs(target.bearing_deg) <= AIM_DEG)
        return [0, 0, turn_toward(target.bearing_deg, AIM_DEG), 0, fire, 0, 0]
    ammo_boxes = nearest(report, "ammo box")
    if report.ammo == 0 and ammo_boxes:
        return with_strafe(report, go_to(ammo_boxes[0].bearing_deg))
    return None


def nearest(report: ArenaReport, kind: str, within_m: float = math.inf) -> list[Seen]:
    return sorted((s for s in report.in_view if s.kind == kind and s.dist_m < within_m), key=lambda s: s.dist_m)


def with_strafe(report: ArenaReport, action: list[int]) -> list[int]:
    if report.locked_on:
        # Strafe across the turret's line of fire; the side alternates with the clock, so it is stateless.
        action[0] = 1 if int(report.time_s) % 2 == 0 else 2
    return action


def decide(text: str) -> list[int]:
    """The 7-number action for one report (read by the report's own reader, next to its writer)."""
    report = read_report(text)
    if report is None:
        return list(EXPLORE)
    if (action := urgent(report)) is not None:
        return action
    coins, chickens = nearest(report, "coin"), nearest(report, "chicken", 15)
    if coins:
        action = go_to(coins[0].bearing_deg)
    elif chickens and report.ammo > 5:
        target = chickens[0]
        action = [0, 0, turn_toward(target.bearing_deg, AIM_DEG), 0, int(abs(target.bearing_deg) <= AIM_DEG), 0, 0]
    elif (bearing := minimap_target(report)) is not None:
        action = go_to(bearing)
    elif not report.minimap_open:
        action = [0, 2, 2, 0, 0, 0, 1]
    else:
        action = list(EXPLORE)
    return with_strafe(report, action)
