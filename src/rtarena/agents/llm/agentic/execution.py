"""Action execution: the committed reply turned into the env action, the default when it does not parse."""

from __future__ import annotations

from typing import Any

from rtarena.agents.llm.parsing import ActionParser, Parsed


class ActionExecutor:
    def __init__(self, parser: ActionParser, default: Any) -> None:
        self.parser = parser
        self.default = default

    def execute(self, text: str | None) -> tuple[Any, Parsed]:
        parsed = self.parser.parse(text)
        return (parsed.action if parsed.valid else self.default), parsed

    def describe(self, action: Any) -> str:
        return self.parser.format(action)
