"""The reflector's and the judge's model calls go through the one model client, `agents/llm/client.py`.

`role_client(spec, role)` builds a `ChatClient` from the model-agent grammar (`MODEL@BASE_URL[,key=value]`:
`stream=false`, `temperature`, `max_tokens`, `timeout`, `retries`, `endpoint`, `api_key_env` apply), so
the improvement loop gets the same reasoning-endpoint rules, retries within a budget, failure kinds and
token accounting as a playing agent, with tool calling (`complete(messages, tools=..., tool_choice=...)`).
A failed call is a `Completion` with `error` set, never raised: the runner records it.
"""

from __future__ import annotations

import json
from typing import Any

from rtarena.agents.llm.client import ChatClient
from rtarena.agents.llm.options import parse_llm_options

# No game clock waits on the reflector or the judge: without `timeout`, a call (retries included) may
# take as long as under the clocks that wait for a model (agents/llm/client.py: CLOCK_TIMEOUT_S).
ROLE_TIMEOUT_S = 300.0


def role_client(spec: str, role: str) -> ChatClient:
    """The model client of one improvement role (`reflector` or `judge`), named in its errors."""
    client = ChatClient(parse_llm_options(spec, kind=role))
    if client.options.timeout is None:
        client.timeout_s = ROLE_TIMEOUT_S
    return client


def arguments(call: dict[str, Any]) -> dict[str, Any] | str:
    """A call's arguments as a dict, or the reason they are not valid JSON."""
    try:
        value = json.loads(call.get("arguments") or "{}")
    except json.JSONDecodeError as error:
        return f"arguments are not valid JSON: {error}"
    return value if isinstance(value, dict) else "arguments must be a JSON object"
