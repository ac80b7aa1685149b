"""Scripted game-suite policies that read only a game's `text` observation and answer in the chunked key
form (`envs/games/keys.py`): what the policy server says to prompts of the suite's games.

The game is recognised by its HUD title (`[Tilefall] time left ...`); a game without a text policy here
gets the no-op `0 0 ; -`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from rtarena.agents.scripted.games.tilefall import next_tile

NOOP = "0 0 ; -"
TITLE = re.compile(r"^\[(?P<title>[^\]]+)\] time left", re.M)


def keys_toward(dx: float, dy: float, tolerance: float = 0.1) -> str:
    held = (["D"] if dx > tolerance else ["A"] if dx < -tolerance else []) + \
           (["W"] if dy > tolerance else ["S"] if dy < -tolerance else [])
    return " ".join(held) or "-"


def tilefall(text: str) -> str:
    """Walk toward the safest tile of the ASCII map (P you, . solid, ! warned, _ gone; north up)."""
    rows = re.search(r"Map \(north up[^\n]*\n((?:[.!_P]+\n?)+)", text)
    pos = re.search(r"You are at x (-?[\d.]+) m, y (-?[\d.]+) m", text)
    if not rows or not pos:
        return NOOP
    lines = rows.group(1).split()
    n = len(lines)
    grid = np.array([list(line) for line in reversed(lines)]).T  # [column, row], row 0 in the south
    x, y = float(pos.group(1)), float(pos.group(2))
    here = next(((int(c), int(r)) for c, r in np.argwhere(grid == "P")), None)
    if here is None:
        return NOOP
    warned = {(int(c), int(r)) for c, r in re.findall(r"\((\d+),(\d+)\) in", text)}
    gone = grid == "_"
    safe = grid == "."
    safe[here] = here not in warned
    tile_m = x / (here[0] + 0.5) if here[0] + 0.5 else 1.0
    c, r = next_tile(gone, safe, here) if n else here
    return "0 0 ; " + keys_toward((c + 0.5) * tile_m - x, (r + 0.5) * tile_m - y, 0.1 * tile_m)


def runner(text: str) -> str:
    """Run right; jump (Space, released by the next answer) when the platform ends within 0.6 m."""
    edge = re.search(r"This platform ends (-?[\d.]+) m ahead", text)
    standing = "standing on a platform" in text
    if standing and edge and float(edge.group(1)) < 0.6 and "The goal" not in text:
        return "0 0 ; D Space ; D"
    return "0 0 ; D"


TEXT_POLICIES: dict[str, Callable[[str], str]] = {
    "Tilefall": tilefall,
    "Runner": runner,
}


def looks_like_game(text: str) -> bool:
    return TITLE.search(text) is not None


def decide(text: str) -> str:
    """The chunked key answer for one observation of a suite game."""
    match = TITLE.search(text)
    policy = TEXT_POLICIES.get(match.group("title")) if match else None
    return policy(text) if policy else NOOP
