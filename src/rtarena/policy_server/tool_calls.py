"""OpenAI tool calling for the scripted server: `tools` in, `tool_calls` out, streamed or not.

A request that carries `tools` is answered by the scripted reflector (`reflector.py`; with
`policy=reflector-irrelevant` its negative control, otherwise whatever the server's policy), as a model that
can call tools would: either a final text, or an assistant message whose
`tool_calls` name a function and its JSON arguments (`finish_reason: "tool_calls"`). A `tool_choice` naming
one function (the runner's forced final call) is honoured: if the reflector would call something else,
it calls the named function with the arguments the conversation's last call of it had, or none.
Streaming sends the call as `delta.tool_calls` chunks: id, name and an empty argument string first, then
the arguments in pieces, as OpenAI's API does.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from rtarena.agents.llm.tokens import count_messages, count_tokens
from rtarena.policy_server.reflector import TOOL_REPLIES, calls_so_far, tool_reply

ARG_PIECE = 64  # characters of arguments per streamed delta


def reply(request: dict[str, Any], policy: str = "reflector") -> tuple[str | None, list[dict[str, Any]]]:
    """(text, tool calls) for a request with tools; the calls are in the API's message shape."""
    messages = request.get("messages") or []
    text, calls = TOOL_REPLIES.get(policy, tool_reply)(messages)
    forced = ((request.get("tool_choice") or {}) if isinstance(request.get("tool_choice"), dict) else {})
    name = (forced.get("function") or {}).get("name")
    if name and not any(n == name for n, _ in calls):
        earlier = [c.args for c in calls_so_far(messages) if c.name == name]
        text, calls = None, [(name, earlier[-1] if earlier else {})]
    return text, [{"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                   "function": {"name": n, "arguments": json.dumps(a)}} for n, a in calls]


def completion_tokens(text: str | None, calls: list[dict[str, Any]]) -> int:
    return count_tokens(text or "") + sum(count_tokens(c["function"]["name"] + c["function"]["arguments"])
                                          for c in calls)


def message(text: str | None, calls: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """The non-streamed assistant message and its finish reason."""
    if calls:
        return {"role": "assistant", "content": None, "tool_calls": calls}, "tool_calls"
    return {"role": "assistant", "content": text or ""}, "stop"


def deltas(text: str | None, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The streamed deltas (after the role delta) for the same reply."""
    if not calls:
        return [{"content": text or ""}]
    out = []
    for index, call in enumerate(calls):
        out.append({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                    "function": {"name": call["function"]["name"], "arguments": ""}}]})
        arguments = call["function"]["arguments"]
        for start in range(0, len(arguments), ARG_PIECE):
            piece = arguments[start:start + ARG_PIECE]
            out.append({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    return out


def respond(request: dict[str, Any], model: str, policy: str = "reflector") -> dict[str, Any] | list[bytes]:
    """A request with tools answered: the completion's body, or (streamed) its server-sent events in order."""
    text, calls = reply(request, policy)
    prompt = count_messages(request.get("messages") or [])
    done = completion_tokens(text, calls)
    usage = {"prompt_tokens": prompt, "completion_tokens": done, "total_tokens": prompt + done}
    meta = {"id": f"chatcmpl-{uuid.uuid4().hex[:16]}", "created": int(time.time()), "model": model}
    body, finish = message(text, calls)
    if not request.get("stream"):
        return {**meta, "object": "chat.completion", "usage": usage,
                "choices": [{"index": 0, "message": body, "finish_reason": finish}]}
    chunks = [{"role": "assistant", "content": None if calls else ""}, *deltas(text, calls)]
    events = [{"choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in chunks]
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    if (request.get("stream_options") or {}).get("include_usage"):
        events.append({"choices": [], "usage": usage})
    out = [f"data: {json.dumps({**meta, 'object': 'chat.completion.chunk', **event}, separators=(',', ':'))}\n\n"
           .encode() for event in events]
    return [*out, b"data: [DONE]\n\n"]
