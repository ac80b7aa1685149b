"""The pixel player's readers for the top-down walker games (issue 41): the frame read with the prompt's
legend into the facts the text stand-in reads, then its own decision (`games_text.escape_play`,
`errands_play`). Registered in `games_pixels.READERS` (import this module through `games_pixels`).

Metres come from the prompt alone: Escape's frame shows one whole room, `rooms.size_m` of the level rules
a side (the floor's extent); Errands' view is centred on you and reaches `area.view_m` (the level rules)
each way, so the picture below the HUD strip is twice that tall.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from rtarena.envs.games.reports import Hud, WorkshopReport, read_workshop_hud
from rtarena.policy_server.frame_legend import Row, box, find, hud_bottom, mask, masks, middle, solid
from rtarena.policy_server.games_text import HEURISTIC_RULES, UP, Play, errands_play, escape_play, workshop_play

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


# ---- the workshop family (workshop, kitchen) ----------------------------------------------------------------------

_STATION = re.compile(r"^the (?P<name>[\w ]+?): E ")  # a station (what E acts on): "the gear bin: E takes a gear"
_PART = re.compile(r"^an? (?P<kind>\w+) \(a part")  # a part's row: "a gear (a part: ...)"
BENCH_REACH_M = 0.3  # a part drawn on the bench lies within this of its middle
BAR_BELOW_M = (0.4, 0.75)  # the bench's work bar lies this far below its middle


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


def workshop(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """The floor (its light tiles, the legend's floor colour) gives metres (`room.width_m` by `height_m`);
    each station (a labelled row whose meaning names it, "the gear bin: ...") where it stands from you (the
    row labelled YOU); the part on the bench (a part row's colour at the bench's middle; upgraded with the
    white ring) and whether its work bar (white, under it) is still there; the orders, your hands and the
    prompt from the HUD line; then `games_text.workshop_play`. Loose parts on the floor are not read (the
    stand-in never drops one), so Midline is not covered; nor is Handoff (its windows sit under the name
    plates as often as not). Where the station it would go to is hidden (under name plates), no answer
    this step."""
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
    px_per_m = ((area[2] - area[0] + 1) / width_m + (area[3] - area[1] + 1) / height_m) / 2
    named = {r: m["name"] for r in legend if r.label and (m := _STATION.match(r.meaning))}
    seen = _things(world, [you, *named], area, (you, *named))
    if you not in seen:
        return None
    mx, my = seen.pop(you)
    stations = {named[r]: ((x - mx) / px_per_m, (my - y) / px_per_m) for r, (x, y) in seen.items()}
    bench_item, bench_left_s = None, 0.0
    bench = next((seen[r] for r in seen if named[r] == "bench"), None)
    if bench is not None:
        bench_item = _part_at(world, legend, *bench, round(BENCH_REACH_M * px_per_m))
        white = find(legend, meaning="a white ring")
        near, far = (round(bench[1] + m * px_per_m) for m in BAR_BELOW_M)
        side = round(0.6 * px_per_m)
        under = world[near:far + 1, max(round(bench[0]) - side, 0):round(bench[0]) + side + 1]
        if bench_item and white is not None and mask(under, white.rgb, ICON_TOLERANCE).sum() >= 6:
            bench_left_s = 1.0  # the work bar is still there (its length is not needed)
    orders, held, prompt = head
    report = WorkshopReport(orders=orders, held=held, prompt=prompt, stations=stations, bench_item=bench_item,
                            bench_left_s=bench_left_s, floor=(), windows={}, role="")
    try:
        return workshop_play(report, hud, HEURISTIC_RULES.get(hud.title, ()))
    except KeyError:  # the station it would go to is hidden (under name plates): no answer this step
        return None
