"""A scripted cart-pole balancer: a linear state-feedback law that keeps the pole up for the whole
episode when it acts every control period, and cannot when its actions arrive late."""

from __future__ import annotations

from typing import Any

import numpy as np

from rtarena.agents.base import Agent, Decision

GAINS = np.array([0.3, 0.6, 8.0, 1.5])  # cart x, cart v, pole angle, pole angular velocity


class CartPoleBalancer(Agent):
    """Pushes toward the side the pole is falling to. `tokens_out` declares a scripted thinking cost,
    so the token clock can charge it like a model's output."""

    name = "cartpole-balancer"

    def __init__(self, tokens_out: int | str = 0) -> None:
        # `heuristic:N` on the command line declares N output tokens per decision
        self.tokens_out = int(tokens_out)
        if self.tokens_out < 0:
            raise ValueError("tokens_out must be >= 0")

    def act(self, observation: Any) -> Decision:
        push_right = float(np.dot(GAINS, np.asarray(observation, dtype=float))) > 0
        return Decision(action=int(push_right), tokens_out=self.tokens_out,
                        tokens_source="scripted" if self.tokens_out else "none")


def balance(observation: Any) -> int:
    """The same law as a plain callable `observation -> action`."""
    return int(float(np.dot(GAINS, np.asarray(observation, dtype=float))) > 0)
