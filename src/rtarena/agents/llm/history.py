"""History retention that keeps the prompt prefix stable, so servers can reuse their KV cache.

A prompt is `[system, (user, assistant) * past turns, user(current observation)]`. Between two folds it
only grows at the end: every earlier message is byte-identical to what the server saw last turn. Folds
happen in blocks, never one message at a time:

- Text: at most `max_turns` past turns are kept; when one more arrives, the oldest `fold` turns are
  removed at once and their *executed* actions (those the runtime applied, reported through `applied`)
  appended to a ledger. The ledger is its own message right after the system message and only ever grows
  at its end, so the system message stays byte-identical for the whole episode and a fold keeps the
  prefix up to the old ledger text.
- Images: when the retained screenshots reach `max_images`, the oldest `image_fold` are replaced at once by
  a fixed placeholder text (`prompts/image_placeholder.txt`), and so is the list of interactables (marks)
  sent with each of them. A prompt so holds at most `max_images - 1` past screenshots and the current one.

The defaults are Realtime-Bench's: "When the active visual history reaches 21 observations, the oldest 10
screenshots and their associated interactables are replaced with fixed placeholders"; "When detailed
interaction history exceeds 50 turns, the oldest 10 complete turns are replaced by a compact
executed-action ledger." So images fold when 21 are retained, text when a 51st turn arrives.

With `max_turns=0` every prompt is just the system message and the current observation.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from rtarena.agents.llm.gui_view import is_marks
from rtarena.agents.llm.media import is_image
from rtarena.agents.llm.prompts import render

Content = str | list[dict[str, Any]]


@dataclass
class Turn:
    """One past turn: what the agent was shown, what it replied, and the action it chose (canonical)."""

    index: int
    user: Content
    assistant: str
    action: str


class History:
    """The past turns of one controller in one episode, and the ledger of folded ones."""

    def __init__(self, max_turns: int = 50, fold: int = 10, max_images: int = 21, image_fold: int = 10) -> None:
        self.max_turns = max_turns
        self.fold = max(1, min(fold, max_turns)) if max_turns else 1
        self.max_images = max_images
        self.image_fold = max(1, image_fold)
        self.turns: list[Turn] = []
        self.ledger: list[str] = []
        self.text_folds = 0
        self.image_folds = 0
        self.executed: set[int] = set()  # turn indices whose action the runtime applied

    def messages(self, system: str, user: Content) -> list[dict[str, Any]]:
        """The prompt for the current turn."""
        out: list[dict[str, Any]] = [{"role": "system", "content": system}]
        if self.ledger:
            out.append({"role": "user", "content": render("ledger.md", entries="\n".join(self.ledger))})
            out.append({"role": "assistant", "content": "Noted."})
        for turn in self.turns:
            out.append({"role": "user", "content": turn.user})
            out.append({"role": "assistant", "content": turn.assistant})
        out.append({"role": "user", "content": user})
        return out

    def record(self, index: int, user: Content, assistant: str, action: str) -> None:
        """Keep a finished turn; fold text and images in blocks when over their limits."""
        if self.max_turns == 0:
            return
        self.turns.append(Turn(index, copy.deepcopy(user), assistant, action))
        if len(self.turns) > self.max_turns:
            folded, self.turns = self.turns[:self.fold], self.turns[self.fold:]
            self.ledger.extend(f"turn {t.index}: {t.action}" for t in folded if t.index in self.executed)
            self.text_folds += 1
        while self.image_count() >= max(1, self.max_images):  # "reaches 21"; images=0 keeps none
            self._replace_oldest_images(self.image_fold)
            self.image_folds += 1

    def applied(self, index: int) -> None:
        """The runtime applied the action chosen in turn `index`: it belongs in the ledger once folded."""
        self.executed.add(index)

    def image_count(self) -> int:
        return sum(is_image(p) for t in self.turns if isinstance(t.user, list) for p in t.user)

    def _replace_oldest_images(self, count: int) -> None:
        placeholder = {"type": "text", "text": render("image_placeholder.txt")}
        for turn in self.turns:
            if not isinstance(turn.user, list):
                continue
            parts = list(turn.user)  # a new list: prompts already handed out keep what they showed
            for i, part in enumerate(parts):
                if count and is_image(part):
                    parts[i] = dict(placeholder)
                    if i + 1 < len(parts) and is_marks(parts[i + 1]):  # its interactables go with it
                        parts[i + 1] = {"type": "text", "text": render("marks_placeholder.txt")}
                    count -= 1
            turn.user = parts
            if not count:
                return
