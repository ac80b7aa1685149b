"""A scripted policy for browser tasks, from the observation text alone (the `text` modality).

It knows one kind of page well enough to act in it, the live quiz (`web/quiz-v0`): in its lobby it types the
game PIN and the nickname the goal names into the fields labelled so and clicks Join; a question
`A + B = ?` / `A - B = ?` in the page text is answered by clicking the mark whose text is the result. On any
other page it waits. It reads only what a model would read: the `Marks` lines and the `Page text`, through the
format's own reader next to its writer (`envs/gui/text.py`).
"""

from __future__ import annotations

import json
import re

from rtarena.envs.gui.text import TextBlock, looks_like_text_block, read_text_block

QUESTION = re.compile(r"(-?\d+)\s*([+-])\s*(-?\d+)\s*=\s*\?")
JOIN = re.compile(r"PIN (\d+) and the nickname '([^']+)'")  # the quiz's goal names both


def looks_like_gui(observation: str) -> bool:
    return looks_like_text_block(observation)


def join_lobby(block: TextBlock) -> str | None:
    """Type the goal's game PIN and nickname into the lobby's fields and click Join, when the page is a lobby."""
    goal = JOIN.search(block.goal)
    by_text = {text.strip(): mark_id for mark_id, text in block.mark_texts().items()}
    if not goal or not {"Game PIN", "Nickname", "Join"} <= set(by_text):
        return None
    pin, nick = (json.dumps(v) for v in goal.groups())
    return f'type({by_text["Game PIN"]}, {pin}); type({by_text["Nickname"]}, {nick}); click({by_text["Join"]})'


def decide(observation: str) -> str:
    """Join the lobby, or `click(ID)` on the answer to the page's arithmetic question, else `wait()`."""
    block = read_text_block(observation)
    if block is None:
        return "wait()"
    join = join_lobby(block)
    if join:
        return join
    question = QUESTION.search(block.page_text)
    if not question:
        return "wait()"
    a, op, b = int(question.group(1)), question.group(2), int(question.group(3))
    result = str(a + b if op == "+" else a - b)
    for mark_id, text in block.mark_texts().items():
        if text.strip() == result:
            return f"click({mark_id})"
    return "wait()"
