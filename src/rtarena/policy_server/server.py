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

It is a Starlette app served by uvicorn behind `webapp.Guard` (127.0.0.1, Host and Origin checked on HTTP
and WebSocket alike, bodies of at most `model_request.bytes`); its settings are bounded like the CLI's
(`policy.tokens`, `policy.delay_s`), so no request can ask it for unbounded time or memory. Replies are
paced on the event loop (`pacing.py`): a waiting stream costs no thread.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, field_validator

from rtarena.agents.llm.tokens import count_messages, count_tokens
from rtarena.errors import UserError
from rtarena.limits import LIMITS
from rtarena.policy_server import reasoning as reasoning_mode
from rtarena.policy_server import tool_calls
from rtarena.policy_server.faults import FAULTS, GARBAGE, HTML_PAGE
from rtarena.policy_server.pacing import FILLER_WORD, Ledger, input_shape, media_parts, pace, too_many_tokens
from rtarena.policy_server.policies import POLICIES, answer
from rtarena.policy_server.realtime import serve_session
from rtarena.schema import Flag, Int, NonNegFloat, NonNegInt, PosInt, Section, at_most, validate
from rtarena.webapp import Dropped, Guard, RequestError, Served, field, parse_json_body

POLICY_NAMES = tuple(POLICIES)
FAULT_NAMES = tuple(FAULTS)
# A chat request carries the retained history: up to 20 past screenshots and the current one (history.py),
# several megabytes as PNG data URLs; the local apps' 1 MB body limit would refuse it (our limit, a model
# server's own differs).
MAX_REQUEST_BYTES = int(LIMITS["model_request.bytes"].value)
Tokens = Annotated[NonNegInt, at_most("policy.tokens")]
Delay = Annotated[NonNegFloat, at_most("policy.delay_s")]
__all__ = ["FILLER_WORD", "PolicyServer", "ServerSettings", "input_shape", "media_parts"]


class ServerSettings(Section):
    """How the scripted server answers (every field can be overridden per request in the path).

    A typed schema (`rtarena.schema`): `--set`, a request path and Python keywords all validate through
    it, with the project's one-line errors and strict booleans (`usage=true|false`).
    """

    model_config = ConfigDict(frozen=True)

    policy: Literal[POLICY_NAMES] = Field("heuristic", description="scripted policy answering")
    model: str = Field("", description='reported model name; default "scripted-<policy>"')
    filler_tokens: Tokens = Field(0, description="reasoning tokens emitted before each answer")
    filler_rate: NonNegFloat = Field(0.0, description="filler tokens per second; 0 emits them without pacing")
    ttft_s: Delay = Field(0.0, description="time to first token, seconds")
    media_prefill_s: Delay = Field(0.0, description="seconds added to the time to first token per image "
                                         "or audio part of the last user message (reading it, as a model's "
                                         "encoder does; earlier messages count as cached)")
    reasoning: Literal["field", "think"] = Field("field", description='"field": reasoning_content deltas; '
                                                 '"think": <think> in the content')
    fault: Literal[FAULT_NAMES] = Field("none", description="injected fault (faults.py)")
    fault_every: PosInt = Field(1, description="inject the fault on every N-th request")
    slow_s: Delay = Field(30.0, description="the slow fault's delay, seconds")
    retry_after_s: Delay = Field(0.2, description="Retry-After of the http_429 fault, seconds")
    usage: Flag = Field(True, description="false: report no usage, like some servers (clients must count)")
    seed: Annotated[Int, at_most("run.seed")] = Field(0, description="seed of the random policy")
    reasoning_model: Flag = Field(False, description="answer like a reasoning endpoint (reasoning.py)")
    effort_scale: Annotated[NonNegFloat, at_most("policy.tokens")] = Field(
        1.0, description="reasoning tokens per effort level, times this")
    after_tokens: Tokens = Field(0, description="words written after the ACTION line")
    plan_tokens: Tokens = Field(0, description="reasoning tokens per body a request decides for (a team "
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

    @field_validator("filler_rate")
    @classmethod
    def _paced_within_a_wait(cls, rate: float) -> float:
        """0 (unpaced), or a rate at which one token takes at most `wait.s` (1e-300 would sleep for ever)."""
        slowest = 1.0 / LIMITS["wait.s"].value
        if 0 < rate < slowest:
            raise ValueError(f"must be 0 or at least {slowest:.3g} tokens per second (one token within "
                             f"{LIMITS['wait.s'].shown()} seconds: limit wait.s, docs/limits.md), got {rate:g}")
        return rate


def openai_error(status: int, message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    """An error body as OpenAI's API writes it."""
    return {"error": {"message": message, "type": kind}}


def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> Any:
    from starlette.responses import Response

    return Response(json.dumps(body).encode(), status_code=status, media_type="application/json", headers=headers)


class _PathSettings:
    """ASGI: a path `/s/key=value/.../v1/...` is served as `/v1/...` with those settings (400 on a bad one)."""

    def __init__(self, app: Any, ledger: Ledger) -> None:
        self.app, self.ledger = app, ledger

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        path, settings = scope["path"], self.ledger.settings
        if path.startswith("/s/"):
            segments = path[3:].split("/")
            overrides = [seg for seg in segments if "=" in seg]
            try:
                settings = settings.with_overrides(",".join(overrides))
            except UserError as error:
                body = json.dumps(openai_error(400, str(error))).encode()
                prefix = "websocket." if scope["type"] == "websocket" else ""
                await send({"type": f"{prefix}http.response.start", "status": 400,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
                return await send({"type": f"{prefix}http.response.body", "body": body})
            path = "/" + "/".join(segments[len(overrides):])
        scope = {**scope, "path": path, "raw_path": path.encode(), "rtarena.settings": settings}
        await self.app(scope, receive, send)


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


INLINE_BYTES = 64 << 10  # a request body below this is answered on the event loop, a larger one in a thread


def _prepare(raw: bytes, settings: ServerSettings, ledger: Ledger) -> tuple[dict[str, Any], str, Any]:
    """The request read and checked, counted (its fault decided), and its answer worked out: a `_Reply`, or
    for a request with tools the `tool_calls` answer (a body, or its events)."""
    request = parse_json_body(raw)
    check_request(request)
    ledger.inputs.append(input_shape(request.get("messages") or []))
    ledger.bodies.append(request)
    fault = ledger.fault(settings)
    if reasoning_mode.rejection(settings, request) is not None or fault in ("http_500", "http_429", "html"):
        return request, fault, None
    if request.get("tools"):  # tool calling (the reflector of `rtarena improve`): tool_calls.py
        return request, fault, tool_calls.respond(request, settings.model_name, settings.policy)
    return request, fault, _Reply(request, settings, fault)


def _sse(chunk: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(chunk, separators=(',', ':'))}\n\n".encode()


SSE_HEADERS = {"content-type": "text/event-stream", "cache-control": "no-cache"}


class _Reply:
    """What a completion request gets, worked out off the event loop: the text, the reasoning tokens, usage."""

    def __init__(self, request: dict[str, Any], settings: ServerSettings, fault: str) -> None:
        messages = request.get("messages") or []
        text = reasoning_mode.with_after(answer(messages, settings.policy, settings.seed), settings)
        self.text = {"garbage": GARBAGE, "empty": ""}.get(fault, text)
        self.filler = reasoning_mode.reasoning_tokens(settings, request)
        self.prefill_s = settings.media_prefill_s * media_parts(messages)
        limit = request.get("max_completion_tokens") or request.get("max_tokens")
        self.finish = "stop"
        if limit is not None and self.filler + count_tokens(self.text) > int(limit):
            # Like a model that runs out of tokens: thinking eats the budget before the answer is written.
            self.filler, self.text, self.finish = min(self.filler, int(limit)), "", "length"
        prompt_tokens = count_messages(messages)
        content_tokens = count_tokens(self.text)
        if settings.reasoning == "think" and self.filler:
            content_tokens += count_tokens("<think></think>")
        self.usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": self.filler + content_tokens,
            "total_tokens": prompt_tokens + self.filler + content_tokens,
            "completion_tokens_details": {"reasoning_tokens": self.filler},
        }


async def completions(request: Any) -> Any:
    """`POST /v1/chat/completions`: a scripted answer, streamed as server-sent events or whole."""
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import Response, StreamingResponse

    received = time.monotonic()
    settings: ServerSettings = request.scope["rtarena.settings"]
    ledger: Ledger = request.app.state.ledger
    raw = await request.body()
    try:
        # a text prompt is read and answered on the event loop (a fraction of a millisecond: a thread's
        # hand-offs would cost more under load); a prompt with images in a worker thread, so the streams
        # being paced meanwhile are not held up
        prepared = _prepare(raw, settings, ledger) if len(raw) < INLINE_BYTES else await run_in_threadpool(
            _prepare, raw, settings, ledger)
    except RequestError as error:
        return _json(error.status, openai_error(error.status, str(error)))
    except (UserError, ValueError) as error:
        return _json(400, openai_error(400, str(error)))
    body, fault, reply = prepared
    refused = reasoning_mode.rejection(settings, body)
    if refused is not None:
        return _json(400, refused)
    if fault == "http_500":
        return _json(500, openai_error(500, "injected fault: internal error", "server_error"))
    if fault == "http_429":
        return _json(429, openai_error(429, "injected fault: rate limited", "rate_limit"),
                     {"Retry-After": f"{settings.retry_after_s:g}"})
    if fault == "html":
        return Response(HTML_PAGE, headers={"content-type": "text/html; charset=utf-8"})
    if fault == "slow":
        await asyncio.sleep(settings.slow_s)
    if isinstance(reply, dict):  # tool calling, whole
        return _json(200, reply)
    if isinstance(reply, list):  # tool calling, streamed
        return StreamingResponse(_chunks(reply), headers=SSE_HEADERS)
    refused_tokens = too_many_tokens(reply.filler)
    if refused_tokens is not None:
        return _json(400, openai_error(400, refused_tokens))
    meta = {"id": f"chatcmpl-{uuid.uuid4().hex[:16]}", "created": int(time.time()), "model": settings.model_name}
    if not body.get("stream"):
        async for _ in pace(received, settings, reply.filler, reply.prefill_s):
            pass
        reasoning_text = " ".join([FILLER_WORD] * reply.filler)
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.filler and settings.reasoning == "field":
            message["reasoning_content"] = reasoning_text
        elif reply.filler:
            message["content"] = f"<think>{reasoning_text}</think>{reply.text}"
        answer_body = {**meta, "object": "chat.completion",
                       "choices": [{"index": 0, "message": message, "finish_reason": reply.finish}]}
        if settings.usage:
            answer_body["usage"] = reply.usage
        return _json(200, answer_body)
    include_usage = bool((body.get("stream_options") or {}).get("include_usage")) and settings.usage
    events = _stream(meta, settings, received, reply, include_usage, cut=fault == "cut")
    return StreamingResponse(events, headers=SSE_HEADERS)


async def _chunks(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


async def _stream(meta: dict[str, Any], settings: ServerSettings, received: float, reply: _Reply,
                  include_usage: bool, cut: bool) -> AsyncIterator[bytes]:
    """The reply as server-sent events, each sent as it is due: role, reasoning (paced), content, finish,
    usage, `[DONE]`. With `cut` the connection drops half-way (no final chunk, no `[DONE]`)."""

    def event(delta: dict | None, finish_reason: str | None = None, usage_: dict | None = None,
              **more: Any) -> bytes:
        chunk = {**meta, "object": "chat.completion.chunk", **more,
                 "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}
        if usage_ is not None:
            chunk["usage"] = usage_
        return _sse(chunk)

    yield event({"role": "assistant", "content": ""})
    think = settings.reasoning == "think" and reply.filler > 0
    key = "content" if think else "reasoning_content"
    first = True
    async for n in pace(received, settings, reply.filler, reply.prefill_s):
        # "<think>" rides on the first filler chunk, so it arrives after the time to first token too
        words = " ".join([FILLER_WORD] * n)
        yield event({key: ("<think>" if think else "") + words if first else " " + words})
        first = False
    if think:
        yield event({"content": "</think>"})
    text = reply.text
    if cut:
        if text[: len(text) // 2]:
            yield event({"content": text[: len(text) // 2]})
        raise Dropped  # uvicorn closes the socket mid-stream: no final chunk, no [DONE]
    if text:
        yield event({"content": text})
    # the inference time as llama.cpp's server reports it (`timings`), for the `endpoint` latency source
    yield event({}, reply.finish, timings={"prompt_ms": 0.0,
                                           "predicted_ms": round((time.monotonic() - received) * 1000, 3)})
    if include_usage:
        yield event(None, usage_=reply.usage)
    yield b"data: [DONE]\n\n"


async def models(request: Any) -> Any:
    settings: ServerSettings = request.scope["rtarena.settings"]
    return _json(200, {"object": "list", "data": [
        {"id": settings.model_name, "object": "model", "created": 0, "owned_by": "rtarena-scripted"}]})


async def health(request: Any) -> Any:
    return _json(200, {"status": "ok"})


async def realtime(websocket: Any) -> None:
    await serve_session(websocket, websocket.scope["rtarena.settings"], websocket.app.state.ledger)


async def no_websocket(websocket: Any) -> None:
    """An upgrade anywhere else: 404, as the chat routes answer (a client can tell "no such endpoint")."""
    await websocket.send_denial_response(_json(404, openai_error(404, f"no route {websocket.url.path}",
                                                                 "not_found")))


def make_app(ledger: Ledger) -> Any:
    """The policy server as an ASGI app: the routes, the settings in the path, `Guard` in front."""
    from starlette.applications import Starlette
    from starlette.routing import Route, WebSocketRoute

    async def not_found(request: Any, error: Any) -> Any:
        return _json(404, openai_error(404, f"no route {request.url.path}", "not_found"))

    app = Starlette(routes=[
        Route("/v1/chat/completions", completions, methods=["POST"]),
        Route("/chat/completions", completions, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]), Route("/models", models, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
        WebSocketRoute("/v1/realtime", realtime), WebSocketRoute("/realtime", realtime),
        WebSocketRoute("/{path:path}", no_websocket),
    ], exception_handlers={404: not_found, 405: not_found})
    app.state.ledger = ledger
    return Guard(_PathSettings(app, ledger), max_body=MAX_REQUEST_BYTES, json_only=False, page=False,
                 error=openai_error)


class PolicyServer(Served):
    """The scripted server in a background thread of this process: `with PolicyServer() as server: ...`."""

    def __init__(self, settings: ServerSettings | None = None, port: int = 0, flag: str = "--port") -> None:
        self.settings = settings or ServerSettings()
        self.ledger = Ledger(self.settings)
        super().__init__(make_app(self.ledger), port, flag)

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
        return self.ledger.requests

    @property
    def sessions(self) -> list[Any]:
        """The Realtime sessions served so far, one `realtime.SessionLog` per WebSocket connection."""
        return list(self.ledger.sessions)

    @property
    def inputs(self) -> list[tuple[tuple[str, int], ...]]:
        """The latest requests' user messages as (part type, tokens) pairs (see `input_shape`)."""
        return list(self.ledger.inputs)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The latest whole requests (at most `BODIES_KEPT`), oldest first: what a model would have read."""
        return list(self.ledger.bodies)


def settings_summary(settings: ServerSettings) -> str:
    default = ServerSettings()
    return ", ".join(f"{k}={v}" for k, v in settings.model_dump().items() if v != getattr(default, k))


def serve(port: int = 8000, overrides: str = "", echo=print, **settings: Any) -> None:
    """Run the server in the foreground until interrupted (the `rtarena serve-policy` command)."""
    chosen = ServerSettings().replaced(**settings).with_overrides(overrides)
    server = PolicyServer(chosen, port=port)
    echo(f"scripted policy server (not a model) at {server.base_url}  model={chosen.model_name}"
         + (f"  [{settings_summary(chosen)}]" if settings_summary(chosen) else ""))
    echo(f"try: rtarena run arena/coop-v0 --agent 'llm:{chosen.model_name}@{server.base_url}' --clock token")
    server.serve_forever()
    echo("stopped")
