"""The suite's games with their capability ratings and mode (solo, PvP, co-op), for listings and reports."""

from __future__ import annotations

from dataclasses import dataclass

from rtarena.envs.games.rules import CAPABILITIES
from rtarena.envs.level_files import read_level


@dataclass(frozen=True)
class GameRatings:
    env_id: str
    players: int
    mode: str  # "solo" | "pvp" | "coop"
    ratings: dict[str, int]  # capability -> 0..3, in CAPABILITIES order


def suite_ratings() -> list[GameRatings]:
    """Every registered base game (`games/<name>-v0`), read from its level file without building it."""
    from rtarena.envs.registry import ENV_TABLE

    rows = []
    for spec in ENV_TABLE:
        if spec.family != "games" or "variant" in spec.kwargs:
            continue
        cls = spec.load()
        rules = read_level(cls.level_file, cls.rules_schema)
        players = rules.game.players
        mode = "solo" if players == 1 else "coop" if rules.capabilities.adversarial == 0 else "pvp"
        rows.append(GameRatings(spec.id, players, mode,
                                {c: getattr(rules.capabilities, c) for c in CAPABILITIES}))
    return rows
