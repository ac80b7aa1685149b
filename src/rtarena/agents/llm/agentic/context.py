"""Context: the messages of one planning round, from the system prompt, memory, feedback and perception."""

from __future__ import annotations

from typing import Any

from rtarena.agents.llm.agentic.feedback import Feedback
from rtarena.agents.llm.agentic.memory import Memory
from rtarena.agents.llm.history import Content
from rtarena.agents.llm.prompts import render, user_content


class ContextBuilder:
    def __init__(self, system: str, memory: Memory, feedback: Feedback) -> None:
        self.system = system
        self.memory = memory
        self.feedback = feedback

    def user(self, parts: list[dict[str, Any]], turn: int) -> Content:
        """The step's user message: feedback on the last decision, notes, then the observation."""
        prefix = self.feedback.message()
        if self.memory.notes:
            prefix += render("notes.md", notes=" | ".join(self.memory.notes)) + "\n"
        return user_content(parts, prefix + render("observation.md", turn=turn, body="").rstrip())

    def messages(self, user: Content, rounds: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The prompt of a round: the retained history, this step's message, and earlier rounds' exchanges."""
        return self.memory.history.messages(self.system, user) + rounds
