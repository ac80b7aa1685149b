"""Chat completions with tool calling for the reflector and the judge, streamed or not.

Any OpenAI-compatible server with tool calling works (the specs use the model-agent grammar,
`MODEL@BASE_URL[,key=value]`, so `stream=false`, `temperature`, `max_tokens`, `timeout`, `api_key_env`
apply). A failed call is returned as a `Reply` with `error` set, never raised: the runner records it.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from typing import Any

from rtarena.agents.llm.options import LLMOptions, parse_llm_options


@dataclass
class Reply:
    text: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)  # [{"id", "name", "arguments" (str)}]
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_s: float = 0.0
    error: str | None = None

    def message(self) -> dict[str, Any]:
        """The assistant message to append to the conversation."""
        if not self.calls:
            return {"role": "assistant", "content": self.text}
        return {"role": "assistant", "content": self.text or None,
                "tool_calls": [{"id": c["id"], "type": "function",
                                "function": {"name": c["name"], "arguments": c["arguments"]}} for c in self.calls]}


class ToolChat:
    """One model endpoint for the improvement loop."""

    def __init__(self, spec: str, role: str) -> None:
        import openai

        self.spec = spec
        self.options: LLMOptions = parse_llm_options(spec, kind=role)
        self._sdk = openai.OpenAI(base_url=self.options.base_url,
                                  api_key=os.environ.get(self.options.api_key_env) or "EMPTY",
                                  timeout=self.options.timeout, max_retries=self.options.retries)

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                 tool_choice: Any = None) -> Reply:
        o = self.options
        kwargs: dict[str, Any] = {"model": o.model, "messages": messages, "temperature": o.temperature,
                                  "max_tokens": o.max_tokens, "stream": o.stream}
        if o.seed is not None:
            kwargs["seed"] = o.seed
        if tools:
            kwargs["tools"] = tools
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        if o.stream:
            kwargs["stream_options"] = {"include_usage": True}
        start = time.monotonic()
        try:
            reply = self._stream(kwargs) if o.stream else self._whole(kwargs)
        except Exception as error:  # any server or network failure is recorded, not raised
            reply = Reply(error=f"{type(error).__name__}: {error}")
        reply.latency_s = time.monotonic() - start
        return reply

    def _whole(self, kwargs: dict[str, Any]) -> Reply:
        response = self._sdk.chat.completions.create(**kwargs)
        message = response.choices[0].message
        calls = [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments or "{}"}
                 for c in message.tool_calls or []]
        usage = response.usage
        return Reply(message.content or "", calls, getattr(usage, "prompt_tokens", None),
                     getattr(usage, "completion_tokens", None))

    def _stream(self, kwargs: dict[str, Any]) -> Reply:
        text: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        reply = Reply()
        for chunk in self._sdk.chat.completions.create(**kwargs):
            if chunk.usage is not None:
                reply.tokens_in, reply.tokens_out = chunk.usage.prompt_tokens, chunk.usage.completion_tokens
            for choice in chunk.choices or []:
                delta = choice.delta
                if delta.content:
                    text.append(delta.content)
                for part in delta.tool_calls or []:
                    call = calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
                    call["id"] = part.id or call["id"]
                    if part.function is not None:
                        call["name"] += part.function.name or ""
                        call["arguments"] += part.function.arguments or ""
        reply.text = "".join(text)
        reply.calls = [calls[i] for i in sorted(calls)]
        return reply

    def close(self) -> None:
        self._sdk.close()


def arguments(call: dict[str, Any]) -> dict[str, Any] | str:
    """A call's arguments as a dict, or the reason they are not valid JSON."""
    try:
        value = json.loads(call.get("arguments") or "{}")
    except json.JSONDecodeError as error:
        return f"arguments are not valid JSON: {error}"
    return value if isinstance(value, dict) else "arguments must be a JSON object"
