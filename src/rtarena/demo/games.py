"""The game suite in `make demo`: each game's scripted player against random, and a sample frame of each."""

from __future__ import annotations

from pathlib import Path

from rtarena.envs.games.ratings import suite_ratings
from rtarena.envs.games.rules import game_name


def game_jobs(seed: int = 0, max_steps: int = 2000, video: bool = False) -> list:
    """The suite's table as episodes: each game's `-v0` played by its scripted player and by the random
    agent for at most `max_steps` steps (every game ends within 2000), the first game's scripted episode on
    video. In a PvP game p0's opponents are random players; in a co-op game every seat plays the same spec
    (self-play). Each job's label is the spec p0 plays."""
    from rtarena.eval.episodes import EpisodeJob

    jobs = []
    for number, game in enumerate(suite_ratings()):
        for spec in ("heuristic", "random"):
            others = "random" if game.mode == "pvp" else spec
            seats = tuple(spec if i == 0 else others for i in range(game.players))
            jobs.append(EpisodeJob(game.env_id, seats, "paused", seed=seed, max_steps=max_steps, label=spec,
                                   env_kwargs={"obs": ("state",)},
                                   video=video and number == 0 and spec == "heuristic"))
    return jobs


def save_game_frames(folder: Path, size: int = 256, seed: int = 0, steps: int = 30) -> None:
    """A sample frame of each game's `-v0` after `steps` steps of its scripted player, in
    `folder/<game>.png`."""
    from rtarena.agents.specs import build_agent
    from rtarena.envs.registry import make
    from rtarena.media import write_png
    from rtarena.runtime import run_match

    folder.mkdir(parents=True, exist_ok=True)

    def seats(spec: str, game) -> list:
        others = "random" if game.mode == "pvp" else spec
        return [build_agent(spec if i == 0 else others, "games") for i in range(game.players)]

    for game in suite_ratings():
        env_id = game.env_id
        env = make(env_id, size=size, render_mode="rgb_array")
        run_match(env, seats("heuristic", game), clock="paused", seed=seed, max_steps=steps)
        write_png(folder / f"{game_name(env_id)}.png", env.render())
