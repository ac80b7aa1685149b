"""A near-free env for runtime benchmarks: the runtime's own cost is what is measured."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from gymnasium import spaces

from rtarena.envs.base import RealtimeParallelEnv


class IdleEnv(RealtimeParallelEnv):
    """N agents, a step counter as observation, Discrete(5) actions, never ends."""

    metadata: ClassVar[dict] = {"render_modes": [], "name": "idle", "is_parallelizable": True}

    def __init__(self, num_agents: int, dt: float) -> None:
        super().__init__()
        self.possible_agents = [f"p{i}" for i in range(num_agents)]
        self.dt = dt
        self._obs = spaces.Box(0, np.inf, shape=(1,), dtype=np.float32)
        self._act = spaces.Discrete(5)

    def observation_space(self, agent):
        return self._obs

    def action_space(self, agent):
        return self._act

    def _reset(self, options):
        self.t = 0
        return {a: np.zeros(1, np.float32) for a in self.agents}, {a: {} for a in self.agents}

    def _step(self, actions):
        self.t += 1
        obs = np.array([self.t], np.float32)
        agents = self.agents
        return ({a: obs for a in agents}, dict.fromkeys(agents, 0.0), dict.fromkeys(agents, False),
                dict.fromkeys(agents, False), {a: {} for a in agents})
