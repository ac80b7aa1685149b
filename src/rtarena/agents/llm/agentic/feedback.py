"""Feedback: how the previous decision went, told to the agent at the start of the next step."""

from __future__ import annotations

from rtarena.agents.base import Decision
from rtarena.agents.llm.prompts import render


class Feedback:
    def __init__(self) -> None:
        self.previous: str | None = None

    def after(self, decision: Decision, action_text: str) -> None:
        if decision.valid:
            self.previous = f"{action_text} (executed)"
        else:
            self.previous = f"failed ({decision.error}); the default action {action_text} was executed instead"

    def message(self) -> str:
        return render("feedback.md", previous=self.previous) + "\n" if self.previous else ""
