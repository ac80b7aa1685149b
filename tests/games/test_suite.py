"""The suite as a whole: all twelve games listed with their ratings; modes (solo, PvP, co-op) for reports."""

from __future__ import annotations

from tests.helpers import rtarena_cli

from rtarena.envs.games.ratings import suite_ratings

MULTIPLAYER = {"games/duel-v0": "pvp", "games/midline-v0": "pvp", "games/crystal-v0": "pvp",
               "games/kitchen-v0": "coop", "games/handoff-v0": "coop"}


def test_list_capabilities_shows_all_twelve_games_with_ratings():
    done = rtarena_cli("list", "--capabilities")
    assert done.returncode == 0, done.stderr
    rows = {r.env_id: r for r in suite_ratings()}
    assert len(rows) == 12
    for env_id, row in rows.items():
        line = next(line for line in done.stdout.splitlines() if env_id in line)
        assert [int(v) for v in line.replace("│", " ").split()[1:8]] == list(row.ratings.values())


def test_each_game_has_its_mode():
    assert {r.env_id: r.mode for r in suite_ratings()} == {
        **{r.env_id: "solo" for r in suite_ratings() if r.players == 1}, **MULTIPLAYER}
