"""A Gymnasium `Env` view of a one-agent rtarena env, for `gymnasium.make` and single-agent RL code."""

from __future__ import annotations

from typing import Any

import gymnasium


class SingleAgentView(gymnasium.Env):
    """Exposes the only agent of a one-agent env (`registry.make` builds it for `gymnasium.make`) through the
    Gymnasium API."""

    def __init__(self, env: Any) -> None:
        self.parallel_env = env
        self.agent = env.possible_agents[0]
        self.observation_space = env.observation_space(self.agent)
        self.action_space = env.action_space(self.agent)
        self.render_mode = env.render_mode
        self.metadata = {"render_modes": env.metadata.get("render_modes", []),
                         "render_fps": env.metadata.get("render_fps", max(1, round(1 / env.dt)))}
        self.dt = env.dt

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        observations, infos = self.parallel_env.reset(seed=seed, options=options)
        return observations[self.agent], infos[self.agent]

    def step(self, action: Any):
        observations, rewards, terminations, truncations, infos = self.parallel_env.step({self.agent: action})
        return (
            observations[self.agent],
            float(rewards[self.agent]),
            bool(terminations[self.agent]),
            bool(truncations[self.agent]),
            infos[self.agent],
        )

    def render(self):
        return self.parallel_env.render()

    def close(self) -> None:
        self.parallel_env.close()
