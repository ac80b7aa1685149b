"""The one PNG writer and the one WAV writer (stdlib and numpy only), so saving frames and sound needs no
imaging or audio library. Below every layer: envs, agents, the editor and the demo all write through here.
"""

from __future__ import annotations

import io
import struct
import wave
import zlib
from pathlib import Path

import numpy as np


def encode_png(image: np.ndarray) -> bytes:
    """PNG bytes of an (H, W, 3) or (H, W) uint8 array."""
    image = np.ascontiguousarray(image, dtype=np.uint8)
    if image.ndim == 2:
        colour_type, channels = 0, 1
    elif image.ndim == 3 and image.shape[2] in (3, 4):
        colour_type, channels = (2, 3) if image.shape[2] == 3 else (6, 4)
    else:
        raise ValueError(f"expected (H, W), (H, W, 3) or (H, W, 4), got {image.shape}")
    height, width = image.shape[:2]
    rows = image.reshape(height, width * channels)
    raw = np.empty((height, width * channels + 1), dtype=np.uint8)
    raw[:, 0] = 0  # filter: none
    raw[:, 1:] = rows

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6))
            + chunk(b"IEND", b""))


def write_png(path: str | Path, image: np.ndarray) -> Path:
    """Write an image array to `path` as PNG; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode_png(image))
    return path


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """16-bit PCM WAV bytes of `(n,)` (mono) or `(n, channels)` samples: floats in [-1, 1] or int16."""
    array = np.asarray(samples)
    channels = 1 if array.ndim == 1 else array.shape[1]
    pcm = array.astype("<i2") if array.dtype == np.int16 else (np.clip(array, -1.0, 1.0) * 32767).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(2)
        out.setframerate(int(sample_rate))
        out.writeframes(pcm.tobytes())
    return buffer.getvalue()


def write_wav(path: str | Path, samples: np.ndarray, sample_rate: int) -> Path:
    """Write samples (see `encode_wav`) to `path` as WAV; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode_wav(samples, sample_rate))
    return path
