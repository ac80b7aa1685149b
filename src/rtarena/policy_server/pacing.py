"""What both endpoints of the policy server share: the pacing of tokens in time, the shape of what a request
showed the model, and the server's ledger (requests counted, inputs and bodies kept for tests).

The chat endpoint (`server.py`) and the Realtime endpoint (`realtime.py`) both import this module and
neither imports the other's answering code back (an import-linter contract in pyproject.toml keeps it so).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

from rtarena.agents.llm.tokens import count_content
from rtarena.limits import LIMITS, limit_message

FILLER_WORD = "think"  # one token under the counting rule
BATCH_S = 0.02  # filler tokens due within this long go out in one event (50 events per second at most)
INPUTS_KEPT = 4096  # shapes of the latest requests' user messages kept for tests (`PolicyServer.inputs`)
BODIES_KEPT = 32  # the latest whole request bodies, kept for tests (`PolicyServer.bodies`): images are large
MAX_TOKENS = int(LIMITS["policy.tokens"].value)


def input_shape(messages: list[dict[str, Any]]) -> tuple[tuple[str, int], ...]:
    """The last user message as (part type, tokens) pairs: what a request showed the model (text, images,
    audio), so that tests can see which modalities reached it without storing the media."""
    user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    content = (user or {}).get("content")
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    return tuple((str(part.get("type")), count_content([part])) for part in parts)


def media_parts(messages: list[dict[str, Any]]) -> int:
    """Image and audio parts of the last user message: what `media_prefill_s` charges for."""
    return sum(kind in ("image_url", "input_audio") for kind, _ in input_shape(messages))


def too_many_tokens(tokens: int) -> str | None:
    """The refusal of a reply that would write more than `policy.tokens` tokens (effort times scale, plan
    tokens times bodies), or None."""
    if tokens > MAX_TOKENS:
        return f"this reply's reasoning tokens: {limit_message('policy.tokens')}, got {tokens}"
    return None


async def sleep_until(deadline: float) -> None:
    remaining = deadline - time.monotonic()
    if remaining > 0:
        await asyncio.sleep(remaining)


async def pace(received: float, settings: Any, filler: int, prefill_s: float = 0.0) -> AsyncIterator[int]:
    """Wait for the first token (`ttft_s`, plus `prefill_s` for the request's media), then yield batches of
    filler tokens at the set rate (token k is due at first + k / rate; batches at least `BATCH_S` apart), or
    all at once, 512 a batch, when the rate is 0."""
    first = received + settings.ttft_s + prefill_s
    await sleep_until(first)
    sent = 0
    while sent < filler:
        if settings.filler_rate > 0:
            due = min(filler, int((time.monotonic() - first) * settings.filler_rate) + 1)
            if due > sent:
                yield due - sent
                sent = due
            if sent < filler:
                await sleep_until(max(first + sent / settings.filler_rate, time.monotonic() + BATCH_S))
        else:
            due = min(filler, sent + 512)
            yield due - sent
            sent = due


class Ledger:
    """The server's own accounting: its settings, requests counted (the faults' `fault_every` counts them),
    the latest inputs and bodies, and one `realtime.SessionLog` per Realtime connection."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.requests = 0
        self.inputs: deque[tuple[tuple[str, int], ...]] = deque(maxlen=INPUTS_KEPT)
        self.bodies: deque[dict[str, Any]] = deque(maxlen=BODIES_KEPT)
        self.sessions: list[Any] = []
        self.lock = threading.Lock()

    def next_request(self) -> int:
        with self.lock:
            self.requests += 1
            return self.requests

    def fault(self, settings: Any) -> str:
        """The fault this request gets: the settings' fault on every `fault_every`-th request, else none."""
        return settings.fault if self.next_request() % settings.fault_every == 0 else "none"
