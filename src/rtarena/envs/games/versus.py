"""What the suite's player-versus-player games share: sides, and win / draw / loss as a score."""

from __future__ import annotations

from rtarena.envs.arena.render.palette import TEAM_RGB

WIN, DRAW, LOSS = 1.0, 0.5, 0.0
# Side 0 blue, side 1 red: the arena's team colours (`envs/arena/render/palette.py`), one home for both.
SIDE_COLORS = TEAM_RGB[:2]


def side_of(agent: str) -> int:
    """Agents alternate sides: p0, p2 ... on side 0; p1, p3 ... on side 1."""
    return int(agent[1:]) % 2


def outcome(mine: float, theirs: float) -> float:
    """1 for the larger value, 0.5 when equal, 0 for the smaller."""
    return WIN if mine > theirs else DRAW if mine == theirs else LOSS
