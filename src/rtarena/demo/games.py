"""The game suite in `make demo`: each game's scripted player against random, and a sample frame of each."""

from __future__ import annotations

from pathlib import Path

from rtarena.envs.games.rules import game_name
from rtarena.eval.games_table import game_ratings


def save_game_frames(folder: Path, size: int = 256, seed: int = 0, steps: int = 30,
                     max_steps: int = 2000) -> dict[str, dict[str, float]]:
    """Play each game's `-v0` with its scripted player (a sample frame after `steps` steps is written to
    `folder/<game>.png`) and with the random agent for at most `max_steps` steps (every game ends within
    2000 steps); returns the scores by env id and agent."""
    from rtarena.agents.specs import build_agent
    from rtarena.envs.registry import make
    from rtarena.media import write_png
    from rtarena.runtime import run_match

    folder.mkdir(parents=True, exist_ok=True)
    scores: dict[str, dict[str, float]] = {}
    for env_id in game_ratings():
        env = make(env_id, size=size, render_mode="rgb_array")
        run_match(env, build_agent("heuristic", "games"), clock="paused", seed=seed, max_steps=steps)
        write_png(folder / f"{game_name(env_id)}.png", env.render())
        scores[env_id] = {}
        for spec in ("heuristic", "random"):
            played = make(env_id, obs=("state",))
            result = run_match(played, build_agent(spec, "games"), clock="paused", seed=seed, max_steps=max_steps)
            scores[env_id][spec] = result.agents["p0"]["score"]
    return scores
