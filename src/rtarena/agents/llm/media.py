"""Observation pixels and sound as chat content parts: images as data URLs, audio as `input_audio`.

Images are resized so that their longest side is `size` pixels (aspect kept) and encoded as PNG or JPEG.
Depth maps (metres, float) are sent as 8-bit grey images, near = bright, clipped at `max_depth_m`.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np

from rtarena.media import encode_wav


def image_part(pixels: Any, size: int = 256, fmt: str = "png") -> dict[str, Any]:
    """An `image_url` content part holding the picture as a base64 data URL."""
    from PIL import Image

    array = np.asarray(pixels)
    if array.dtype != np.uint8:
        array = np.clip(array, 0, 255).astype(np.uint8)
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    image = Image.fromarray(array)
    scale = size / max(image.size)
    if scale != 1:
        width, height = (max(1, round(d * scale)) for d in image.size)
        image = image.resize((width, height), Image.Resampling.BILINEAR)
    buffer = io.BytesIO()
    if fmt == "jpeg":
        image = image if image.mode in ("RGB", "L") else image.convert("RGB")  # JPEG has no alpha
        image.save(buffer, format="JPEG", quality=85)
    else:
        image.save(buffer, format="PNG", optimize=False)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:image/{fmt};base64,{data}"}}


def depth_part(depth: Any, size: int = 256, fmt: str = "png", max_depth_m: float = 50.0) -> dict[str, Any]:
    """A depth map as a grey image: 255 at the eye, 0 at `max_depth_m` or beyond."""
    metres = np.nan_to_num(np.asarray(depth, dtype=np.float32), nan=max_depth_m, posinf=max_depth_m)
    grey = (255 * (1 - np.clip(metres / max_depth_m, 0, 1))).astype(np.uint8)
    return image_part(grey.squeeze(), size, fmt)


def audio_part(samples: Any, sample_rate: int = 16000) -> dict[str, Any]:
    """An `input_audio` content part: mono 16-bit WAV of float samples in [-1, 1] (or int16)."""
    array = np.asarray(samples)
    if array.ndim > 1:
        array = array.mean(axis=-1) if array.shape[-1] <= 8 else array.mean(axis=0)
    data = encode_wav(array, sample_rate)
    return {"type": "input_audio", "input_audio": {"data": base64.b64encode(data).decode("ascii"), "format": "wav"}}


def is_image(part: dict[str, Any]) -> bool:
    return part.get("type") == "image_url"
