"""The legend-driven frame reader every suite-game pixel player shares (`games_pixels.py`, `games_pixels_fp.py`,
`games_pixels_walk.py`): the prompt's legend rows ("What you see on the frame", each with its exact `#rrggbb`),
the level rules and HUD line the request carries, and colour masks over the frame. Apart from the readers so
that they import it, and the dispatch imports them, with no circle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from rtarena.agents.llm.prompts import LEVEL_RULES_HEADING
from rtarena.envs.arena.rules import read_rules_text
from rtarena.envs.games.reports import Hud
from rtarena.envs.search import breadth_first, grid

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


def hsv(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hue (degrees), saturation and value (0..1) of pixels or colours (last axis RGB, 0-255): computed once
    per frame by a reader that looks for several colours in it."""
    f = np.asarray(rgb, dtype=np.float32) / 255.0
    high, low = f.max(axis=-1), f.min(axis=-1)
    chroma = high - low
    r, g, b = f[..., 0], f[..., 1], f[..., 2]
    safe = np.where(chroma > 0, chroma, 1.0)
    hue = np.where(high == r, ((g - b) / safe) % 6, np.where(high == g, (b - r) / safe + 2, (r - g) / safe + 4)) * 60
    return hue, chroma / np.maximum(high, 1e-6), high


def hue_of(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hue (degrees) and saturation of pixels or colours (last axis RGB, 0-255)."""
    return hsv(rgb)[:2]


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


def blobs(where: np.ndarray) -> list[np.ndarray]:
    """The 8-connected pixel groups of a mask, each as an (n, 2) array of (x, y)."""
    left = {(int(x), int(y)) for y, x in np.argwhere(where)}
    steps = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
    neighbours = grid(where.shape[::-1], lambda c: bool(where[c[1], c[0]]), steps)
    found = []
    while left:
        group = breadth_first([next(iter(left))], neighbours)
        left -= set(group)
        found.append(np.array(list(group), dtype=float))
    return found
