"""The judge: a separate model spec that checks each proposed skill against a written rule set.

The rule set (`rules.toml [judge]`, with the banned patterns of the content lints) is the judge's system
prompt; the submission (skill, diagnosis, previous skill, the round's signal codes) is its user message as
JSON. The reply must be one JSON object `{"verdict": "pass" | "needs_revision", "violations": [...]}`; a
reply that is not becomes verdict `error` (not a pass). Every verdict is recorded by the caller. With
`judge_mode = "binding"` a skill without a `pass` blocks `submit_skill` until the validation budget is
spent; `advisory` records verdicts and blocks nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rtarena.improve.chat import role_client
from rtarena.improve.lints import banned_patterns, improve_rules


def judge_prompt() -> str:
    data = improve_rules().judge
    lines = [data.intro.strip(), "", "## Rules"]
    lines += [f"{i}. `{rule.id}`: {rule.text}" for i, rule in enumerate(data.rule, 1)]
    lines += ["", "## Patterns", "A skill matching one of these regular expressions breaks the rule named:"]
    lines += [f"- {rule}: `{pattern}`" for rule, pattern in banned_patterns()]
    lines += ["", "## Reply", data.reply.strip()]
    return "\n".join(lines)


def parse_verdict(text: str) -> dict[str, Any]:
    match = re.search(r"\{.*\}", text or "", flags=re.S)
    try:
        data = json.loads(match.group(0)) if match else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or data.get("verdict") not in ("pass", "needs_revision"):
        return {"verdict": "error", "violations": [], "notes": f"unreadable verdict: {(text or '')[:200]!r}"}
    return {"verdict": data["verdict"], "violations": list(data.get("violations") or []),
            "notes": str(data.get("notes") or "")}


class Judge:
    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.chat = role_client(spec, role="judge")

    def verdict(self, skill: str, diagnosis: dict[str, Any] | None, previous: str, lints: list[str]) -> dict:
        submission = {"skill": skill, "diagnosis": diagnosis or {}, "previous_skill": previous, "lints": lints}
        messages = [{"role": "system", "content": judge_prompt()},
                    {"role": "user", "content": "Submission:\n```json\n" + json.dumps(submission, indent=1) + "\n```"}]
        reply = self.chat.complete(messages)
        if reply.error:
            return {"verdict": "error", "violations": [], "notes": reply.error}
        return parse_verdict(reply.text)

    def close(self) -> None:
        self.chat.close()
