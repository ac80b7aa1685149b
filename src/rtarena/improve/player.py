"""How a skill reaches the player: the model agent's own `skill=PATH` option.

The skill file is appended to the system prompt by `agents/llm/prompts` (`skill.md`, "## Skill notes"),
so the player reads it exactly as any model agent would. Only model agents take a skill.
"""

from __future__ import annotations

from pathlib import Path

from rtarena.errors import UserError

SKILLED_KINDS = ("llm:", "team:llm:", "agentic:")


def check_player(spec: str) -> str:
    if not spec.startswith(SKILLED_KINDS):
        raise UserError(f"the player must be a model agent ({', '.join(k + 'MODEL@URL' for k in SKILLED_KINDS)}) "
                        f"to take a skill, got {spec!r}", field="--player")
    if ",skill=" in spec:
        raise UserError("the runner sets the player's skill; leave skill= out of the spec", field="--player")
    return spec


def with_skill(spec: str, skill_file: Path | None) -> str:
    """The player spec playing with this skill file (none: the bare spec)."""
    if skill_file is None:
        return spec
    path = str(Path(skill_file).resolve())
    if "," in path:
        raise UserError(f"the run folder's path may not contain a comma (it goes into the agent spec): {path}",
                        field="--out")
    return f"{spec},skill={path}"
