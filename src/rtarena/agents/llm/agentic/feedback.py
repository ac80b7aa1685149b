"""Feedback: what the env did with the previous decision, told to the agent at the start of the next step.

A reply that parses is not yet an action that worked: the feedback names the action the agent sent (or the
default action played when its reply did not parse), then what the env reported afterwards, read from the
next observation: the arena's "Just now:" line (shots that hit or missed, pickups, damage taken ...), else
whether the observation changed at all since the decision was made (an unchanged view: the action did
nothing the agent can see).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rtarena.agents.base import Decision
from rtarena.agents.llm.prompts import render

JUST_NOW = "Just now:"  # the arena text observation's line of this step's events (envs/arena/observations/text.py)


def reported(observation: Any) -> str | None:
    """The env's own account of the last step, where its text observation has one."""
    text = observation.get("text") if isinstance(observation, dict) else None
    if not isinstance(text, str):
        return None
    line = next((ln for ln in text.splitlines() if ln.startswith(JUST_NOW)), None)
    return line.removeprefix(JUST_NOW).strip().rstrip(".") if line else None


def same_view(before: Any, after: Any) -> bool:
    """Whether two observations are equal, modality by modality (arrays by value)."""
    if isinstance(before, dict) and isinstance(after, dict):
        return before.keys() == after.keys() and all(same_view(before[k], after[k]) for k in before)
    if isinstance(before, np.ndarray) or isinstance(after, np.ndarray):
        return np.array_equal(np.asarray(before), np.asarray(after))
    return bool(before == after)


class Feedback:
    def __init__(self) -> None:
        self.sent: str | None = None  # the previous decision, as the env received it
        self.before: Any = None  # the observation it was decided on
        self.previous: str | None = None  # the message of this step

    def after(self, decision: Decision, action_text: str, observation: Any = None) -> None:
        """Remember what was sent (the env plays the default action for a reply that did not parse)."""
        self.sent = (f"{action_text}" if decision.valid else
                     f"your reply failed ({decision.error}), so the default action {action_text} was played")
        self.before = observation

    def seen(self, observation: Any) -> None:
        """Compose this step's feedback from what the env reports now about the previous decision."""
        if self.sent is None:
            self.previous = None
            return
        account = reported(observation)
        if account is not None:
            outcome = f"the game reports: {account}"
        elif self.before is not None and same_view(self.before, observation):
            outcome = "nothing you can see changed since"
        else:
            outcome = "the view has changed since" if self.before is not None else "no report"
        self.previous = f"{self.sent}; {outcome}"

    def message(self) -> str:
        return render("feedback.md", previous=self.previous) + "\n" if self.previous else ""
