"""Run any Gymnasium `Env` or PettingZoo `ParallelEnv` under rtarena's runtime by giving it a `dt`.

The adapters add the contract's extras (`dt`, `default_action`, `events` in infos) and nothing else:
observations and actions pass through unchanged, so a plain callable written for the wrapped env works.
"""

from __future__ import annotations

from typing import Any

import gymnasium
from pettingzoo import ParallelEnv

from rtarena.envs.base import AgentID, RealtimeParallelEnv, zero_action
from rtarena.errors import UserError
from rtarena.limits import check_limit


def check_dt(dt: float) -> float:
    """Validate a step length in simulated seconds."""
    try:
        value = float(dt)
    except (TypeError, ValueError):
        raise UserError(f"dt must be a positive number of seconds, got {dt!r}", field="dt") from None
    if not value > 0:
        raise UserError(f"dt must be a positive number of seconds, got {dt!r}", field="dt")
    return check_limit("step.dt_s", value, field="dt")


class GymnasiumAdapter(RealtimeParallelEnv):
    """A single-agent Gymnasium env seen as a one-agent `ParallelEnv` with a fixed `dt`."""

    def __init__(
        self,
        env: gymnasium.Env,
        dt: float,
        agent: AgentID = "agent_0",
        default_action: Any = None,
    ) -> None:
        super().__init__()
        self.env = env
        self.dt = check_dt(dt)
        self.possible_agents = [agent]
        self._default = default_action
        self.metadata = {**self.metadata, "name": getattr(env.spec, "id", type(env).__name__),
                         "render_modes": [m for m in env.metadata.get("render_modes", [])]}
        self.render_mode = env.render_mode

    def observation_space(self, agent: AgentID) -> gymnasium.Space:
        return self.env.observation_space

    def action_space(self, agent: AgentID) -> gymnasium.Space:
        return self.env.action_space

    def default_action(self, agent: AgentID) -> Any:
        return self._default if self._default is not None else zero_action(self.env.action_space)

    def reset(self, seed: int | None = None, options: dict | None = None):
        observation, info = self.env.reset(seed=seed, options=options)
        agent = self.possible_agents[0]
        self.agents = [agent]
        return {agent: observation}, {agent: {**info, "events": []}}

    def step(self, actions: dict[AgentID, Any]):
        agent = self.possible_agents[0]
        if not self.agents:
            return {}, {}, {}, {}, {}
        action = actions.get(agent, self.default_action(agent))
        observation, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            self.agents = []
        return (
            {agent: observation},
            {agent: float(reward)},
            {agent: bool(terminated)},
            {agent: bool(truncated)},
            {agent: {**info, "events": []}},
        )

    def render(self):
        return self.env.render()

    def close(self) -> None:
        self.env.close()


class PettingZooAdapter(RealtimeParallelEnv):
    """Any PettingZoo `ParallelEnv` with a fixed `dt` and the contract's extras."""

    def __init__(self, env: ParallelEnv, dt: float, default_actions: dict[AgentID, Any] | None = None) -> None:
        super().__init__()
        self.env = env
        self.dt = check_dt(dt)
        self.possible_agents = list(env.possible_agents)
        self._defaults = default_actions or {}
        self.metadata = {**self.metadata, **getattr(env, "metadata", {})}
        self.render_mode = getattr(env, "render_mode", None)

    def observation_space(self, agent: AgentID) -> gymnasium.Space:
        return self.env.observation_space(agent)

    def action_space(self, agent: AgentID) -> gymnasium.Space:
        return self.env.action_space(agent)

    def default_action(self, agent: AgentID) -> Any:
        if agent in self._defaults:
            return self._defaults[agent]
        inner = getattr(self.env, "default_action", None)
        return inner(agent) if callable(inner) else zero_action(self.env.action_space(agent))

    def reset(self, seed: int | None = None, options: dict | None = None):
        observations, infos = self.env.reset(seed=seed, options=options)
        self.agents = list(self.env.agents)
        return observations, {a: {**infos.get(a, {}), "events": infos.get(a, {}).get("events", [])}
                              for a in self.agents}

    def step(self, actions: dict[AgentID, Any]):
        observations, rewards, terminations, truncations, infos = self.env.step(
            {a: actions.get(a, self.default_action(a)) for a in self.env.agents}
        )
        self.agents = list(self.env.agents)
        infos = {a: {**info, "events": info.get("events", [])} for a, info in infos.items()}
        return observations, rewards, terminations, truncations, infos

    def render(self):
        return self.env.render()

    def close(self) -> None:
        self.env.close()


def wrap_gymnasium(env: gymnasium.Env, dt: float, **kwargs: Any) -> GymnasiumAdapter:
    """Wrap a Gymnasium env so the runtime can step it every `dt` simulated seconds."""
    return GymnasiumAdapter(env, dt=dt, **kwargs)


def wrap_pettingzoo(env: ParallelEnv, dt: float, **kwargs: Any) -> PettingZooAdapter:
    """Wrap a PettingZoo `ParallelEnv` so the runtime can step it every `dt` simulated seconds."""
    return PettingZooAdapter(env, dt=dt, **kwargs)
