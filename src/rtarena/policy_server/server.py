"""`rtarena serve-policy`: an OpenAI-compatible chat server on 127.0.0.1 that answers with a scripted policy.

It is not a model. It reads rtarena's prompt (see `policies.py`), answers what a scripted policy would,
and behaves like a model server in every way the runtime measures: it can wait `ttft_s` before the first
token, emit `filler_tokens` reasoning tokens at `filler_rate` tokens per second (as `reasoning_content`
deltas, or inside `<think>` in the content with `reasoning=think`), stream server-sent events, and report
usage (prompt, completion and reasoning tokens, counted with the rule of `agents/llm/tokens.py`) in the
final chunk when `stream_options.include_usage` is set. `faults.py` lists the faults it can inject.

Endpoints: `POST /v1/chat/completions`, `GET /v1/models`, `GET /health`, and the Realtime WebSocket
protocol at `GET /v1/realtime` (`realtime.py`). Settings can also be given per
request in the path, so one server serves many configurations: a client whose base URL is
`http://127.0.0.1:PORT/s/filler_tokens=200/fault=http_500/v1` gets those settings (`PolicyServer.url`).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import uuid
from collections import deque
from http.server import BaseHTTPRequestHandler
from typing import Any, Literal

from pydantic import ConfigDict, Field

from rtarena.agents.llm.tokens import count_content, count_messages, count_tokens
from rtarena.errors import UserError
from rtarena.limits import LIMITS
from rtarena.policy_server import reasoning as reasoning_mode
from rtarena.policy_server import tool_calls
from rtarena.policy_server.faults import FAULTS, GARBAGE, HTML_PAGE
from rtarena.policy_server.policies import POLICIES, answer
from rtarena.schema import Flag, Int, NonNegFloat, NonNegInt, PosInt, Section, validate
from rtarena.webapp import RequestError, Served, ServerBase, field, read_json_body

FILLER_WORD = "think"  # one token under the counting rule
POLICY_NAMES = tuple(POLICIES)
FAULT_NAMES = tuple(FAULTS)
BATCH_S = 0.02  # filler tokens due within this long go out in one event (50 events per second at most)
INPUTS_KEPT = 4096  # shapes of the latest requests' user messages kept for tests (`PolicyServer.inputs`)
# A chat request carries the retained history: up to 20 past screenshots and the current one (history.py),
# several megabytes as PNG data URLs; the local apps' 1 MB body limit would refuse it (our limit, a model
# server's own differs).
MAX_REQUEST_BYTES = int(LIMITS["model_request.bytes"].value)
BODIES_KEPT = 32  # the latest whole request bodies, kept for tests (`PolicyServer.bodies`): images are large


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


class ServerSettings(Section):
    """How the scripted server answers (every field can be overridden per request in the path).

    A typed schema (`rtarena.schema`): `--set`, a request path and Python keywords all validate through
    it, with the project's one-line errors and strict booleans (`usage=true|false`).
    """

    model_config = ConfigDict(frozen=True)

    policy: Literal[POLICY_NAMES] = Field("heuristic", description="scripted policy answering")
    model: str = Field("", description='reported model name; default "scripted-<policy>"')
    filler_tokens: NonNegInt = Field(0, description="reasoning tokens emitted before each answer")
    filler_rate: NonNegFloat = Field(0.0, description="filler tokens per second; 0 emits them without pacing")
    ttft_s: NonNegFloat = Field(0.0, description="time to first token, seconds")
    media_prefill_s: NonNegFloat = Field(0.0, description="seconds added to the time to first token per image "
                                         "or audio part of the last user message (reading it, as a model's "
                                         "encoder does; earlier messages count as cached)")
    reasoning: Literal["field", "think"] = Field("field", description='"field": reasoning_content deltas; '
                                                 '"think": <think> in the content')
    fault: Literal[FAULT_NAMES] = Field("none", description="injected fault (faults.py)")
    fault_every: PosInt = Field(1, description="inject the fault on every N-th request")
    slow_s: NonNegFloat = Field(30.0, description="the slow fault's delay, seconds")
    retry_after_s: NonNegFloat = Field(0.2, description="Retry-After of the http_429 fault, seconds")
    usage: Flag = Field(True, description="false: report no usage, like some servers (clients must count)")
    seed: Int = Field(0, description="seed of the random policy")
    reasoning_model: Flag = Field(False, description="answer like a reasoning endpoint (reasoning.py)")
    effort_scale: NonNegFloat = Field(1.0, description="reasoning tokens per effort level, times this")
    after_tokens: NonNegInt = Field(0, description="words written after the ACTION line")
    plan_tokens: NonNegInt = Field(0, description="reasoning tokens per body a request decides for (a team "
                                   "reply grows with its bodies), paced at filler_rate")

    @property
    def model_name(self) -> str:
        return self.model or f"scripted-{self.policy}"

    def replaced(self, **values: Any) -> ServerSettings:
        """These settings with some fields replaced, validated (a one-line `UserError` on a mistake)."""
        return validate(ServerSettings, {**self.model_dump(), **values}, source="serve-policy")

    def with_overrides(self, text: str) -> ServerSettings:
        """These settings with `key=value,key=value` overrides (from a request path or the CLI)."""
        values: dict[str, Any] = {}
        for pair in filter(None, text.split(",")):
            key, eq, raw = pair.partition("=")
            if not eq or key not in ServerSettings.model_fields:
                known = ", ".join(ServerSettings.model_fields)
                raise UserError(f"unknown setting {key!r}; known: {known}", field="serve-policy")
            values[key] = raw
        return self.replaced(**values)


class _Server(ServerBase):
    """The policy server on the shared server base (`webapp.ServerBase`): bounded workers, timeouts, a cap.
    A match's agents each hold a streaming request at once, so it keeps more workers than a page."""

    WORKERS = 64
    MAX_BODY_BYTES = MAX_REQUEST_BYTES

    def __init__(self, address: tuple[str, int], settings: ServerSettings) -> None:
        super().__init__(address, _Handler)
        self.settings = settings
        self.requests = 0
        self.inputs: deque[tuple[tuple[str, int], ...]] = deque(maxlen=INPUTS_KEPT)
        self.sessions: list[Any] = []  # one `realtime.SessionLog` per Realtime WebSocket connection
        self.bodies: deque[dict[str, Any]] = deque(maxlen=BODIES_KEPT)
        self.lock = threading.Lock()

    def next_request(self) -> int:
        with self.lock:
            self.requests += 1
            return self.requests


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet: a match sends thousands of requests
        pass

    # -- routing -----------------------------------------------------------------------------------
    def _route(self) -> tuple[ServerSettings, str]:
        path = self.path.split("?", 1)[0]
        settings = self.server.settings
        if path.startswith("/s/"):
            segments = path[3:].split("/")
            overrides = [seg for seg in segments if "=" in seg]
            settings = settings.with_overrides(",".join(overrides))
            path = "/" + "/".join(segments[len(overrides):])
        return settings, path

    def do_GET(self) -> None:
        try:
            settings, path = self._route()
        except UserError as error:
            return self._json(400, {"error": {"message": str(error), "type": "invalid_request_error"}})
        if path in ("/v1/models", "/models"):
            return self._json(200, {"object": "list", "data": [
                {"id": settings.model_name, "object": "model", "created": 0, "owned_by": "rtarena-scripted"}]})
        if path == "/health":
            return self._json(200, {"status": "ok"})
        if path in ("/v1/realtime", "/realtime"):  # OpenAI's Realtime WebSocket protocol (realtime.py)
            from rtarena.policy_server.realtime import serve_session

            return serve_session(self, settings, self.path.partition("?")[2])
        self._json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})

    def do_POST(self) -> None:
        try:
            settings, path = self._route()
            request = read_json_body(self.headers, self.rfile, need_json_type=False, max_bytes=MAX_REQUEST_BYTES)
            check_request(request)
        except (UserError, ValueError) as error:
            return self._json(400, {"error": {"message": str(error), "type": "invalid_request_error"}})
        except RequestError as error:
            self.close_connection = True  # an unread body must not be taken for the next request
            return self._json(error.status, {"error": {"message": str(error), "type": "invalid_request_error"}})
        if path not in ("/v1/chat/completions", "/chat/completions"):
            return self._json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
        number = self.server.next_request()
        self.server.inputs.append(input_shape(request.get("messages") or []))
        self.server.bodies.append(request)
        fault = settings.fault if number % settings.fault_every == 0 else "none"
        # A client that gave up (its timeout, or the match ended) needs no answer.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._complete(request, settings, fault)

    # -- answering ---------------------------------------------------------------------------------
    def _complete(self, request: dict[str, Any], settings: ServerSettings, fault: str) -> None:
        received = time.monotonic()
        refused = reasoning_mode.rejection(settings, request)
        if refused is not None:
            return self._json(400, refused)
        if fault == "http_500":
            return self._json(500, {"error": {"message": "injected fault: internal error", "type": "server_error"}})
        if fault == "http_429":
            return self._json(429, {"error": {"message": "injected fault: rate limited", "type": "rate_limit"}},
                              {"Retry-After": f"{settings.retry_after_s:g}"})
        if fault == "html":
            return self._raw(200, HTML_PAGE, "text/html; charset=utf-8")
        if fault == "slow":
            time.sleep(settings.slow_s)
        messages = request.get("messages") or []
        if request.get("tools"):  # tool calling (the reflector of `rtarena improve`): tool_calls.py
            return tool_calls.respond(self, request, settings.model_name, settings.policy)
        text = reasoning_mode.with_after(answer(messages, settings.policy, settings.seed), settings)
        if fault == "garbage":
            text = GARBAGE
        elif fault == "empty":
            text = ""
        filler = reasoning_mode.reasoning_tokens(settings, request)
        prefill_s = settings.media_prefill_s * media_parts(messages)
        limit = request.get("max_completion_tokens") or request.get("max_tokens")
        finish = "stop"
        if limit is not None and filler + count_tokens(text) > int(limit):
            # Like a model that runs out of tokens: thinking eats the budget before the answer is written.
            filler, text, finish = min(filler, int(limit)), "", "length"
        reasoning_text = " ".join([FILLER_WORD] * filler)
        prompt_tokens = count_messages(messages)
        content_tokens = count_tokens(text)
        if settings.reasoning == "think" and filler:
            content_tokens += count_tokens("<think></think>")
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": filler + content_tokens,
            "total_tokens": prompt_tokens + filler + content_tokens,
            "completion_tokens_details": {"reasoning_tokens": filler},
        }
        meta = {"id": f"chatcmpl-{uuid.uuid4().hex[:16]}", "created": int(time.time()), "model": settings.model_name}
        if not request.get("stream"):
            self._pace(received, settings, filler, lambda _n: None, prefill_s)
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if filler and settings.reasoning == "field":
                message["reasoning_content"] = reasoning_text
            elif filler:
                message["content"] = f"<think>{reasoning_text}</think>{text}"
            body = {**meta, "object": "chat.completion",
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
            if settings.usage:
                body["usage"] = usage
            return self._json(200, body)
        include_usage = bool((request.get("stream_options") or {}).get("include_usage")) and settings.usage
        self._stream(meta, settings, received, filler, text, finish, usage if include_usage else None,
                     cut=fault == "cut", prefill_s=prefill_s)

    def _pace(self, received: float, settings: ServerSettings, filler: int, emit, prefill_s: float = 0.0) -> None:
        """Wait for the first token (`ttft_s`, plus `prefill_s` for the request's media), then release filler
        tokens at the set rate, in small batches."""
        first = received + settings.ttft_s + prefill_s
        _sleep_until(first)
        sent = 0
        while sent < filler:
            if settings.filler_rate > 0:
                # token k is due at first + k / rate; events are at least BATCH_S apart
                due = min(filler, int((time.monotonic() - first) * settings.filler_rate) + 1)
                if due > sent:
                    emit(due - sent)
                    sent = due
                if sent < filler:
                    _sleep_until(max(first + sent / settings.filler_rate, time.monotonic() + BATCH_S))
            else:
                due = min(filler, sent + 512)
                emit(due - sent)
                sent = due

    def _stream(self, meta: dict, settings: ServerSettings, received: float, filler: int, text: str,
                finish: str, usage: dict | None, cut: bool, prefill_s: float = 0.0) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def event(delta: dict | None, finish_reason: str | None = None, usage_: dict | None = None,
                  **more: Any) -> None:
            chunk = {**meta, "object": "chat.completion.chunk", **more,
                     "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}
            if usage_ is not None:
                chunk["usage"] = usage_
            self._chunk(f"data: {json.dumps(chunk, separators=(',', ':'))}\n\n".encode())

        event({"role": "assistant", "content": ""})
        think = settings.reasoning == "think" and filler > 0
        key = "content" if think else "reasoning_content"
        first = [True]

        def emit(n: int) -> None:
            # "<think>" rides on the first filler chunk, so it arrives after the time to first token too
            words = " ".join([FILLER_WORD] * n)
            event({key: ("<think>" if think else "") + words if first[0] else " " + words})
            first[0] = False

        self._pace(received, settings, filler, emit, prefill_s)
        if think:
            event({"content": "</think>"})
        if cut:
            half = text[: len(text) // 2]
            if half:
                event({"content": half})
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)  # drop the connection mid-stream: no final chunk, no [DONE]
            return
        if text:
            event({"content": text})
        # the inference time as llama.cpp's server reports it (`timings`), for the `endpoint` latency source
        event({}, finish, timings={"prompt_ms": 0.0, "predicted_ms": round((time.monotonic() - received) * 1000, 3)})
        if usage is not None:
            event(None, usage_=usage)
        self._chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _json(self, status: int, body: dict, headers: dict[str, str] | None = None) -> None:
        self._raw(status, json.dumps(body).encode(), "application/json", headers)

    def _raw(self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


def check_request(request: dict[str, Any]) -> None:
    """The fields a completion request must have the right kinds for (a 400 `RequestError` otherwise)."""
    for message in field(request, "messages", "list", required=False) or []:
        if not isinstance(message, dict) or not isinstance(message.get("role", ""), str) or not isinstance(
                message.get("content") or "", (str, list)):
            raise RequestError(400, "each of 'messages' must be an object: a text 'role', text or list 'content'")
        for part in message.get("content") if isinstance(message.get("content"), list) else []:
            if not isinstance(part, dict):
                raise RequestError(400, "each part of a message's 'content' list must be an object")
    field(request, "stream", "bool", required=False)
    field(request, "stream_options", "object", required=False)
    for name in ("max_tokens", "max_completion_tokens"):
        if (field(request, name, "int", required=False) or 0) < 0:
            raise RequestError(400, f"field {name!r} must be >= 0")


def _sleep_until(deadline: float) -> None:
    remaining = deadline - time.monotonic()
    if remaining > 0:
        time.sleep(remaining)


class PolicyServer(Served):
    """The scripted server in a background thread of this process: `with PolicyServer() as server: ...`."""

    def __init__(self, settings: ServerSettings | None = None, host: str = "127.0.0.1", port: int = 0) -> None:
        self.settings = settings or ServerSettings()
        self.server = _Server((host, port), self.settings)
        self.host = self.server.server_address[0]

    @property
    def httpd(self) -> _Server:
        return self.server

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def url(self, **overrides: Any) -> str:
        """A base URL whose requests get these settings, e.g. `url(filler_tokens=200, fault="cut")`."""
        if not overrides:
            return self.base_url
        self.settings.replaced(**overrides)  # validate now rather than at the first request
        text = "/".join(f"{k}={v}" for k, v in overrides.items())
        return f"http://{self.host}:{self.port}/s/{text}/v1"

    @property
    def requests(self) -> int:
        return self.server.requests

    @property
    def sessions(self) -> list[Any]:
        """The Realtime sessions served so far, one `realtime.SessionLog` per WebSocket connection."""
        return list(self.server.sessions)

    @property
    def inputs(self) -> list[tuple[tuple[str, int], ...]]:
        """The latest requests' user messages as (part type, tokens) pairs (see `input_shape`)."""
        return list(self.server.inputs)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The latest whole requests (at most `BODIES_KEPT`), oldest first: what a model would have read."""
        return list(self.server.bodies)


def settings_summary(settings: ServerSettings) -> str:
    default = ServerSettings()
    return ", ".join(f"{k}={v}" for k, v in settings.model_dump().items() if v != getattr(default, k))


def serve(port: int = 8000, overrides: str = "", echo=print, **settings: Any) -> None:
    """Run the server in the foreground until interrupted (the `rtarena serve-policy` command)."""
    try:
        chosen = ServerSettings().replaced(**settings).with_overrides(overrides)
        server = PolicyServer(chosen, port=port)
    except OSError as error:
        raise UserError(f"cannot listen on 127.0.0.1:{port}: {error.strerror}", field="--port") from None
    echo(f"scripted policy server (not a model) at {server.base_url}  model={chosen.model_name}"
         + (f"  [{settings_summary(chosen)}]" if settings_summary(chosen) else ""))
    echo(f"try: rtarena run arena/coop-v0 --agent 'llm:{chosen.model_name}@{server.base_url}' --clock token")
    server.serve_forever()
    echo("stopped")
