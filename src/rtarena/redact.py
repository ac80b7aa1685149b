"""Credentials never land in run files or logs: URLs lose their `user:password@`, keys are masked.

Run folders are shared, committed and published; a base URL written as `http://user:pw@host/v1` or a
server's error text quoting the key it refused (`Incorrect API key provided: sk-...`) would leak it.
Every text the store writes, and every error text a model client records, passes through `redact`.
"""

from __future__ import annotations

import re
from typing import Any

USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@]+@")
SECRETS = (
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}"), "sk-***"),
    (re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=\-]{6,}", re.IGNORECASE), r"\1 ***"),
    (re.compile(r"\b(api[_-]?key|token|password)=[^\s&,;\"']+", re.IGNORECASE), r"\1=***"),
)


def redact(text: str) -> str:
    """`text` without URL credentials and with key-like strings masked."""
    if "://" in text:
        text = USERINFO.sub(r"\g<scheme>", text)
    for pattern, replacement in SECRETS:
        text = pattern.sub(replacement, text)
    return text


def redact_all(value: Any) -> Any:
    """`redact` applied to every string inside nested dicts, lists and tuples (keys included)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact_all(k): redact_all(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact_all(v) for v in value)
    return value
