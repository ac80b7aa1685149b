"""A browser task as a model sees it by default: the goal and clock, the Set-of-Marks screenshot, and the
list of interactable elements (the marks) after it, as its own part so that history can fold it with
its screenshot (Realtime-Bench's retention replaces old screenshots *and their interactables*).
"""

from __future__ import annotations

import json
import re
from typing import Any

from rtarena.envs.gui.text import TextBlock

MARKS_HEADER = "Interactable elements (the numbered marks on the screenshot): id, role, text, box x,y,w,h"
MAX_SIDE = 1280  # screenshots are sent at their own size up to this longest side: small text stays legible


def default_view(space: Any) -> tuple[tuple[str, ...], int]:
    """The modalities and image size a model agent gets when its spec names none: screenshot with marks
    plus the marks list where the observation has a Set-of-Marks image; the frame at its native size and
    the HUD line where it has `rgb` and `hud` (the game suite: the paper's players see the screen); the
    frame and the text where it has `rgb` and `text` (the arena); else text at 256 pixels."""
    spaces = getattr(space, "spaces", None) or {}
    if "som" in spaces and "marks" in spaces:
        return ("som", "marks"), min(MAX_SIDE, max(spaces["som"].shape[:2]))
    if "rgb" in spaces and "hud" in spaces:
        return ("rgb", "hud"), min(MAX_SIDE, max(spaces["rgb"].shape[:2]))
    if "rgb" in spaces and "text" in spaces:  # the arena: ROAR's screen beside the level text (docs/conditions.md)
        return ("rgb", "text"), min(MAX_SIDE, max(spaces["rgb"].shape[:2]))
    return ("text",), 256


def goal_text(observation: dict[str, Any]) -> str | None:
    """The goal and the page clock, one line each, when the observation has them."""
    lines = []
    if "goal" in observation:
        lines.append(f"Goal: {observation['goal']}")
    if "time" in observation:
        elapsed, left = (float(v) for v in observation["time"])
        lines.append(f"Time: {elapsed:.1f} s elapsed, {left:.1f} s left")
    return "\n".join(lines) or None


def marks_part(observation: dict[str, Any]) -> dict[str, Any]:
    """The marks list as one text part."""
    lines = [MARKS_HEADER]
    for mark in json.loads(observation["marks"] or "[]"):
        state = "" if "checked" not in mark else (" checked" if mark["checked"] else " unchecked")
        lines.append(f"[{mark['id']}] {mark['role']}{state} {json.dumps(mark['text'])} "
                     f"at {','.join(str(v) for v in mark['box'])}")
    return {"type": "text", "text": "\n".join(lines)}


_LISTED_MARK = re.compile(r'^\[(?P<id>\d+)\] (?P<role>\S+)(?: (?P<checked>checked|unchecked))? '
                          r'(?P<text>"(?:[^"\\]|\\.)*") at (?P<box>[-\d,]*)$')
_GOAL_LINE = re.compile(r"^Goal: (?P<goal>.*)$", re.M)


def read_marks_view(text: str) -> TextBlock | None:
    """The goal and marks of a message written by `goal_text` and `marks_part` (the default Set-of-Marks
    view; it has no page text), also inside a longer prompt, or None without a marks list. The reader of
    the scripted browser player (`policy_server/gui_text.py`); `tests/test_text_formats.py` round-trips it."""
    head, found, rest = text.rpartition(MARKS_HEADER + "\n")
    if not found:
        return None
    goals = _GOAL_LINE.findall(head)
    marks = []
    for line in rest.splitlines():
        m = _LISTED_MARK.match(line)
        if m is None:
            break
        mark: dict[str, Any] = {"id": int(m["id"]), "role": m["role"], "text": json.loads(m["text"]),
                                "box": [int(v) for v in m["box"].split(",") if v], "actions": []}
        if m["checked"]:
            mark["checked"] = m["checked"] == "checked"
        marks.append(mark)
    return TextBlock(goal=goals[-1] if goals else "", elapsed_s=0.0, left_s=0.0, marks=tuple(marks), page_text="")


def is_marks(part: dict[str, Any]) -> bool:
    return part.get("type") == "text" and str(part.get("text", "")).startswith(MARKS_HEADER)
