"""The suite's compiled 2D renderer: a game lists shapes in world units, one compiled call paints them.

A `Canvas` maps a world rectangle (metres or tiles, y up) onto an `(H, W, 3)` image. Games add filled
rectangles and discs in painting order; `paint()` draws them all in one numba call, so a frame costs one
Python-to-compiled crossing however many shapes it has.
"""

from __future__ import annotations

import numpy as np
from numba import njit

RECT, DISC = 0, 1


@njit(cache=True, nogil=True)
def _paint(img, shapes, colors, background, fill):
    """Shapes: rows (kind, x0, y0, x1, y1) in pixels (a disc: centre x0, y0 and radius x1)."""
    h, w = img.shape[0], img.shape[1]
    if fill:
        for y in range(h):
            for x in range(w):
                img[y, x, 0] = background[0]
                img[y, x, 1] = background[1]
                img[y, x, 2] = background[2]
    for i in range(shapes.shape[0]):
        kind = int(shapes[i, 0])
        r, g, b = colors[i, 0], colors[i, 1], colors[i, 2]
        if kind == 0:
            xa = max(int(np.floor(shapes[i, 1])), 0)
            ya = max(int(np.floor(shapes[i, 2])), 0)
            xb = min(int(np.ceil(shapes[i, 3])), w)
            yb = min(int(np.ceil(shapes[i, 4])), h)
            for y in range(ya, yb):
                for x in range(xa, xb):
                    img[y, x, 0] = r
                    img[y, x, 1] = g
                    img[y, x, 2] = b
        else:
            cx, cy, rad = shapes[i, 1], shapes[i, 2], shapes[i, 3]
            ya = max(int(np.floor(cy - rad)), 0)
            yb = min(int(np.ceil(cy + rad)) + 1, h)
            xa = max(int(np.floor(cx - rad)), 0)
            xb = min(int(np.ceil(cx + rad)) + 1, w)
            for y in range(ya, yb):
                for x in range(xa, xb):
                    dx = x + 0.5 - cx
                    dy = y + 0.5 - cy
                    if dx * dx + dy * dy <= rad * rad:
                        img[y, x, 0] = r
                        img[y, x, 1] = g
                        img[y, x, 2] = b


class Canvas:
    """Shapes in world coordinates for one frame; `paint()` returns the image."""

    def __init__(self, size: int, x0: float, y0: float, x1: float, y1: float, background=(20, 20, 28)) -> None:
        self.size = size
        self.x0, self.y0 = x0, y0
        self.scale_x = size / (x1 - x0)
        self.scale_y = size / (y1 - y0)
        self.background = np.array(background, dtype=np.uint8)
        self.shapes: list[tuple[float, float, float, float, float]] = []
        self.colors: list[tuple[int, int, int]] = []
        self.image: np.ndarray | None = None

    @classmethod
    def over(cls, image: np.ndarray) -> Canvas:
        """A canvas that paints over an existing picture (a first-person view); world units are pixels
        with y up."""
        canvas = cls(image.shape[0], 0.0, 0.0, float(image.shape[1]), float(image.shape[0]))
        canvas.image = image
        return canvas

    def _px(self, x: float, y: float) -> tuple[float, float]:
        return (x - self.x0) * self.scale_x, self.size - (y - self.y0) * self.scale_y

    def rect(self, x0: float, y0: float, x1: float, y1: float, color) -> None:
        """A filled rectangle between world corners (any order)."""
        ax, ay = self._px(x0, y0)
        bx, by = self._px(x1, y1)
        self.shapes.append((RECT, min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)))
        self.colors.append(tuple(color))

    def disc(self, x: float, y: float, radius: float, color) -> None:
        cx, cy = self._px(x, y)
        self.shapes.append((DISC, cx, cy, max(radius * self.scale_x, 1.0), 0.0))
        self.colors.append(tuple(color))

    def bar(self, fraction: float, color, row: int = 0) -> None:
        """A HUD bar across the top of the image (row 0, 1 ...), `fraction` of the width filled."""
        h = max(2, self.size // 48)
        self.shapes.append((RECT, 0, row * (h + 1), self.size * min(max(fraction, 0.0), 1.0), row * (h + 1) + h))
        self.colors.append(tuple(color))

    def paint(self) -> np.ndarray:
        img = self.image if self.image is not None else np.empty((self.size, self.size, 3), dtype=np.uint8)
        shapes = np.array(self.shapes, dtype=np.float64).reshape(-1, 5)
        colors = np.array(self.colors, dtype=np.uint8).reshape(-1, 3)
        _paint(img, shapes, colors, self.background, self.image is None)
        return img
