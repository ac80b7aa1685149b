"""The scripted arena pixel player's cost per decision (`policy_server/arena_pixels.py`, the modality finding's
stand-in): the frames of a real arena/basic-v0 episode (random actions, paused), encoded as the agent sends
them (`media.image_part` / `depth_part`, 256 px), then `decide()` timed on each, with and without depth.

It also times the colour reading alone two ways: the frame's hue, saturation and value computed once and
both masks (coins, lock lamps) read from them, as `decide()` does, against computing them once per mask, as
it did before 2026-12-04. The decisions are the same either way (the same arithmetic); the ratio is the
saving.

    .venv/bin/python bench/arena_pixels.py [--frames 200] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rtarena.agents.llm.media import depth_part, image_part
from rtarena.envs.registry import make
from rtarena.policy_server import arena_pixels as ap
from rtarena.policy_server.frame_legend import hsv

SPACE = "The action space is MultiDiscrete([3, 3, 3, 3, 2, 2, 2])."


def episode_frames(count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    env = make("arena/basic-v0", obs=("rgb", "depth"))
    obs, _ = env.reset(seed=0)
    space = env.action_space("p0")
    space.seed(0)
    frames = []
    for _ in range(count):
        frames.append((obs["p0"]["rgb"], obs["p0"]["depth"]))
        obs, *_ = env.step({"p0": space.sample()})
    return frames


def best_ms(work, items: list, repeat: int) -> float:
    """The best of `repeat` passes over `items`, in ms per item."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for item in items:
            work(item)
        best = min(best, time.perf_counter() - start)
    return best / len(items) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    system = f"{SPACE}\n\n### Level rules\n{make('arena/basic-v0').rules_text()}"
    level = ap.LevelNumbers.from_prompt(system)
    frames = episode_frames(args.frames)
    requests = [[image_part(rgb, 256), depth_part(depth, 256)] for rgb, depth in frames]
    decoded = [ap.frames(parts)[0] for parts in requests]
    views = [rgb[ap.view_rows(rgb.shape[0])] for rgb in decoded]

    def once(view: np.ndarray) -> None:
        colours = hsv(view)
        ap.colour_mask(colours, ap.COIN_HUE_DEG)
        ap.colour_mask(colours, ap.TURRET_HUE_DEG, ap.LAMP_VALUE, 0.45)

    def per_mask(view: np.ndarray) -> None:
        ap.hue_mask(view, ap.COIN_HUE_DEG)
        ap.hue_mask(view, ap.TURRET_HUE_DEG, ap.LAMP_VALUE, 0.45)

    rows = [
        ("decide, frame and depth", best_ms(lambda parts: ap.decide(parts, level), requests, args.repeat)),
        ("decide, frame only", best_ms(lambda parts: ap.decide(parts[:1], level), requests, args.repeat)),
        ("colours read once, two masks", best_ms(once, views, args.repeat)),
        ("colours read per mask (before)", best_ms(per_mask, views, args.repeat)),
    ]
    print(f"arena/basic-v0, {args.frames} frames sent at 256 px, best of {args.repeat}")
    for name, ms in rows:
        print(f"  {name:<32} {ms:7.3f} ms")
    print(f"  colour reading: per mask / once = {rows[3][1] / rows[2][1]:.2f}x")


if __name__ == "__main__":
    main()
