"""2D drawing primitives on `(H, W, 3)` uint8 images, compiled: the HUD, the minimap and the spectator
view are made of these. Coordinates are pixels (x right, y down); everything clips at the borders;
`alpha` blends over what is there (1 paints)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# 3x5 glyphs, one row per line of 3 bits (MSB left): digits, then ":", "/", "-", "."
_GLYPH_ROWS = {
    "0": (7, 5, 5, 5, 7), "1": (2, 6, 2, 2, 7), "2": (7, 1, 7, 4, 7), "3": (7, 1, 7, 1, 7),
    "4": (5, 5, 7, 1, 1), "5": (7, 4, 7, 1, 7), "6": (7, 4, 7, 5, 7), "7": (7, 1, 2, 2, 2),
    "8": (7, 5, 7, 5, 7), "9": (7, 5, 7, 1, 7), ":": (0, 2, 0, 2, 0), "/": (1, 1, 2, 4, 4),
    "-": (0, 0, 7, 0, 0), ".": (0, 0, 0, 0, 2),
}
GLYPH_INDEX = {ch: i for i, ch in enumerate(_GLYPH_ROWS)}
COLON, SLASH, MINUS, DOT = (GLYPH_INDEX[c] for c in ":/-.")


def _font() -> np.ndarray:
    font = np.zeros((len(_GLYPH_ROWS), 5, 3), dtype=np.uint8)
    for i, rows in enumerate(_GLYPH_ROWS.values()):
        for y, bits in enumerate(rows):
            for x in range(3):
                font[i, y, x] = (bits >> (2 - x)) & 1
    return font


FONT = _font()


@njit(cache=True, nogil=True, inline="always")
def blend(img, y, x, r, g, b, alpha):
    if 0 <= y < img.shape[0] and 0 <= x < img.shape[1]:
        if alpha >= 1.0:
            img[y, x, 0] = np.uint8(r)
            img[y, x, 1] = np.uint8(g)
            img[y, x, 2] = np.uint8(b)
        else:
            k = 1.0 - alpha
            img[y, x, 0] = np.uint8(img[y, x, 0] * k + r * alpha)
            img[y, x, 1] = np.uint8(img[y, x, 1] * k + g * alpha)
            img[y, x, 2] = np.uint8(img[y, x, 2] * k + b * alpha)


@njit(cache=True, nogil=True)
def rect(img, x0, y0, x1, y1, r, g, b, alpha):
    """Fill the pixels `x0 <= x < x1`, `y0 <= y < y1`."""
    for y in range(max(y0, 0), min(y1, img.shape[0])):
        for x in range(max(x0, 0), min(x1, img.shape[1])):
            blend(img, y, x, r, g, b, alpha)


@njit(cache=True, nogil=True)
def disc(img, cx, cy, radius, r, g, b, alpha):
    """A filled disc centred at pixel coordinates (cx, cy) (floats; pixel centres at +0.5)."""
    y0 = math.floor(cy - radius)
    y1 = math.ceil(cy + radius)
    x0 = math.floor(cx - radius)
    x1 = math.ceil(cx + radius)
    r2 = radius * radius
    for y in range(max(y0, 0), min(y1 + 1, img.shape[0])):
        for x in range(max(x0, 0), min(x1 + 1, img.shape[1])):
            dx = x + 0.5 - cx
            dy = y + 0.5 - cy
            if dx * dx + dy * dy <= r2:
                blend(img, y, x, r, g, b, alpha)


@njit(cache=True, nogil=True)
def ring(img, cx, cy, radius, width, r, g, b, alpha):
    """A circle outline of the given pixel width (the toxic zone)."""
    outer = radius + 0.5 * width
    inner = max(0.0, radius - 0.5 * width)
    y0 = math.floor(cy - outer)
    y1 = math.ceil(cy + outer)
    x0 = math.floor(cx - outer)
    x1 = math.ceil(cx + outer)
    for y in range(max(y0, 0), min(y1 + 1, img.shape[0])):
        for x in range(max(x0, 0), min(x1 + 1, img.shape[1])):
            dx = x + 0.5 - cx
            dy = y + 0.5 - cy
            d2 = dx * dx + dy * dy
            if inner * inner <= d2 <= outer * outer:
                blend(img, y, x, r, g, b, alpha)


@njit(cache=True, nogil=True)
def outside_circle(img, cx, cy, radius, r, g, b, alpha):
    """Tint every pixel outside a circle (the toxic area on maps)."""
    r2 = radius * radius
    for y in range(img.shape[0]):
        dy = y + 0.5 - cy
        for x in range(img.shape[1]):
            dx = x + 0.5 - cx
            if dx * dx + dy * dy > r2:
                blend(img, y, x, r, g, b, alpha)


@njit(cache=True, nogil=True)
def line(img, xa, ya, xb, yb, thickness, r, g, b, alpha):
    """A line segment between two points, `thickness` pixels wide."""
    n = int(max(abs(xb - xa), abs(yb - ya)) * 2.0) + 1
    rad = 0.5 * thickness
    for i in range(n + 1):
        s = i / n
        x = xa + (xb - xa) * s
        y = ya + (yb - ya) * s
        if rad <= 0.75:
            blend(img, math.floor(y), math.floor(x), r, g, b, alpha)
        else:
            disc(img, x, y, rad, r, g, b, alpha)


@njit(cache=True, nogil=True)
def triangle(img, ax, ay, bx, by, cx, cy, r, g, b, alpha):
    """A filled triangle (the own-position arrow on the minimap)."""
    x0 = math.floor(min(ax, min(bx, cx)))
    x1 = math.ceil(max(ax, max(bx, cx)))
    y0 = math.floor(min(ay, min(by, cy)))
    y1 = math.ceil(max(ay, max(by, cy)))
    area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    if abs(area) < 1e-9:
        return
    for y in range(max(y0, 0), min(y1 + 1, img.shape[0])):
        for x in range(max(x0, 0), min(x1 + 1, img.shape[1])):
            px = x + 0.5
            py = y + 0.5
            w0 = ((bx - px) * (cy - py) - (by - py) * (cx - px)) / area
            w1 = ((cx - px) * (ay - py) - (cy - py) * (ax - px)) / area
            w2 = 1.0 - w0 - w1
            if w0 >= 0.0 and w1 >= 0.0 and w2 >= 0.0:
                blend(img, y, x, r, g, b, alpha)


@njit(cache=True, nogil=True)
def glyph(img, font, index, x, y, scale, r, g, b):
    for gy in range(5):
        for gx in range(3):
            if font[index, gy, gx]:
                rect(img, x + gx * scale, y + gy * scale, x + (gx + 1) * scale, y + (gy + 1) * scale, r, g, b, 1.0)


@njit(cache=True, nogil=True)
def number(img, font, value, x, y, scale, r, g, b, align_right):
    """Draw a non-negative integer (negative values get a minus sign); returns the width drawn, px.

    With `align_right` the number ends at x, otherwise it starts there."""
    v = int(abs(value))
    digits = np.empty(12, dtype=np.int64)
    n = 0
    while True:
        digits[n] = v % 10
        n += 1
        v //= 10
        if v == 0 or n >= 11:
            break
    negative = value < 0
    count = n + (1 if negative else 0)
    width = count * 4 * scale - scale
    cx = x - width if align_right else x
    if negative:
        glyph(img, font, 12, cx, y, scale, r, g, b)
        cx += 4 * scale
    for i in range(n - 1, -1, -1):
        glyph(img, font, digits[i], cx, y, scale, r, g, b)
        cx += 4 * scale
    return width
