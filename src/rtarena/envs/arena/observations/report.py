"""The reader of the arena's `text` report, beside its writer (`text.py`): one report in, an `ArenaReport` out.

It imports nothing of the world (the policy server reads reports without loading the arena), and
`tests/test_text_formats.py` checks that it reads back what `text.py` wrote from a real world.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SEEN = re.compile(r"^(?P<what>.+?) (?P<dist>\d+(?:\.\d+)?) m, (?P<bearing>ahead|\d+ deg (?:left|right))$")
_HEAD = re.compile(r"^Time (?P<time>[\d.]+) s \((?P<left>[\d.]+) s left\)\. Health (?P<health>[\d.]+)/[\d.]+\. "
                   r"Ammo (?P<ammo>\d+)/\d+\..*? Position \((?P<x>-?[\d.]+), (?P<y>-?[\d.]+)\), "
                   r"heading (?P<heading>\d+) deg", re.M)
_OUTSIDE = re.compile(r"^Toxic zone: OUTSIDE, losing health; safety [\d.]+ m away, "
                      r"(?P<bearing>ahead|\d+ deg (?:left|right));", re.M)
_MINIMAP = re.compile(r"^Minimap \([\d.]+ x [\d.]+ m; you at \((?P<x>-?\d+), (?P<y>-?\d+)\)\): "
                      r"coins (?P<coins>[^;]*);", re.M)
_POINT = re.compile(r"\((-?\d+), (-?\d+)\)")


@dataclass(frozen=True)
class Seen:
    """One thing of the `In view` line: `what` as written (`coin`, `enemy p2 (team 1, health 60)` ...)."""

    what: str
    dist_m: float
    bearing_deg: float  # positive = left, as `text.py: bearing_words` writes it

    @property
    def kind(self) -> str:
        """`enemy`, `teammate`, `turret`, `coin`, `ammo box` or `chicken`."""
        return "ammo box" if self.what == "ammo box" else self.what.split(" ", 1)[0]


@dataclass(frozen=True)
class ArenaReport:
    """A report as read back: the numbers and lists the report's sentences carry (rounded as written)."""

    time_s: float
    time_left_s: float
    health: float
    ammo: int
    position: tuple[float, float]
    heading_deg: float
    in_view: tuple[Seen, ...]
    outside_zone_bearing_deg: float | None  # where safety lies when outside the toxic zone, else None
    minimap_open: bool
    minimap_you: tuple[float, float] | None  # the minimap's own (rounded) position and coins, when open
    minimap_coins: tuple[tuple[float, float], ...]
    locked_on: bool  # a turret is locked on the reader (in view or just now)


def bearing_degrees(words: str) -> float:
    """The inverse of `text.py: bearing_words` (to the degree it writes): `ahead` -> 0, `20 deg left` -> 20."""
    if words == "ahead":
        return 0.0
    degrees, _, side = words.split(" ")
    return float(degrees) if side == "left" else -float(degrees)


def looks_like_report(text: str) -> bool:
    return "In view:" in text and "Ammo " in text and "Health " in text


def read_report(text: str) -> ArenaReport | None:
    """The report written by `text.py: TextObservation.build`, read back; None if `text` is not such a report."""
    head = _HEAD.search(text)
    view = re.search(r"^In view: (.*)\.$", text, re.M)
    if head is None or view is None:
        return None
    seen = []
    if view.group(1) != "nothing":
        for item in view.group(1).split("; "):
            m = _SEEN.match(item.strip())
            if m:
                seen.append(Seen(m["what"], float(m["dist"]), bearing_degrees(m["bearing"])))
    outside = _OUTSIDE.search(text)
    minimap = _MINIMAP.search(text)
    return ArenaReport(
        time_s=float(head["time"]), time_left_s=float(head["left"]), health=float(head["health"]),
        ammo=int(head["ammo"]), position=(float(head["x"]), float(head["y"])), heading_deg=float(head["heading"]),
        in_view=tuple(seen),
        outside_zone_bearing_deg=bearing_degrees(outside["bearing"]) if outside else None,
        minimap_open="Minimap: closed." not in text,
        minimap_you=(float(minimap["x"]), float(minimap["y"])) if minimap else None,
        minimap_coins=tuple((float(x), float(y)) for x, y in _POINT.findall(minimap["coins"])) if minimap else (),
        locked_on="locked on you" in text,
    )
