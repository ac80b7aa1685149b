"""`policy=judge`: a scripted judge of submitted skills; it reads its rules from the prompt, like a model.

The improvement runner (`improve/judge.py`) sends the rule set as the system prompt and one submission as
JSON in the user message: the skill, the diagnosis and the round's signals (`lints`). This judge applies
what the prompt states and nothing else:

- every pattern listed under `## Patterns` (`- RULE: `REGEX``) that matches the skill is a violation of
  that rule (memorised map content, literal key sequences or step counts ...);
- `agreement`: every addition the diagnosis names must be in the skill, every deletion must not;
- `lints_addressed`: every signal code in `lints` must be named in the diagnosis.

It answers with one JSON object, `{"verdict": "pass" | "needs_revision", "violations": [...]}`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

PATTERN_LINE = re.compile(r"^- (\w+): `(.+)`\s*$", flags=re.M)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split())


def submission(user: str) -> dict[str, Any]:
    """The JSON object of the user message (inside a ```json fence or bare)."""
    match = re.search(r"```json\s*(\{.*\})\s*```", user, flags=re.S) or re.search(r"(\{.*\})", user, flags=re.S)
    try:
        data = json.loads(match.group(1)) if match else {}
    except json.JSONDecodeError:
        data = {}
    return data if isinstance(data, dict) else {}


def violations(system: str, sub: dict[str, Any]) -> list[dict[str, str]]:
    skill = str(sub.get("skill") or "")
    diagnosis = sub.get("diagnosis") or {}
    found = []
    section = system.partition("## Patterns")[2]
    for rule, pattern in PATTERN_LINE.findall(section):
        hit = re.search(pattern, skill, flags=re.I | re.M)
        if hit:
            found.append({"rule": rule, "detail": f"the skill says {hit.group(0)!r}"})
    norm_skill = _norm(skill)
    for added in diagnosis.get("additions") or []:
        if _norm(str(added)) not in norm_skill:
            detail = f"the diagnosis adds {str(added)[:80]!r} but the skill lacks it"
            found.append({"rule": "agreement", "detail": detail})
    for removed in diagnosis.get("deletions") or []:
        if _norm(str(removed)) and _norm(str(removed)) in norm_skill:
            detail = f"the diagnosis deletes {str(removed)[:80]!r} but the skill keeps it"
            found.append({"rule": "agreement", "detail": detail})
    said = _norm(json.dumps(diagnosis))
    for code in sub.get("lints") or []:
        if _norm(str(code)) not in said:
            found.append({"rule": "lints_addressed", "detail": f"the diagnosis does not address signal {code!r}"})
    return found


def answer(system: str, user: str, default: Callable[[], str] | None = None) -> str:
    found = violations(system, submission(user))
    verdict = {"verdict": "needs_revision" if found else "pass", "violations": found,
               "notes": "scripted judge: rules applied from the prompt"}
    return json.dumps(verdict)
