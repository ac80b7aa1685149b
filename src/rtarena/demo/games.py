"""The game suite in `make demo`: each game's scripted player against random, and a sample frame of each."""

from __future__ import annotations

from pathlib import Path

from rtarena.envs.games.ratings import suite_ratings
from rtarena.envs.games.rules import game_name


def save_game_frames(folder: Path, size: int = 256, seed: int = 0, steps: int = 30,
                     max_steps: int = 2000) -> dict[str, dict[str, float]]:
    """Play each game's `-v0` with its scripted player (a sample frame after `steps` steps is written to
    `folder/<game>.png`) and with the random agent for at most `max_steps` steps (every game ends within
    2000 steps); returns p0's scores by env id and agent. In a PvP game p0's opponents are random players;
    in a co-op game every seat plays the same spec (self-play)."""
    from rtarena.agents.specs import build_agent
    from rtarena.envs.registry import make
    from rtarena.media import write_png
    from rtarena.runtime import run_match

    folder.mkdir(parents=True, exist_ok=True)
    scores: dict[str, dict[str, float]] = {}
    def seats(spec: str, game) -> list:
        others = "random" if game.mode == "pvp" else spec
        return [build_agent(spec if i == 0 else others, "games") for i in range(game.players)]

    for game in suite_ratings():
        env_id = game.env_id
        env = make(env_id, size=size, render_mode="rgb_array")
        run_match(env, seats("heuristic", game), clock="paused", seed=seed, max_steps=steps)
        write_png(folder / f"{game_name(env_id)}.png", env.render())
        scores[env_id] = {}
        for spec in ("heuristic", "random"):
            played = make(env_id, obs=("state",))
            result = run_match(played, seats(spec, game), clock="paused", seed=seed, max_steps=max_steps)
            scores[env_id][spec] = result.agents["p0"]["score"]
    return scores
