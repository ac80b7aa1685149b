"""The suite's compiled 2D renderer: a game lists shapes, icons and text in world units, compiled calls paint them.

A `Canvas` maps a world rectangle (metres or tiles, y up) onto the part of an `(H, W, 3)` image below the HUD
strip, one scale for both axes (centred), so a square stays square. Games add primitives in painting order
(filled rectangles, discs, rings, diamonds, triangles, hexagons, checkered floors), icons (a row of the game's
drawables table, `levels/drawables/<game>.toml`: `icon()` composes its shape from primitives, each outlined in
dark so it stands out from a textured floor) and text (labels anchored in the world, the HUD strip's lines).
`paint()` draws the shapes in one numba call and the text in one more per font size, so a frame costs a few
Python-to-compiled crossings however much it holds. Glyphs come from Pillow's built-in scalable font,
rasterised once per pixel size into an atlas that the compiled blitter copies from.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from numba import njit

RECT, DISC, RING, DIAMOND, TRIANGLE, HEXAGON, CHECKER, ICON = range(8)
FIELDS = 7  # a shape row: kind, five numbers, and a shade (CHECKER's second colour as a factor)
OUTLINE = (24, 24, 30)
HUD_PLATE = (238, 238, 230)
HUD_INK = (12, 12, 16)
LABEL_PLATE = (255, 236, 150)
LABEL_INK = (10, 10, 10)
HUD_FONT, LABEL_FONT = 0.036, 0.036  # font sizes as shares of the image's side (18 px at 512)


@njit(cache=True, nogil=True)
def _primitive(img, kind, a, b, c, d, e, shade, r, g, bl):
    """One primitive in pixels: a rectangle or checker (a, b)-(c, d) (checker cells `e` px, every other one
    `shade` darker), else a disc, ring (inner radius d), diamond, triangle or hexagon centred (a, b) of
    radius c."""
    h, w = img.shape[0], img.shape[1]
    if kind == 0 or kind == 6:
        xa, ya = max(int(np.floor(a)), 0), max(int(np.floor(b)), 0)
        xb, yb = min(int(np.ceil(c)), w), min(int(np.ceil(d)), h)
        cell = max(e, 1.0)
        odd = np.zeros(max(xb - xa, 0), dtype=np.int64)  # each column's checker parity, once per shape
        if kind == 6:
            for x in range(xa, xb):
                odd[x - xa] = int((x - a) // cell) % 2
        for y in range(ya, yb):
            row = int((y - b) // cell) % 2 if kind == 6 else 0
            for x in range(xa, xb):
                if kind == 6 and (row + odd[x - xa]) % 2 == 1:
                    img[y, x, 0], img[y, x, 1], img[y, x, 2] = int(r * shade), int(g * shade), int(bl * shade)
                else:
                    img[y, x, 0], img[y, x, 1], img[y, x, 2] = r, g, bl
        return
    ya, yb = max(int(np.floor(b - c)), 0), min(int(np.ceil(b + c)) + 1, h)
    xa, xb = max(int(np.floor(a - c)), 0), min(int(np.ceil(a + c)) + 1, w)
    for y in range(ya, yb):
        for x in range(xa, xb):
            dx, dy = x + 0.5 - a, y + 0.5 - b
            if kind == 1:
                inside = dx * dx + dy * dy <= c * c
            elif kind == 2:
                d2 = dx * dx + dy * dy
                inside = d2 <= c * c and d2 >= d * d
            elif kind == 3:
                inside = abs(dx) + abs(dy) <= c
            elif kind == 4:  # pointing up: apex at b - c, base at b + c
                inside = dy <= c and abs(dx) <= (dy + c) * 0.5
            else:
                ax, ay = abs(dx), abs(dy)
                inside = ay <= c * 0.866 and ax * 0.866 + ay * 0.5 <= c * 0.866
            if inside:
                img[y, x, 0], img[y, x, 1], img[y, x, 2] = r, g, bl


@njit(cache=True, nogil=True)
def _paint(img, shapes, colors, background, fill, icons, parts_of, outline):
    """Shapes: rows (kind, a, b, c, d, e, shade) in pixels. An ICON row (kind 7, centre a, b, half size c,
    icon d, outlined when e) is expanded here from the icon table (`icons[d, :parts_of[d]]`: kind, dx, dy,
    p, q, shade per part, at unit size): every part outlined in `outline` first, then filled."""
    h, w = img.shape[0], img.shape[1]
    if fill:
        for y in range(h):
            for x in range(w):
                img[y, x, 0], img[y, x, 1], img[y, x, 2] = background[0], background[1], background[2]
    for i in range(shapes.shape[0]):
        kind = int(shapes[i, 0])
        r, g, b = colors[i, 0], colors[i, 1], colors[i, 2]
        if kind != 7:
            _primitive(img, kind, shapes[i, 1], shapes[i, 2], shapes[i, 3], shapes[i, 4], shapes[i, 5],
                       shapes[i, 6], r, g, b)
            continue
        cx, cy, rad, icon = shapes[i, 1], shapes[i, 2], shapes[i, 3], int(shapes[i, 4])
        edge = max(1.0, rad * 0.12)
        for fills in range(0 if shapes[i, 5] > 0 else 1, 2):
            grow = 0.0 if fills else edge
            for k in range(parts_of[icon]):
                part = int(icons[icon, k, 0])
                dx, dy = icons[icon, k, 1] * rad, icons[icon, k, 2] * rad
                p, q, shade = icons[icon, k, 3] * rad, icons[icon, k, 4] * rad, icons[icon, k, 5]
                if not fills or shade == 0.0:
                    tr, tg, tb = outline[0], outline[1], outline[2]
                else:
                    tr, tg, tb = min(int(r * shade), 255), min(int(g * shade), 255), min(int(b * shade), 255)
                if part == 0:
                    _primitive(img, 0, cx + dx - grow, cy + dy - grow, cx + p + grow, cy + q + grow, 0.0, 1.0,
                               tr, tg, tb)
                else:
                    inner = max(q - grow, 0.0) if part == 2 else q
                    _primitive(img, part, cx + dx, cy + dy, p + grow, inner, 0.0, 1.0, tr, tg, tb)


@njit(cache=True, nogil=True)
def _texts(img, atlas, advances, codes, starts, xs, ys, inks, plates, plated, pad):
    """Each text t: codes[starts[t]:starts[t + 1]] from (xs[t], ys[t]) (top left), on a plate when `plated`."""
    h, w = img.shape[0], img.shape[1]
    gh, gw = atlas.shape[1], atlas.shape[2]
    for t in range(xs.shape[0]):
        width = 0
        for k in range(starts[t], starts[t + 1]):
            width += advances[codes[k]]
        x0, y0 = int(xs[t]), int(ys[t])
        if plated[t]:
            for y in range(max(y0 - pad, 0), min(y0 + gh + pad, h)):
                for x in range(max(x0 - pad, 0), min(x0 + width + pad, w)):
                    img[y, x, 0] = plates[t, 0]
                    img[y, x, 1] = plates[t, 1]
                    img[y, x, 2] = plates[t, 2]
        x = x0
        for k in range(starts[t], starts[t + 1]):
            code = codes[k]
            for gy in range(gh):
                py = y0 + gy
                if py < 0 or py >= h:
                    continue
                for gx in range(gw):
                    a = atlas[code, gy, gx]
                    px = x + gx
                    if a == 0 or px < 0 or px >= w:
                        continue
                    for ch in range(3):
                        img[py, px, ch] = (a * inks[t, ch] + (255 - a) * img[py, px, ch]) // 255
            x += advances[code]


@cache
def font_atlas(px: int) -> tuple[np.ndarray, np.ndarray]:
    """Printable ASCII rasterised at `px` pixels, emboldened: masks `(95, height, width)` and advances, from
    Pillow's built-in scalable font (one rasterisation per size; the blitter is compiled)."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=px)
    ascent, descent = font.getmetrics()
    chars = [chr(c) for c in range(32, 127)]
    bold = max(1, px // 14)  # strokes thickened by this many pixels: thin strokes blur when a frame shrinks
    advances = np.array([max(1, round(font.getlength(c))) + bold for c in chars], dtype=np.int64)
    width = int(max(font.getbbox(c)[2] for c in chars)) + 1 + bold
    atlas = np.zeros((len(chars), ascent + descent, width), dtype=np.uint8)
    for i, c in enumerate(chars):
        mask = Image.new("L", (width, ascent + descent), 0)
        ImageDraw.Draw(mask).text((0, 0), c, font=font, fill=255)
        glyph = np.asarray(mask)
        atlas[i] = np.max([np.roll(glyph, k, axis=1) for k in range(bold + 1)], axis=0)
    return atlas, advances


ATLAS_ROW = np.clip(np.arange(256) - 32, 0, 94)  # byte -> atlas row (outside printable ASCII: space or `~`)


def _codes(text: str) -> np.ndarray:
    """Atlas rows of a text's characters."""
    return ATLAS_ROW[np.frombuffer(text.encode("ascii", "replace"), dtype=np.uint8)]


def text_width(text: str, px: int) -> int:
    return int(font_atlas(px)[1][_codes(text)].sum())


def darker(color, factor: float = 0.6) -> tuple[int, int, int]:
    return tuple(int(c * factor) for c in color)


def _icon_table(r: float = 1.0) -> dict[str, list[tuple[float, ...]]]:
    """Each icon as primitives around its centre for a half size of `r` pixels (y down): (kind, dx, dy, a, b,
    shade); shade scales the icon's colour for a detail (0 = the outline's dark). Every number is linear in
    `r`, so the table is built once at r = 1 and scaled per icon."""
    return {
        "square": [(RECT, -r, -r, r, r, 1.0)],
        "disc": [(DISC, 0, 0, r, 0, 1.0)],
        "ring": [(RING, 0, 0, r, r * 0.55, 1.0)],
        "diamond": [(DIAMOND, 0, 0, r * 1.2, 0, 1.0)],
        "triangle": [(TRIANGLE, 0, 0, r * 1.1, 0, 1.0)],
        "hexagon": [(HEXAGON, 0, 0, r, 0, 1.0)],
        "gear": [*[(DISC, r * 0.8 * np.cos(a), r * 0.8 * np.sin(a), r * 0.3, 0, 1.0)
                   for a in np.linspace(0, 2 * np.pi, 8, endpoint=False)],
                 (DISC, 0, 0, r * 0.8, 0, 1.0), (DISC, 0, 0, r * 0.3, 0, 0.0)],
        "spring": [(RING, 0, dy, r * 0.55, r * 0.3, 1.0) for dy in (-r * 0.55, 0.0, r * 0.55)],
        "bolt": [(HEXAGON, 0, 0, r, 0, 1.0), (DISC, 0, 0, r * 0.4, 0, 0.45)],
        "valve": [(RING, 0, 0, r, r * 0.7, 1.0), (RECT, -r * 0.8, -r * 0.12, r * 0.8, r * 0.12, 1.0),
                  (RECT, -r * 0.12, -r * 0.8, r * 0.12, r * 0.8, 1.0)],
        "cross": [(RECT, -r, -r * 0.3, r, r * 0.3, 1.0), (RECT, -r * 0.3, -r, r * 0.3, r, 1.0)],
        "crate": [(RECT, -r, -r, r, r, 1.0), (RECT, -r * 0.7, -r * 0.7, r * 0.7, r * 0.7, 0.75),
                  (RECT, -r * 0.7, -r * 0.1, r * 0.7, r * 0.1, 1.0)],
        "bin": [(RECT, -r, -r * 0.7, r, r, 1.0), (RECT, -r * 1.1, -r, r * 1.1, -r * 0.6, 0.6)],
        "bench": [(RECT, -r * 1.2, -r * 0.7, r * 1.2, r * 0.7, 1.0), (RECT, -r * 1.0, -r * 0.5, r * 1.0, r * 0.5, 0.8)],
        "counter": [(RECT, -r * 1.2, -r * 0.8, r * 1.2, r * 0.8, 1.0),
                    *[(RECT, -r * 1.2, y - r * 0.08, r * 1.2, y + r * 0.08, 0.6) for y in (-r * 0.4, 0.0, r * 0.4)]],
        "trash": [(RECT, -r * 0.8, -r * 0.6, r * 0.8, r, 1.0), (RECT, -r, -r * 0.9, r, -r * 0.6, 0.7),
                  *[(RECT, x - r * 0.07, -r * 0.4, x + r * 0.07, r * 0.8, 0.5) for x in (-r * 0.4, 0.0, r * 0.4)]],
        "person": [(DISC, 0, -r * 0.55, r * 0.45, 0, 1.0), (RECT, -r * 0.6, -r * 0.1, r * 0.6, r, 1.0)],
        "key": [(RING, -r * 0.5, 0, r * 0.5, r * 0.25, 1.0), (RECT, -r * 0.05, -r * 0.12, r, r * 0.12, 1.0),
                (RECT, r * 0.55, 0, r * 0.7, r * 0.4, 1.0), (RECT, r * 0.85, 0, r, r * 0.4, 1.0)],
        "lever": [(RECT, -r, r * 0.4, r, r, 0.6), (RECT, -r * 0.12, -r, r * 0.12, r * 0.5, 1.0),
                  (DISC, 0, -r, r * 0.3, 0, 1.0)],
        "book": [(RECT, -r * 0.8, -r, r * 0.8, r, 1.0), (RECT, -r * 0.8, -r, -r * 0.5, r, 0.6)],
        "lamp": [(TRIANGLE, 0, -r * 0.3, r * 0.7, 0, 1.0), (RECT, -r * 0.1, r * 0.2, r * 0.1, r * 0.8, 0.6),
                 (RECT, -r * 0.5, r * 0.8, r * 0.5, r, 0.6)],
        "gem": [(DIAMOND, 0, 0, r, 0, 1.0), (DIAMOND, 0, 0, r * 0.45, 0, 1.3)],
        "map": [(RECT, -r, -r * 0.7, r, r * 0.7, 1.0), (RECT, -r * 0.5, -r * 0.7, -r * 0.35, r * 0.7, 0.7),
                (RECT, r * 0.35, -r * 0.7, r * 0.5, r * 0.7, 0.7)],
        "clock": [(DISC, 0, 0, r, 0, 1.0), (DISC, 0, 0, r * 0.75, 0, 1.8),
                  (RECT, -r * 0.06, -r * 0.6, r * 0.06, 0, 0.0), (RECT, 0, -r * 0.06, r * 0.45, r * 0.06, 0.0)],
        "vase": [(DISC, 0, r * 0.25, r * 0.7, 0, 1.0), (RECT, -r * 0.3, -r, r * 0.3, 0, 1.0)],
        "chest": [(RECT, -r, -r * 0.6, r, r * 0.8, 1.0), (RECT, -r, -r * 0.8, r, -r * 0.3, 0.7),
                  (RECT, -r * 0.15, -r * 0.3, r * 0.15, r * 0.1, 1.6)],
        "flag": [(RECT, -r * 0.08, -r, r * 0.08, r, 0.0), (RECT, r * 0.08, -r, r, -r * 0.3, 1.0)],
        "window": [(RECT, -r * 0.35, -r, r * 0.35, r, 1.0), (RECT, -r * 0.35, -r * 0.05, r * 0.35, r * 0.05, 0.5)],
        "plant": [*[(DISC, r * 0.5 * np.cos(a), r * 0.5 * np.sin(a), r * 0.5, 0, 1.0)
                    for a in np.linspace(0, 2 * np.pi, 5, endpoint=False)], (DISC, 0, 0, r * 0.35, 0, 0.7)],
        "stain": [(DISC, 0, 0, r, 0, 1.0), (DISC, r * 0.6, r * 0.3, r * 0.6, 0, 1.0)],
    }


_TABLE = _icon_table()
SHAPES = tuple(_TABLE)  # the shapes a drawables row may name
ICON_INDEX = {name: i for i, name in enumerate(SHAPES)}
ICON_PARTS = np.array([len(parts) for parts in _TABLE.values()], dtype=np.int64)
ICONS = np.zeros((len(SHAPES), int(ICON_PARTS.max()), 6), dtype=np.float64)  # unit-size parts, padded
for _i, _parts in enumerate(_TABLE.values()):
    ICONS[_i, : len(_parts)] = _parts
OUTLINE_RGB = np.array(OUTLINE, dtype=np.int64)




class Canvas:
    """Shapes, icons and text in world coordinates for one frame; `paint()` returns the image."""

    def __init__(self, size: int, x0: float, y0: float, x1: float, y1: float, background=(20, 20, 28),
                 top: int = 0) -> None:
        self.size = size
        self.top = top  # pixels at the top left to the HUD strip
        span_x, span_y = x1 - x0, y1 - y0
        self.scale = min(size / span_x, (size - top) / span_y)
        self.scale_x = self.scale_y = self.scale
        self.x0, self.y1 = x0, y1
        self.ox = (size - span_x * self.scale) / 2
        self.oy = top + (size - top - span_y * self.scale) / 2
        self.background = np.array(background, dtype=np.uint8)
        self.shapes: list[tuple[float, ...]] = []
        self.colors: list[tuple[int, int, int]] = []
        self.texts: dict[int, list[tuple[float, float, str, Any, Any]]] = {}
        self.plates: list[tuple[float, float, float, float]] = []  # label boxes placed so far (pixels)
        self.image: np.ndarray | None = None

    @classmethod
    def over(cls, image: np.ndarray) -> Canvas:
        """A canvas that paints over an existing picture (a first-person view); world units are pixels
        with y up."""
        canvas = cls(image.shape[0], 0.0, 0.0, float(image.shape[1]), float(image.shape[0]))
        canvas.image = image
        return canvas

    # -- coordinates -------------------------------------------------------------------------------
    def px(self, x: float, y: float) -> tuple[float, float]:
        return self.ox + (x - self.x0) * self.scale, self.oy + (self.y1 - y) * self.scale

    def visible(self, margin: float = 0.0) -> tuple[float, float, float, float]:
        """The world rectangle the image shows (x0, y0, x1, y1), grown by `margin` world units."""
        x1 = self.x0 + (self.size - self.ox) / self.scale
        y0 = self.y1 - (self.size - self.oy) / self.scale
        x0 = self.x0 - self.ox / self.scale
        y1 = self.y1 + (self.oy - self.top) / self.scale
        return x0 - margin, y0 - margin, x1 + margin, y1 + margin

    def font(self, share: float) -> int:
        return max(6, round(self.size * share))

    # -- primitives --------------------------------------------------------------------------------
    def _add(self, row: tuple[float, ...], color) -> None:
        self.shapes.append(row)
        self.colors.append(tuple(color))

    def rect(self, x0: float, y0: float, x1: float, y1: float, color) -> None:
        """A filled rectangle between world corners (any order)."""
        ax, ay = self.px(x0, y0)
        bx, by = self.px(x1, y1)
        self._add((RECT, min(ax, bx), min(ay, by), max(ax, bx), max(ay, by), 0.0, 1.0), color)

    def checker(self, x0: float, y0: float, x1: float, y1: float, color, cell_m: float, shade: float = 0.92) -> None:
        """A floor of `cell_m` squares (world metres), every other one `shade` darker: texture to look past."""
        ax, ay = self.px(x0, y0)
        bx, by = self.px(x1, y1)
        self._add((CHECKER, min(ax, bx), min(ay, by), max(ax, bx), max(ay, by), cell_m * self.scale, shade), color)

    def disc(self, x: float, y: float, radius: float, color) -> None:
        cx, cy = self.px(x, y)
        self._add((DISC, cx, cy, max(radius * self.scale, 1.0), 0.0, 0.0, 1.0), color)

    def rect_px(self, x0: float, y0: float, x1: float, y1: float, color) -> None:
        """A rectangle in image pixels (y down): HUD furniture."""
        self._add((RECT, x0, y0, x1, y1, 0.0, 1.0), color)

    # -- icons and text ----------------------------------------------------------------------------
    def icon(self, look: Any, x: float, y: float, radius_m: float, color=None, outline: bool = True) -> None:
        """A drawable kind (`look`: shape and colour from the game's table) centred at a world point,
        `radius_m` its half size: one row, expanded into its parts (outlined, then filled) when painted."""
        cx, cy = self.px(x, y)
        self._add((ICON, cx, cy, max(radius_m * self.scale, 2.0), ICON_INDEX[look.shape], float(outline), 1.0),
                  color if color is not None else look.color)

    def text_px(self, x: float, y: float, text: str, share: float = LABEL_FONT, ink=LABEL_INK,
                plate=LABEL_PLATE) -> None:
        """Text with its top left at image pixel (x, y), on a plate unless `plate` is None."""
        self.texts.setdefault(self.font(share), []).append((x, y, text, ink, plate))

    def label(self, text: str, x: float, y: float, share: float = LABEL_FONT, ink=LABEL_INK,
              plate=LABEL_PLATE, below_m: float = 0.9) -> None:
        """A name plate centred on a world point's column, its bottom just above the point, kept inside the
        image; where an earlier plate is in the way it goes `below_m` lower (under the object), then sideways
        (the last place tried is kept if all are taken)."""
        px = self.font(share)
        width = text_width(text, px)
        height = font_atlas(px)[0].shape[1]
        for dy, shift in ((0.0, 0.0), (-below_m, 0.0), (0.0, 0.6), (0.0, -0.6), (-below_m, 0.6), (-below_m, -0.6)):
            cx, cy = self.px(x, y + dy)
            left = min(max(cx - width / 2 + shift * width, 2.0), self.size - width - 2.0)
            top = min(max(cy - height - 2.0, self.top + 2.0), self.size - height - 2.0)
            box = (left - 2, top - 2, left + width + 2, top + height + 2)
            if not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in self.plates):
                break
        self.plates.append(box)
        self.text_px(left, top, text, share, ink, plate)

    def bar(self, fraction: float, color, row: int = 0) -> None:
        """A bar across the top of the image (row 0, 1 ...), `fraction` of the width filled."""
        h = max(2, self.size // 48)
        top = self.top + row * (h + 1)
        self.rect_px(0, top, self.size * min(max(fraction, 0.0), 1.0), top + h, color)

    def paint(self) -> np.ndarray:
        img = self.image if self.image is not None else np.empty((self.size, self.size, 3), dtype=np.uint8)
        shapes = np.array(self.shapes, dtype=np.float64).reshape(-1, FIELDS)
        colors = np.clip(np.array(self.colors, dtype=np.int64).reshape(-1, 3), 0, 255).astype(np.uint8)
        _paint(img, shapes, colors, self.background, self.image is None, ICONS, ICON_PARTS, OUTLINE_RGB)
        for px, items in sorted(self.texts.items()):
            atlas, advances = font_atlas(px)
            codes = [_codes(text) for _, _, text, _, _ in items]
            starts = np.cumsum([0] + [len(c) for c in codes]).astype(np.int64)
            flat = np.concatenate(codes) if codes else np.zeros(0, dtype=np.int64)
            xs = np.array([i[0] for i in items], dtype=np.float64)
            ys = np.array([i[1] for i in items], dtype=np.float64)
            inks = np.array([i[3] for i in items], dtype=np.int64).reshape(-1, 3)
            plates = np.array([i[4] or (0, 0, 0) for i in items], dtype=np.int64).reshape(-1, 3)
            plated = np.array([i[4] is not None for i in items], dtype=np.bool_)
            _texts(img, atlas, advances, flat, starts, xs, ys, inks, plates, plated, max(2, px // 4))
        return img
