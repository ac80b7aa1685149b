"""Every text the game suite writes, as a dataclass that writes it (`format`) and reads it back (`parse`).

Each game builds its report (and its HUD's own words) as one of these and writes it with `format`, so the
writer and the reader the stand-ins use (`policy_server/games_text.py`) are one class: `Hud` (`SuiteGame.text`
and `hud`), `TilefallReport`, `RunnerReport`, `ErrandsReport` + `ErrandsStatus`, `EscapeReport` +
`EscapeStatus`, `MonstersReport`, `ParkourReport`, `CrystalReport`, `DuelReport`, and the workshop family's
`WorkshopStatus` + `WorkshopFloor` (read together as `WorkshopReport`); `Place` and `Bearing` are the words
of where a thing lies. Nothing here imports the games (the policy server reads texts without loading the
compiled canvas); `tests/test_text_formats.py` round-trips every format and reads each game's own text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

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

    def line(self) -> str:
        """The line without the title: the `hud` observation (`SuiteGame.hud`)."""
        return f"time left {self.time_left_s:.1f} s | score {self.score:.2f} | {self.status}"

    def format(self) -> str:
        """The first line of the `text` observation (`SuiteGame.text`)."""
        return f"[{self.title}] {self.line()}"

    @classmethod
    def parse(cls, text: str) -> Hud | None:
        m = _HUD.search(text)
        return cls(m["title"], float(m["left"]), float(m["score"]), m["status"]) if m else None


def read_hud(text: str) -> Hud | None:
    """The HUD line of a game's text observation, or None if `text` has none."""
    return Hud.parse(text)


_TILEFALL_POS = re.compile(r"You are at x (?P<x>-?[\d.]+) m, y (?P<y>-?[\d.]+) m(?:, on tile (?P<tile>\((?P<tc>\d+), "
                           r"(?P<tr>\d+)\)|None))?")
_TILEFALL_WARNED = re.compile(r"\((?P<c>\d+),(?P<r>\d+)\) in (?P<s>[\d.]+) s")
_TILEFALL_MAP = re.compile(r"Map \(north up[^\n]*\n(?P<rows>(?:[.!_P]+\n?)+)")


@dataclass(frozen=True)
class TilefallReport:
    """A Tilefall report as `Tilefall._report` writes it, read back."""

    pos: tuple[float, float]
    warned: dict[tuple[int, int], float]  # the warned tiles listed (at most 8): seconds until each drops
    grid: np.ndarray  # [column, row] of the map's characters (P . ! _), row 0 in the south
    tile: tuple[int, int] | None = None  # the tile you are on (None: off the floor)

    def format(self) -> str:
        tile = f"({self.tile[0]}, {self.tile[1]})" if self.tile is not None else "None"
        soon = ", ".join(f"({c},{r}) in {s:.1f} s" for (c, r), s in self.warned.items()) or "none"
        rows = "\n".join("".join(self.grid[:, r]) for r in range(self.grid.shape[1] - 1, -1, -1))
        return (f"You are at x {self.pos[0]:.1f} m, y {self.pos[1]:.1f} m, on tile {tile} (column, row from the "
                f"south-west; W = north). Warned tiles drop: {soon}.\n"
                f"Map (north up; P you, . solid, ! warned, _ gone):\n{rows}")

    @classmethod
    def parse(cls, text: str) -> TilefallReport | None:
        return read_tilefall(text)

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
                          grid=np.array([list(line) for line in reversed(lines)]).T,
                          tile=(int(pos["tc"]), int(pos["tr"])) if pos["tc"] else None)


_RUNNER_WHERE = re.compile(r"You are at x (?P<x>-?[\d.]+) m, height (?P<y>-?[\d.]+) m, "
                           r"(?P<where>standing on a platform|in the air(?: \(vertical speed (?P<vy>-?[\d.]+) m/s\))?)")
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
    vertical_m_s: float = 0.0  # written while in the air

    def format(self) -> str:
        air = f"in the air (vertical speed {self.vertical_m_s:.1f} m/s)"
        where = "standing on a platform" if self.standing else air
        lines = [f"You are at x {self.x_m:.1f} m, height {self.height_m:.1f} m, {where}."]
        if self.edge_ahead_m is not None:
            lines.append(f"This platform ends {self.edge_ahead_m:.1f} m ahead.")
        lines += [f"Next: a platform {ahead:.1f} m ahead, {length:.1f} m long, {rise:+.1f} m higher."
                  for ahead, length, rise in self.next_platforms]
        return "\n".join(lines)

    @classmethod
    def parse(cls, text: str) -> RunnerReport | None:
        return read_runner(text)


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
                                             for m in _RUNNER_NEXT.finditer(text)),
                        vertical_m_s=float(where["vy"] or 0.0))


COMPASS = {"east": (1.0, 0.0), "north-east": (0.7071, 0.7071), "north": (0.0, 1.0), "north-west": (-0.7071, 0.7071),
           "west": (-1.0, 0.0), "south-west": (-0.7071, -0.7071), "south": (0.0, -1.0), "south-east": (0.7071, -0.7071)}


# ---- the words the reports share: where a thing lies --------------------------------------------------------

_PLACE_WORDS = re.compile(r"(?P<d>[\d.]+) m (?P<dir>(?:north|south)-(?:east|west)|north|south|east|west)|here")
_NAMED_PLACE = re.compile(rf"^(?P<name>.+?) (?P<place>{_PLACE_WORDS.pattern})(?P<rest>.*)$")
_BEARING_WORDS = re.compile(r"(?P<d>[\d.]+) m(?P<away> away)?, (?:ahead|(?P<deg>\d+) deg (?P<side>left|right))")


class Place(NamedTuple):
    """Where a thing lies from you, top-down (`walker.place`): `3.2 m north-east`, or `here` (direction "")."""

    dist_m: float
    direction: str  # a COMPASS word; "" for here

    def words(self) -> str:
        return f"{self.dist_m:.1f} m {self.direction}" if self.direction else "here"

    @classmethod
    def parse(cls, words: str) -> Place | None:
        m = _PLACE_WORDS.fullmatch(words)
        return None if m is None else cls(float(m["d"]), m["dir"]) if m["d"] else cls(0.0, "")

    @property
    def offset(self) -> tuple[float, float]:
        """(dx, dy) metres, as rounded as the words: eight directions, 0.1 m (`read_places`)."""
        ux, uy = COMPASS.get(self.direction, (0.0, 0.0))
        return self.dist_m * ux, self.dist_m * uy


class Bearing(NamedTuple):
    """Where a thing lies in a first-person report: `12.3 m, 40 deg right`, or `12.3 m, ahead` (deg 0).
    Compares as (metres, degrees + right), as `read_relative` returns it."""

    dist_m: float
    deg: float  # + to the right; 0: ahead

    @classmethod
    def seen(cls, dist_m: float, left_deg: float, ahead_deg: float) -> Bearing:
        """From a game's bearing (`firstperson.relative_bearing_deg`: + left): `ahead` within `ahead_deg`."""
        return cls(dist_m, 0.0 if abs(left_deg) < ahead_deg else -left_deg)

    def side(self) -> str:
        return "ahead" if self.deg == 0 else f"{abs(self.deg):.0f} deg {'right' if self.deg > 0 else 'left'}"

    def words(self, away: bool = False) -> str:
        return f"{self.dist_m:.1f} m{' away' if away else ''}, {self.side()}"

    @classmethod
    def parse(cls, words: str) -> Bearing | None:
        m = _BEARING_WORDS.fullmatch(words)
        if m is None:
            return None
        deg = float(m["deg"] or 0.0)
        return cls(float(m["d"]), deg if m["side"] == "right" else -deg)


def _items(listing: str, none: str, sep: str = "; ") -> list[str]:
    """The items of a listing, none for its word for nothing (`nobody`, `nothing`)."""
    return [] if listing == none else listing.split(sep)


def _prompted(status: str, prompt: str) -> str:
    """A HUD's words with the interact prompt last, when there is one."""
    return status + (f" | {prompt}" if prompt else "")


def read_places(listing: str) -> list[tuple[str, tuple[float, float], str]]:
    """`name 3.2 m north-east; other here` (`walker.bearing`'s words) as (name, (dx, dy) metres, rest of
    the item), the offset rounded as the words are: eight directions, 0.1 m; `here` is (0, 0)."""
    out = []
    for item in filter(None, (part.strip() for part in listing.split(";"))):
        m = _NAMED_PLACE.match(item)
        if m is not None:
            out.append((m["name"], Place.parse(m["place"]).offset, m["rest"].strip()))
    return out


def read_relative(text: str) -> tuple[float, float] | None:
    """`12.3 m, 40 deg right` (first-person bearings) as (metres, degrees; + to the right), or None."""
    m = _BEARING_WORDS.search(text)
    return None if m is None else Bearing.parse(m[0])


# ---- errands -------------------------------------------------------------------------------------------------

class Person(NamedTuple):
    name: str
    gives: str
    place: Place


_ERRANDS = re.compile(r"You are at x (?P<x>-?[\d.]+) m, y (?P<y>-?[\d.]+) m \(x east, y north\)\. "
                      r"Within (?P<view>[\d.]+) m: (?P<seen>.*)\.$", re.M)
_PERSON = re.compile(r"the (?P<name>\w+) \(gives (?P<gives>\w+)\) (?P<place>.+)")


@dataclass(frozen=True)
class ErrandsReport:
    """An Errands report (`Errands._report` writes it with `format`): where you are and who is in view."""

    x_m: float
    y_m: float
    view_m: float
    people: tuple[Person, ...]

    def format(self) -> str:
        seen = "; ".join(f"the {p.name} (gives {p.gives}) {p.place.words()}" for p in self.people) or "nobody"
        return f"You are at x {self.x_m:.1f} m, y {self.y_m:.1f} m (x east, y north). Within {self.view_m:g} m: {seen}."

    @classmethod
    def parse(cls, text: str) -> ErrandsReport | None:
        m = _ERRANDS.search(text)
        if m is None:
            return None
        people = [(p, Place.parse(p["place"])) for p in map(_PERSON.fullmatch, _items(m["seen"], "nobody")) if p]
        return cls(float(m["x"]), float(m["y"]), float(m["view"]),
                   tuple(Person(p["name"], p["gives"], at) for p, at in people if at is not None))


_ERRANDS_HUD = re.compile(r"^(?:errand (?P<n>\d+)/(?P<of>\d+): the (?P<who>\w+) wants (?P<wants>\w+)|all errands done) "
                          r"\| inventory \((?P<held>\d+)/(?P<cap>\d+)\): (?P<bag>[^|]*?)(?: \| (?P<prompt>.*))?$")


@dataclass(frozen=True)
class ErrandsStatus:
    """The Errands HUD's own words (`Errands._hud`): the errand (number `n` of `of`; who wants what, "" when
    all are done), the bag and its room, the prompt ("" when none)."""

    n: int
    of: int
    who: str
    wants: str
    bag: tuple[str, ...]
    capacity: int
    prompt: str

    def format(self) -> str:
        hint = f"errand {self.n}/{self.of}: the {self.who} wants {self.wants}" if self.who else "all errands done"
        return _prompted(f"{hint} | inventory ({len(self.bag)}/{self.capacity}): {', '.join(self.bag) or 'empty'}",
                         self.prompt)

    @classmethod
    def parse(cls, status: str) -> ErrandsStatus | None:
        m = _ERRANDS_HUD.match(status)
        if m is None:
            return None
        return cls(int(m["n"] or 0), int(m["of"] or 0), m["who"] or "", m["wants"] or "",
                   tuple(_items(m["bag"], "empty", ", ")), int(m["cap"]), m["prompt"] or "")


# ---- escape --------------------------------------------------------------------------------------------------

_ESCAPE = re.compile(r"You are in room \((?P<c>\d+), (?P<r>\d+)\) \(column, row from the south-west\), "
                     r"(?P<x>-?[\d.]+) m east and (?P<y>-?[\d.]+) m north of its south-west corner\. "
                     r"Doorways: (?P<ways>[\w, ]+)\. In this room: (?P<seen>.*)\.$", re.M)
_THING = re.compile(rf"(?P<name>.+?) (?P<place>{_PLACE_WORDS.pattern})")


@dataclass(frozen=True)
class EscapeReport:
    """An Escape report (`Escape._report` writes it with `format`): the room you are in, where in it, its
    doorways (compass words) and the things in it."""

    room: tuple[int, int]  # (column, row) from the south-west
    x_m: float  # metres east of the room's south-west corner
    y_m: float  # metres north of it
    doorways: tuple[str, ...]
    things: tuple[tuple[str, Place], ...]

    def format(self) -> str:
        seen = "; ".join(f"{name} {at.words()}" for name, at in self.things) or "nothing"
        ways = ", ".join(self.doorways) or "none"
        return (f"You are in room ({self.room[0]}, {self.room[1]}) (column, row from the south-west), {self.x_m:.1f} m "
                f"east and {self.y_m:.1f} m north of its south-west corner. Doorways: {ways}. In this room: {seen}.")

    @classmethod
    def parse(cls, text: str) -> EscapeReport | None:
        m = _ESCAPE.search(text)
        if m is None:
            return None
        listed = map(_THING.fullmatch, _items(m["seen"], "nothing"))
        things = [(t["name"], Place.parse(t["place"])) for t in listed if t]
        return cls((int(m["c"]), int(m["r"])), float(m["x"]), float(m["y"]),
                   () if m["ways"] == "none" else tuple(m["ways"].split(", ")),
                   tuple((name, at) for name, at in things if at is not None))


_ESCAPE_HUD = re.compile(r"^(?:task (?P<n>\d+)/(?P<of>\d+): find the (?P<target>[\w ]+?)|all tasks done)"
                         r"(?: \| (?P<prompt>.*))?$")


@dataclass(frozen=True)
class EscapeStatus:
    """The Escape HUD's own words (`Escape._hud`): the task (number `n` of `of`, the thing to find; "" when
    all are done) and the prompt ("" when none)."""

    n: int
    of: int
    target: str
    prompt: str

    def format(self) -> str:
        task = f"task {self.n}/{self.of}: find the {self.target}" if self.target else "all tasks done"
        return _prompted(task, self.prompt)

    @classmethod
    def parse(cls, status: str) -> EscapeStatus | None:
        m = _ESCAPE_HUD.match(status)
        return None if m is None else cls(int(m["n"] or 0), int(m["of"] or 0), m["target"] or "", m["prompt"] or "")


# ---- first person: monsters, parkour3d, crystal ------------------------------------------------------------

_MONSTERS = re.compile(r"You are at x (?P<x>-?[\d.]+) m, y (?P<y>-?[\d.]+) m, facing (?P<yaw>-?\d+) deg "
                       r"\(0 = east, counter-clockwise\)\. In view: (?P<seen>.*?)\. "
                       r"(?:(?P<more>\d+) more out of sight \(nearest (?P<nearest>[^)]*)\)|None out of sight)\.$", re.M)


@dataclass(frozen=True)
class MonstersReport:
    """A Monsters report (`Monsters._report` writes it with `format`): where you are and face, the monsters
    in view (nearest first) and how many are out of sight, with the nearest of those."""

    x_m: float
    y_m: float
    facing_deg: float  # 0 = east, counter-clockwise
    seen: tuple[Bearing, ...]
    out_of_sight: int
    nearest_unseen: Bearing | None  # given when out_of_sight > 0

    def format(self) -> str:
        view = "; ".join(f"monster {b.words()}" for b in self.seen) or "no monster"
        heard = f"{self.out_of_sight} more out of sight (nearest {self.nearest_unseen.words()})" \
            if self.out_of_sight else "none out of sight"
        return (f"You are at x {self.x_m:.1f} m, y {self.y_m:.1f} m, facing {self.facing_deg:.0f} deg "
                f"(0 = east, counter-clockwise). In view: {view}. {heard.capitalize()}.")

    @classmethod
    def parse(cls, text: str) -> MonstersReport | None:
        m = _MONSTERS.search(text)
        if m is None:
            return None
        seen = [Bearing.parse(item.removeprefix("monster ")) for item in _items(m["seen"], "no monster")]
        return cls(float(m["x"]), float(m["y"]), float(m["yaw"]), tuple(b for b in seen if b),
                   int(m["more"] or 0), Bearing.parse(m["nearest"]) if m["nearest"] else None)


class Platform(NamedTuple):
    name: str  # "platform 3" or "the goal"
    centre: Bearing
    rise_m: float  # its top above your feet
    width_m: float
    depth_m: float
    sliding: bool


_PARKOUR_HEAD = re.compile(r"^You are at height (?P<z>-?[\d.]+) m, facing (?P<yaw>-?\d+) deg\.$", re.M)
_PARKOUR_PLATFORM = re.compile(r"^(?P<name>Platform \d+|The goal): centre (?P<centre>[\d.]+ m away, [\w ]+?), "
                               r"top (?P<rise>[+-][\d.]+) m, (?P<w>[\d.]+) x (?P<d>[\d.]+) m(?P<sliding>, sliding)?\.$",
                               re.M)


@dataclass(frozen=True)
class ParkourReport:
    """A Parkour3D report (`Parkour3D._report` writes it with `format`): your height and heading, then the
    platforms ahead, one a line."""

    height_m: float
    facing_deg: float
    platforms: tuple[Platform, ...]

    def format(self) -> str:
        lines = [f"You are at height {self.height_m:.1f} m, facing {self.facing_deg:.0f} deg."]
        lines += [f"{p.name.capitalize()}: centre {p.centre.words(away=True)}, top {p.rise_m:+.1f} m, "
                  f"{p.width_m:.1f} x {p.depth_m:.1f} m" + (", sliding" if p.sliding else "") + "."
                  for p in self.platforms]
        return "\n".join(lines)

    @classmethod
    def parse(cls, text: str) -> ParkourReport | None:
        head = _PARKOUR_HEAD.search(text)
        if head is None:
            return None
        platforms = [(m, Bearing.parse(m["centre"])) for m in _PARKOUR_PLATFORM.finditer(text, head.end())]
        return cls(float(head["z"]), float(head["yaw"]),
                   tuple(Platform(m["name"][0].lower() + m["name"][1:], at, float(m["rise"]), float(m["w"]),
                                  float(m["d"]), bool(m["sliding"])) for m, at in platforms if at is not None))


class Sight(NamedTuple):
    """A first-person bearing and whether a throw's line to it is clear (crystal)."""

    at: Bearing
    clear: bool

    def words(self) -> str:
        return f"{self.at.words()}, {'clear line' if self.clear else 'blocked'}"

    @classmethod
    def parse(cls, words: str) -> Sight | None:
        where, _, line = words.rpartition(", ")
        at = Bearing.parse(where)
        return None if at is None or line not in ("clear line", "blocked") else cls(at, line == "clear line")


_SIGHT = r"[\d.]+ m, [\w ]+?, (?:clear line|blocked)"
_CRYSTAL = re.compile(rf"Their crystal: (?P<theirs>{_SIGHT})\. Your crystal: (?P<mine>{_SIGHT})\. "
                      r"Other side's players: (?P<foes>.*?)\. Gates standing: (?P<gates>\d+)\.$", re.M)
_FOE = re.compile(rf"(?P<name>p\d+) (?P<sight>{_SIGHT})")


@dataclass(frozen=True)
class CrystalReport:
    """A Crystal report (`Crystal._report` writes it with `format`): both crystals, the other side's players
    still up, and how many gates stand."""

    theirs: Sight
    mine: Sight
    foes: tuple[tuple[str, Sight], ...]
    gates: int

    def format(self) -> str:
        seen = "; ".join(f"{name} {sight.words()}" for name, sight in self.foes) or "none up"
        return (f"Their crystal: {self.theirs.words()}. Your crystal: {self.mine.words()}. "
                f"Other side's players: {seen}. Gates standing: {self.gates}.")

    @classmethod
    def parse(cls, text: str) -> CrystalReport | None:
        m = _CRYSTAL.search(text)
        theirs, mine = (Sight.parse(m["theirs"]), Sight.parse(m["mine"])) if m else (None, None)
        if theirs is None or mine is None:
            return None
        foes = [(f["name"], Sight.parse(f["sight"])) for f in map(_FOE.fullmatch, _items(m["foes"], "none up")) if f]
        return cls(theirs, mine, tuple((name, s) for name, s in foes if s), int(m["gates"]))


# ---- duel ----------------------------------------------------------------------------------------------------

_DUEL = re.compile(rf"The other fighter is (?P<other>{_PLACE_WORDS.pattern})\. Nearest edge: (?P<edge>\w+), "
                   r"(?P<edge_m>[\d.]+) m\. Holes: (?P<holes>.*)\.$", re.M)


@dataclass(frozen=True)
class DuelReport:
    """A Duel report (`Duel._report` writes it with `format`): the other fighter, the nearest edge (a compass
    word) and how far, the holes."""

    other: Place
    edge: str
    edge_m: float
    holes: tuple[Place, ...]

    def format(self) -> str:
        holes = "; ".join(h.words() for h in self.holes) or "none"
        return (f"The other fighter is {self.other.words()}. Nearest edge: {self.edge}, {self.edge_m:.1f} m. "
                f"Holes: {holes}.")

    @classmethod
    def parse(cls, text: str) -> DuelReport | None:
        m = _DUEL.search(text)
        other = Place.parse(m["other"]) if m else None
        if other is None:
            return None
        holes = [Place.parse(h) for h in _items(m["holes"], "none")]
        return cls(other, m["edge"], float(m["edge_m"]), tuple(h for h in holes if h))


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


def read_workshop(text: str) -> WorkshopReport | None:
    """The orders, hands, prompt (the HUD's `WorkshopStatus`), stations, bench, floor and handoff's windows
    (the report's `WorkshopFloor`) of a workshop-family text, together."""
    hud = read_hud(text)
    status, floor = WorkshopStatus.parse(hud.status) if hud else None, WorkshopFloor.parse(text)
    if status is None or floor is None:
        return None
    return WorkshopReport(
        orders=tuple(o.item for o in status.orders), held=status.held, prompt=status.prompt,
        stations={name: at.offset for name, at in floor.stations}, bench_item=floor.bench_item,
        bench_left_s=floor.bench_left_s, floor=tuple((item, at.offset) for item, at in floor.floor),
        windows={name: (at.offset, item) for name, at, item in floor.windows}, role=floor.role)


def read_workshop_hud(hud: str) -> tuple[tuple[str, ...], str | None, str] | None:
    """The open orders (oldest first), the item in hand and the interact prompt of a workshop-family HUD
    status (`WorkshopStatus`; None when it is not one)."""
    status = WorkshopStatus.parse(hud)
    return None if status is None else (tuple(o.item for o in status.orders), status.held, status.prompt)


class Order(NamedTuple):
    item: str  # `spring+`: an upgraded spring
    left_s: float  # until it expires


_WORKSHOP_HUD = re.compile(r"^(?:rival points (?P<rival>\d+) \| )?points (?P<points>\d+) \| orders: (?P<orders>[^|]*?) "
                           r"\| hands: (?P<held>[^|]+?)(?: \| (?P<prompt>.*))?$")
_ORDER = re.compile(r"(?P<item>\S+) \((?P<left>-?\d+) s\)")


@dataclass(frozen=True)
class WorkshopStatus:
    """The workshop family's HUD words (`Workshop._hud`): points, open orders (oldest first), hands, prompt
    ("" when none); midline puts the rival's points first."""

    points: int
    orders: tuple[Order, ...]
    held: str | None
    prompt: str
    rival_points: int | None = None  # midline

    def format(self) -> str:
        orders = ", ".join(f"{o.item} ({o.left_s:.0f} s)" for o in self.orders) or "none"
        rival = f"rival points {self.rival_points} | " if self.rival_points is not None else ""
        return _prompted(f"{rival}points {self.points} | orders: {orders} | hands: {self.held or 'empty'}", self.prompt)

    @classmethod
    def parse(cls, status: str) -> WorkshopStatus | None:
        m = _WORKSHOP_HUD.match(status)
        if m is None:
            return None
        orders = [_ORDER.fullmatch(o) for o in _items(m["orders"], "none", ", ")]
        return cls(int(m["points"]), tuple(Order(o["item"], float(o["left"])) for o in orders if o),
                   None if m["held"] == "empty" else m["held"], m["prompt"] or "",
                   int(m["rival"]) if m["rival"] else None)


ROLES = {"runner": "runner (part bins side)", "maker": "maker (bench, counter and trash side)"}  # handoff
_WORKSHOP = re.compile(r"(?:^You are the (?P<role>runner|maker) \([^)\n]*\)\.\n)?^Stations: (?P<stations>.*)\.\n"
                       r"Bench: (?:the bench holds (?P<item>\S+) \((?P<left>[\d.]+) s of work left\)"
                       r"|the bench is empty)\. "
                       r"On the floor: (?P<floor>.*)\.(?:\nWindows: (?P<windows>.*)\.)?"
                       r"(?:\nYour side: (?P<side>west|east) of the midline\.)?$", re.M)
_WINDOW = re.compile(rf"(?P<name>.+?) (?P<place>{_PLACE_WORDS.pattern}) holds (?P<item>.+)")


def _named_places(listing: str, none: str) -> tuple[tuple[str, Place], ...]:
    found = [(t["name"], Place.parse(t["place"])) for t in map(_THING.fullmatch, _items(listing, none)) if t]
    return tuple((name, at) for name, at in found if at is not None)


@dataclass(frozen=True)
class WorkshopFloor:
    """The workshop family's report (`Workshop._report`): stations, the bench, loose parts; handoff adds your
    role first and the windows last, midline your side last."""

    stations: tuple[tuple[str, Place], ...]
    bench_item: str | None
    bench_left_s: float
    floor: tuple[tuple[str, Place], ...]
    role: str = ""  # handoff: "runner" | "maker"
    windows: tuple[tuple[str, Place, str | None], ...] = ()  # handoff: name, where, the item it holds
    side: str = ""  # midline: "west" | "east"

    def format(self) -> str:
        where = "; ".join(f"{name} {at.words()}" for name, at in self.stations)
        bench = f"the bench holds {self.bench_item} ({self.bench_left_s:.1f} s of work left)" if self.bench_item \
            else "the bench is empty"
        floor = "; ".join(f"{item} {at.words()}" for item, at in self.floor) or "nothing"
        text = f"Stations: {where}.\nBench: {bench}. On the floor: {floor}."
        if self.role:
            slots = "; ".join(f"{name} {at.words()} holds {item or 'nothing'}" for name, at, item in self.windows)
            text = f"You are the {ROLES[self.role]}.\n{text}\nWindows: {slots}."
        return text + (f"\nYour side: {self.side} of the midline." if self.side else "")

    @classmethod
    def parse(cls, text: str) -> WorkshopFloor | None:
        m = _WORKSHOP.search(text)
        if m is None:
            return None
        listed = [(w["name"], Place.parse(w["place"]), w["item"])
                  for w in map(_WINDOW.fullmatch, _items(m["windows"] or "", "")) if w]
        windows = tuple((name, at, None if item == "nothing" else item) for name, at, item in listed if at is not None)
        return cls(_named_places(m["stations"], ""), m["item"], float(m["left"] or 0.0),
                   _named_places(m["floor"], "nothing"), m["role"] or "", windows, m["side"] or "")
