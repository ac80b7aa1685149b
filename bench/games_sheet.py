"""A contact sheet of the game suite for docs/games.md: what a model is shown, at the size it is shown.

    PYTHONPATH=src python bench/games_sheet.py [--out docs/images/games/sheet.png] [--size 512]

Each game plays its privileged scripted players for six seconds of seed 0 (so stations are busy, items held,
orders open); the first player's frame is taken, and the twelve frames are tiled four to a row.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from rtarena.agents.specs import build_agent
from rtarena.envs.registry import make
from rtarena.runtime.match import run_match

SUITE = ("runner2d", "parkour3d", "tilefall", "monsters", "escape", "errands", "workshop", "duel", "kitchen",
         "handoff", "midline", "crystal")


def sample_frame(env_id: str, seconds: float = 6.0, seed: int = 0, **kwargs) -> np.ndarray:
    """The first player's `rgb` after `seconds` of seeded privileged play."""
    env = make(env_id, obs=("rgb",), **kwargs)
    steps = max(1, round(seconds / env.dt))
    run_match(env, [build_agent("heuristic", "games") for _ in env.possible_agents], clock="paused", seed=seed,
              max_steps=steps)
    return env._frame(env.possible_agents[0])


def contact_sheet(frames: list[np.ndarray], columns: int = 4, gap: int = 8, background=(255, 255, 255)) -> np.ndarray:
    """Frames (all one size) in rows of `columns`, `gap` pixels of `background` between them."""
    h, w = frames[0].shape[:2]
    rows = -(-len(frames) // columns)
    sheet = np.empty((rows * h + (rows + 1) * gap, columns * w + (columns + 1) * gap, 3), dtype=np.uint8)
    sheet[:] = background
    for i, frame in enumerate(frames):
        r, c = divmod(i, columns)
        y, x = gap + r * (h + gap), gap + c * (w + gap)
        sheet[y:y + h, x:x + w] = frame
    return sheet


def main() -> None:
    from PIL import Image

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images/games/sheet.png"))
    parser.add_argument("--size", type=int, default=None, help="frame side in pixels (default: the games' own)")
    args = parser.parse_args()
    extra = {"size": args.size} if args.size else {}
    sheet = contact_sheet([sample_frame(f"games/{game}-v0", **extra) for game in SUITE])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(sheet).save(args.out, optimize=True)
    print(f"{args.out}: {sheet.shape[1]} x {sheet.shape[0]}")


if __name__ == "__main__":
    main()
