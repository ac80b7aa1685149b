"""The replay reads an episode's video frame by frame (issue 46: 300 frames decoded at once cost 262 MB)."""

from __future__ import annotations

import imageio_ffmpeg
import numpy as np

from rtarena.dashboard.data import VideoFrames


def test_frames_are_read_one_by_one_in_either_direction_and_few_are_kept(tmp_path):
    path = tmp_path / "v.mp4"
    writer = imageio_ffmpeg.write_frames(str(path), (32, 32), fps=10, macro_block_size=1)
    writer.send(None)
    for i in range(VideoFrames.KEPT + 8):  # frame i is grey level 6 i: each frame tells its index
        writer.send(np.full((32, 32, 3), 6 * i, np.uint8).tobytes())
    writer.close()
    video = VideoFrames(path)
    assert video.count() == VideoFrames.KEPT + 8

    def level(index: int) -> float:
        import io
        import zlib

        png = video.frame(index)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        data = io.BytesIO(png[8:])
        raw = b""
        while chunk := data.read(8):
            length, kind = int.from_bytes(chunk[:4], "big"), chunk[4:8]
            body = data.read(length + 4)[:length]
            if kind == b"IDAT":
                raw += body
        pixels = np.frombuffer(zlib.decompress(raw), np.uint8)
        return float(pixels.mean())

    last = level(VideoFrames.KEPT + 7)
    assert video.next == VideoFrames.KEPT + 8  # the decoder read on to it, keeping no frame but this one
    first = level(3)  # earlier: the decoder started again
    assert video.next == 4 and abs(first - 18) < 4 and last > first + 150
    for i in range(4, VideoFrames.KEPT + 8):
        level(i)
    assert len(video.kept) == VideoFrames.KEPT  # the PNGs of the latest frames only
    video.close()
