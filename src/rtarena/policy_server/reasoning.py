"""The policy server's reasoning mode: it answers like a reasoning model's endpoint.

With `reasoning_model=true` the server
- rejects `max_tokens` and `temperature` with HTTP 400, as OpenAI's reasoning models do (a client must
  send `max_completion_tokens` and leave the temperature out);
- thinks for a number of reasoning tokens that depends on the request's `reasoning_effort`
  (`EFFORT_TOKENS`, times `effort_scale`; OpenAI's default effort, `medium`, when none is sent), paced at
  `filler_rate` like filler tokens and reported as `completion_tokens_details.reasoning_tokens`.

`plan_tokens` (any mode) adds that many reasoning tokens per body a request decides for (one for a single
agent, n for a `team:` request over n bodies), paced the same way: the scripted stand-in for a model whose
plan for a team is n times as long (`arena_team.py`).

`after_tokens` (any mode) appends that many words after the `ACTION:` line, like a model that keeps
explaining after it has answered: the tokens a client generates after its action is complete.

The lengths are ours, not any model's. At the paper's token rate for browser tasks (kappa = B f: B = 64
tokens per observation interval at one observation per page second, 64 tokens per page second; its Figure 9
charges 544 tokens 8.5 simulated seconds) low effort (32 tokens) costs 0.5 s and high effort (512 tokens)
8 s: on the live quiz (8 s per answer) low effort fits the window and high effort uses all of it. The
offline study (`annotate/study.py`) doubles them (`effort_scale=2`: 64 and 1024 tokens, 1 s and 16 s).
`WH` paces them at `filler_rate=64`, the same 64 tokens per second in real time.
"""

from __future__ import annotations

from typing import Any

from rtarena.policy_server.policies import bodies

EFFORT_TOKENS = {"none": 0, "minimal": 8, "low": 32, "medium": 128, "high": 512}
DEFAULT_EFFORT = "medium"
AFTER_WORD = "because"  # one token under the counting rule
REJECTED = {
    "max_tokens": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                  "Use 'max_completion_tokens' instead.",
    "temperature": "Unsupported parameter: 'temperature' is not supported with this model.",
}


def rejection(settings: Any, request: dict[str, Any]) -> dict[str, Any] | None:
    """The OpenAI-style 400 error body for a request a reasoning endpoint refuses, or None."""
    if not settings.reasoning_model:
        return None
    for name, message in REJECTED.items():
        if request.get(name) is not None:
            return {"error": {"message": message, "type": "invalid_request_error", "param": name,
                              "code": "unsupported_parameter"}}
    effort = request.get("reasoning_effort")
    if effort is not None and effort not in EFFORT_TOKENS:
        return {"error": {"message": f"Invalid value for 'reasoning_effort': {effort!r}",
                          "type": "invalid_request_error", "param": "reasoning_effort"}}
    return None


def reasoning_tokens(settings: Any, request: dict[str, Any]) -> int:
    """How many tokens the server thinks before answering: the filler, or the effort's share, plus
    `plan_tokens` for each body the request decides for (a team's reply grows with the team)."""
    planning = settings.plan_tokens * bodies(request.get("messages") or [])
    if not settings.reasoning_model:
        return settings.filler_tokens + planning
    effort = request.get("reasoning_effort") or DEFAULT_EFFORT
    return round(EFFORT_TOKENS[effort] * settings.effort_scale) + planning


def with_after(text: str, settings: Any) -> str:
    """The reply with `after_tokens` words after its action line (nothing added when 0 or empty)."""
    if not settings.after_tokens or not text:
        return text
    return text + "\n" + " ".join([AFTER_WORD] * settings.after_tokens)
