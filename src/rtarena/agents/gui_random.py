"""A random GUI agent: clicks, keys and typing on the marks it sees, seeded from the episode seed.

Unlike a random string from the Text action space (which almost never parses), it produces valid GUI
actions, so it is the floor for "acting without understanding" on browser tasks.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from rtarena.agents.base import Agent, AgentContext, Decision

KEYS = ("ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Enter", "Space", "Tab")
WORDS = ("hello", "42", "yes", "test", "ok")


class GuiRandomAgent(Agent):
    """Each decision: click a random mark (50%), press a random key (25%), type into a field (10%) or wait."""

    name = "random"

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        self.rng = np.random.default_rng(context.seed)

    def act(self, observation: Any) -> Decision:
        marks = json.loads(observation.get("marks", "[]")) if isinstance(observation, dict) else []
        roll = self.rng.random()
        fields = [m for m in marks if "type" in m.get("actions", [])]
        if roll < 0.5 and marks:
            action = f"click({marks[int(self.rng.integers(len(marks)))]['id']})"
        elif roll < 0.75:
            action = f'key("{KEYS[int(self.rng.integers(len(KEYS)))]}")'
        elif roll < 0.85 and fields:
            field = fields[int(self.rng.integers(len(fields)))]
            action = f'type({field["id"]}, "{WORDS[int(self.rng.integers(len(WORDS)))]}")'
        else:
            action = "wait()"
        return Decision(action=action)  # no declared thinking cost: tokens_source "none"
