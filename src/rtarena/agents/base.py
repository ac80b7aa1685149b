"""The simplest decision makers: no-op and random agents (plain callables become `CallableAgent`s).

What an agent is (`Agent`, `Decision`, `AgentContext`, `CallableAgent`, `as_agent`) lives in
`rtarena.contract`, at the bottom of the package, and is re-exported here for convenience.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from rtarena.contract import Agent, AgentContext, CallableAgent, Decision, as_agent

__all__ = ["Agent", "AgentContext", "CallableAgent", "Decision", "NoopAgent", "RandomAgent", "as_agent"]


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
