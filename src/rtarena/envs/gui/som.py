"""Set-of-Marks: numbered boxes drawn on a screenshot over the marked (interactable) elements."""

from __future__ import annotations

import io
from functools import lru_cache

import numpy as np

COLOURS = ((230, 25, 75), (60, 180, 75), (0, 130, 200), (245, 130, 48), (145, 30, 180), (0, 128, 128),
           (240, 50, 230), (128, 128, 0))


@lru_cache(maxsize=1)
def _font():
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=12)
    except TypeError:  # Pillow < 10.1 has only the fixed bitmap font
        return ImageFont.load_default()


def decode(image_bytes: bytes) -> np.ndarray:
    """JPEG/PNG bytes as a uint8 HxWx3 array."""
    from PIL import Image

    with Image.open(io.BytesIO(image_bytes)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8)


def draw_marks(pixels: np.ndarray, marks: list[dict]) -> np.ndarray:
    """A copy of `pixels` with each mark's box outlined and its id printed at the box's top-left corner."""
    from PIL import Image, ImageDraw

    image = Image.fromarray(pixels)
    draw = ImageDraw.Draw(image)
    font = _font()
    width, height = image.size
    for mark in marks:
        x, y, w, h = mark["box"]
        colour = COLOURS[mark["id"] % len(COLOURS)]
        draw.rectangle([x, y, x + w - 1, y + h - 1], outline=colour, width=2)
        label = str(mark["id"])
        left, top, right, bottom = draw.textbbox((0, 0), label, font=font)
        lw, lh = right - left + 4, bottom - top + 4
        lx = min(max(0, x), width - lw)
        ly = y - lh if y - lh >= 0 else min(y, height - lh)
        draw.rectangle([lx, ly, lx + lw, ly + lh], fill=colour)
        draw.text((lx + 2 - left, ly + 2 - top), label, fill=(255, 255, 255), font=font)
    return np.asarray(image, dtype=np.uint8)


def save_jpeg(pixels: np.ndarray, path: str, quality: int = 85) -> None:
    from PIL import Image

    Image.fromarray(pixels).save(path, format="JPEG", quality=quality)
