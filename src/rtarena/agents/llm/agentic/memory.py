"""Memory: what the agent carries from step to step: the retained turns (`History`) and its own notes.

A reply may hold lines `NOTE: ...`; the latest `max_notes` are shown with every observation, so the agent
can keep a plan or a fact across steps even after the turn that wrote it has been folded away.
"""

from __future__ import annotations

import re

from rtarena.agents.llm.history import History
from rtarena.agents.llm.parsing import THINK

NOTE = re.compile(r"^\s*NOTE:\s*(.+?)\s*$", re.M | re.I)


class Memory:
    def __init__(self, history: History, max_notes: int = 5) -> None:
        self.history = history
        self.max_notes = max_notes
        self.notes: list[str] = []

    def remember(self, reply: str) -> None:
        """Keep the notes a reply wrote (reasoning blocks are not read)."""
        for note in NOTE.findall(THINK.sub("", reply or "")):
            self.notes.append(note[:200])
        self.notes = self.notes[-self.max_notes:]
