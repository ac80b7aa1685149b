"""Where a reply's action is complete: the point up to which its tokens count as deliberation.

Under the token clock a decision costs the tokens generated until its action is written; what a model
writes after the `ACTION:` line (an explanation) is recorded but not charged, and with the option
`early_commit` the client stops reading the stream there. The action is complete at the end of the
first `ACTION:` line written outside a `<think>` block that a newline closes (or at the end of the reply).
"""

from __future__ import annotations

import re

from rtarena.agents.llm.parsing import MARKER

THINK_OPEN = re.compile(r"<think>", re.I)
THINK_CLOSE = re.compile(r"</think>", re.I)


def commit_point(text: str, final: bool = False) -> int | None:
    """Index just past the completed action line in `text`, or None while the action is not complete.
    With `final` (the reply has ended) an unterminated action line is complete at the end."""
    start = 0
    opened = list(THINK_OPEN.finditer(text))
    if opened:
        closed = list(THINK_CLOSE.finditer(text, opened[-1].end()))
        if not closed:
            return None  # still thinking
        start = closed[-1].end()
    marker = MARKER.search(text, start)
    if marker is None:
        return len(text) if final and text.strip() else None
    newline = text.find("\n", marker.end())
    if newline >= 0 and text[marker.end():newline].strip():
        return newline
    return len(text) if final else None
