"""One chat completion against any OpenAI-compatible server, with every token and millisecond accounted.

`ChatClient.complete(messages)` streams the reply with `stream_options={"include_usage": True}` and returns
a `Completion`: the text, the reasoning text (from `reasoning_content`/`reasoning` deltas; `<think>` blocks
stay in the text), tokens in and out with their source ("server" when the server reported usage,
"counted" when it did not and the local rule of `tokens.py` was used), reasoning and cached tokens where
reported, time to first token and total latency, the attempts made, and the failure kind if it failed.

Reasoning endpoints: with `endpoint=reasoning` (or `auto` for o1/o3/o4/gpt-5 model names, and after an
HTTP 400 that rejects `max_tokens` or `temperature`) the request carries `max_completion_tokens` and no
`temperature`; `reasoning_effort` is passed when set; reasoning tokens come from the usage details
(`completion_tokens_details.reasoning_tokens`).

Tool calling (the improvement loop's reflector and judge use this client too): `complete(messages,
tools=..., tool_choice=...)` sends OpenAI tool schemas and returns the calls in `Completion.calls`
(`{"id", "name", "arguments"}`, arguments as the JSON text the model wrote), streamed or not; a reply with
calls and no text is not empty. `Completion.message()` is the assistant message to append to a
conversation.

Commit accounting (`commit.py`): `tokens_after_commit` are the tokens written after the action was
complete; they are recorded, and the agent does not charge them. With `early_commit` a stream is closed
at the commit (`early_commit=True` on the completion; usage is then counted locally).

It never raises for a server's misbehaviour. Failures are named by kind (`failures.py`): `http_429`,
`http_500` (any status), `timeout`, `connection`, `stream_cut`, `garbage` (no OpenAI reply at all: HTML,
text), `empty`, `abandoned`. A decision has one
wall budget (`timeout` seconds, retries included); a retry after a 429, 5xx or connection failure is made
only when the previous attempt's duration plus the back-off still fits in what is left of that budget.
`abandon()` makes an in-flight stream stop at its next chunk (the runtime no longer needs it).

Endpoint limits (`limiter.py`): when the spec limits its endpoint (`max_connections`, `adaptive`, `rpm`,
`tpm`) or names a pool (`@URL1|URL2`), every attempt first takes a slot from the run's shared limiter, which
also says which base URL to send it to; the time spent waiting for it is `queue_wait_s`, kept apart from
`latency_s` (the requests' own time), and it counts against the decision's budget like any other time.

Cost: `cost_usd` from the prices (`price_in`, `price_out`, `price_cached`, USD per million tokens, from the
spec or the price tables of `options.py`): uncached input, cached input and output tokens each at their
price; None when the model has no price.

The API key is read from the environment variable the user named and handed to the SDK only; it is never
stored on this object, logged, or written anywhere.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from rtarena.agents.llm.commit import commit_point
from rtarena.agents.llm.limiter import LEASE_MARGIN_S, SLICE_S, Grant, run_limits_for, shared_limiter
from rtarena.agents.llm.options import LLMOptions
from rtarena.agents.llm.tokens import count_messages, count_tokens
from rtarena.contract import ClockView
from rtarena.redact import redact

# Without a `timeout` the clock's default budget applies (`ClockView.model_budget_s`): under `wall` until the
# episode ends (a late reply still acts), otherwise 300 s. A client outside a match (the model annotator)
# is never fitted to a clock and keeps this one.
FALLBACK_TIMEOUT_S = 30.0
BACKOFF_S = 0.25  # first retry waits this long (doubling), unless the server says Retry-After
RETRYABLE = ("http_429", "http_5", "connection")
REASONING_MODELS = re.compile(r"(^|/)(o\d|gpt-5)", re.I)  # OpenAI's reasoning model families
REJECTS_CLASSIC = re.compile(r"max_tokens|temperature", re.I)


@dataclass(frozen=True)
class Completion:
    """One model call's outcome (after retries). `error` is `"kind: detail"` or None."""

    text: str = ""
    reasoning: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_source: str = "none"
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None
    ttft_s: float | None = None
    latency_s: float = 0.0
    # the stream's time to its last token minus the connection set-up (from the response headers), seconds
    server_latency_s: float | None = None
    endpoint_latency_s: float | None = None  # the inference time the endpoint reported (`timings`), seconds
    attempts: int = 0
    finish_reason: str | None = None
    error: str | None = None
    cost_usd: float | None = None
    queue_wait_s: float | None = None  # waited for a connection slot or budget (limited endpoints only), seconds
    base_url: str | None = None  # the replica that answered, for a pool
    failed_attempts: list[str] = field(default_factory=list)
    tokens_after_commit: int | None = None  # written after the action was complete: recorded, not charged
    early_commit: bool = False  # the stream was closed at the commit
    calls: tuple[dict[str, str], ...] = ()  # tool calls: {"id", "name", "arguments" (JSON text)}

    @property
    def ok(self) -> bool:
        return self.error is None

    def message(self) -> dict[str, Any]:
        """The assistant message to append to the conversation (with its tool calls, if any)."""
        if not self.calls:
            return {"role": "assistant", "content": self.text}
        return {"role": "assistant", "content": self.text or None,
                "tool_calls": [{"id": c["id"], "type": "function",
                                "function": {"name": c["name"], "arguments": c["arguments"]}} for c in self.calls]}


class Failure(Exception):
    """An attempt that failed, with its kind and, where the server said so, when to retry."""

    def __init__(self, kind: str, detail: str = "", retry_after_s: float | None = None,
                 partial: tuple[str, str] = ("", "")) -> None:
        super().__init__(f"{kind}: {redact(detail)}" if detail else kind)  # servers quote the keys they refuse
        self.kind = kind
        self.retry_after_s = retry_after_s
        self.partial = partial

    @property
    def retryable(self) -> bool:
        return self.kind.startswith(RETRYABLE)


def _retry_after(error: Any) -> float | None:
    try:
        return float(error.response.headers.get("retry-after"))
    except (AttributeError, TypeError, ValueError):
        return None


def _as_failure(error: Exception) -> Failure:
    """An SDK or transport exception as a named failure kind."""
    import openai

    if isinstance(error, Failure):
        return error
    if isinstance(error, openai.APITimeoutError) or "Timeout" in type(error).__name__:
        return Failure("timeout", "no reply within the decision's time budget")
    if isinstance(error, openai.APIStatusError):
        text, said = str(error.message), server_said(error)
        if said and said not in text:  # the SDK names only an OpenAI-shaped error (not FastAPI's `detail`)
            text = f"{text} - {said}"
        return Failure(f"http_{error.status_code}", text[:240], _retry_after(error))
    if isinstance(error, openai.APIConnectionError):
        return Failure("connection", type(error.__cause__ or error).__name__)
    if isinstance(error, (openai.APIResponseValidationError, ValueError)):
        # JSONDecodeError and pydantic's ValidationError are ValueErrors: the body was not an OpenAI reply
        return Failure("garbage", f"the reply was not an OpenAI chat completion ({type(error).__name__})")
    return Failure("error", f"{type(error).__name__}: {error}"[:160])


def server_said(error: Exception) -> str:
    """The server's own words in an error's body, whatever its shape: OpenAI's `{"error": {"message"}}`,
    an error event's text (`data: {"error": "..."}`, as `transformers serve` streams it), vLLM's
    `{"message"}` or FastAPI's `{"detail"}` (`transformers serve`'s 400 for a prompt past the model's
    context); empty when the body holds none."""
    body = getattr(error, "body", None)
    for key in ("error", "message", "detail"):
        if isinstance(body, dict) and body.get(key):
            body = body[key]
    if isinstance(body, dict):
        body = body.get("message") or json.dumps(body)
    return str(body or "").strip()


def stream_error(error: Exception) -> str:
    """What broke a stream, in the server's words where it sent an error event (a context overflow, an
    out-of-memory), else the SDK's message."""
    said = server_said(error) or str(getattr(error, "message", "") or "").strip()
    return f"{type(error).__name__}: {said[:200]}" if said else type(error).__name__


def endpoint_latency(timings: Any) -> float | None:
    """Seconds of inference an endpoint reported in its stream (llama.cpp's `timings`: prompt_ms +
    predicted_ms), or None."""
    if not isinstance(timings, dict):
        return None
    parts = [timings.get(k) for k in ("prompt_ms", "predicted_ms")]
    values = [float(v) for v in parts if isinstance(v, (int, float))]
    return sum(values) / 1000.0 if values else None


def _extra(obj: Any, *names: str) -> Any:
    for name in names:
        value = getattr(obj, name, None)
        if value is None and getattr(obj, "model_extra", None):
            value = obj.model_extra.get(name)
        if value is not None:
            return value
    return None


class ModelClient:
    """What a model agent asks of any client (the HTTP one below, a live session, a local model): one
    decision's time budget fitted to the clock, and abandonment when the runtime no longer needs it."""

    def __init__(self, options: LLMOptions) -> None:
        self.options = options
        self.abandoned = threading.Event()
        self.timeout_s: float | None = options.timeout or FALLBACK_TIMEOUT_S

    def fit_clock(self, clock: ClockView, horizon_s: float | None = None) -> None:
        """Take the clock's default decision budget unless the user set `timeout`: under `wall` the episode's
        length (`horizon_s`; None: no budget, the runtime abandons the call when the episode ends)."""
        if self.options.timeout is None:
            self.timeout_s = clock.model_budget_s(horizon_s)

    def abandon(self) -> None:
        """Stop any in-flight call at its next chance; later calls fail at once as `abandoned`."""
        self.abandoned.set()

    def close(self) -> None:
        self.abandon()


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One verifying TLS context for every client of the process: building one loads the system's certificates
    (about 30 ms of CPU), and a match builds a client per model agent. Contexts are safe to share."""
    return ssl.create_default_context()


class ChatClient(ModelClient):
    """A thin, accounted wrapper of `openai.OpenAI(...).chat.completions.create` for one agent."""

    def __init__(self, options: LLMOptions) -> None:

        super().__init__(options)
        # reasoning-endpoint request style: max_completion_tokens, no temperature
        self.reasoning_style = options.endpoint == "reasoning" or (
            options.endpoint == "auto" and bool(REASONING_MODELS.search(options.model)))
        self.urls = options.base_urls
        self.limits = options.endpoint_limits().merged(run_limits_for(options.base_url or "default"))
        self.limited = self.limits.limited or len(self.urls) > 1
        self._sdks: dict[str | None, Any] = {}
        self._sdk = self.sdk_for(self.urls[0] if self.urls else None)

    def sdk_for(self, url: str | None) -> Any:
        """The SDK client of one base URL (a pool has one per replica, made when first used)."""
        import openai

        if url not in self._sdks:
            self._sdks[url] = openai.OpenAI(
                base_url=url,
                api_key=os.environ.get(self.options.api_key_env) or "EMPTY",  # local servers take any key
                max_retries=0,  # retries are ours: they must respect the decision's time budget
                timeout=self.options.timeout or FALLBACK_TIMEOUT_S,  # each request passes what is left of its budget
                http_client=openai.DefaultHttpxClient(verify=tls_context()),
            )
        return self._sdks[url]

    def close(self) -> None:
        super().close()
        for sdk in self._sdks.values():
            sdk.close()

    def _slot(self, messages: list[dict[str, Any]], deadline: float) -> Grant | None:
        """A slot from the run's limiter (None when the endpoint is not limited), waiting as long as the
        decision's budget allows; a `Failure` when it runs out or the decision is abandoned."""
        if not self.limited:
            return None
        limiter = shared_limiter()
        tokens = count_messages(messages) + (self.options.max_tokens or 0)
        while True:
            if self.abandoned.is_set():
                raise Failure("abandoned", "the runtime no longer needed this decision")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Failure("timeout", "no connection slot or rate budget came free within the decision's budget")
            lease = remaining + LEASE_MARGIN_S if math.isfinite(remaining) else None  # the request ends by then
            grant = limiter.acquire(self.options.base_url or "default", self.urls or ("default",), self.limits,
                                    tokens, min(SLICE_S, remaining), lease)
            if grant is not None:
                return grant

    @staticmethod
    def _release(grant: Grant | None, outcome: str, done: Completion | None = None) -> None:
        if grant is None:
            return
        tokens = done.tokens_in + done.tokens_out if done is not None and done.tokens_source == "server" else None
        shared_limiter().release_grant(grant, outcome, tokens)

    # -- one decision ------------------------------------------------------------------------------
    def complete(self, messages: list[dict[str, Any]], timeout_s: float | None = None, *,
                 tools: list[dict[str, Any]] | None = None, tool_choice: Any = None) -> Completion:
        start = time.monotonic()
        budget = timeout_s or self.timeout_s
        deadline = start + budget if budget is not None else math.inf
        failures: list[str] = []
        extra = {key: value for key, value in (("tools", tools), ("tool_choice", tool_choice)) if value}
        queued = 0.0
        while True:
            waiting = time.monotonic()
            try:
                grant = self._slot(messages, deadline)
            except Failure as failure:  # no slot within the budget, or abandoned while waiting: nothing was sent
                queued += time.monotonic() - waiting
                return self._finish(Completion(error=str(failure)), messages, start, len(failures), failures, queued)
            attempt_start = time.monotonic()
            queued += attempt_start - waiting
            try:
                # the grant names the replica; without a base URL (the SDK's default) there is only that one
                completion = self._attempt(messages, deadline, extra, grant.url if grant and self.urls else self._url())
                self._release(grant, "ok", completion)
                return self._finish(completion, messages, start, len(failures) + 1, failures, queued, grant)
            except Exception as error:  # every failure is classified, none escapes
                failure = _as_failure(error)
                self._release(grant, failure.kind)
            failures.append(failure.kind)
            if self._switch_style(failure):
                continue  # the endpoint told us its style: ask again at once (the refusal stays on record)
            spent = time.monotonic() - attempt_start
            wait = failure.retry_after_s if failure.retry_after_s is not None else BACKOFF_S * 2 ** (len(failures) - 1)
            can_retry = (failure.retryable and len(failures) <= self.options.retries
                         and time.monotonic() + wait + spent <= deadline and not self.abandoned.is_set())
            if not can_retry or self.abandoned.wait(wait):
                text, reasoning = failure.partial
                failed = Completion(text=text, reasoning=reasoning, error=str(failure), finish_reason=None)
                return self._finish(failed, messages, start, len(failures), failures[:-1], queued, grant)

    def _url(self) -> str | None:
        return self.urls[0] if self.urls else None

    def _switch_style(self, failure: Failure) -> bool:
        """After a 400 rejecting `max_tokens`/`temperature` (auto endpoint), use the reasoning style."""
        if (self.options.endpoint != "auto" or self.reasoning_style or failure.kind != "http_400"
                or not REJECTS_CLASSIC.search(str(failure))):
            return False
        self.reasoning_style = True
        return True

    def _finish(self, done: Completion, messages: list[dict[str, Any]], start: float, attempts: int,
                failed: list[str], queued: float = 0.0, grant: Grant | None = None) -> Completion:
        values = dict(done.__dict__)
        if done.tokens_source != "server":  # no usage from the server: count locally, and say so
            values["tokens_in"] = count_messages(messages) if done.ok or done.text else 0
            values["tokens_out"] = (count_tokens(done.text) + count_tokens(done.reasoning)
                                    + sum(count_tokens(c["name"] + c["arguments"]) for c in done.calls))
            values["tokens_source"] = "counted" if values["tokens_in"] or values["tokens_out"] else "none"
        if done.ok and done.tokens_after_commit is None:
            point = commit_point(done.text, final=True)
            values["tokens_after_commit"] = count_tokens(done.text[point:]) if point is not None else 0
        if done.ok and not done.text.strip() and not done.calls:
            values["error"] = "empty: the reply had no content"
        values["cost_usd"] = self.cost_usd(values["tokens_in"], values["tokens_out"], done.cached_tokens)
        values.update(latency_s=time.monotonic() - start - queued, attempts=attempts, failed_attempts=list(failed),
                      queue_wait_s=queued if self.limited else None,
                      base_url=grant.url if grant is not None and len(self.urls) > 1 else None)
        return Completion(**values)

    def cost_usd(self, tokens_in: int, tokens_out: int, cached: int | None) -> float | None:
        """What the tokens cost at the model's prices (USD per million tokens), or None without a price."""
        o = self.options
        if o.price_in is None and o.price_out is None:
            return None
        cached = min(cached or 0, tokens_in)
        cached_price = o.price_cached if o.price_cached is not None else (o.price_in or 0.0)
        return ((o.price_in or 0.0) * (tokens_in - cached) + cached_price * cached
                + (o.price_out or 0.0) * tokens_out) / 1e6

    def _request(self, messages: list[dict[str, Any]], deadline: float, stream: bool, extra: dict[str, Any],
                 url: str | None = None) -> Any:
        if self.abandoned.is_set():
            raise Failure("abandoned", "the runtime no longer needed this decision")
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Failure("timeout", "no time left for another attempt")
        # The messages travel in `extra_body`, which the SDK sends as given: its type-driven transform of a
        # `messages` argument walks every part of the history in Python (tens of ms a call on a long text
        # history: client time that wall and measured clocks would charge to the model). Ours are plain
        # JSON already (prompts.py builds them).
        kwargs: dict[str, Any] = {"model": self.options.model, "messages": [], "extra_body": {"messages": messages},
                                  "timeout": remaining if math.isfinite(remaining) else None}
        if self.reasoning_style:
            if self.options.max_tokens is not None:
                kwargs["max_completion_tokens"] = self.options.max_tokens
        else:
            kwargs["temperature"] = self.options.temperature
            if self.options.max_tokens is not None:
                kwargs["max_tokens"] = self.options.max_tokens
        if self.options.seed is not None:
            kwargs["seed"] = self.options.seed
        if self.options.reasoning_effort is not None:
            kwargs["reasoning_effort"] = self.options.reasoning_effort
        if stream:
            kwargs.update(stream=True, stream_options={"include_usage": True})
        return self.sdk_for(url).chat.completions.create(**kwargs, **extra)

    def _attempt(self, messages: list[dict[str, Any]], deadline: float, extra: dict[str, Any],
                 url: str | None = None) -> Completion:
        started = time.monotonic()
        if not self.options.stream:
            response = self._request(messages, deadline, stream=False, extra=extra, url=url)
            if not hasattr(response, "choices"):  # HTML or other text where JSON was due
                raise Failure("garbage", f"the reply was not an OpenAI chat completion: {str(response)[:60]!r}")
            choice = response.choices[0] if response.choices else None
            message = choice.message if choice else None
            return self._with_usage(Completion(
                text=(message.content or "") if message else "",
                reasoning=(_extra(message, "reasoning_content", "reasoning") or "") if message else "",
                finish_reason=choice.finish_reason if choice else None,
                calls=tuple({"id": c.id or "", "name": c.function.name or "", "arguments": c.function.arguments or "{}"}
                            for c in message.tool_calls or ()) if message else (),
            ), response.usage)
        stream = self._request(messages, deadline, stream=True, extra=extra, url=url)
        headers_at = last_at = time.monotonic()  # the response headers arrived: the connection is set up
        text: list[str] = []
        reasoning: list[str] = []
        calls: dict[int, dict[str, str]] = {}  # streamed tool calls, by index: id and name first, then arguments
        usage = finish = ttft = timings = None
        committed = False
        chunks = 0
        try:
            for chunk in stream:
                chunks += 1
                if self.abandoned.is_set():
                    raise Failure("abandoned", "the runtime no longer needed this decision",
                                  partial=("".join(text), "".join(reasoning)))
                if time.monotonic() > deadline:
                    raise Failure("timeout", "the reply was still streaming at the deadline",
                                  partial=("".join(text), "".join(reasoning)))
                usage = chunk.usage or usage
                timings = _extra(chunk, "timings") or timings
                for choice in chunk.choices or ():
                    piece = choice.delta.content if choice.delta else None
                    thought = _extra(choice.delta, "reasoning_content", "reasoning") if choice.delta else None
                    parts = (choice.delta.tool_calls if choice.delta else None) or ()
                    if (piece or thought or parts) and ttft is None:
                        ttft = time.monotonic() - started
                    if piece or thought:
                        last_at = time.monotonic()
                    if piece:
                        text.append(piece)
                    if thought:
                        reasoning.append(thought)
                    for part in parts:
                        call = calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
                        call["id"] = part.id or call["id"]
                        if part.function is not None:
                            call["name"] += part.function.name or ""
                            call["arguments"] += part.function.arguments or ""
                    finish = choice.finish_reason or finish
                if self.options.early_commit and piece and commit_point("".join(text)) is not None:
                    committed = True  # the action is complete: stop generating here
                    break
        except Failure:
            raise
        except Exception as error:  # the connection broke mid-stream
            failure = _as_failure(error)
            kind = failure.kind if failure.kind in ("timeout", "garbage") else "stream_cut"
            raise Failure(kind, f"the stream broke after {len(text)} pieces ({stream_error(error)})",
                          partial=("".join(text), "".join(reasoning))) from None
        finally:
            stream.close()
        if committed:
            point = commit_point("".join(text))
            kept = "".join(text)[:point]
            return Completion(text=kept, reasoning="".join(reasoning), finish_reason="commit", ttft_s=ttft,
                              tokens_after_commit=0, early_commit=True)
        if finish is None and not chunks:  # not one event parsed: the body was no OpenAI stream (HTML ...)
            raise Failure("garbage", "the reply held no OpenAI stream events (HTML or other text?)")
        if finish is None:
            raise Failure("stream_cut", "the stream ended without a finish reason",
                          partial=("".join(text), "".join(reasoning)))
        done = Completion(text="".join(text), reasoning="".join(reasoning), finish_reason=finish, ttft_s=ttft,
                          calls=tuple({**calls[i], "arguments": calls[i]["arguments"] or "{}"} for i in sorted(calls)),
                          server_latency_s=last_at - headers_at, endpoint_latency_s=endpoint_latency(timings))
        return self._with_usage(done, usage)

    @staticmethod
    def _with_usage(done: Completion, usage: Any) -> Completion:
        if usage is None or usage.completion_tokens is None:
            return done
        details = getattr(usage, "completion_tokens_details", None)
        prompt_details = getattr(usage, "prompt_tokens_details", None)
        values = dict(done.__dict__)
        values.update(
            tokens_in=int(usage.prompt_tokens or 0),
            tokens_out=int(usage.completion_tokens),
            tokens_source="server",
            reasoning_tokens=getattr(details, "reasoning_tokens", None) if details else None,
            cached_tokens=getattr(prompt_details, "cached_tokens", None) if prompt_details else None,
        )
        return Completion(**values)
