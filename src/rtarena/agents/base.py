"""What a decision maker is: `Agent.act(observation) -> Decision`, blocking; the runtime times it.

Agents know observations and actions only. They never see the runtime's threads or clocks, except for
the read-only `AgentContext` they are given at the start of each episode (prompts may describe the clock).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces


@dataclass(frozen=True)
class Decision:
    """One decision: the action and what it cost.

    `tokens_source` says where the token counts came from: "server" (usage reported by the model
    server), "counted" (counted locally because the server reported none), "scripted" (a scripted agent's
    declared cost) or "none". `valid` is False when the output did not parse (the action is then the
    default one). For a controller that owns several env agents, `action` maps agent id to action.
    """

    action: Any
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_source: str = "none"
    text: str | None = None
    valid: bool = True
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AgentContext:
    """What an agent may know about the episode it is about to play."""

    env_id: str
    agents: tuple[str, ...]
    observation_spaces: dict[str, spaces.Space]
    action_spaces: dict[str, spaces.Space]
    default_actions: dict[str, Any]
    dt: float
    seed: int
    clock: dict[str, Any]
    env: Any = None  # the env object itself, for agents that read its documentation (never its state)

    @property
    def agent(self) -> str:
        """The single env agent of a decentralised controller."""
        return self.agents[0]


class Agent:
    """Base class for decision makers. Subclasses implement `act`; `reset` is called per episode."""

    name: str = "agent"

    def reset(self, context: AgentContext) -> None:
        self.context = context

    def act(self, observation: Any) -> Decision:
        raise NotImplementedError

    def close(self) -> None:
        """Release what the agent holds (HTTP clients, windows)."""


class CallableAgent(Agent):
    """Any plain callable `observation -> action` used as an agent."""

    def __init__(self, policy: Callable[[Any], Any], name: str | None = None) -> None:
        self.policy = policy
        self.name = name or getattr(policy, "__name__", "callable")

    def act(self, observation: Any) -> Decision:
        result = self.policy(observation)
        return result if isinstance(result, Decision) else Decision(action=result)


class NoopAgent(Agent):
    """Always the env's default action: the floor every agent should beat."""

    name = "noop"

    def act(self, observation: Any) -> Decision:
        defaults = self.context.default_actions
        if len(self.context.agents) == 1:
            return Decision(action=defaults[self.context.agent])
        return Decision(action={a: defaults[a] for a in self.context.agents})


class RandomAgent(Agent):
    """Uniformly random actions, seeded from the episode seed so runs reproduce."""

    name = "random"

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        rng = np.random.default_rng(context.seed)
        # Private copies: the env hands every caller the same space object, and seeding it would leak.
        self.spaces = {a: copy.deepcopy(context.action_spaces[a]) for a in context.agents}
        for space in self.spaces.values():
            space.seed(int(rng.integers(2**31)))

    def act(self, observation: Any) -> Decision:
        samples = {a: self.spaces[a].sample() for a in self.context.agents}
        if len(self.context.agents) == 1:
            return Decision(action=samples[self.context.agent])
        return Decision(action=samples)


def as_agent(obj: Agent | Callable[[Any], Any]) -> Agent:
    """An `Agent` as is; a plain callable wrapped in `CallableAgent`."""
    if isinstance(obj, Agent):
        return obj
    if callable(obj):
        return CallableAgent(obj)
    raise TypeError(f"an agent must be an Agent or a callable observation -> action, got {obj!r}")
