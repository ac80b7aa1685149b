"""A scripted suite-game player that reads only the request: the frame (the image part), the HUD line sent
beside it, and the prompt's words. What the policy server answers suite-game prompts with under
`policy=pixels` (issue 41: a pixel player checks that a reader can play from the screen).

It never sees the text view, the state vector or the game's code: it finds each kind on the frame by the
colour the prompt's legend gives ("What you see on the frame": `- blue (#326ef0) disc labelled "YOU": you`,
`SuiteGame.legend`), picks the rows it needs by their words (the row labelled YOU, the row whose meaning
says "warned tile"), takes the level's numbers from the prompt's `### Level rules`, builds the facts the text
stand-in reads (`games_text.py`: a Tilefall map and your place; the duel's offsets; the runner's footing)
and decides with that stand-in's own functions. A game it cannot read yet gets None (the caller answers
the no-op).

Covered: Tilefall (the map read tile by tile off the grout lattice), Duel (your disc, the rival's and the
platform's edges; metres from the fighter's radius in the level rules) and Runner (your square and the
platform under it; metres from the square's height the legend gives). The first-person games
(Monsters, Parkour, Crystal) are read in `games_pixels_fp.py`, off the radar and the view; the top-down
walker games (Escape, Errands, Workshop, Kitchen) in `games_pixels_walk.py`. The others are not covered
(docs/games.md, "A pixel player").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rtarena.agents.llm.prompts import LEVEL_RULES_HEADING
from rtarena.envs.arena.rules import read_rules_text
from rtarena.envs.games.reports import Hud, RunnerReport, TilefallReport
from rtarena.policy_server.arena_pixels import frames
from rtarena.policy_server.games_text import HEURISTIC_RULES, Play, duel_play, runner_play, tilefall_play

_ROW = re.compile(r'^- (?P<word>[\w ]+?) \(#(?P<hex>[0-9a-f]{6})\) (?P<shape>\w+)'
                  r'(?: labelled "(?P<label>[^"]*)")?: (?P<meaning>.*)$', re.M)
_HUD = re.compile(r"time left (?P<left>[\d.]+) s \| score (?P<score>[\d.]+) \| (?P<status>[^\n]*)")
COLOR_TOLERANCE = 14  # a pixel within this of a legend colour on every channel is that kind (no blending)
LINE_SHARE = 0.5  # a column (row) of the floor this much grout, against the fullest one, is a grout line


@dataclass(frozen=True)
class Row:
    """One line of the prompt's legend: the colour (RGB), shape, label and meaning of a drawn kind."""

    rgb: tuple[int, int, int]
    shape: str
    label: str
    meaning: str


def read_legend(system: str) -> list[Row]:
    """The legend's rows in a system prompt (none when it has no legend, or one without exact colours)."""
    return [Row(tuple(int(m["hex"][i:i + 2], 16) for i in (0, 2, 4)), m["shape"], m["label"] or "",
                m["meaning"]) for m in _ROW.finditer(system)]


def find(rows: list[Row], label: str | None = None, meaning: str | None = None) -> Row | None:
    """The first row with this label, or whose meaning starts with these words."""
    return next((r for r in rows if (label is not None and r.label == label)
                 or (meaning is not None and r.meaning.startswith(meaning))), None)


def level_rules(system: str) -> dict[str, dict[str, Any]]:
    _, heading, after = system.partition(LEVEL_RULES_HEADING)
    return read_rules_text(after) if heading else {}


def read_hud_line(user: str, title: str) -> Hud | None:
    """The HUD line the request carries beside the frame (the `hud` view), with the game's title."""
    m = _HUD.search(user)
    return Hud(title, float(m["left"]), float(m["score"]), m["status"]) if m else None


def mask(rgb: np.ndarray, color: tuple[int, int, int], tolerance: int = COLOR_TOLERANCE) -> np.ndarray:
    """Pixels of this colour (every channel within `tolerance`)."""
    return (np.abs(rgb.astype(np.int16) - np.array(color, dtype=np.int16)) <= tolerance).all(axis=2)


def masks(rgb: np.ndarray, colors: list[tuple[int, int, int]], tolerance: int = COLOR_TOLERANCE) -> list[np.ndarray]:
    """`mask` for several colours at once: each distinct colour of the picture is compared once, not
    each pixel once per colour (a frame holds a few hundred colours)."""
    key = (rgb[..., 0].astype(np.int32) << 16) | (rgb[..., 1].astype(np.int32) << 8) | rgb[..., 2]
    present, where = np.unique(key, return_inverse=True)
    palette = np.stack([present >> 16, (present >> 8) & 255, present & 255], axis=1)
    where = where.reshape(key.shape)
    return [(np.abs(palette - np.array(c)) <= tolerance).all(axis=1)[where] for c in colors]


def centre(where: np.ndarray) -> tuple[float, float] | None:
    """The centroid (x, y pixels) of a mask's pixels, None when empty."""
    ys, xs = np.nonzero(where)
    return (float(xs.mean()), float(ys.mean())) if xs.size else None


def hue_of(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hue (degrees) and saturation of pixels or colours (last axis RGB, 0-255)."""
    f = np.asarray(rgb, dtype=np.float32) / 255.0
    high, low = f.max(axis=-1), f.min(axis=-1)
    chroma = high - low
    r, g, b = f[..., 0], f[..., 1], f[..., 2]
    safe = np.where(chroma > 0, chroma, 1.0)
    hue = np.where(high == r, ((g - b) / safe) % 6, np.where(high == g, (b - r) / safe + 2, (r - g) / safe + 4)) * 60
    return hue, chroma / np.maximum(high, 1e-6)


def solid(where: np.ndarray, radius: int = 2) -> np.ndarray:
    """The mask eroded by a (2 radius + 1) square: a filled shape survives (shrunk), the one- to
    three-pixel lines of outlines and glyphs that share a dark colour with it do not."""
    out = np.zeros_like(where)
    found = box(where)
    if found is None:
        return out
    x0, y0, x1, y1 = found  # eroded only around the mask's pixels; past them counts as outside
    part = np.pad(where[y0:y1 + 1, x0:x1 + 1], radius)
    for axis in (0, 1):  # a square's erosion is one along each axis
        along = part.copy()
        for step in range(1, radius + 1):
            along &= np.roll(part, step, axis=axis) & np.roll(part, -step, axis=axis)
        part = along
    out[y0:y1 + 1, x0:x1 + 1] = part[radius:part.shape[0] - radius, radius:part.shape[1] - radius]
    return out


def box(where: np.ndarray) -> tuple[int, int, int, int] | None:
    """The bounding box (x0, y0, x1, y1 pixels, inclusive) of a mask's pixels, None when empty."""
    ys, xs = np.nonzero(where)
    return (int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())) if xs.size else None


def middle(where: np.ndarray) -> tuple[float, float] | None:
    """The middle of a mask's bounding box (x, y pixels): an icon's centre however its parts are weighted."""
    b = box(where)
    return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) if b else None


def hud_bottom(rgb: np.ndarray) -> int:
    """The first pixel row below the HUD strip (the legend's "strip at the top"): the rows from the top
    in the strip's colour (its top-left pixel's) at the left edge, where no text is written, and on a
    good part of the row."""
    plate = rgb[0, 0].astype(np.int16)
    edge = (np.abs(rgb[:, :3].astype(np.int16) - plate) <= 2).all(axis=(1, 2))
    rows = int(np.argmin(edge)) if not edge.all() else rgb.shape[0]
    on = (np.abs(rgb[:rows].astype(np.int16) - plate) <= 2).all(axis=2).mean(axis=1) > 0.2
    return int(np.argmin(on)) if not on.all() else rows


def lines(where: np.ndarray, axis: int) -> list[float]:
    """Centres of the grout lines along one axis: runs of columns (axis 0) or rows (axis 1) that hold
    at least `LINE_SHARE` of the fullest one's grout pixels."""
    counts = where.sum(axis=axis)
    if counts.max() == 0:
        return []
    hits = np.flatnonzero(counts >= LINE_SHARE * counts.max())
    runs = np.split(hits, np.flatnonzero(np.diff(hits) > 1) + 1)
    return [float(run.mean()) for run in runs if run.size]


# ---- tilefall -----------------------------------------------------------------------------------------------

def tilefall(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """The floor read off the frame: the grout lines (the legend's grout colour) give the tile lattice,
    each tile's middle says solid, warned (the warned colour's hue, however dark) or a hole (the hole
    colour), and your disc (the row labelled YOU) where you are; then `games_text.tilefall_play`."""
    you, grout = find(legend, label="YOU"), find(legend, meaning="the grout")
    warned, hole = find(legend, meaning="a warned tile"), find(legend, meaning="a hole")
    tile_m = float(rules.get("floor", {}).get("tile_m", 0.0))
    if None in (you, grout, warned, hole) or tile_m <= 0:
        return None
    on_grout = mask(rgb, grout.rgb, 6)
    xs, ys = lines(on_grout, 0), lines(on_grout, 1)
    if len(xs) < 2 or len(ys) < 2:
        return None
    step = float(np.median(np.concatenate([np.diff(xs), np.diff(ys)])))
    size = int(rules.get("floor", {}).get("size", 0))  # the floor's tiles a side, from the level rules
    cols = nrows = size or max(round((xs[-1] - xs[0]) / step), round((ys[-1] - ys[0]) / step))
    x0, y1 = xs[0], ys[-1]  # the floor's west edge and its south edge (pixel rows grow southward); where an
    # edge column or row is gone the lattice starts at the next one, and cells past the floor read as holes
    warned_hue = float(hue_of(np.array(warned.rgb))[0])
    grid = np.full((cols, nrows), ".", dtype="<U1")
    pad = max(1, round(step * 0.15))
    for c in range(cols):
        for r in range(nrows):
            cx, cy = x0 + (c + 0.5) * step, y1 - (r + 0.5) * step
            patch = rgb[max(int(cy) - pad, 0):int(cy) + pad + 1, max(int(cx) - pad, 0):int(cx) + pad + 1].reshape(-1, 3)
            if patch.size == 0:  # past the frame: a west or south column gone entirely shifts the lattice
                grid[c, r] = "_"
                continue
            middle = np.median(patch, axis=0)
            hue, sat = hue_of(middle)
            if np.abs(middle - np.array(hole.rgb)).max() <= 2 * COLOR_TOLERANCE:
                grid[c, r] = "_"
            elif sat >= 0.3 and abs((float(hue) - warned_hue + 180) % 360 - 180) <= 15:
                grid[c, r] = "!"
    body = centre(mask(rgb, you.rgb))
    if body is None:
        return None
    x, y = (body[0] - x0) / step * tile_m, (y1 - body[1]) / step * tile_m
    here = (int(np.clip(x // tile_m, 0, cols - 1)), int(np.clip(y // tile_m, 0, nrows - 1)))
    warned_tiles = {(int(c), int(r)): 0.0 for c, r in np.argwhere(grid == "!")}
    grid[here] = "P"
    report = TilefallReport(pos=(float(x), float(y)), warned=warned_tiles, grid=grid)
    return tilefall_play(report, hud, HEURISTIC_RULES.get("Tilefall", ()))


# ---- duel ---------------------------------------------------------------------------------------------------

_SIDES = {"west": (-1.0, 0.0), "east": (1.0, 0.0), "south": (0.0, -1.0), "north": (0.0, 1.0)}


def duel(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """Your disc and the rival's (the rows labelled YOU and RIVAL); metres from your disc's size against
    the fighter's radius in the level rules (the disc is drawn somewhat larger than the body, so distances
    read short: it strikes a little early and keeps farther from edges); the nearest edge: how far from you
    the void's colour begins in each of the four directions; then `games_text.duel_play`."""
    you, rival = find(legend, label="YOU"), find(legend, label="RIVAL")
    void = find(legend, meaning="the void")
    radius_m = float(rules.get("fighter", {}).get("radius_m", 0.0))
    if None in (you, rival, void) or radius_m <= 0 or hud is None:
        return None
    mine, theirs = mask(rgb, you.rgb), mask(rgb, rival.rgb)
    me, them = centre(mine), centre(theirs)
    if me is None:
        return None
    ys, xs = np.nonzero(mine)
    px_per_m = max(xs.max() - xs.min() + 1, ys.max() - ys.min() + 1) / (2 * radius_m)
    at = ((them[0] - me[0]) / px_per_m, (me[1] - them[1]) / px_per_m) if them else (0.0, 0.0)
    ground = ~mask(rgb, void.rgb)  # labels and decoration stand on the platform: only the void ends it
    edges = {}
    cx, cy = int(me[0]), int(me[1])
    for name, (ux, uy) in _SIDES.items():
        run = 0
        while True:
            x, y = cx + int(ux * run), cy - int(uy * run)
            if not (0 <= x < rgb.shape[1] and 0 <= y < rgb.shape[0]):
                break
            window = ground[max(0, y - 2):y + 3, max(0, x - 2):x + 3]
            if not window.any():
                break
            run += 1
        edges[name] = run / px_per_m
    edge = min(edges, key=edges.get)
    return duel_play(hud, at, edge, edges[edge], HEURISTIC_RULES.get("Duel", ()))


# ---- runner2d -----------------------------------------------------------------------------------------------

_TALL = re.compile(r"a square (?P<m>[\d.]+) m tall")


def runner(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """Your square (the row labelled YOU: its own colour standing, lighter in the air) gives metres (the
    legend says how tall it is); the platform under your feet (the platform or crumbling colour, either
    shade of its bricks) how far it runs ahead; then `games_text.runner_play`."""
    you = find(legend, label="YOU")
    grounds = [r for r in (find(legend, meaning="a platform"), find(legend, meaning="a crumbling")) if r]
    tall = _TALL.search(you.meaning) if you else None
    if you is None or not grounds or tall is None:
        return None
    body = mask(rgb, you.rgb)
    standing = body.sum() > 0
    if not standing:  # airborne: drawn lighter (every channel raised), found by its hue instead
        hue, sat = hue_of(rgb)
        want = float(hue_of(np.array(you.rgb))[0])
        body = (np.abs((hue - want + 180) % 360 - 180) <= 10) & (sat >= 0.3)
    ys, xs = np.nonzero(body)
    if xs.size == 0:
        return None
    px_per_m = (ys.max() - ys.min() + 1) / float(tall["m"])
    below = slice(ys.max() + 1, min(ys.max() + 2 + round(0.3 * px_per_m), rgb.shape[0]))  # under the outline
    bricks = np.zeros((below.stop - below.start, rgb.shape[1]), dtype=bool)
    for look in grounds:  # a platform's bricks: its colour and a darker shade of it
        for shade in (1.0, 0.85):
            bricks |= mask(rgb[below], tuple(int(c * shade) for c in look.rgb))
    under = np.flatnonzero(bricks[:, xs.min():xs.max() + 1].any(axis=1))
    brick = bricks[under[0]] if under.size else np.zeros(rgb.shape[1], dtype=bool)
    centre_x, edge_m = round(xs.mean()), None
    if under.size:
        run = centre_x
        while run + 1 < brick.size and brick[run + 1 : run + 4].any():
            run += 1
        edge_m = (run - centre_x) / px_per_m
    report = RunnerReport(x_m=0.0, height_m=0.0, standing=standing, edge_ahead_m=edge_m, next_platforms=())
    return runner_play(report, HEURISTIC_RULES.get("Runner", ()))


from rtarena.policy_server import games_pixels_fp as first_person  # noqa: E402  (its readers use the helpers above)
from rtarena.policy_server import games_pixels_walk as walker  # noqa: E402  (so do these)

READERS: dict[str, Callable[[np.ndarray, list[Row], dict, Hud | None], Play | None]] = {
    "Tilefall": tilefall, "Duel": duel, "Runner": runner,
    "Monsters": first_person.monsters,
    "Parkour": first_person.parkour,
    "Crystal": first_person.crystal,
    "Escape": walker.escape,
    "Errands": walker.errands,
    "Workshop": walker.workshop,
    "Kitchen": walker.workshop,
}


def decide(system: str, parts: list[dict[str, Any]]) -> Play | None:
    """The chunk and note for a suite-game request from its frame, HUD line and prompt, or None when the
    request has no frame, the prompt no legend with colours, or the game is not one this player reads."""
    rgb, _ = frames(parts)
    legend = read_legend(system)
    rules = level_rules(system)
    title = str(rules.get("game", {}).get("title", ""))
    reader = READERS.get(title)
    if rgb is None or not legend or reader is None:
        return None
    user = "\n".join(p.get("text", "") for p in parts if p.get("type") == "text")
    return reader(rgb, legend, rules, read_hud_line(user, title))

