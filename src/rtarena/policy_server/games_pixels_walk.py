"""The pixel player's readers for the top-down walker games (issue 41): the frame read with the prompt's
legend into the facts the text stand-in reads, then its own decision (`games_text.escape_play`,
`errands_play`, `workshop_play` for Workshop, Kitchen, Midline and Handoff). Registered in
`games_pixels.READERS` (import this module through `games_pixels`).

Metres come from the prompt alone: Escape's frame shows one whole room, `rooms.size_m` of the level rules
a side (the floor's extent); Errands' view is centred on you and reaches `area.view_m` (the level rules)
each way, so the picture below the HUD strip is twice that tall.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from rtarena.envs.games.reports import Hud, WorkshopReport, read_workshop_hud
from rtarena.policy_server.frame_legend import Row, blobs, box, find, hud_bottom, mask, masks, middle, solid
from rtarena.policy_server.games_text import (
    HEURISTIC_RULES,
    REACH_M,
    UP,
    Play,
    errands_play,
    escape_play,
    workshop_play,
)

ICON_TOLERANCE = 3  # icons are painted in their exact colour: a tight match keeps near ones apart (the
# trash's (70, 70, 75) from the wall's (70, 70, 80))
DOOR_M = 0.6  # a run of a side's wall line this long without wall is a doorway
BEYOND_M = 0.25  # walls farther than this past the floor's edge belong to a neighbouring room


def _things(world: np.ndarray, rows: list[Row], within: tuple[int, int, int, int] | None = None,
            present: tuple[Row, ...] = ()) -> dict[Row, tuple[float, float]]:
    """Where each row's icon is on the picture (its middle, pixels), for the rows found: solid patches of the
    row's exact colour (outlines and glyphs eroded away), inside `within` when given. The `present` rows
    are always on the frame (you, a station): where name plates leave only slivers of one, they place it."""
    x0, y0, x1, y1 = within or (0, 0, world.shape[1] - 1, world.shape[0] - 1)
    out = {}
    for row, where in zip(rows, masks(world[y0:y1 + 1, x0:x1 + 1], [r.rgb for r in rows], ICON_TOLERANCE),
                          strict=True):
        found = solid(where)
        if row in present and found.sum() < 4:
            found = where
        at = middle(found) if found.sum() >= 4 else None
        if at is not None:
            out[row] = (x0 + at[0] + 0.5, y0 + at[1] + 0.5)
    return out


def _under_you(seen: dict[str, Any], hud: Hud | None, here: Any) -> None:
    """What the HUD's interact prompt names is within reach: where the frame does not show it, it lies
    under your own icon (and its name plate), so it is put `here`."""
    prompt = _PROMPT.search(hud.status if hud else "")
    if prompt and prompt["name"] not in seen:
        seen[prompt["name"]] = here


# ---- escape -------------------------------------------------------------------------------------------------

_PROMPT = re.compile(r"Press F to (?:use|talk to|give the \w+ to) the (?P<name>[\w ]+?)(?: \||$)")
_SIDES = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0)}  # compass word -> pixel step


def _doorway(walls: np.ndarray, floor: tuple[int, int, int, int], side: str, px_per_m: float) -> bool:
    """Whether the wall line just outside the floor on this side has a gap (a run without wall) of DOOR_M."""
    x0, y0, x1, y1 = floor
    ux, uy = _SIDES[side]
    if ux:
        x = min(max(x1 + 3 if ux > 0 else x0 - 3, 0), walls.shape[1] - 1)
        line = walls[y0:y1 + 1, x]
    else:
        y = min(max(y1 + 3 if uy > 0 else y0 - 3, 0), walls.shape[0] - 1)
        line = walls[y, x0:x1 + 1]
    runs = np.diff(np.flatnonzero(np.concatenate([[True], line, [True]])))  # gaps between wall pixels, +1
    return bool(runs.size) and runs.max() - 1 >= DOOR_M * px_per_m


def _neighbour(walls: np.ndarray, floor: tuple[int, int, int, int], side: str, px_per_m: float) -> bool:
    """Whether another room lies past this side: its walls show farther than BEYOND_M past the floor's edge
    (the block's outer wall ends sooner, with nothing beyond it)."""
    x0, y0, x1, y1 = floor
    far, pad = round(BEYOND_M * px_per_m), round(0.4 * px_per_m)
    ux, uy = _SIDES[side]
    rows = slice(max(y0 - pad, 0), y1 + pad + 1)
    cols = slice(max(x0 - pad, 0), x1 + pad + 1)
    if ux:
        cols = slice(x1 + far, None) if ux > 0 else slice(0, max(x0 - far, 0))
    else:
        rows = slice(y1 + far, None) if uy > 0 else slice(0, max(y0 - far, 0))
    return bool(walls[rows, cols].any())


def _index(before: bool, after: bool, count: int) -> int:
    """A room's column (row) from whether rooms lie before and after it: exact on blocks up to three a side."""
    return 0 if not before else count - 1 if not after else min(1, count - 1)


def escape(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """The room's floor (the legend's floor colour) gives metres (`rooms.size_m` a side) and your place in
    it (the row labelled YOU); each object row found on the floor where it lies (one the HUD's prompt
    names but the frame does not show lies under your icon); the wall line around the
    floor its doorways (gaps), and walls continuing past a side a neighbouring room there, so the room's
    column and row (from the block's edges); then `games_text.escape_play`."""
    you, floor, wall = find(legend, label="YOU"), find(legend, meaning="the floor"), find(legend, meaning="a wall")
    size_m = float(rules.get("rooms", {}).get("size_m", 0.0))
    if None in (you, floor, wall) or size_m <= 0:
        return None
    world = rgb[hud_bottom(rgb):]
    room = box(mask(world, floor.rgb))
    if room is None:
        return None
    x0, y0, x1, y1 = room
    px_per_m = (x1 - x0 + 1 + y1 - y0 + 1) / 2 / size_m
    objects = [r for r in legend if r not in (you, floor, wall) and "decoration" not in r.meaning
               and r.meaning.startswith("the ")]
    seen = _things(world, [you, *objects], room, (you,))
    if you not in seen:
        return None
    mx, my = seen.pop(you)
    things = {r.meaning.removeprefix("the "): ((x - mx) / px_per_m, (my - y) / px_per_m) for r, (x, y) in seen.items()}
    _under_you(things, hud, (0.0, 0.0))
    walls = mask(world, wall.rgb, ICON_TOLERANCE)
    ways = [side for side in ("north", "south", "east", "west") if _doorway(walls, room, side, px_per_m)]
    near = {side: _neighbour(walls, room, side, px_per_m) for side in _SIDES}
    block = rules.get("rooms", {})
    where = (_index(near["west"], near["east"], int(block.get("columns", 1))),
             _index(near["south"], near["north"], int(block.get("rows", 1))))
    at = ((mx - x0) / px_per_m, (y1 + 1 - my) / px_per_m)
    return escape_play(hud, things, where, at, ways, HEURISTIC_RULES.get("Escape", ()))


# ---- errands ------------------------------------------------------------------------------------------------

def errands(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """The characters (the legend's labelled persons other than YOU, named by their label) where they stand
    from you at the picture's middle (one the HUD's prompt names but the frame does not show is under
    you); metres from the view's reach (`area.view_m` each way); what each gives from the level rules
    (`people.items`, in the order of `people.names`); then `games_text.errands_play`."""
    people = rules.get("people", {})
    names, items = list(people.get("names", ())), list(people.get("items", ()))
    view_m = float(rules.get("area", {}).get("view_m", 0.0))
    if view_m <= 0 or len(names) != len(items):
        return None
    world = rgb[hud_bottom(rgb):]
    px_per_m = world.shape[0] / (2 * view_m)
    cx, cy = world.shape[1] / 2, world.shape[0] / 2
    rows = [r for r in legend if r.shape == "person" and r.label.lower() in names]
    seen = {r.label.lower(): (((x - cx) / px_per_m, (cy - y) / px_per_m), items[names.index(r.label.lower())])
            for r, (x, y) in _things(world, rows).items()}
    prompt = _PROMPT.search(hud.status if hud else "")
    if prompt and prompt["name"] in names:
        _under_you(seen, hud, ((0.0, 0.0), items[names.index(prompt["name"])]))
    return errands_play(hud, seen, None, HEURISTIC_RULES.get("Errands", ()))


# ---- the workshop family (workshop, kitchen; midline and handoff below) ----------------------------------------

_STATION = re.compile(r"^the (?P<name>[\w ]+?): E ")  # a station (what E acts on): "the gear bin: E takes a gear"
_PART = re.compile(r"^an? (?P<kind>\w+) \(a part")  # a part's row: "a gear (a part: ...)"
BENCH_REACH_M = 0.3  # a part drawn on the bench lies within this of its middle
BAR_BELOW_M = (0.4, 0.75)  # the bench's work bar lies this far below its middle
SAME_ICON_M = 0.7  # patches of one colour this near are one icon (a window the part it holds splits; stations,
# windows and midline parts lie farther apart)
FLAG_M = 0.3  # midline: a station's flag stands this far right of and above its middle (and about this big)
CARRIED_M = 0.6  # midline: a part this near a player (or a bench) is carried (or on the bench), not loose
BODY_SHARE = 0.1  # your icon: a solid patch of your colour at least this share of your body's disc (the rules'
# player radius); a smaller one is a flag, or a sliver of you under name plates
WINDOW_PART_M = 0.17  # handoff: the part a window holds is drawn this big at its middle


def _part_at(world: np.ndarray, legend: list[Row], x: float, y: float, reach: int) -> str | None:
    """The part drawn at a pixel point (the part row whose colour fills most of the square `reach` around
    it), `gear+` when the legend's white ring is there too; None when no part is."""
    on = world[max(round(y) - reach, 0):round(y) + reach + 1, max(round(x) - reach, 0):round(x) + reach + 1]
    parts = {m["kind"]: mask(on, r.rgb, ICON_TOLERANCE).sum() for r in legend if (m := _PART.match(r.meaning))}
    kind = max(parts, key=parts.get, default=None)
    if kind is None or parts[kind] < 6:
        return None
    white = find(legend, meaning="a white ring")
    return kind + (UP if white is not None and mask(on, white.rgb, ICON_TOLERANCE).sum() >= 6 else "")


@dataclass(frozen=True)
class Room:
    """A workshop-family frame read once: the picture under the HUD strip, the floor's box (pixels), pixels
    a metre, where you are (pixels) and the HUD's orders, hands and prompt."""

    world: np.ndarray
    area: tuple[int, int, int, int]
    px_per_m: float
    me: tuple[float, float] | None  # None: you are hidden under name plates (`placed` finds you)
    head: tuple[tuple[str, ...], str | None, str]

    def placed(self, where: dict[str, tuple[float, float]]) -> Room | None:
        """This room with you found: where your icon is hidden under name plates, at the station (of `where`:
        name -> pixels) the HUD's prompt acts on (`offered`); None when the prompt says none of them."""
        if self.me is not None:
            return self
        found = self.offered(list(where))
        return replace(self, me=where[found]) if found else None

    def offered(self, names: list[str]) -> str | None:
        """The station (of `names`) the HUD's prompt acts on: it names it ("window 2", "the bench"), or its verb
        and part are the station's legend words ("deliver" the counter's "E delivers", "take a gear" the gear
        bin's "E takes a gear"); None when the prompt says neither (no prompt, "Hands full")."""
        prompt = self.head[2].lower()
        words = set(re.findall(r"[\w+]+", prompt))
        named = [n for n in names if re.search(rf"\b{re.escape(n)}\b", prompt)]
        acts = [n for n, verb in self.verbs.items() if n in names and verb[0].rstrip("s") in words
                and all(w in words for w in verb[1:])]
        return (named or acts or [None])[0]

    verbs: dict[str, tuple[str, ...]] = field(default_factory=dict)  # station -> its legend's E verb and part

    def offset(self, at: tuple[float, float]) -> tuple[float, float]:
        """A pixel point's offset from you in metres (x east, y north), as the text view gives it."""
        return (at[0] - self.me[0]) / self.px_per_m, (self.me[1] - at[1]) / self.px_per_m


def _room(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Room | None:
    """The floor (its light tiles, the legend's floor colour) gives metres (`room.width_m` by `height_m`),
    you the row labelled YOU; None when either is missing or the HUD line is not a workshop's."""
    you, floor = find(legend, label="YOU"), find(legend, meaning="the floor")
    room = rules.get("room", {})
    width_m, height_m = float(room.get("width_m", 0.0)), float(room.get("height_m", 0.0))
    head = read_workshop_hud(hud.status) if hud else None
    if None in (you, floor, head) or width_m <= 0 or height_m <= 0:
        return None
    world = rgb[hud_bottom(rgb):]
    area = box(mask(world, floor.rgb, ICON_TOLERANCE))
    if area is None:
        return None
    x0, y0, x1, y1 = area
    body = mask(world[y0:y1 + 1, x0:x1 + 1], you.rgb, ICON_TOLERANCE)
    px_per_m = ((area[2] - area[0] + 1) / width_m + (area[3] - area[1] + 1) / height_m) / 2
    body_px = math.pi * (float(rules.get("player", {}).get("radius_m", 0.0)) * px_per_m) ** 2
    groups = [g for g in blobs(solid(body)) if len(g) >= BODY_SHARE * body_px]  # not your side's flags (midline),
    # drawn in your colour but smaller
    if not groups and not any(r.rgb == you.rgb for r in legend if r is not you):  # under name plates: the
        # largest sliver of you they leave, where no other kind shares your colour
        groups = [g for g in blobs(body) if len(g) >= 6]
    at = middle(_painted(body.shape, max(groups, key=len))) if groups else None
    verbs = {}
    for row, name in _stations(legend).items():
        act = row.meaning.partition(": E ")[2].split()
        act = act[2:] if act[:1] == ["at"] else act  # "E at yours delivers" (Midline's counter): the verb follows
        verbs[name] = (act[0], *act[2:3]) if act[1:2] in (["a"], ["an"]) else tuple(act[:1])
    me = (x0 + at[0] + 0.5, y0 + at[1] + 0.5) if at else None
    return Room(world, area, px_per_m, me, head, verbs)


def _painted(shape: tuple[int, int], group: np.ndarray) -> np.ndarray:
    out = np.zeros(shape, dtype=bool)
    out[group[:, 1].astype(int), group[:, 0].astype(int)] = True
    return out


def _bench(room: Room, legend: list[Row], at: tuple[float, float], item: str | None = None) -> tuple[str | None, float]:
    """The part on a bench (a part row's colour at its middle; upgraded with the white ring; `item` where the
    caller knows it otherwise) and whether its work bar (white, under it) is still there (1.0; its length is
    not needed) or gone (0.0)."""
    world, px_per_m = room.world, room.px_per_m
    item = item or _part_at(world, legend, *at, round(BENCH_REACH_M * px_per_m))
    white = find(legend, meaning="a white ring")
    near, far = (round(at[1] + m * px_per_m) for m in BAR_BELOW_M)
    side = round(0.6 * px_per_m)
    under = world[near:far + 1, max(round(at[0]) - side, 0):round(at[0]) + side + 1]
    working = bool(item) and white is not None and mask(under, white.rgb).sum() >= 6  # the bar is drawn a
    # shade off the ring's white (the legend names it only "the white bar"): the looser match
    return item, 1.0 if working else 0.0


def _stations(legend: list[Row]) -> dict[Row, str]:
    """The station rows (labelled, and the meaning says what E does there) and their names: the meaning's
    ("the gear bin: E takes a gear"), else the label's words ("a delivery bin: E at yours ..." labelled
    COUNTER: the counter)."""
    return {r: m["name"] if (m := _STATION.match(r.meaning)) else r.label.lower()
            for r in legend if r.label and ": E " in r.meaning}


def _instances(room: Room, row: Row) -> list[tuple[float, float]]:
    """Every icon of a row's exact colour on the floor (pixels): its solid patches (outlines and glyphs eroded
    away) and, where name plates leave only slivers of one, the slivers; patches within SAME_ICON_M of each
    other are one icon, placed at their bounding box's middle."""
    x0, y0, x1, y1 = room.area
    where = mask(room.world[y0:y1 + 1, x0:x1 + 1], row.rgb, ICON_TOLERANCE)
    groups = [g for g in blobs(solid(where)) if len(g) >= 4]
    core = [g.mean(axis=0) for g in groups]
    near = SAME_ICON_M * room.px_per_m
    groups += [g for g in blobs(where) if len(g) >= 6 and all(np.hypot(*(g.mean(axis=0) - c)) > near for c in core)]
    icons: list[np.ndarray] = []
    for g in groups:
        k = next((i for i, icon in enumerate(icons) if np.hypot(*(icon.mean(axis=0) - g.mean(axis=0))) <= near), None)
        if k is None:
            icons.append(g)
        else:
            icons[k] = np.vstack([icons[k], g])
    return [(x0 + (g[:, 0].min() + g[:, 0].max()) / 2 + 0.5, y0 + (g[:, 1].min() + g[:, 1].max()) / 2 + 0.5)
            for g in icons]


def workshop(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """Each station (`_stations`) where it stands from you (`_room`); the part on the bench and its work bar
    (`_bench`); the orders, your hands and the prompt from the HUD line; then `games_text.workshop_play`.
    Loose parts on the floor are not read (the stand-in never drops one; Midline's are, by `midline`).
    Name plates hide a station you stand beside (its plate and yours sit over it): one the prompt acts on
    is within reach, so under you; where the station it would go to is hidden, a step and a look again."""
    room = _room(rgb, legend, rules, hud)
    if room is None:
        return None
    named = _stations(legend)
    where = {named[r]: at for r, at in _things(room.world, list(named), room.area, tuple(named)).items()}
    room = room.placed(where)
    if room is None:
        return _look_again(hud)
    here = room.offered(list(room.verbs))  # E acts on it now, so it is within reach: where name plates hide it,
    if here is not None and here not in where:  # it is under you (and your plate)
        where[here] = room.me
    bench = where.get("bench")
    bench_item, bench_left_s = _bench(room, legend, bench) if bench is not None else (None, 0.0)
    orders, held, prompt = room.head
    stations = {n: room.offset(at) for n, at in where.items()}
    report = WorkshopReport(orders=orders, held=held, prompt=prompt, stations=stations, bench_item=bench_item,
                            bench_left_s=bench_left_s, floor=(), windows={}, role="")
    return _decide(report, hud) or _look_again(hud, "the station I need")


def _look_again(hud: Hud | None, hidden: str = "myself") -> Play:
    """Your icon (or the station you need) hidden under name plates and the prompt not saying where: a step
    (its direction turning each second), then look again."""
    step = "DWAS"[int(hud.time_left_s if hud else 0.0) % 4]
    return f"0 0 ; {step}", f"{hud.title if hud else 'Workshop'}: cannot see {hidden} under the name plates, stepping"


def _decide(report: WorkshopReport, hud: Hud | None) -> Play | None:
    try:
        return workshop_play(report, hud, HEURISTIC_RULES.get(hud.title if hud else "", ()))
    except KeyError:  # the station it would go to is hidden (under name plates): no answer this step
        return None


# ---- midline ------------------------------------------------------------------------------------------------

INK_SHARE = 0.5  # a pixel on the line from a label's plate colour to its ink, this near the ink, is ink
INK_OFF = 8  # ... and within this of that line (the glyphs' edges blend the two; outlines and walls lie off it)
HIDDEN_BAR = 0.3  # a bench's bar place this much plate-coloured is hidden
LOOK_S = 0.3  # a bench whose bar is hidden: how long of each look period it is taken to be done
LETTER_GAP = 0.5  # glyphs closer than this share of their height are letters of one word


def _plate_colours(world: np.ndarray, legend: list[Row]) -> tuple[np.ndarray, np.ndarray, tuple] | None:
    """The name plates' colour and their ink's, read off the order board (the legend's row "the order board",
    its name written on a plate): the commonest colour on the board but its own, and the darkest; and the
    board's box (its orders are written on plates too)."""
    board = find(legend, meaning="the order board")
    where = box(mask(world, board.rgb, ICON_TOLERANCE)) if board is not None else None
    if where is None:
        return None
    x0, y0, x1, y1 = where
    pixels = world[y0:y1 + 1, x0:x1 + 1].reshape(-1, 3).astype(np.int16)
    pixels = pixels[(np.abs(pixels - np.array(board.rgb)) > ICON_TOLERANCE).any(axis=1)]
    if not len(pixels):
        return None
    colours, counts = np.unique(pixels, axis=0, return_counts=True)
    return colours[np.argmax(counts)], colours[np.argmin(colours.sum(axis=1))], where


def _label_at(room: Room, legend: list[Row], label: str) -> tuple[float, float, float, float] | None:
    """The box of the word on the name plate that reads `label` (pixels), told from the others by its letters' count:
    the ink on the floor (and around it) grouped into glyphs, the glyphs on a plate into words; None unless
    exactly one word on the plates has as many letters as the label."""
    colours = _plate_colours(room.world, legend)
    if colours is None:
        return None
    plate, ink, board = colours
    x0, y0, x1, y1 = room.area
    pad = round(room.px_per_m)  # a plate may stand out past the floor's edge (a station's by the wall)
    top, left = max(y0 - pad, 0), max(x0 - pad, 0)
    near = room.world[top:y1 + pad + 1, left:x1 + pad + 1].astype(np.float32)
    line = (plate - ink).astype(np.float32)
    share = np.clip((near - ink) @ line / (line @ line), 0.0, 1.0)
    off = np.linalg.norm(near - ink - share[..., None] * line, axis=2)
    on_plate = mask(near, tuple(int(c) for c in plate), ICON_TOLERANCE)
    glyphs = []
    for g in blobs((share < INK_SHARE) & (off <= INK_OFF)):
        gx0, gy0, gx1, gy1 = int(g[:, 0].min()), int(g[:, 1].min()), int(g[:, 0].max()), int(g[:, 1].max())
        ring = on_plate[max(gy0 - 2, 0):gy1 + 3, max(gx0 - 2, 0):gx1 + 3]
        on_board = board[0] <= left + gx0 <= board[2] and board[1] <= top + gy0 <= board[3]
        if ring.mean() >= 0.3 and not on_board:  # a glyph on a plate (an outline's dark corner is not)
            glyphs.append((gx0, gy0, gx1, gy1))
    if not glyphs:
        return None
    tall = float(np.median([g[3] - g[1] + 1 for g in glyphs]))
    glyphs = sorted((g for g in glyphs if g[3] - g[1] + 1 >= 0.6 * tall), key=lambda g: g[0])
    words: list[list[tuple[int, int, int, int]]] = []
    for g in glyphs:
        word = next((w for w in words if 0 <= g[0] - w[-1][2] <= LETTER_GAP * tall + 1
                     and min(g[3], w[-1][3]) - max(g[1], w[-1][1]) >= 0.5 * tall), None)
        if word is None:
            words.append([g])
        else:
            word.append(g)
    found = [w for w in words if len(w) == len(label.replace(" ", ""))]
    if len(found) != 1:
        return None
    w = np.array(found[0])
    return left + w[:, 0].min(), top + w[:, 1].min(), left + w[:, 2].max(), top + w[:, 3].max()


def _under_plate(room: Room, legend: list[Row], rules: dict,
                 flags: list[tuple[float, float]]) -> tuple[float, float] | None:
    """Where you are when name plates hide your icon: under your own plate (the one that reads YOU), at its
    middle, or beside it where a patch of your colour touches its side (the part of you it leaves; not a
    station's flag, `flags`): then a body's radius (the rules' player radius) in from that patch's outer edge."""
    word = _label_at(room, legend, "YOU")
    you = find(legend, label="YOU")
    if word is None or you is None:
        return None
    wx0, wy0, wx1, wy1 = word
    r = float(rules.get("player", {}).get("radius_m", 0.0)) * room.px_per_m
    y = (wy0 + wy1) / 2 + 0.5
    top, left = max(round(wy0 - r), 0), max(round(wx0 - 3 * r), 0)
    near = mask(room.world[top:round(wy1 + r) + 1, left:round(wx1 + 3 * r) + 1], you.rgb, ICON_TOLERANCE)
    sides = []
    for g in blobs(near):
        gx, gy = g[:, 0] + left, g[:, 1] + top
        if len(g) < 6 or any(math.hypot(gx.mean() - f[0], gy.mean() - f[1]) <= FLAG_M * room.px_per_m for f in flags):
            continue
        if gx.max() > wx1:
            sides.append((len(g), gx.max() + 0.5 - r))
        elif gx.min() < wx0:
            sides.append((len(g), gx.min() + 0.5 + r))
    x = max(sides)[1] if sides else (wx0 + wx1) / 2 + 0.5
    return x, y


def _bar_hidden(room: Room, legend: list[Row], at: tuple[float, float]) -> bool:
    """Whether name plates cover most of the place under a bench where its work bar is drawn."""
    colours = _plate_colours(room.world, legend)
    if colours is None:
        return False
    near, far = (round(at[1] + m * room.px_per_m) for m in BAR_BELOW_M)
    side = round(0.4 * room.px_per_m)
    under = room.world[near:far + 1, max(round(at[0]) - side, 0):round(at[0]) + side + 1]
    return bool(under.size) and mask(under, tuple(int(c) for c in colours[0]), ICON_TOLERANCE).mean() >= HIDDEN_BAR


def _icon_boxes(room: Room, row: Row) -> list[tuple[float, float, float, float]]:
    """Each icon of a row's exact colour on the floor as the bounding box of its pixels (x0, y0, x1, y1 pixels,
    inclusive): patches within SAME_ICON_M of each other are one icon. Unlike `_instances`, thin parts count
    (a station's icon is mostly outline-thin bars, no glyph shares its colour), so the box spans the icon."""
    x0, y0, x1, y1 = room.area
    icons: list[np.ndarray] = []
    near = SAME_ICON_M * room.px_per_m
    for g in blobs(mask(room.world[y0:y1 + 1, x0:x1 + 1], row.rgb, ICON_TOLERANCE)):
        k = next((i for i, icon in enumerate(icons) if np.hypot(*(icon.mean(axis=0) - g.mean(axis=0))) <= near), None)
        if len(g) < 6:
            continue
        if k is None:
            icons.append(g)
        else:
            icons[k] = np.vstack([icons[k], g])
    return [(x0 + g[:, 0].min(), y0 + g[:, 1].min(), x0 + g[:, 0].max(), y0 + g[:, 1].max()) for g in icons]


def _own_stations(room: Room, legend: list[Row], rules: dict, flagged) -> tuple[dict, dict]:
    """Your stations (name -> pixels) and both sides' places of each (name -> [west, east]). The sides'
    stations are mirrored about the midline (the floor's middle column; the game's description says so): a
    station's two icons stand at one height, so the taller of them (the one a name plate covers less) gives
    both their middle's height, and one whose icon plates hide stands where the other's mirror does. Yours:
    the one whose flag shows your colour, or the mirror of the one whose flag shows the rival's; where
    neither flag shows, the one on your side, as your other stations are (the bench across, where the level
    rules' `midline.bench_across` says so)."""
    x0, _, x1, _ = room.area
    mid = (x0 + x1 + 1) / 2
    across = bool(rules.get("midline", {}).get("bench_across", False))
    pairs, spots = {}, {}
    for row, name in _stations(legend).items():
        icons = _icon_boxes(room, row)
        if not icons:
            continue
        tallest = max(icons, key=lambda b: b[3] - b[1])
        y = (tallest[1] + tallest[3]) / 2 + 0.5
        xs = sorted({round((b[0] + b[2]) / 2 + 0.5, 1) for b in icons}, key=lambda x: abs(x - mid))
        far = max(xs, key=lambda x: abs(x - mid))  # the icon farthest out and its mirror: the pair
        pair = (min(far, 2 * mid - far), max(far, 2 * mid - far))  # (west, east)
        spots[name] = [(x, y) for x in pair]
        score = {x: flagged((x, y)) for x in pair}
        pairs[name] = (pair, y, score)
    sides: dict[str, int] = {}  # 0: west, 1: east
    for name, (pair, _, score) in pairs.items():
        if score[pair[0]] != score[pair[1]]:
            sides[name] = 0 if score[pair[0]] > score[pair[1]] else 1
    if not sides:
        return {}, spots
    flip = {n: n == "bench" and across for n in pairs}
    votes = [side ^ flip[n] for n, side in sides.items()]
    usual = round(sum(votes) / len(votes))
    return {n: (pair[sides.get(n, usual ^ flip[n])], y) for n, (pair, y, _) in pairs.items()}, spots


def midline(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """Both sides' stations are drawn alike, each flagged in its side's colour (the flag rows: the one whose
    meaning says "your side" and the other), and mirrored about the midline (`_own_stations`). You: your
    colour's largest solid patch (`_room`), else the name plate that reads YOU (`_label_at`: plates hide
    you beside a station), else the station the HUD's prompt acts on. The loose parts: every icon of a part
    row's colour on the floor, but those on a bench and those at a player's side (carried: yours only while
    the HUD says you hold one); a part the prompt offers ("pick up the gear") that the frame does not show
    near you is under you. Then `games_text.workshop_play` with the nearest part of each kind as its bin,
    as the text stand-in does."""
    room = _room(rgb, legend, rules, hud)
    flags = [r for r in legend if r.shape == "flag"]
    mine = next((r for r in flags if "your side" in r.meaning), None)
    theirs = next((r for r in flags if r is not mine), None)
    if room is None or mine is None or theirs is None:
        return None
    px, world = room.px_per_m, room.world
    reach = round(FLAG_M * px)

    def flagged(at: tuple[float, float]) -> int:
        x, y = round(at[0] + FLAG_M * px), round(at[1] - FLAG_M * px)
        near = world[max(y - reach, 0):y + reach + 1, max(x - reach, 0):x + reach + 1]
        return int(mask(near, mine.rgb, ICON_TOLERANCE).sum()) - int(mask(near, theirs.rgb, ICON_TOLERANCE).sum())

    stations, spots = _own_stations(room, legend, rules, flagged)
    benches = spots.get("bench", [])
    if room.me is None:
        flag_at = [(x + FLAG_M * px, y - FLAG_M * px) for pair in spots.values() for x, y in pair]
        room = replace(room, me=_under_plate(room, legend, rules, flag_at))
    room = room.placed(stations)
    if room is None:
        return _look_again(hud)
    orders, held, prompt = room.head
    here = room.offered(list(room.verbs)) or ("bench" if _TAKE.search(prompt) else None)  # E acts on it now
    if here is not None and here not in stations:  # (only the bench offers "the" part to take): where plates
        stations[here] = room.me  # hide both sides' icons of it (yours under your plate, the rival's under its
        # own), it is under you
    rival = next((r for r in legend if r.shape == "person" and r.label and r.label != "YOU"), None)
    players = ([room.me] if held else []) + (list(_things(world, [rival], room.area).values()) if rival else [])
    part_rows = [(m["kind"], r) for r in legend if (m := _PART.match(r.meaning))]
    apart = CARRIED_M * px
    floor = [(kind, room.offset(at)) for kind, row in part_rows for at in _instances(room, row)
             if all(math.hypot(at[0] - b[0], at[1] - b[1]) > apart for b in benches + players)]
    offered = _OFFER.search(prompt)
    if offered and not any(kind == offered["kind"] and math.hypot(*at) <= 1.0 for kind, at in floor):
        floor.append((offered["kind"], (0.0, 0.0)))
    bench = stations.get("bench")
    bench_item, bench_left_s = _bench(room, legend, bench) if bench is not None else (None, 0.0)
    taking = _TAKE.search(prompt)  # only the bench's part is "the" one to take (a bin's is "a", the floor's "pick up")
    reach_m = float(rules.get("player", {}).get("reach_m", 0.0))
    if taking and bench_item is None and bench is not None and math.hypot(*room.offset(bench)) <= reach_m:
        bench_item = taking["item"]  # your plate hides the part on the bench: the prompt names it
        bench_left_s = _bench(room, legend, bench, bench_item)[1]
    if _PUT.search(prompt):  # the prompt offers to put your part on the bench: it is empty (what shows at its
        bench_item, bench_left_s = None, 0.0  # place may be your own part, where plates hide the bench)
    if bench_item and not bench_left_s and _bar_hidden(room, legend, bench):  # a plate covers where its bar would
        # be (a station's, 1.5 m below the bench): take the part to look only once every `bench.upgrade_s` + 1 s
        # of the HUD's clock, so that a part put back has had its time when the next look comes
        upgrade_s = float(rules.get("bench", {}).get("upgrade_s", 0.0))
        bench_left_s = 0.0 if hud is None or hud.time_left_s % (upgrade_s + 1.0) < LOOK_S else 1.0
    offsets = {n: room.offset(at) for n, at in stations.items()}
    if here is not None and math.hypot(*offsets[here]) > REACH_M:  # the prompt puts it within reach: where plates
        offsets[here] = (0.0, 0.0)  # cover part of its icon and its middle reads farther off, it is at hand
    report = WorkshopReport(orders=orders, held=held, prompt=prompt, stations=offsets, bench_item=bench_item,
                            bench_left_s=bench_left_s, floor=tuple(floor), windows={}, role="")
    return _decide(report, hud)


_OFFER = re.compile(r"pick up the (?P<kind>\w+)")
_TAKE = re.compile(r"Press E to take the (?P<item>[\w+]+)")
_PUT = re.compile(r"Press E to put the [\w+]+ on the bench")


# ---- handoff ------------------------------------------------------------------------------------------------

_WINDOW_PROMPT = re.compile(r"(?:take the (?P<item>[\w+]+) from|pass the [\w+]+ through) (?P<name>window \d+)")


HIDDEN = "?"  # handoff: what a window hidden under name plates is reported to hold (unknown: worth a look)
WINDOW_GLASS_M2 = 0.24  # a window in full view shows this much of its glass colour within half a metre of it
# (measured on the default frame: 372 px at 39.3 px a metre); one holding a part about two thirds of it


def _hidden(room: Room, window: Row, panes: dict[str, tuple[float, float]]) -> list[str]:
    """The windows mostly hidden under name plates: less than half a full view's glass (WINDOW_GLASS_M2) within
    half a metre of them."""
    glass = mask(room.world, window.rgb, ICON_TOLERANCE)
    r = round(0.5 * room.px_per_m)
    seen = {n: int(glass[max(round(y) - r, 0):round(y) + r + 1, max(round(x) - r, 0):round(x) + r + 1].sum())
            for n, (x, y) in panes.items()}
    return [n for n, count in seen.items() if count < 0.5 * WINDOW_GLASS_M2 * room.px_per_m ** 2]


PLATE_STEP_PX = 3  # name plates are sought on a grid this coarse (they are many pixels each way)
PLATE_ABOVE_M = 0.45  # a name plate's bottom stands about this far above its icon's middle, where it fits


def _plates(room: Room, legend: list[Row]) -> list[tuple[float, float, int, int]]:
    """The name plates (pixels: middle x, y, width, height) but the order board's own: patches of the plate
    colour, the board's label's (the row labelled ORDERS: the most common light colour in its box that is not
    its own), wider and taller than a letter's inside (an O's is plate-coloured too); a patch as tall as
    several plates is that many, one above another."""
    board = find(legend, label="ORDERS")
    where = box(mask(room.world, board.rgb, ICON_TOLERANCE)) if board is not None else None
    if where is None:
        return []
    x0, y0, x1, y1 = where
    pixels = room.world[y0:y1 + 1, x0:x1 + 1].reshape(-1, 3)
    light = pixels[(pixels.astype(int).sum(axis=1) > 450) & ~mask(pixels[None], board.rgb, ICON_TOLERANCE)[0]]
    if not len(light):
        return []
    colours, counts = np.unique(light, axis=0, return_counts=True)
    plate = tuple(int(v) for v in colours[counts.argmax()])
    step = PLATE_STEP_PX  # a plate is searched on every third pixel each way: a ninth of the work
    found = [(step * g[:, 0].min(), step * g[:, 1].min(), step * g[:, 0].max() + step - 1,
              step * g[:, 1].max() + step - 1) for g in blobs(mask(room.world[::step, ::step], plate, ICON_TOLERANCE))]
    found = [f for f in found if min(f[2] - f[0], f[3] - f[1]) >= 0.3 * room.px_per_m
             and not (x0 <= f[0] and f[2] <= x1 and y0 <= f[1] and f[3] <= y1)]
    if not found:
        return []
    tall = float(np.median([f[3] - f[1] for f in found]))  # plates touching one above another: one patch
    return [((u0 + u1) / 2, v0 + (k + 0.5) * (v1 - v0) / n, int(u1 - u0), int((v1 - v0) / n))
            for u0, v0, u1, v1 in found for n in [max(1, round((v1 - v0) / tall))] for k in range(n)]


def _under_plates(room: Room, legend: list[Row], seen: list[tuple[float, float]],
                  hidden: dict[str, str]) -> dict[str, tuple[float, float]]:
    """Where the stations the frame does not show (`hidden`: name -> its label) lie: under the name plates no
    icon it shows claims (each shown icon, `seen`, claims the plate nearest the spot above it where plates
    stand, nearest pairs first), the plates nearest you, the widest for the longest label."""
    plates = _plates(room, legend)
    if not plates:
        return {}
    lift = PLATE_ABOVE_M * room.px_per_m + float(np.median([p[3] for p in plates])) / 2
    pairs = sorted((math.hypot(p[0] - at[0], p[1] - (at[1] - lift)), i, j) for i, at in enumerate(seen)
                   for j, p in enumerate(plates))
    claimed, done = set(), set()
    for _, i, j in pairs:
        if i not in done and j not in claimed:
            done.add(i)
            claimed.add(j)
    left = [p for j, p in enumerate(plates) if j not in claimed]
    left = sorted(left, key=lambda p: math.hypot(p[0] - room.me[0], p[1] - room.me[1]))[:len(hidden)]
    names = sorted(hidden, key=lambda n: len(hidden[n]))
    return {n: (p[0], p[1]) for n, p in zip(names, sorted(left, key=lambda p: p[2]), strict=False)}


def handoff(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """The stations as in the workshop; the windows: every icon of the window row's colour (`_instances`:
    name plates often cover them), named from the south as the text view numbers them, each holding the
    part drawn at its middle; your role from your side of them (west: the runner, at the part bins; east:
    the maker). A window the HUD's prompt names that the frame does not show near you lies under your own
    icon. Name plates hide more here than elsewhere: a station the frame does not show lies under a plate no
    shown icon claims (`_under_plates`), or where you stand when the prompt offers it; a window they hide
    (`_hidden`) is worth the maker's look while no window shows a part. Then `games_text.workshop_play` (its
    `handoff` decision; where the station it needs is still not found, a step and a look again)."""
    room = _room(rgb, legend, rules, hud)
    window = next((r for r in legend if r.shape == "window"), None)
    if room is None or window is None:
        return None
    named = _stations(legend)
    panes = _instances(room, window)
    where = {named[r]: at for r, at in _things(room.world, [r for r in named if r is not window], room.area,
                                                  tuple(named)).items()}
    panes = {f"window {i + 1}": at for i, at in enumerate(sorted(panes, key=lambda p: -p[1]))}
    room = room.placed({**where, **panes})
    if room is None:
        return _look_again(hud)
    stations = {n: room.offset(at) for n, at in where.items()}
    hidden = {n: r.label for r, n in named.items() if r is not window and n not in where}
    if hidden:  # stations name plates hide: under the plates nothing shown claims
        mate = [at for r, at in _things(room.world, [r for r in legend if r.shape == "person"], room.area).items()
                if r.label != "YOU"]
        under = _under_plates(room, legend, [room.me, *mate, *where.values(), *panes.values()], hidden)
        stations.update({n: room.offset(at) for n, at in under.items()})
    offered = room.offered([n for r, n in named.items() if r is not window])
    if offered is not None and offered not in where:  # a station name plates hide, where you stand
        stations[offered] = (0.0, 0.0)
    reach = round(WINDOW_PART_M * room.px_per_m)
    windows = {n: (room.offset(at), _part_at(room.world, legend, *at, reach)) for n, at in panes.items()}
    orders, held, prompt = room.head
    here = _WINDOW_PROMPT.search(prompt)
    if here:  # the window it names holds what it says (under your icon where the frame shows none near you)
        near = any(math.hypot(*at) <= 0.6 for at, _ in windows.values())
        windows[here["name"]] = (windows[here["name"]][0] if near and here["name"] in windows else (0.0, 0.0),
                                 here["item"])
    if not windows:
        return None
    east = np.mean([at[0] for at, _ in windows.values()]) < 0
    if east and not any(item for _, item in windows.values()):  # the maker, no part in sight: a window a name
        # plate hides may hold one (the runner's plate pushes the window's own onto it as the runner passes a
        # part in): go and look (at it, the HUD's prompt offers what it holds)
        for name in _hidden(room, window, panes):
            windows[name] = (windows[name][0], HIDDEN)
    bench = where.get("bench")
    bench_item, bench_left_s = _bench(room, legend, bench) if bench is not None else (None, 0.0)
    report = WorkshopReport(orders=orders, held=held, prompt=prompt, stations=stations, bench_item=bench_item,
                            bench_left_s=bench_left_s, floor=(), windows=windows, role="maker" if east else "runner")
    return _decide(report, hud) or _look_again(hud, "the station I need")
