"""Reading a JSON request body safely, for the project's local servers (map editor, policy server).

A body is read only up to a cap (a `Content-Length` of 99999999999 must not make a server allocate it),
must parse as one JSON object with finite numbers (`1e400` is refused, not turned into infinity), and its
fields are checked against their expected kinds, so a malformed request always gets a 4xx JSON answer
instead of a traceback and a dropped connection.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_BODY_BYTES = 8 * 1024 * 1024


class BadRequest(Exception):
    """A request the server refuses: HTTP `status` and a one-line reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number out of range: {text}")
    return value


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def read_object(headers: Any, stream: Any, max_bytes: int = MAX_BODY_BYTES, need_json_type: bool = False) -> dict:
    """The request body as a JSON object, or `BadRequest` (411, 413, 415 or 400)."""
    if need_json_type:
        kind = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise BadRequest(415, f"the body must be application/json, got {kind or 'no Content-Type'!r}")
    raw = headers.get("Content-Length")
    try:
        length = int(raw) if raw is not None else 0
    except ValueError:
        raise BadRequest(400, f"bad Content-Length {raw!r}") from None
    if length < 0:
        raise BadRequest(400, f"bad Content-Length {raw!r}")
    if length > max_bytes:
        raise BadRequest(413, f"the body is {length} bytes; at most {max_bytes} are accepted")
    data = stream.read(length) if length else b""
    try:
        body = json.loads(data or b"{}", parse_float=_finite, parse_int=_int, parse_constant=_constant)
    except (ValueError, RecursionError) as error:
        raise BadRequest(400, f"the body is not valid JSON: {str(error).splitlines()[0][:120]}") from None
    if not isinstance(body, dict):
        raise BadRequest(400, f"the body must be a JSON object, got {type(body).__name__}")
    return body


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 18:  # beyond any count or seed the servers take
        raise ValueError(f"integer out of range: {text[:24]}")
    return int(text)


KINDS: dict[str, tuple[type, ...]] = {"object": (dict,), "list": (list,), "text": (str,), "bool": (bool,),
                                      "int": (int,), "number": (int, float)}


def check(body: dict, field: str, kind: str, required: bool = True) -> Any:
    """`body[field]`, checked to be of `kind` (object, list, text, bool, int, number); 400 otherwise."""
    if field not in body or body[field] is None:
        if required:
            raise BadRequest(400, f"missing field {field!r}")
        return None
    value = body[field]
    wrong = not isinstance(value, KINDS[kind]) or (kind in ("int", "number") and isinstance(value, bool))
    if wrong:
        raise BadRequest(400, f"field {field!r} must be {kind}, got {type(value).__name__} {str(value)[:40]!r}")
    return value
