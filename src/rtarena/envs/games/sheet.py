"""Sample frames of the suite and a contact sheet of them: what a model is shown, at the size it is shown.

`sample_frame` plays a game's privileged scripted players for a few seconds of a seeded episode (so stations
are busy, items held, orders open) and returns the first player's frame; `contact_sheet` tiles frames into one
image. The docs' contact sheet (`docs/images/games/sheet.png`) and the OCR test's montage come from here.
"""

from __future__ import annotations

import numpy as np

SUITE = ("runner2d", "parkour3d", "tilefall", "monsters", "escape", "errands", "workshop", "duel", "kitchen",
         "handoff", "midline", "crystal")


def sample_frame(env_id: str, seconds: float = 6.0, seed: int = 0, **kwargs) -> np.ndarray:
    """The first player's `rgb` after `seconds` of seeded privileged play."""
    from rtarena.agents.specs import build_agent
    from rtarena.envs.registry import make
    from rtarena.runtime.match import run_match

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


def save_png(image: np.ndarray, path) -> None:
    from PIL import Image

    Image.fromarray(image).save(path)
