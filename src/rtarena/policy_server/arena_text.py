"""A scripted arena policy that reads only the arena's `text` report (see `envs/arena/observations/text.py`).

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
import re
from dataclasses import dataclass

AIM_DEG = 4.0  # fire when the target is this close to the crosshair
TURN_DEG = 10.0  # turn when the target is further off than this
WALK_DEG = 50.0  # walk forward while the target is within this
ACTION = tuple[int, int, int, int, int, int, int]

ITEM = re.compile(r"^(?P<what>.+?) (?P<dist>\d+(?:\.\d+)?) m, (?P<bearing>ahead|\d+ deg (?:left|right))$")


@dataclass(frozen=True)
class Seen:
    what: str
    dist_m: float
    bearing_deg: float  # positive = left


def bearing_value(words: str) -> float:
    if words == "ahead":
        return 0.0
    degrees, _, side = words.split(" ")
    return float(degrees) if side == "left" else -float(degrees)


def looks_like_arena(text: str) -> bool:
    return "In view:" in text and "Ammo " in text and "Health " in text


def in_view(text: str) -> list[Seen]:
    match = re.search(r"^In view: (.*)\.$", text, re.M)
    if not match or match.group(1) == "nothing":
        return []
    out = []
    for item in match.group(1).split("; "):
        m = ITEM.match(item.strip())
        if m:
            out.append(Seen(m.group("what"), float(m.group("dist")), bearing_value(m.group("bearing"))))
    return out


def _number(pattern: str, text: str, default: float = 0.0) -> float:
    m = re.search(pattern, text)
    return float(m.group(1)) if m else default


def turn_toward(bearing_deg: float, tolerance: float = TURN_DEG) -> int:
    if abs(bearing_deg) <= tolerance:
        return 0
    return 1 if bearing_deg > 0 else 2


def go_to(bearing_deg: float) -> list[int]:
    return [0, 2 if abs(bearing_deg) <= WALK_DEG else 0, turn_toward(bearing_deg), 0, 0, 0, 0]


def minimap_target(text: str) -> float | None:
    """Bearing (deg, + left) of the nearest coin on the open minimap, or None."""
    header = re.search(r"you at \((-?\d+), (-?\d+)\)\): coins ([^;]*);", text)
    heading = re.search(r"heading (\d+) deg", text)
    if not header or not heading or header.group(3).strip() == "none":
        return None
    mx, my = float(header.group(1)), float(header.group(2))
    coins = [(float(x), float(y)) for x, y in re.findall(r"\((-?\d+), (-?\d+)\)", header.group(3))]
    if not coins:
        return None
    cx, cy = min(coins, key=lambda c: (c[0] - mx) ** 2 + (c[1] - my) ** 2)
    absolute = math.degrees(math.atan2(cy - my, cx - mx))
    return (absolute - float(heading.group(1)) + 180.0) % 360.0 - 180.0


def decide(text: str) -> list[int]:
    """The 7-number action for one report."""
    seen = in_view(text)
    ammo = _number(r"Ammo (\d+)/", text)
    outside = re.search(r"Toxic zone: OUTSIDE.*?safety [\d.]+ m away, (ahead|\d+ deg (?:left|right))", text)
    if outside:
        return go_to(bearing_value(outside.group(1)))
    enemies = sorted((s for s in seen if s.what.startswith("enemy")), key=lambda s: s.dist_m)
    if enemies and ammo > 0:
        target = enemies[0]
        fire = int(abs(target.bearing_deg) <= AIM_DEG)
        return [0, 0, turn_toward(target.bearing_deg, AIM_DEG), 0, fire, 0, 0]
    action = None
    ammo_boxes = sorted((s for s in seen if s.what == "ammo box"), key=lambda s: s.dist_m)
    coins = sorted((s for s in seen if s.what == "coin"), key=lambda s: s.dist_m)
    chickens = sorted((s for s in seen if s.what == "chicken" and s.dist_m < 15), key=lambda s: s.dist_m)
    if ammo == 0 and ammo_boxes:
        action = go_to(ammo_boxes[0].bearing_deg)
    elif coins:
        action = go_to(coins[0].bearing_deg)
    elif chickens and ammo > 5:
        target = chickens[0]
        action = [0, 0, turn_toward(target.bearing_deg, AIM_DEG), 0, int(abs(target.bearing_deg) <= AIM_DEG), 0, 0]
    elif (bearing := minimap_target(text)) is not None:
        action = go_to(bearing)
    elif "Minimap: closed." in text:
        action = [0, 2, 2, 0, 0, 0, 1]
    else:
        action = [0, 2, 2, 0, 0, 0, 0]
    if re.search(r"locked on you", text):
        # Strafe across the turret's line of fire; the side alternates with the clock, so it is stateless.
        second = int(_number(r"Time (\d+)", text))
        action[0] = 1 if second % 2 == 0 else 2
    return action
