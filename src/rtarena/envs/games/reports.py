"""The readers of the game suite's `text` observations, beside their writers in this package.

`read_hud` reads the HUD line `SuiteGame.text` writes (`base.py`); `read_tilefall` and `read_runner` read
the reports of `Tilefall._report` (`tilefall.py`) and `Runner2D._report` (`runner2d.py`). They import
nothing of the games (the policy server reads texts without loading the compiled canvas), and
`tests/test_text_formats.py` checks each against the game that wrote the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

_HUD = re.compile(r"^\[(?P<title>[^\]]+)\] time left (?P<left>[\d.]+) s \| score (?P<score>[\d.]+) \| (?P<status>.*)$",
                  re.M)


@dataclass(frozen=True)
class Hud:
    """The first line of a game's `text` observation, as `SuiteGame.text` writes it."""

    title: str
    time_left_s: float
    score: float
    status: str  # the game's own `_hud` words


def read_hud(text: str) -> Hud | None:
    """The HUD line of a game's text observation, or None if `text` has none."""
    m = _HUD.search(text)
    return Hud(m["title"], float(m["left"]), float(m["score"]), m["status"]) if m else None


_TILEFALL_POS = re.compile(r"You are at x (?P<x>-?[\d.]+) m, y (?P<y>-?[\d.]+) m")
_TILEFALL_WARNED = re.compile(r"\((?P<c>\d+),(?P<r>\d+)\) in (?P<s>[\d.]+) s")
_TILEFALL_MAP = re.compile(r"Map \(north up[^\n]*\n(?P<rows>(?:[.!_P]+\n?)+)")


@dataclass(frozen=True)
class TilefallReport:
    """A Tilefall report as `Tilefall._report` writes it, read back."""

    pos: tuple[float, float]
    warned: dict[tuple[int, int], float]  # the warned tiles listed (at most 8): seconds until each drops
    grid: np.ndarray  # [column, row] of the map's characters (P . ! _), row 0 in the south

    @property
    def here(self) -> tuple[int, int] | None:
        """The tile marked `P`, if the map shows the player."""
        found = np.argwhere(self.grid == "P")
        return (int(found[0][0]), int(found[0][1])) if len(found) else None


def read_tilefall(text: str) -> TilefallReport | None:
    """The position, warnings and map of a Tilefall text observation; None if any is missing."""
    pos, rows = _TILEFALL_POS.search(text), _TILEFALL_MAP.search(text)
    if pos is None or rows is None:
        return None
    lines = rows["rows"].split()
    warned = text[pos.end():rows.start()]
    return TilefallReport(pos=(float(pos["x"]), float(pos["y"])),
                          warned={(int(m["c"]), int(m["r"])): float(m["s"]) for m in _TILEFALL_WARNED.finditer(warned)},
                          grid=np.array([list(line) for line in reversed(lines)]).T)


_RUNNER_WHERE = re.compile(r"You are at x (?P<x>-?[\d.]+) m, height (?P<y>-?[\d.]+) m, "
                    r"(?P<where>standing on a platform|in the air)")
_RUNNER_EDGE = re.compile(r"This platform ends (?P<d>-?[\d.]+) m ahead")
_RUNNER_NEXT = re.compile(r"Next: a platform (?P<d>-?[\d.]+) m ahead, (?P<len>[\d.]+) m long, "
                   r"(?P<rise>[+-][\d.]+) m higher")


@dataclass(frozen=True)
class RunnerReport:
    """A Runner report as `Runner2D._report` writes it, read back."""

    x_m: float
    height_m: float
    standing: bool
    edge_ahead_m: float | None  # where the platform underfoot ends, if the report says
    next_platforms: tuple[tuple[float, float, float], ...]  # (metres ahead, length, rise) of the ones ahead


def read_runner(text: str) -> RunnerReport | None:
    """The runner's place and the platforms ahead from a Runner text observation; None if not one."""
    where = _RUNNER_WHERE.search(text)
    if where is None:
        return None
    edge = _RUNNER_EDGE.search(text)
    return RunnerReport(x_m=float(where["x"]), height_m=float(where["y"]),
                        standing=where["where"] == "standing on a platform",
                        edge_ahead_m=float(edge["d"]) if edge else None,
                        next_platforms=tuple((float(m["d"]), float(m["len"]), float(m["rise"]))
                                             for m in _RUNNER_NEXT.finditer(text)))


COMPASS = {"east": (1.0, 0.0), "north-east": (0.7071, 0.7071), "north": (0.0, 1.0), "north-west": (-0.7071, 0.7071),
           "west": (-1.0, 0.0), "south-west": (-0.7071, -0.7071), "south": (0.0, -1.0), "south-east": (0.7071, -0.7071)}
_PLACE = re.compile(r"^(?P<name>.+?) (?:(?P<d>[\d.]+) m (?P<dir>(?:north|south)-(?:east|west)|north|south|east|west)"
                    r"|here)(?P<rest>.*)$")


def read_places(listing: str) -> list[tuple[str, tuple[float, float], str]]:
    """`name 3.2 m north-east; other here` (`walker.bearing`'s words) as (name, (dx, dy) metres, rest of
    the item), the offset rounded as the words are: eight directions, 0.1 m; `here` is (0, 0)."""
    out = []
    for item in filter(None, (part.strip() for part in listing.split(";"))):
        m = _PLACE.match(item)
        if m is None:
            continue
        d, (ux, uy) = (float(m["d"]), COMPASS[m["dir"]]) if m["d"] else (0.0, (0.0, 0.0))
        out.append((m["name"], (d * ux, d * uy), m["rest"].strip()))
    return out


_REL = re.compile(r"(?P<d>[\d.]+) m, (?:ahead|(?P<deg>\d+) deg (?P<side>left|right))")


def read_relative(text: str) -> tuple[float, float] | None:
    """`12.3 m, 40 deg right` (first-person bearings) as (metres, degrees; + to the right), or None."""
    m = _REL.search(text)
    if m is None:
        return None
    deg = float(m["deg"] or 0.0)
    return float(m["d"]), deg if m["side"] == "right" else -deg


@dataclass(frozen=True)
class WorkshopReport:
    """The workshop family's text (workshop, kitchen, handoff, midline), read back."""

    orders: tuple[str, ...]  # open orders, oldest first (`spring+` wants an upgraded spring)
    held: str | None
    prompt: str  # the HUD's interact prompt ("" when none)
    stations: dict[str, tuple[float, float]]  # name -> offset from you, metres
    bench_item: str | None
    bench_left_s: float
    floor: tuple[tuple[str, tuple[float, float]], ...]
    windows: dict[str, tuple[tuple[float, float], str | None]]  # handoff: name -> (offset, item held)
    role: str  # handoff: "runner" | "maker"; "" elsewhere


_ORDERS = re.compile(r"orders: (?P<orders>[^|]*?) \|")
_HANDS = re.compile(r"hands: (?P<held>[^|\n]+?)(?: \| (?P<prompt>[^\n]*))?$", re.M)
_BENCH = re.compile(r"the bench holds (?P<item>\S+) \((?P<left>[\d.]+) s of work left\)")


def read_workshop_hud(hud: str) -> tuple[tuple[str, ...], str | None, str] | None:
    """The open orders (oldest first), the item in hand and the interact prompt of a workshop-family HUD
    line (None when it is not one)."""
    orders, hands = _ORDERS.search(hud), _HANDS.search(hud)
    if orders is None or hands is None:
        return None
    listed = [] if orders["orders"] == "none" else [o.split(" (")[0].strip() for o in orders["orders"].split(", ")]
    held = hands["held"].strip()
    return tuple(listed), None if held == "empty" else held, (hands["prompt"] or "").strip()


def read_workshop(text: str) -> WorkshopReport | None:
    """The orders, hands, prompt, stations, bench, floor (and handoff's windows) of a workshop-family text."""
    head = read_workshop_hud(text)
    stations = re.search(r"^Stations: (?P<s>.*)\.$", text, re.M)
    if head is None or stations is None:
        return None
    bench = _BENCH.search(text)
    floor = re.search(r"On the floor: (?P<f>.*?)\.$", text, re.M)
    windows = re.search(r"^Windows: (?P<w>.*)\.$", text, re.M)
    role = re.search(r"You are the (runner|maker)", text)
    orders, held, prompt = head
    return WorkshopReport(
        orders=orders, held=held, prompt=prompt,
        stations={name: at for name, at, _ in read_places(stations["s"])},
        bench_item=bench["item"] if bench else None, bench_left_s=float(bench["left"]) if bench else 0.0,
        floor=tuple((name, at) for name, at, _ in read_places(floor["f"])) if floor and floor["f"] != "nothing"
        else (),
        windows={name: (at, None if rest == "holds nothing" else rest.removeprefix("holds ").strip())
                 for name, at, rest in read_places(windows["w"])} if windows else {},
        role=role.group(1) if role else "")
