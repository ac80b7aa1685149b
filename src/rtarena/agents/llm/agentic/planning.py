"""Planning: several reasoning rounds within one step before one action is committed.

Each round is one model call. A reply ending in `LOOK: <view>` asks for more of the observation; the view
is appended (with the reply) and the model is called again, until a reply carries `ACTION:` or the round
cap is reached (the last allowed round is told to answer). Every round's tokens and time are summed into
the step's decision, so every clock charges them.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rtarena.agents.llm.client import ChatClient, Completion
from rtarena.agents.llm.parsing import MARKER, THINK
from rtarena.agents.llm.prompts import render

LOOK = re.compile(r"^\s*LOOK:\s*`?([A-Za-z_]+)`?", re.M | re.I)


@dataclass
class Plan:
    """The rounds of one step: every completion, the views looked at, and the reply committed."""

    completions: list[Completion] = field(default_factory=list)
    looks: list[str] = field(default_factory=list)

    @property
    def final(self) -> Completion:
        return self.completions[-1]


def wants_look(text: str) -> str | None:
    """The view a reply asks for, if it asks and does not also commit an action."""
    answer = THINK.sub("", text or "")
    if MARKER.search(answer):
        return None
    match = LOOK.search(answer)
    return match.group(1).lower() if match else None


class Planner:
    def __init__(self, client: ChatClient, max_rounds: int, timeout_s: float | None) -> None:
        self.client = client
        self.max_rounds = max_rounds
        self.timeout_s = timeout_s

    def plan(self, messages_for: Callable[[list[dict[str, Any]]], list[dict[str, Any]]],
             view: Callable[[str], list[dict[str, Any]] | None], view_names: list[str]) -> Plan:
        plan, rounds = Plan(), []
        budget = self.timeout_s or self.client.timeout_s  # None under `wall`: until the episode ends
        deadline = time.monotonic() + (budget if budget is not None else math.inf)
        for index in range(self.max_rounds):
            left = deadline - time.monotonic()
            completion = self.client.complete(messages_for(rounds), timeout_s=max(1e-3, left) if budget else None)
            plan.completions.append(completion)
            name = wants_look(completion.text) if completion.ok else None
            if name is None or index == self.max_rounds - 1:
                break
            plan.looks.append(name)
            content = view(name)
            if content is None:
                content = [{"type": "text", "text": render("look_unknown.md", view=name, views=", ".join(view_names))}]
            content = [{"type": "text", "text": render("look_answer.md", view=name)}, *content]
            if index == self.max_rounds - 2:
                content.append({"type": "text", "text": render("last_round.md")})
            rounds += [{"role": "assistant", "content": completion.text}, {"role": "user", "content": content}]
        return plan
