"""The `text` observation of a browser task: its writer and its reader, side by side.

    Goal: Join game 482113 as nightowl91, then answer each question.
    Time: 1.50 s elapsed, 58.50 s left
    Marks (id, role, text, box x,y,w,h, actions):
    [1] textbox "Game PIN" at (20, 40, 200, 30) click/type
    [2] checkbox checked "Remember me" at (20, 80, 16, 16) click
    Page text:
    Join a game ...

A mark's text is a JSON string (quotes and backslashes escaped); `checked`/`unchecked` follows the role of
a checkbox or radio button. `text_block` writes it (the env, `envs/gui/env.py`); `read_text_block` reads it
back (the policy server's scripted browser player, `policy_server/gui_text.py`), and
`tests/test_text_formats.py` checks that one undoes the other.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MARKS_HEADING = "Marks (id, role, text, box x,y,w,h, actions):"
PAGE_HEADING = "Page text:"
_GOAL = re.compile(r"(?:\A|\n)Goal: (?P<goal>.*)\Z", re.S)  # from the first line that opens with `Goal: `
_TIME = re.compile(r"^Time: (?P<elapsed>[\d.]+) s elapsed, (?P<left>[\d.]+) s left$", re.M)
_MARK = re.compile(r'^\[(?P<id>\d+)\] (?P<role>\S+)(?: (?P<checked>checked|unchecked))? '
                   r'(?P<text>"(?:[^"\\]|\\.)*") at \((?P<box>[^)]*)\) (?P<actions>\S*)$')


def text_block(goal: str, elapsed_s: float, left_s: float, marks: Sequence[dict[str, Any]], page_text: str) -> str:
    """The observation text: goal, page time, one line per Set-of-Marks mark, then the page's own text."""
    lines = [f"Goal: {goal}", f"Time: {elapsed_s:.2f} s elapsed, {left_s:.2f} s left", MARKS_HEADING]
    for mark in marks:
        checked = "" if "checked" not in mark else (" checked" if mark["checked"] else " unchecked")
        lines.append(f"[{mark['id']}] {mark['role']}{checked} {json.dumps(mark['text'])} "
                     f"at {tuple(mark['box'])} {'/'.join(mark['actions'])}")
    lines += [PAGE_HEADING, page_text.strip()]
    return "\n".join(lines)


@dataclass(frozen=True)
class TextBlock:
    """What `read_text_block` finds in an observation text (marks as the env's mark dicts)."""

    goal: str
    elapsed_s: float
    left_s: float
    marks: tuple[dict[str, Any], ...]
    page_text: str

    def mark_texts(self) -> dict[int, str]:
        """Mark id -> its text."""
        return {mark["id"]: mark["text"] for mark in self.marks}


def looks_like_text_block(text: str) -> bool:
    return MARKS_HEADING in text


def read_text_block(text: str) -> TextBlock | None:
    """The parts of an observation text written by `text_block`, also inside a longer message (a prompt's
    `Turn 3. Observation:` lines before it), or None if `text` holds no such block."""
    head, found, rest = text.partition("\n" + MARKS_HEADING + "\n")
    if not found:
        return None
    goal_part, _, time_line = head.rpartition("\n")
    timing = _TIME.match(time_line)
    goal = _GOAL.search(goal_part)
    mark_lines, _, page = ("\n" + rest).partition("\n" + PAGE_HEADING + "\n")
    marks = []
    for line in mark_lines.splitlines():
        m = _MARK.match(line)
        if m is None:
            continue
        mark: dict[str, Any] = {"id": int(m["id"]), "role": m["role"], "text": json.loads(m["text"]),
                                "box": [int(float(v)) for v in m["box"].split(",") if v.strip()],
                                "actions": m["actions"].split("/") if m["actions"] else []}
        if m["checked"]:
            mark["checked"] = m["checked"] == "checked"
        marks.append(mark)
    return TextBlock(goal=goal["goal"] if goal else "", elapsed_s=float(timing["elapsed"]) if timing else 0.0,
                     left_s=float(timing["left"]) if timing else 0.0, marks=tuple(marks), page_text=page)
