"""The rtarena env contract (`rtarena.contract.RealtimeEnv`): a PettingZoo `ParallelEnv` with a fixed
simulated step `dt`, and `RealtimeParallelEnv`, the base class of rtarena's own envs.

Envs know nothing of agents or clocks. The runtime only relies on:

- `dt`: simulated seconds advanced by one `step()`; `step()` is deterministic given seed and actions.
- `default_action(agent)`: what an agent does when it has not decided (a no-op or "wait").
- `observation_space(agent)` / `action_space(agent)` return the same object on every call.
- `infos[agent]["events"]`: a list of dicts, what happened to or because of the agent this step.
- `capabilities`: the one typed declaration of every optional behaviour (`contract.EnvCapabilities`), checked
  when the registry loads the env (`envs/capabilities.py`); the members below have their defaults here, so
  the runtime reads them and never probes.
- `episode_metrics()`, `documentation()`, `rules_text()`, `instruction`, `time_limit_s`, `spec_id`.
- `privileged_state(agent)`: world facts for privileged agents (scripted bots, oracles), where
  `capabilities.privileged` says so; the runtime hands them copies, never the env.

`RealtimeWrapper` is the base of wrappers (PettingZoo's `BaseParallelWrapper`): it forwards the contract
member by member and nothing else (no `__getattr__` forwarding, as Gymnasium 1.0 removed it).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv
from pettingzoo.utils import BaseParallelWrapper

from rtarena.contract import AgentID, EnvCapabilities, same_action

__all__ = ["RealtimeParallelEnv", "RealtimeWrapper", "same_action", "zero_action"]


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


class RealtimeParallelEnv(ParallelEnv):
    """Base class for rtarena's own multi-agent envs.

    Subclasses set `possible_agents`, the spaces and `dt`, and implement `_reset` and `_step`; this class
    keeps the PettingZoo bookkeeping (agent list, seeding, empty event lists) in one place.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": [], "name": "rtarena_env", "is_parallelizable": True}
    dt: float = 0.1
    capabilities: EnvCapabilities = EnvCapabilities()  # a class declares its own; an instance may refine it
    spec_id: str | None = None  # the registry id it was made from (`registry.make` sets it)
    time_limit_s: float | None = None  # the longest an episode lasts, in sim seconds (None: unknown)
    instruction: str | None = None  # the episode's own instruction, where a task states one
    render_mode: str | None = None

    def __init__(self) -> None:
        self.np_random = np.random.default_rng()
        self.agents: list[AgentID] = []
        self._seeded = False  # the first reset seeds, even without a seed

    # -- the contract -------------------------------------------------------------------------------
    def default_action(self, agent: AgentID) -> Any:
        return zero_action(self.action_space(agent))

    def episode_metrics(self) -> dict[AgentID, dict[str, float]]:
        """Per-agent metrics of the episode so far (override to add the family's own)."""
        return {}

    def documentation(self) -> str | None:
        """What an agent reads about this env: the class docstring (Minigrid's sections)."""
        return type(self).__doc__

    def rules_text(self) -> str | None:
        """The numbers of the level's data file in force, one table a line; None for an env without one."""
        return None

    def set_action_times(self, at_s: dict[AgentID, float]) -> None:
        """Apply the next step's actions `at_s[agent]` seconds into it (where `capabilities.substep_s` is set)."""
        raise NotImplementedError(f"{type(self).__name__} declares no capabilities.substep_s")

    def privileged_state(self, agent: AgentID) -> Any:
        """World facts for a privileged agent (where `capabilities.privileged` is set)."""
        raise NotImplementedError(f"{type(self).__name__} declares no capabilities.privileged")

    # -- PettingZoo protocol -------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None or not self._seeded:
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


class RealtimeWrapper(BaseParallelWrapper):
    """The base of rtarena's wrappers: PettingZoo's `BaseParallelWrapper` that forwards the env contract
    (`contract.RealtimeEnv`) member by member and refuses any other name, so a wrapper never hides what it
    does not know it forwards (Gymnasium 1.0 dropped `__getattr__` forwarding for the same reason). A
    subclass overrides what it changes (`reset`, `step`); `env` is the wrapped env."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.metadata = env.metadata

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"{type(self).__name__} forwards the env contract only, not {name!r} (use .env)")

    # state the runtime reads and, for `agents`, an env may write when it ends an episode early
    @property
    def agents(self) -> list[AgentID]:
        return self.env.agents

    @agents.setter
    def agents(self, value: list[AgentID]) -> None:
        self.env.agents = value

    @property
    def possible_agents(self) -> list[AgentID]:
        return self.env.possible_agents

    @property
    def dt(self) -> float:
        return self.env.dt

    @property
    def capabilities(self) -> EnvCapabilities:
        return self.env.capabilities

    @property
    def spec_id(self) -> str | None:
        return self.env.spec_id

    @property
    def time_limit_s(self) -> float | None:
        return self.env.time_limit_s

    @property
    def instruction(self) -> str | None:
        return self.env.instruction

    @property
    def render_mode(self) -> str | None:
        return self.env.render_mode

    def default_action(self, agent: AgentID) -> Any:
        return self.env.default_action(agent)

    def episode_metrics(self) -> dict[AgentID, dict[str, Any]]:
        return self.env.episode_metrics()

    def documentation(self) -> str | None:
        return self.env.documentation()

    def rules_text(self) -> str | None:
        return self.env.rules_text()

    def set_action_times(self, at_s: dict[AgentID, float]) -> None:
        self.env.set_action_times(at_s)

    def privileged_state(self, agent: AgentID, **params: Any) -> Any:
        return self.env.privileged_state(agent, **params)
