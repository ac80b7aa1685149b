"""The game suite's capability ratings as a table (`rtarena list --capabilities`) and a radar chart."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from rtarena.envs.games.ratings import suite_ratings
from rtarena.envs.games.rules import CAPABILITIES, CAPABILITY_ABBREV
from rtarena.eval.svg import radar_chart


def game_ratings() -> dict[str, list[int]]:
    """Per game (its `-v0` id), the seven ratings in `CAPABILITIES` order, from the level files (read once,
    by `envs/games/ratings.py`, the one home of the suite's ratings and modes)."""
    return {game.env_id: [game.ratings[name] for name in CAPABILITIES] for game in suite_ratings()}


def radar_svg() -> str:
    ratings = game_ratings()
    axes = [name.replace("_", " ") for name in CAPABILITIES]
    return radar_chart("Game suite: capability ratings (0-3)", axes,
                       {env_id.removeprefix("games/").removesuffix("-v0"): r for env_id, r in ratings.items()}, 3)


def capabilities_table(console: Console, svg: Path | None = None) -> None:
    table = Table("game", *(CAPABILITY_ABBREV[c] for c in CAPABILITIES), "variants",
                  title="game suite: capability ratings 0-3 (VP visual perception, SN spatial navigation, "
                        "RT reaction time, MEM memory, PLN planning, ADV adversarial, COOP cooperation)")
    for env_id, ratings in game_ratings().items():
        table.add_row(env_id, *(str(r) for r in ratings), "var1 var2 var3")
    console.print(table)
    if svg is not None:
        svg.parent.mkdir(parents=True, exist_ok=True)
        svg.write_text(radar_svg() + "\n")
        console.print(f"radar chart: {svg}")

