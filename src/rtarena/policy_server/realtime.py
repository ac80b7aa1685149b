"""The policy server's Realtime endpoint: OpenAI's Realtime WebSocket protocol at `/v1/realtime`, answered by
the same scripted policies as `/v1/chat/completions` (not a model).

A client (`live:` agents, or the official SDK's `client.realtime.connect`) opens one WebSocket per
session. The framing is uvicorn's (Starlette's `WebSocket`), behind `webapp.Guard`: an upgrade from a
foreign `Origin` or `Host` is refused with 403, a message larger than `websocket.bytes` closes the
session (1009, from the frame's header), and a session silent for `websocket.idle_s` is closed; this module
only speaks the events. The subset served:

- `session.update`: keeps `instructions`, `max_output_tokens` and `reasoning.effort`; `session.updated`.
- `conversation.item.create`: a `message` item (role `user`, `assistant` or `system`; parts `input_text`,
  `input_image`, `output_text`) inserted after `previous_item_id` (`root`: first; none: last);
  `conversation.item.added` and `conversation.item.done`.
- `conversation.item.delete`: removes the item; `conversation.item.deleted`.
- `response.create`: reads the conversation as the chat endpoint reads a request (`policies.answer`) and
  streams `response.created`, `response.output_item.added`, `response.content_part.added`,
  `response.output_text.delta`..., `response.output_text.done`, `response.content_part.done`,
  `response.output_item.done`, then `response.done` with the usage.

Anything else, an unknown item id, an `input_audio` part or a malformed value is an `error` event (the
session stays open).
Events that arrive while a response is generated are read after it, in order.

Like the chat endpoint it waits `ttft_s` before the first delta and paces `filler_tokens` (or a reasoning
model's effort tokens, from the session's `reasoning.effort`) at `filler_rate`; the Realtime protocol has
no reasoning channel, so they arrive as a `<think>` block in the text (its tags counted as the chat endpoint
counts them: only with `reasoning=think`, so both endpoints charge a reply alike), and the conversation keeps
the answer without it, as the request agent's history does. Usage counts with the rule of
`agents/llm/tokens.py`: `input_tokens` the whole conversation, `cached_tokens` the part of it that
matches the previous response's conversation from the start (what a server's prefix cache could reuse).

Faults (`faults.py`, hit on every `fault_every`-th response of the server): `cut` drops the socket
half-way through the reply; `garbage` and `empty` answer with such text; `http_500`/`http_429` send an
`error` event (`server_error`/`rate_limit_exceeded`) instead of a response; `slow` waits `slow_s` first;
`garbage_event` sends a frame that is not JSON before the response; `no_done` never sends `response.done`.

Every session is logged on the server (`PolicyServer.sessions`): one `SessionLog` per connection.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from rtarena.agents.llm.tokens import count_messages, count_tokens
from rtarena.limits import LIMITS
from rtarena.policy_server import reasoning as reasoning_mode
from rtarena.policy_server.faults import GARBAGE
from rtarena.policy_server.pacing import FILLER_WORD, Ledger, input_shape, pace, too_many_tokens
from rtarena.policy_server.policies import answer
from rtarena.webapp import Dropped

IDLE_S = float(LIMITS["websocket.idle_s"].value)  # a session with no event for this long is closed
ERROR_EVENTS = {"http_500": ("server_error", "injected fault: internal error"),
                "http_429": ("rate_limit_exceeded", "injected fault: rate limited")}
PARTS = {"input_text": "text", "output_text": "text", "text": "text", "input_image": "image_url"}
NOT_JSON = "this frame is not a JSON event {"


@dataclass
class SessionLog:
    """What one session did, for tests and the server's own accounting."""

    model: str
    responses: int = 0
    items_added: int = 0
    items_deleted: int = 0
    most_items: int = 0  # the largest conversation the session held
    errors: list[str] = field(default_factory=list)  # `type: message` of each error event sent


class Wire:
    """JSON events over one Starlette `WebSocket`."""

    def __init__(self, websocket: Any) -> None:
        self.websocket = websocket

    async def send(self, event: dict[str, Any]) -> None:
        await self.send_text(json.dumps(event, separators=(",", ":")))

    async def send_text(self, text: str) -> None:
        await self.websocket.send_text(text)

    def drop(self) -> None:
        """Cut the connection without a close frame, as a network failure would (uvicorn closes the socket)."""
        raise Dropped

    async def receive(self) -> str | None:
        """The next message as text (a binary one decoded), or None once the client left or was idle
        `IDLE_S`."""
        try:
            message = await asyncio.wait_for(self.websocket.receive(), IDLE_S)
        except TimeoutError:
            await self.websocket.close(1000, "idle")
            return None
        if message["type"] == "websocket.disconnect":
            return None
        if message.get("text") is not None:
            return message["text"]
        return (message.get("bytes") or b"").decode("utf-8", "replace")


async def serve_session(websocket: Any, settings: Any, ledger: Ledger) -> None:
    """Accept the upgrade and serve one Realtime session until the client leaves."""
    await websocket.accept()
    model = websocket.query_params.get("model") or settings.model_name
    log = SessionLog(model)
    ledger.sessions.append(log)
    await Session(ledger, Wire(websocket), settings, log).run()


class Session:
    """One conversation: its items, its settings, and the events that change them."""

    def __init__(self, ledger: Ledger, wire: Wire, settings: Any, log: SessionLog) -> None:
        self.server = ledger
        self.wire = wire
        self.settings = settings
        self.log = log
        self.items: list[dict[str, Any]] = []
        self.instructions = ""
        self.max_output_tokens: int | None = None
        self.effort: str | None = None
        self.previous: list[dict[str, Any]] = []  # the conversation the last response read
        self.session_id = f"sess_{uuid.uuid4().hex[:20]}"
        self.events = 0

    async def send(self, kind: str, **fields: Any) -> None:
        self.events += 1
        await self.wire.send({"type": kind, "event_id": f"event_{self.events}", **fields})

    async def error(self, kind: str, message: str, event: dict[str, Any] | None = None,
                    code: str | None = None) -> None:
        self.log.errors.append(f"{kind}: {message}")
        await self.send("error", error={"type": kind, "code": code, "message": message,
                                        "event_id": (event or {}).get("event_id")})

    async def run(self) -> None:
        await self.send("session.created", session=self.description())
        handlers = {"session.update": self.update, "conversation.item.create": self.create_item,
                    "conversation.item.delete": self.delete_item, "response.create": self.respond}
        while (text := await self.wire.receive()) is not None:
            try:
                event = json.loads(text)
            except ValueError:
                await self.error("invalid_request_error", "the event is not JSON")
                continue
            kind = event.get("type") if isinstance(event, dict) else None
            if kind not in handlers:
                await self.error("invalid_request_error", f"unsupported event type {kind!r}", event if kind else None)
                continue
            try:
                await handlers[kind](event)
            except (TypeError, ValueError, AttributeError) as error:  # a malformed value: the session stays open
                await self.error("invalid_request_error", f"{kind}: {type(error).__name__}: {str(error)[:160]}",
                                 event)

    def description(self) -> dict[str, Any]:
        return {"type": "realtime", "object": "realtime.session", "id": self.session_id, "model": self.log.model,
                "output_modalities": ["text"], "instructions": self.instructions,
                "max_output_tokens": self.max_output_tokens or "inf",
                **({"reasoning": {"effort": self.effort}} if self.effort else {})}

    # -- conversation ------------------------------------------------------------------------------
    async def update(self, event: dict[str, Any]) -> None:
        session = event.get("session") or {}
        if not isinstance(session, dict):
            return await self.error("invalid_request_error", "'session' must be an object", event)
        if "instructions" in session:
            self.instructions = str(session["instructions"] or "")
        limit = session.get("max_output_tokens")
        if limit is not None:
            self.max_output_tokens = None if limit == "inf" else int(limit)
        effort = (session.get("reasoning") or {}).get("effort")
        if effort is not None:
            self.effort = str(effort)
        await self.send("session.updated", session=self.description())

    async def create_item(self, event: dict[str, Any]) -> None:
        item = event.get("item")
        if not isinstance(item, dict) or item.get("type") != "message" or item.get("role") not in (
                "user", "assistant", "system") or not isinstance(item.get("content"), list):
            return await self.error("invalid_request_error", "only message items with a role and a content list", event)
        for part in item["content"]:
            if not isinstance(part, dict) or part.get("type") not in PARTS:
                kind = part.get("type") if isinstance(part, dict) else part
                return await self.error("invalid_request_error", f"unsupported content part {kind!r}", event,
                                  code="unsupported_content_type")
        previous = event.get("previous_item_id")
        if previous in (None, ""):
            at = len(self.items)
        elif previous == "root":
            at = 0
        else:
            at = next((i + 1 for i, held in enumerate(self.items) if held["id"] == previous), None)
            if at is None:
                return await self.error("invalid_request_error", f"no item {previous!r}", event, code="item_not_found")
        stored = {**item, "id": item.get("id") or f"item_{uuid.uuid4().hex[:20]}", "object": "realtime.item",
                  "status": "completed"}
        self.items.insert(at, stored)
        self.log.items_added += 1
        self.log.most_items = max(self.log.most_items, len(self.items))
        before = self.items[at - 1]["id"] if at else None
        await self.send("conversation.item.added", previous_item_id=before, item=stored)
        await self.send("conversation.item.done", previous_item_id=before, item=stored)

    async def delete_item(self, event: dict[str, Any]) -> None:
        item_id = event.get("item_id")
        index = next((i for i, held in enumerate(self.items) if held["id"] == item_id), None)
        if index is None:
            return await self.error("invalid_request_error", f"no item {item_id!r}", event, code="item_not_found")
        del self.items[index]
        self.log.items_deleted += 1
        await self.send("conversation.item.deleted", item_id=item_id)

    def messages(self) -> list[dict[str, Any]]:
        """The conversation as a chat request's messages, for the scripted policies and the token count."""
        out: list[dict[str, Any]] = [{"role": "system", "content": self.instructions}] if self.instructions else []
        for item in self.items:
            parts = []
            for part in item["content"]:
                if PARTS[part["type"]] == "text":
                    parts.append({"type": "text", "text": str(part.get("text") or "")})
                else:
                    parts.append({"type": "image_url", "image_url": {"url": str(part.get("image_url") or "")}})
            out.append({"role": item["role"], "content": parts})
        return out

    # -- responses ---------------------------------------------------------------------------------
    async def respond(self, event: dict[str, Any]) -> None:
        received = time.monotonic()
        settings = self.settings
        fault = self.server.fault(settings)
        messages = self.messages()
        self.server.inputs.append(input_shape(messages))
        self.log.responses += 1
        if fault in ERROR_EVENTS:
            return await self.error(*ERROR_EVENTS[fault], event)
        if fault == "slow":
            await asyncio.sleep(settings.slow_s)
        if fault == "garbage_event":
            await self.wire.send_text(NOT_JSON)
        params = event.get("response") if isinstance(event.get("response"), dict) else {}
        limit = params.get("max_output_tokens", self.max_output_tokens)
        limit = None if limit in (None, "inf") else int(limit)
        text = await asyncio.to_thread(answer, messages, settings.policy, settings.seed)
        text = {"garbage": GARBAGE, "empty": ""}.get(fault, reasoning_mode.with_after(text, settings))
        filler = reasoning_mode.reasoning_tokens(settings, {"reasoning_effort": self.effort})
        refused = too_many_tokens(filler)
        if refused is not None:
            return await self.error("invalid_request_error", refused, event)
        status, details = "completed", None
        if limit is not None and filler + count_tokens(text) > limit:
            filler, text = min(filler, limit), ""
            status, details = "incomplete", {"type": "incomplete", "reason": "max_output_tokens"}
        response_id = f"resp_{uuid.uuid4().hex[:20]}"
        item_id = f"item_{uuid.uuid4().hex[:20]}"
        ids = {"response_id": response_id, "item_id": item_id, "output_index": 0}
        item = {"id": item_id, "type": "message", "role": "assistant", "object": "realtime.item",
                "status": "in_progress", "content": []}
        await self.send("response.created", response={"id": response_id, "object": "realtime.response",
                                                        "status": "in_progress", "output": []})
        await self.send("response.output_item.added", response_id=response_id, output_index=0, item=item)
        await self.send("response.content_part.added", **ids, content_index=0, part={"type": "text", "text": ""})
        written: list[str] = []

        async def delta(piece: str) -> None:
            written.append(piece)
            await self.send("response.output_text.delta", **ids, content_index=0, delta=piece)

        first = True
        async for n in pace(received, settings, filler):
            words = " ".join([FILLER_WORD] * n)
            await delta(("<think>" + words) if first else " " + words)
            first = False
        if filler:
            await delta("</think>")
        if fault == "cut":
            if text[: len(text) // 2]:
                await delta(text[: len(text) // 2])
            self.wire.drop()
        if text:
            await delta(text)
        full = "".join(written)
        await self.send("response.output_text.done", **ids, content_index=0, text=full)
        await self.send("response.content_part.done", **ids, content_index=0, part={"type": "text", "text": full})
        done_item = {**item, "status": "completed" if status == "completed" else "incomplete",
                     "content": [{"type": "output_text", "text": full}]}
        await self.send("response.output_item.done", response_id=response_id, output_index=0, item=done_item)
        # the conversation keeps the answer, not the thinking (as reasoning models keep theirs out of the
        # context, and as `llm:` history remembers a reply): both protocols then read the same prompt next turn
        self.items.append({**done_item, "content": [{"type": "output_text", "text": text}]})
        self.log.most_items = max(self.log.most_items, len(self.items))
        if fault == "no_done":
            return
        await self.send("response.done", response={
            "id": response_id, "object": "realtime.response", "status": status, "status_details": details,
            "output": [done_item], "output_modalities": ["text"], "usage": self.usage(messages, filler, text)})

    def usage(self, messages: list[dict[str, Any]], filler: int, text: str) -> dict[str, Any] | None:
        if not self.settings.usage:
            return None
        shared = 0
        for now, before in zip(messages, self.previous, strict=False):
            if now != before:
                break
            shared += 1
        self.previous = messages
        input_tokens = count_messages(messages)
        # the tags frame a reasoning channel the protocol lacks: counted only as the chat endpoint counts them
        tags = count_tokens("<think></think>") if filler and self.settings.reasoning == "think" else 0
        output_tokens = filler + count_tokens(text) + tags
        return {"total_tokens": input_tokens + output_tokens, "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "input_token_details": {"cached_tokens": count_messages(messages[:shared]),
                                        "text_tokens": input_tokens, "audio_tokens": 0},
                "output_token_details": {"text_tokens": output_tokens, "audio_tokens": 0}}
