"""Faults the policy server can inject, so that the failure paths of model agents can be tested offline.

| fault | what the server does |
|---|---|
| `none` | answers normally |
| `garbage` | answers 200 with text that holds no action |
| `empty` | answers 200 with an empty reply |
| `html` | answers 200 with an HTML page, not an OpenAI reply (a proxy's login or error page) |
| `cut` | starts streaming, then drops the connection half-way (no final chunk, no usage) |
| `http_500` | answers HTTP 500 with an OpenAI-style error body |
| `http_429` | answers HTTP 429 with `Retry-After: <retry_after_s>` |
| `slow` | waits `slow_s` seconds before answering (longer than a client's timeout) |
| `garbage_event` | Realtime only: a frame that is not a JSON event before the response (chat answers normally) |
| `no_done` | Realtime only: the reply's text but never `response.done` (chat answers normally) |

Over the Realtime protocol (`realtime.py`) `cut` drops the socket half-way through the reply and
`http_500`/`http_429` are `error` events instead of a response.

"Nothing at all" (a closed port) needs no server: `closed_port_url()` gives a URL where nothing listens.
With `fault_every=N` only every N-th request is hit (1: all of them).
"""

from __future__ import annotations

import socket

FAULTS = ("none", "garbage", "empty", "html", "cut", "http_500", "http_429", "slow", "garbage_event", "no_done")
HTML_PAGE = b"<!doctype html><html><head><title>Sign in</title></head><body><h1>Proxy login</h1></body></html>"
GARBAGE = "Lorem ipsum dolor sit amet; the quick brown fox jumps over the lazy dog."


def closed_port_url() -> str:
    """An OpenAI-style base URL on 127.0.0.1 at a port that was free a moment ago and has no listener."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
