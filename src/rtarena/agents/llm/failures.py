"""Failure kinds of model decisions, and the summary line a match prints about them.

A failed decision carries `error="kind: detail"` (the runtime keeps it in `DecisionRecord.error`), its
action is the env's default and it is counted per kind in the episode's per-agent metrics (`failures`).

| kind | what happened |
|---|---|
| `unparsed` | a reply came but held no action in the documented format (garbage) |
| `empty` | the reply had no content |
| `stream_cut` | the stream broke off before its end |
| `garbage` | the body was not an OpenAI reply at all (HTML, plain text, malformed JSON or events) |
| `http_429`, `http_500` ... | the server answered with that HTTP status (after any retries) |
| `timeout` | no complete reply within the decision's time budget |
| `connection` | no server answered (port closed, host unreachable) |
| `abandoned` | the runtime stopped needing the decision (the match ended) |
| `error_event` | `live:` only: the Realtime server sent an `error` event (its type and message follow) |
| `bad_event` | `live:` only: the Realtime server sent a frame that is not a JSON event |
| `no_done` | `live:` only: the final text came, `response.done` (with the usage) did not |

A `live:` socket that drops is a `connection` failure, retried on a new session within the decision's budget.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from rtarena.redact import redact

KINDS = ("unparsed", "empty", "stream_cut", "garbage", "http_429", "http_500", "timeout", "connection",
         "abandoned", "error_event", "bad_event", "no_done")


def failure_kind(error: str | None) -> str | None:
    """The kind of an error string: the text before its first colon."""
    if not error:
        return None
    return error.split(":", 1)[0].strip() or "error"


def count_failures(errors: Iterable[str | None]) -> dict[str, int]:
    """Failures per kind, most frequent first."""
    counts = Counter(k for k in (failure_kind(e) for e in errors) if k)
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def failure_line(result: Any) -> str:
    """One line per match: how many decisions failed, by kind (from a `MatchResult`)."""
    decisions = result.decisions
    counts = count_failures(d.error for d in decisions)
    failed = sum(1 for d in decisions if d.error)
    if not failed:
        return f"{len(decisions)} decisions, none failed"
    kinds = ", ".join(f"{kind}={n}" for kind, n in counts.items())
    return f"{len(decisions)} decisions, {failed} failed and played the default action ({kinds})"


class FailureTally:
    """Counts an agent's decisions and failures across its life, for the line it logs when closed."""

    def __init__(self) -> None:
        self.decisions = 0
        self.kinds: Counter[str] = Counter()

    def note(self, error: str | None) -> None:
        self.decisions += 1
        kind = failure_kind(error)
        if kind:
            self.kinds[kind] += 1

    def line(self, name: str) -> str | None:
        """`llm:m@url: 12 of 40 decisions failed and played the default action (timeout=12)`, or None."""
        failed = sum(self.kinds.values())
        if not failed:
            return None
        kinds = ", ".join(f"{k}={n}" for k, n in sorted(self.kinds.items(), key=lambda kv: (-kv[1], kv[0])))
        return f"{redact(name)}: {failed} of {self.decisions} decisions failed and played the default action ({kinds})"
