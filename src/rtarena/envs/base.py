"""The rtarena env contract (`rtarena.contract.RealtimeEnv`): a PettingZoo `ParallelEnv` with a fixed
simulated step `dt`, and `RealtimeParallelEnv`, the base class of rtarena's own envs.

Envs know nothing of agents or clocks. The runtime only relies on:

- `dt`: simulated seconds advanced by one `step()`; `step()` is deterministic given seed and actions.
- `default_action(agent)`: what an agent does when it has not decided (a no-op or "wait").
- `observation_space(agent)` / `action_space(agent)` return the same object on every call.
- `infos[agent]["events"]`: a list of dicts, what happened to or because of the agent this step.
- `episode_metrics()`: per-agent numbers the env computed from its own events (optional).
- `privileged_queries`: what privileged agents (scripted bots, oracles) may read through the runtime's
  `contract.ReadOnlyView`; each family declares its own, everything else is refused.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from rtarena.contract import AgentID


def zero_action(space: spaces.Space) -> Any:
    """The natural "do nothing" element of a space: zeros, the first choice, or an empty string."""
    if isinstance(space, spaces.Discrete):
        return int(space.start)
    if isinstance(space, spaces.MultiDiscrete):
        return np.array(getattr(space, "start", np.zeros(space.shape)), dtype=space.dtype)
    if isinstance(space, spaces.MultiBinary):
        return np.zeros(space.shape, dtype=space.dtype)
    if isinstance(space, spaces.Box):
        return np.clip(np.zeros(space.shape, dtype=space.dtype), space.low, space.high)
    if isinstance(space, spaces.Text):
        return ""
    if isinstance(space, spaces.Dict):
        return {key: zero_action(sub) for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(zero_action(sub) for sub in space.spaces)
    raise TypeError(f"no default action known for space {space!r}")


def same_action(a: Any, b: Any) -> bool:
    """Whether two actions are equal, for numpy arrays, scalars, strings and containers alike."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_action(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple, np.ndarray)) or isinstance(b, (list, tuple, np.ndarray)):
        try:
            return bool(np.array_equal(np.asarray(a), np.asarray(b)))
        except (TypeError, ValueError):
            return False
    return a == b


class RealtimeParallelEnv(ParallelEnv):
    """Base class for rtarena's own multi-agent envs.

    Subclasses set `possible_agents`, the spaces and `dt`, and implement `_reset` and `_step`; this class
    keeps the PettingZoo bookkeeping (agent list, seeding, empty event lists) in one place.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": [], "name": "rtarena_env", "is_parallelizable": True}
    dt: float = 0.1
    # the attributes and methods (dotted for a part) a privileged agent may read; results reach it as copies
    privileged_queries: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        self.np_random = np.random.default_rng()
        self.agents: list[AgentID] = []

    # -- the contract -------------------------------------------------------------------------------
    def default_action(self, agent: AgentID) -> Any:
        return zero_action(self.action_space(agent))

    def episode_metrics(self) -> dict[AgentID, dict[str, float]]:
        """Per-agent metrics of the episode so far (override to add the family's own)."""
        return {}

    # -- PettingZoo protocol -------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None or not hasattr(self, "_seeded"):
            self.np_random = np.random.default_rng(seed)
            self._seeded = True
        self.agents = list(self.possible_agents)
        observations, infos = self._reset(options or {})
        for agent in self.agents:
            infos.setdefault(agent, {}).setdefault("events", [])
        return observations, infos

    def step(self, actions: dict[AgentID, Any]):
        full = {agent: actions[agent] if agent in actions else self.default_action(agent) for agent in self.agents}
        observations, rewards, terminations, truncations, infos = self._step(full)
        for agent in self.agents:
            infos.setdefault(agent, {}).setdefault("events", [])
        self.agents = [a for a in self.agents if not (terminations.get(a) or truncations.get(a))]
        return observations, rewards, terminations, truncations, infos

    # -- hooks ---------------------------------------------------------------------------------------
    def _reset(self, options: dict) -> tuple[dict, dict]:
        raise NotImplementedError

    def _step(self, actions: dict[AgentID, Any]) -> tuple[dict, dict, dict, dict, dict]:
        raise NotImplementedError
