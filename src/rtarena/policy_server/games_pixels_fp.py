"""The pixel player's readers for the first-person games (monsters, parkour3d, crystal): what
`games_pixels.py` dispatches to for them. Each reads the request alone, as that module's readers do: the
frame, the HUD line, the prompt's legend (colours, the radar's) and its `### Level rules` (the field of view,
the arena's size), then decides with the text stand-in's own functions (`games_text.monsters_play`,
`parkour_play`, `crystal_play`).

Two parts of the frame carry what the text view says:
- the radar (the legend's row labelled RADAR or MAP, bottom right): the arena from above, y up, you the white
  dot and a smaller white dot where you face; it gives each thing's distance and bearing, in view or not.
  Its scale comes from the level rules (the arena's side; the crystal field's width); the parkour course's
  map has no stated size, so its scale is read off its platforms against the rules' platform sizes;
- the first-person view: a kind's sprite found by the legend colour's hue (fog fades it, keeping the hue),
  its column turned into a bearing with the field of view (`arena_pixels.bearing`), finer than the radar's
  facing dot allows; a monster's absence where the radar puts it says it is out of sight.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rtarena.envs.games.reports import Hud
from rtarena.policy_server.arena_pixels import LevelNumbers, bearing, hue_mask
from rtarena.policy_server.frame_legend import Row, blobs, find, hue_of, mask
from rtarena.policy_server.games_text import HEURISTIC_RULES, Play, crystal_play, monsters_play, parkour_play

RADAR_TOLERANCE = 6  # the radar's plate is drawn flat: its colour within this on every channel
RADAR_SHARE = 0.5  # a column (row) this full of the plate's colour, against the fullest, is the radar's
WHITE = (255, 255, 255)  # the legend: "you the white dot" on the radar
MATCH_DEG = 8.0  # a sprite in view this near the bearing the radar gives is that thing
GAP_PX = 3  # sprite columns this close belong to one sprite
VIEW_M = 12.0  # a crystal within this is looked for in the view (its red through the haze: measured saturation 0.41
# at 11.9 m, under the 0.5 asked, and bricks' at 19 m; where none is found the radar's bearing stands)
MISS_COST = 3  # fitting the white dot: a covered pixel that is not white costs this many left-out white ones
FRAGMENT = 0.6  # a platform on the map narrower than this share of the usual side is a piece your dot left


@dataclass(frozen=True)
class Radar:
    """The radar read off a frame: its box (x0, y0, x1, y1 pixels), its scale, where you are on it and
    where you face (radians, y up)."""

    box: tuple[int, int, int, int]
    px_per_m: float
    me: tuple[float, float]
    facing: float

    def where(self, at: tuple[float, float]) -> tuple[float, float]:
        """A radar point's distance (m) and bearing (degrees, + right, as the text view's)."""
        dx, dy = at[0] - self.me[0], self.me[1] - at[1]
        turn = (self.facing - math.atan2(dy, dx) + math.pi) % (2 * math.pi) - math.pi
        return math.hypot(dx, dy) / self.px_per_m, math.degrees(turn)


def plate(rgb: np.ndarray, color: tuple[int, int, int]) -> tuple[int, int, int, int] | None:
    """The box of the radar's plate: the longest run of columns full of its colour, then the rows from the
    first to the last that are (dark pixels of the same colour elsewhere, text edges and shadows, are scattered
    and fall short)."""
    flat = mask(rgb, color, RADAR_TOLERANCE)
    box = []
    for axis in (0, 1):
        counts = flat.sum(axis=axis)
        if counts.max() == 0:
            return None
        hits = np.flatnonzero(counts >= RADAR_SHARE * counts.max())
        runs = np.split(hits, np.flatnonzero(np.diff(hits) > 1) + 1)
        run = max(runs, key=len) if axis == 0 else hits  # rows: what it holds (the course's band) thins some
        box.append((int(run[0]), int(run[-1]) + 1))
        if axis == 0:
            flat = flat[:, box[0][0]:box[0][1]]
    (x0, x1), (y0, y1) = box
    return x0, y0, x1, y1


def disc_fit(white: np.ndarray) -> tuple[float, float, float]:
    """The disc (centre y, x and radius, pixels) that best covers a white mask's main dot: a white pixel it
    leaves out costs 1, a pixel it covers that is not white costs `MISS_COST` (so extra white, a second dot
    or a bump on the rim, stays outside). Searched about the pixels deepest inside the white."""
    inner, outer = np.argwhere(white), np.argwhere(~np.pad(white, 1)) - 1
    depth = np.hypot(*(inner[:, None, :] - outer[None, :, :]).transpose(2, 0, 1)).min(axis=1)
    core = inner[depth >= depth.max() - 1.0]
    offsets = np.arange(-1.5, 1.51, 0.25)
    centres = np.unique((core[:, None, None, :] + np.stack(np.meshgrid(offsets, offsets, indexing="ij"), -1)
                         ).reshape(-1, 2), axis=0)
    radii = np.arange(1.0, depth.max() + 2.0, 0.25)
    ys, xs = np.indices(white.shape)
    best, fit = np.inf, (0.0, 0.0, 1.0)
    for r in radii:
        inside = (ys[None] - centres[:, 0, None, None]) ** 2 + (xs[None] - centres[:, 1, None, None]) ** 2 <= r * r
        cost = (white[None] & ~inside).sum(axis=(1, 2)) + MISS_COST * (~white[None] & inside).sum(axis=(1, 2))
        k = int(np.argmin(cost))
        if cost[k] < best:
            best, fit = float(cost[k]), (float(centres[k, 0]), float(centres[k, 1]), float(r))
    return fit


def read_radar(rgb: np.ndarray, row: Row, px_per_m) -> Radar | None:
    """The radar in the legend row's colour; `px_per_m(box)` its scale from the box. You: the white dot (the
    disc that best covers the white); where you face: the small dot's middle where it lies apart, else the
    white outside that disc (a bump on its rim)."""
    box = plate(rgb, row.rgb)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    white = mask(rgb[y0:y1, x0:x1], WHITE, 30)
    ys, xs = np.nonzero(white)
    if xs.size < 2:
        return None
    crop = np.pad(white[ys.min():ys.max() + 1, xs.min():xs.max() + 1], 1)
    cy, cx, r = disc_fit(crop)
    groups = sorted(blobs(crop), key=len)
    if len(groups) >= 2:  # the small dot apart from yours: its own middle (the fit's rim leaves stray pixels)
        ahead = groups[-2]
        facing = math.atan2(cy - ahead[:, 1].mean(), ahead[:, 0].mean() - cx)
    else:  # a bump on your dot's rim: the white outside the fitted disc
        iy, ix = np.nonzero(crop)
        beyond = np.hypot(iy - cy, ix - cx) > r
        if not beyond.any():
            return None
        facing = math.atan2(cy - iy[beyond].mean(), ix[beyond].mean() - cx)
    scale = px_per_m(box)
    me = (x0 + xs.min() - 1 + cx, y0 + ys.min() - 1 + cy)
    return Radar(box, scale, me, facing) if scale > 0 else None


def dots(rgb: np.ndarray, radar: Radar, color: tuple[int, int, int]) -> list[tuple[float, float, int]]:
    """The dots of a colour on the radar: centre (x, y pixels of the frame) and size (pixels)."""
    x0, y0, x1, y1 = radar.box
    return [(x0 + float(g[:, 0].mean()), y0 + float(g[:, 1].mean()), len(g))
            for g in blobs(mask(rgb[y0:y1, x0:x1], color))]


def sprites(rgb: np.ndarray, color: tuple[int, int, int], level: LevelNumbers, radar: Radar,
            saturation: float = 0.3) -> list[float]:
    """Bearings (degrees, + right) of the sprites of a colour in the first-person view: runs of columns
    holding its hue (the radar's box left out)."""
    hue = float(hue_of(np.array(color))[0])
    seen = hue_mask(rgb, hue, 0.25, saturation)
    x0, y0 = radar.box[:2]
    seen[y0:, x0:] = False
    columns = np.flatnonzero(seen.any(axis=0))
    runs = np.split(columns, np.flatnonzero(np.diff(columns) > GAP_PX) + 1) if columns.size else []
    return [-bearing(float(run.mean()), rgb.shape[1], level) for run in runs]


def numbers(rules: dict) -> LevelNumbers | None:
    """The first-person numbers of the level rules' `player` table (the field of view first)."""
    p = rules.get("player", {})
    if "fov_deg" not in p:
        return None
    return LevelNumbers(float(p["fov_deg"]), float(p.get("eye_m", 0.0)))


def in_view(deg: float, seen: list[float], level: LevelNumbers) -> float | None:
    """The bearing of the sprite in view that is the thing the radar puts at `deg`, None when none is."""
    if abs(deg) > level.fov_deg / 2 + MATCH_DEG / 2 or not seen:
        return None
    match = min(seen, key=lambda b: abs(b - deg))
    return match if abs(match - deg) <= MATCH_DEG else None


# ---- monsters -----------------------------------------------------------------------------------------------

def monsters(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """Each monster's green dot on the radar (its scale: the arena's side in the level rules) gives its
    distance and bearing; one whose shirt shows in the view near that bearing is in view, at the view's
    bearing; the rest are out of sight; then `games_text.monsters_play`."""
    monster, radar_row = find(legend, meaning="a monster"), find(legend, label="RADAR")
    side_m = float(rules.get("arena", {}).get("size_m", 0.0))
    level = numbers(rules)
    if None in (monster, radar_row, level, hud) or side_m <= 0:
        return None
    radar = read_radar(rgb, radar_row, lambda box: (box[2] - box[0]) / side_m)
    if radar is None:
        return None
    shirts = sprites(rgb, monster.rgb, level, radar)
    seen, unseen = [], []
    for x, y, _ in dots(rgb, radar, monster.rgb):
        dist, deg = radar.where((x, y))
        match = in_view(deg, shirts, level)
        (seen if match is not None else unseen).append((dist, deg if match is None else match))
    return monsters_play(seen, min(unseen, default=None), "gun ready" in hud.status,
                         HEURISTIC_RULES.get("Monsters", ()))


# ---- crystal ------------------------------------------------------------------------------------------------

def crystal(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """Their crystal: of the red dots on the radar (its scale: the field's width in the level rules), the one
    nearest the middle of a short end (crystals stand there; players roam); the line to it is blocked when a
    gate's grey or a pillar's brown lies on it on the radar (the two things the text view's `clear line`
    counts). In view within `VIEW_M` its bearing is the red sprite's near the radar's (finer than the facing
    dot), unless a red player nearer than it would overlap it there (their widths: the rules' radii at the
    radar's distances), so that the red shape is the player's. Your crystal the blue dot likewise; the red
    players in a clear line; then `games_text.crystal_play`."""
    theirs_row, mine_row = find(legend, meaning="their crystal"), find(legend, meaning="your crystal")
    gate, pillar = find(legend, meaning="a gate"), find(legend, meaning="a pillar")
    radar_row = find(legend, label="RADAR")
    width_m = float(rules.get("field", {}).get("width_m", 0.0))
    level = numbers(rules)
    if None in (theirs_row, mine_row, gate, pillar, radar_row, level, hud) or width_m <= 0:
        return None
    radar = read_radar(rgb, radar_row, lambda box: (box[3] - box[1]) / width_m)
    if radar is None:
        return None
    x0, y0, x1, y1 = radar.box
    ends = [(x0, (y0 + y1) / 2), (x1, (y0 + y1) / 2)]
    solid = mask(rgb, gate.rgb, 10) | mask(rgb, pillar.rgb, 10)

    def to_end(dot: tuple[float, float, int]) -> float:
        return min(math.hypot(dot[0] - ex, dot[1] - ey) for ex, ey in ends)

    def clear(at: tuple[float, float]) -> bool:
        steps = max(2, 2 * int(math.hypot(at[0] - radar.me[0], at[1] - radar.me[1])))
        line = np.linspace(radar.me, at, steps)[1:-1].round().astype(int)
        return not solid[line[:, 1], line[:, 0]].any()

    reds, blues = dots(rgb, radar, theirs_row.rgb), dots(rgb, radar, mine_row.rgb)
    if not reds:
        return None
    target = min(reds, key=to_end)
    dist, deg = radar.where(target[:2])
    players = [radar.where(r[:2]) for r in reds if r is not target]
    radius = {kind: float(rules.get(kind, {}).get("radius_m", 0.0)) for kind in ("crystal", "player")}
    half = math.degrees(math.atan2(radius["crystal"], max(dist, 0.1)))
    before = any(d < dist and abs(b - deg) <= half + math.degrees(math.atan2(radius["player"], max(d, 0.1)))
                 for d, b in players)
    if abs(deg) <= level.fov_deg / 2 - 2 and dist <= VIEW_M and not before:
        match = in_view(deg, sprites(rgb, theirs_row.rgb, level, radar, saturation=0.5), level)
        deg = deg if match is None else match
    home = radar.where(min(blues, key=to_end)[:2]) if blues else None
    foes = [radar.where(r[:2]) for r in reds if r is not target and clear(r[:2])]
    return crystal_play(hud, (dist, deg), clear(target[:2]), home, foes, HEURISTIC_RULES.get("Crystal", ()))


# ---- parkour3d ----------------------------------------------------------------------------------------------

def parkour(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """The course map (the row labelled MAP): each platform a brown or grey rectangle. Its scale: the
    platforms' drawn sides against the middle of the level rules' platform sizes (the map states none).
    The platforms are put in course order by chaining nearest neighbours from an end; the HUD's "platform k"
    says which end is the start (you stand on the k-th) and the next is the one after yours; in the air, the
    one under you in front, else the nearest in front of you (not a sliver your dot leaves of one). Its
    bearing is refined by the nearest crate in view (`nearest_crate`). Then `games_text.parkour_play` with
    its centre and its narrower side."""
    kinds = [r for r in (find(legend, meaning="a platform"), find(legend, meaning="a checkpoint")) if r]
    map_row = find(legend, label="MAP")
    sizes = rules.get("course", {}).get("size_m")
    if not kinds or map_row is None or hud is None or not sizes:
        return None
    box = plate(rgb, map_row.rgb)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    inside = np.zeros((y1 - y0, x1 - x0), dtype=bool)
    for kind in kinds:
        inside |= mask(rgb[y0:y1, x0:x1], kind.rgb, 10)
    rects = [(g[:, 0].min(), g[:, 1].min(), g[:, 0].max() + 1, g[:, 1].max() + 1) for g in blobs(inside) if len(g) >= 4]
    if len(rects) < 2:
        return None
    drawn = np.median([s for r in rects for s in (r[2] - r[0], r[3] - r[1])])
    radar = read_radar(rgb, map_row, lambda _: drawn / float(np.mean(sizes)))
    if radar is None:
        return None
    centres = np.array([((r[0] + r[2]) / 2 + x0, (r[1] + r[3]) / 2 + y0) for r in rects])
    chain = [int(np.argmax(np.hypot(*(centres - centres.mean(axis=0)).T)))]
    while len(chain) < len(rects):
        left = [i for i in range(len(rects)) if i not in chain]
        chain.append(min(left, key=lambda i: float(np.hypot(*(centres[i] - centres[chain[-1]])))))
    mx, my = radar.me[0] - x0, radar.me[1] - y0
    under = [k for k, i in enumerate(chain) if rects[i][0] - 1 <= mx <= rects[i][2] + 1
             and rects[i][1] - 1 <= my <= rects[i][3] + 1]
    on = hud.status.split(" of ")[0]
    standing = on.startswith("platform")
    if standing and under:
        k = int(on.split()[-1])
        here = under[0]
        forward = abs(here - k) <= abs(len(chain) - 1 - here - k)
        nxt = here + 1 if forward else here - 1
        if not 0 <= nxt < len(chain):
            return None
        target = chain[nxt]
    else:
        whole = [i for i, r in enumerate(rects) if min(r[2] - r[0], r[3] - r[1]) >= FRAGMENT * drawn]
        ahead = [i for i in whole if abs(radar.where(tuple(centres[i]))[1]) <= 90]
        landing = [chain[k] for k in under if abs(radar.where(tuple(centres[chain[k]]))[1]) <= 90]
        if not ahead and not landing:
            return None
        target = landing[0] if landing else min(ahead, key=lambda i: radar.where(tuple(centres[i]))[0])
    rect = rects[target]
    narrow = min(rect[2] - rect[0], rect[3] - rect[1]) / radar.px_per_m
    dist, deg = radar.where(tuple(centres[target]))
    level = numbers(rules)
    if level is not None:  # the map's facing dot is a bump of a pixel or two: the view's crates are finer
        deg = nearest_crate(rgb, kinds[0].rgb, level, radar, deg) or deg
    return parkour_play((dist, deg), narrow, standing, HEURISTIC_RULES.get("Parkour", ()))


def nearest_crate(rgb: np.ndarray, color: tuple[int, int, int], level: LevelNumbers, radar: Radar,
                  deg: float) -> float | None:
    """The bearing (degrees, + right) of the nearest platform in view near the map's bearing `deg`: of the
    run of crate-coloured columns there, the columns of its lowest rows (the course lies below the eye, so
    the nearer a platform the lower it shows)."""
    hue = float(hue_of(np.array(color))[0])
    seen = hue_mask(rgb, hue, 0.25, 0.3)
    seen[radar.box[1]:, radar.box[0]:] = False
    columns = np.flatnonzero(seen.any(axis=0))
    if columns.size == 0:
        return None
    runs = np.split(columns, np.flatnonzero(np.diff(columns) > GAP_PX) + 1)
    bearings = [-bearing(float(run.mean()), rgb.shape[1], level) for run in runs]
    k = int(np.argmin([abs(b - deg) for b in bearings]))
    if abs(bearings[k] - deg) > 2 * MATCH_DEG:
        return None
    ys, xs = np.nonzero(seen[:, runs[k][0]:runs[k][-1] + 1])
    low = ys >= ys.max() - 0.25 * (ys.max() - ys.min())
    return -bearing(runs[k][0] + float(xs[low].mean()), rgb.shape[1], level)
