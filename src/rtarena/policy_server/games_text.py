"""Scripted game-suite policies that read only a game's `text` observation and answer in the chunked key
form (`envs/games/keys.py`): what the policy server says to prompts of the suite's games.

The game is recognised by its HUD title (`[Tilefall] time left ...`); a game without a text policy here
gets the no-op `0 0 ; -`. Each text is read by its format's own reader, next to its writer
(`envs/games/reports.py`, beside the games' writers).
"""

from __future__ import annotations

from collections.abc import Callable

from rtarena.agents.scripted.games.tilefall import next_tile
from rtarena.envs.games.reports import read_hud, read_runner, read_tilefall

NOOP = "0 0 ; -"


def keys_toward(dx: float, dy: float, tolerance: float = 0.1) -> str:
    held = (["D"] if dx > tolerance else ["A"] if dx < -tolerance else []) + \
           (["W"] if dy > tolerance else ["S"] if dy < -tolerance else [])
    return " ".join(held) or "-"


def tilefall(text: str) -> str:
    """Walk toward the safest tile of the ASCII map (P you, . solid, ! warned, _ gone; north up)."""
    report = read_tilefall(text)
    here = report.here if report is not None else None
    if report is None or here is None:
        return NOOP
    grid, (x, y) = report.grid, report.pos
    gone = grid == "_"
    safe = grid == "."
    safe[here] = here not in report.warned
    tile_m = x / (here[0] + 0.5) if here[0] + 0.5 else 1.0
    c, r = next_tile(gone, safe, here) if grid.size else here
    return "0 0 ; " + keys_toward((c + 0.5) * tile_m - x, (r + 0.5) * tile_m - y, 0.1 * tile_m)


def runner(text: str) -> str:
    """Run right; jump (Space, released by the next answer) when the platform ends within 0.6 m."""
    report = read_runner(text)
    if report is not None and report.standing and report.edge_ahead_m is not None and report.edge_ahead_m < 0.6:
        return "0 0 ; D Space ; D"
    return "0 0 ; D"


TEXT_POLICIES: dict[str, Callable[[str], str]] = {
    "Tilefall": tilefall,
    "Runner": runner,
}


def looks_like_game(text: str) -> bool:
    return read_hud(text) is not None


def decide(text: str) -> str:
    """The chunked key answer for one observation of a suite game."""
    hud = read_hud(text)
    policy = TEXT_POLICIES.get(hud.title) if hud else None
    return policy(text) if policy else NOOP
