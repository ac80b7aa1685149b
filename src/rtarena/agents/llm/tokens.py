"""A local token count, for servers that report no usage (the counts are then flagged "counted").

The rule is deliberately simple and documented: one token per run of letters or digits and one per other
non-space character. It is close to a BPE count for English prose and JSON, never exact; decisions
charged with it carry `tokens_source="counted"`. The scripted policy server counts with the same rule,
so its reported usage is reproducible.
"""

from __future__ import annotations

import functools
import re
from typing import Any

TOKEN = re.compile(r"[A-Za-z]+|[0-9]+|[^\sA-Za-z0-9]")
IMAGE_TOKENS = 85  # a fixed charge per image part, as OpenAI's low-detail images cost
AUDIO_TOKENS = 50  # a fixed charge per audio part


def count_tokens(text: str | None) -> int:
    """Tokens in a piece of text under the local rule."""
    return _count(text) if text else 0


@functools.lru_cache(maxsize=1024)
def _count(text: str) -> int:
    """Cached: a chat resends its history every turn, and hashing a message is far cheaper than scanning it (the
    scripted server counted the same messages again on every request: a tenth of a stand-in match's CPU)."""
    return len(TOKEN.findall(text))


def count_content(content: Any) -> int:
    """Tokens of a message's content: a string, or a list of text/image/audio parts."""
    if content is None:
        return 0
    if isinstance(content, str):
        return count_tokens(content)
    total = 0
    for part in content:
        kind = part.get("type")
        if kind == "text":
            total += count_tokens(part.get("text", ""))
        elif kind == "image_url":
            total += IMAGE_TOKENS
        elif kind == "input_audio":
            total += AUDIO_TOKENS
    return total


def count_messages(messages: list[dict[str, Any]]) -> int:
    """Tokens of a chat prompt: every message's content plus 3 per message for its role framing."""
    return sum(3 + count_content(m.get("content")) for m in messages)
