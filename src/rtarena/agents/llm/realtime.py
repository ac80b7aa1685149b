"""One Realtime session per episode: the retained history held in the server's conversation, not resent.

`RealtimeClient.complete(messages)` takes the same prompt a chat client would send (`History.messages`:
system, ledger, past turns, the current observation) and brings the session's conversation to it with
as few events as it takes, through the official SDK's `client.realtime.connect` (`openai[realtime]`):

- the system message is the session's `instructions` (`session.update`, once per session);
- every other message is a conversation item; the session's items are matched to the prompt's
  (`difflib`, by role and content), so a turn appends one user item, an image fold replaces the folded
  items in place, and a text fold deletes the oldest turns and inserts the ledger at the start
  (`conversation.item.delete`, `conversation.item.create` with `previous_item_id`). The retention policy
  stays in one home (`history.py`, Realtime-Bench's blocks: 21/10 images, 50/10 turns), and the session
  stays bounded by it. The model's own reply stays as the session's assistant item; it stands for the
  reply as the history remembers it (`assistant_memory`);
- then `response.create`, and the events are read until `response.done`: the text from
  `response.output_text.delta` (time to first token at the first one), tokens from the response's usage
  (`input_tokens`, `output_tokens`, `cached_tokens`; counted locally if the server reports none).

Budget, retries and accounting are `ChatClient`'s: a decision has one wall budget (`timeout`), and a
socket that drops is a `connection` failure retried within it, on a new session rebuilt from the
retained history (the prompt). A watchdog closes the socket at the deadline, so a read never outlives
the budget. Failure kinds beyond the chat client's: `error_event` (the server sent an `error` event; its
type and message are the detail), `bad_event` (a frame that is not a JSON event), `no_done` (the final
text came but no `response.done` within `DONE_GRACE_S`). After any failure the session is closed and the
next decision rebuilds it, so the conversation never drifts from the history.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import math
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from rtarena.agents.llm.client import ChatClient, Completion, Failure
from rtarena.agents.llm.model_agent import assistant_memory
from rtarena.agents.llm.options import LLMOptions

DONE_GRACE_S = 1.0  # after the final text, how long `response.done` (with the usage) may take
CLOSE_S = 0.2  # closing handshake wait when the watchdog closes a socket
PROBE_S = 10.0  # a handshake (and the first `session.created`) waits at most this long
PART_TYPES = {"text": "input_text", "image_url": "input_image"}


@dataclass(frozen=True)
class Held:
    """One item of the session's conversation: its matching key and its id."""

    key: str
    item_id: str


def item_key(role: str, content: Any) -> str:
    """What makes two messages the same item: role and content, exactly."""
    return json.dumps([role, content], sort_keys=True, separators=(",", ":"))


def as_item(message: dict[str, Any], item_id: str) -> dict[str, Any]:
    """A chat message as a Realtime conversation item (text and image parts; audio is refused earlier)."""
    role, content = message["role"], message.get("content") or ""
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    out = []
    for part in parts:
        if part.get("type") not in PART_TYPES:
            raise Failure("error", f"a {part.get('type')!r} part cannot go into a Realtime item")
        if role == "assistant":
            out.append({"type": "output_text", "text": part.get("text", "")})
        elif part["type"] == "text":
            out.append({"type": "input_text", "text": part.get("text", "")})
        else:
            out.append({"type": "input_image", "image_url": part["image_url"]["url"]})
    return {"id": item_id, "type": "message", "role": role, "content": out}


class Watchdog:
    """Closes the session's socket at a deadline, so that a blocking read ends within the budget."""

    def __init__(self, close: Any) -> None:
        self.close = close
        self.timer: threading.Timer | None = None
        self.deadline = float("inf")
        self.fired = False

    def arm(self, deadline: float) -> None:
        """Close at `deadline` (monotonic seconds; infinite: never, the runtime abandons the call instead)."""
        self.disarm()
        self.fired = False
        self.deadline = deadline
        if math.isfinite(deadline):
            self.timer = threading.Timer(max(0.0, deadline - time.monotonic()), self.fire)
            self.timer.daemon = True
            self.timer.start()

    def shorten(self, deadline: float) -> None:
        if deadline < self.deadline:
            self.arm(deadline)

    def fire(self) -> None:
        self.fired = True
        self.close()

    def disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


class RealtimeClient(ChatClient):
    """`ChatClient`'s budget, retries and accounting over one Realtime session (see the module docstring)."""

    def __init__(self, options: LLMOptions) -> None:
        super().__init__(options)
        self.connection: Any = None
        self.instructions: str | None = None  # what the session holds as its system message
        self.held: list[Held] = []
        self.sessions = 0  # sessions opened over this client's life (one per episode, more after faults)
        self.watchdog = Watchdog(self._drop)
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        base = str(self._sdk.base_url).rstrip("/")
        return base.replace("http://", "ws://", 1).replace("https://", "wss://", 1) + "/realtime"

    # -- the session ---------------------------------------------------------------------------------
    def start(self) -> None:
        """A new session for a new episode: the old one is closed; the new one opens now if it can (the
        handshake is then not charged to the first decision), else at the first decision."""
        self._drop()
        deadline = time.monotonic() + PROBE_S
        self.watchdog.arm(deadline)
        try:
            self._open(deadline)
        except Failure:
            self._drop()
        finally:
            self.watchdog.disarm()

    def probe(self) -> None:
        """Open a session and close it: raises `Failure` when the server is not there or not Realtime."""
        deadline = time.monotonic() + PROBE_S
        self.watchdog.arm(deadline)
        try:
            self._open(deadline)
        finally:
            self.watchdog.disarm()
            self._drop()

    def abandon(self) -> None:
        super().abandon()
        self._drop()

    def close(self) -> None:
        self.watchdog.disarm()
        super().close()

    def _drop(self) -> None:
        """Close the socket (if open) and forget what the session held: the next decision rebuilds it."""
        with self.lock:
            connection, self.connection = self.connection, None
            self.held, self.instructions = [], None
        if connection is not None:
            with contextlib.suppress(Exception):  # a socket that is already gone is closed enough
                connection.close()

    def _open(self, deadline: float) -> None:
        from websockets.exceptions import InvalidHandshake, InvalidStatus

        handshake_s = max(1e-3, min(deadline - time.monotonic(), PROBE_S))  # a handshake is quick or not at all
        options = {"open_timeout": handshake_s, "close_timeout": CLOSE_S, "max_size": None}
        try:
            connection = self._sdk.realtime.connect(model=self.options.model,
                                                    websocket_connection_options=options).enter()
        except InvalidStatus as error:
            status = getattr(error.response, "status_code", "?")
            raise Failure("connection", f"{self.url} does not speak the Realtime protocol (HTTP {status})") from None
        except InvalidHandshake as error:
            raise Failure("connection", f"{self.url} does not speak the Realtime protocol ({error})") from None
        except TimeoutError:
            raise Failure("timeout", f"no WebSocket handshake from {self.url} in time") from None
        except OSError as error:
            raise Failure("connection", f"nothing answered at {self.url} ({type(error).__name__})") from None
        with self.lock:
            self.connection = connection
        first = self._next_event()
        if first.type != "session.created":
            raise Failure("bad_event", f"{self.url} opened with {first.type!r}, not 'session.created'")
        self.sessions += 1

    def _next_event(self) -> Any:
        from websockets.exceptions import ConnectionClosed

        connection = self.connection
        if connection is None:
            raise Failure("connection", "the session was closed")
        try:
            return connection.recv()
        except ValueError:
            raise Failure("bad_event", "the server sent a frame that is not a JSON event") from None
        except (ConnectionClosed, OSError):
            raise self._closed("the Realtime socket closed") from None

    def _closed(self, detail: str) -> Failure:
        """Why the socket closed under a read or a send: we closed it (abandoned, or at the deadline) or it dropped."""
        if self.abandoned.is_set():
            return Failure("abandoned", "the runtime no longer needed this decision")
        if self.watchdog.fired:
            return Failure("timeout", "no complete reply within the decision's time budget")
        return Failure("connection", detail)

    def _sync(self, messages: list[dict[str, Any]]) -> None:
        """Bring the session's instructions and items to the prompt (see the module docstring)."""
        connection = self.connection
        system, rest = (messages[0]["content"], messages[1:]) if messages[0]["role"] == "system" else ("", messages)
        if system != self.instructions:
            session: dict[str, Any] = {"type": "realtime", "instructions": system, "output_modalities": ["text"],
                                       "truncation": "disabled"}  # retention is ours (history.py), not the server's
            if self.options.reasoning_effort not in (None, "none"):
                session["reasoning"] = {"effort": self.options.reasoning_effort}
            connection.session.update(session=session)
            self.instructions = system
        wanted = [item_key(m["role"], m.get("content")) for m in rest]
        matcher = difflib.SequenceMatcher(None, [h.key for h in self.held], wanted, autojunk=False)
        opcodes = matcher.get_opcodes()
        for tag, i1, i2, _, _ in opcodes:  # deletions first: the session never holds more than the prompt
            if tag in ("delete", "replace"):
                for held in self.held[i1:i2]:
                    connection.conversation.item.delete(item_id=held.item_id)
        kept: list[Held] = []
        for tag, i1, i2, j1, j2 in opcodes:
            if tag == "equal":
                kept.extend(self.held[i1:i2])
            if tag in ("insert", "replace"):
                for key, message in zip(wanted[j1:j2], rest[j1:j2], strict=True):
                    item_id = f"rt_{uuid.uuid4().hex[:24]}"
                    connection.conversation.item.create(item=as_item(message, item_id),
                                                        previous_item_id=kept[-1].item_id if kept else "root")
                    kept.append(Held(key, item_id))
        self.held = kept

    # -- one attempt (ChatClient.complete drives budget and retries) ------------------------------------
    def _attempt(self, messages: list[dict[str, Any]], deadline: float, extra: dict[str, Any] | None = None,
                 url: str | None = None) -> Completion:
        """One response in the session (`extra`: the chat request's tool fields, which a live player never
        sends; refused if it does; `url`: the session has its own, a pool's replica is not used)."""
        from websockets.exceptions import ConnectionClosed

        if extra:
            raise Failure("unsupported", f"a live session takes no {', '.join(extra)} (tool calls are chat-only)")

        if self.abandoned.is_set():
            raise Failure("abandoned", "the runtime no longer needed this decision")
        self.watchdog.arm(deadline)
        try:
            if self.connection is None:
                self._open(deadline)  # a new session, rebuilt from the retained history by `_sync`
            started = time.monotonic()
            self._sync(messages)
            params = {"max_output_tokens": self.options.max_tokens} if self.options.max_tokens else {}
            self.connection.response.create(response=params)
            return self._read(started)
        except Exception as error:
            self._drop()  # whatever went wrong, the next decision starts from a rebuilt session
            if isinstance(error, Failure) or not isinstance(error, (ConnectionClosed, OSError)):
                raise
            raise self._closed(f"the Realtime socket closed ({type(error).__name__})") from None
        finally:
            self.watchdog.disarm()

    def _read(self, started: float) -> Completion:
        pieces: list[str] = []
        final: str | None = None
        ttft = None
        while True:
            try:
                event = self._next_event()
            except Failure as failure:
                text = final if final is not None else "".join(pieces)
                if failure.kind == "timeout" and final is not None:
                    raise Failure("no_done", "the final text came but no response.done",
                                  partial=(text, "")) from None
                raise Failure(failure.kind, str(failure).partition(": ")[2], partial=(text, "")) from None
            kind = event.type
            if kind == "error":
                error = event.error
                raise Failure("error_event", f"{error.type}: {error.message}"[:160],
                              partial=("".join(pieces), ""))
            if kind == "response.output_text.delta":
                if ttft is None and event.delta:
                    ttft = time.monotonic() - started
                pieces.append(event.delta)
            elif kind == "response.output_text.done":
                final = event.text
                self.watchdog.shorten(time.monotonic() + DONE_GRACE_S)
            elif kind == "response.done":
                return self._done(event.response, final if final is not None else "".join(pieces), ttft)

    def _done(self, response: Any, text: str, ttft: float | None) -> Completion:
        status = response.status
        if status not in ("completed", "incomplete"):
            raise Failure("error_event", f"response {status}: {response.status_details}"[:160], partial=(text, ""))
        output = [item for item in response.output or () if getattr(item, "role", None) == "assistant"]
        if output and output[0].id:
            self.held.append(Held(item_key("assistant", assistant_memory(text, True)), output[0].id))
        done = Completion(text=text, finish_reason="stop" if status == "completed" else "length", ttft_s=ttft)
        usage = response.usage
        if usage is None or usage.output_tokens is None:
            return done
        details = usage.input_token_details
        values = dict(done.__dict__)
        values.update(tokens_in=int(usage.input_tokens or 0), tokens_out=int(usage.output_tokens),
                      tokens_source="server",
                      cached_tokens=getattr(details, "cached_tokens", None) if details else None)
        return Completion(**values)
