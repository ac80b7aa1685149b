"""Budgets and content lints, enforced by the runner when the reflector submits a skill.

A submission is refused (and the refusal counted against `max_resubmissions`) when any check fails:

| check | rule |
|---|---|
| `empty_skill` | the skill has no text |
| `skill_tokens` | skill tokens (the counting rule of `agents/llm/tokens.py`) > `skill_tokens` |
| `skill_bullets` | bullet lines (`- `, `* `, `1. `) > `skill_bullets` |
| `notebook_tokens` | notebook tokens > `notebook_tokens` |
| banned patterns | a pattern of `rules.toml [[lint.banned]]` matches (map memorisation, literal actions) |
| `bullets_after_regression` | after a round scoring below the one before: bullets added + removed > the setting |
| `unchanged_skill` | the skill equals the round's skill (whitespace aside) |
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from rtarena.agents.llm.tokens import count_tokens
from rtarena.improve.settings import ImproveSettings

BULLET = re.compile(r"^\s*(?:[-*]|\d+[.)])\s+(.*\S)\s*$")


@cache
def rules_data() -> dict[str, Any]:
    return tomllib.loads((Path(__file__).parent / "rules.toml").read_text(encoding="utf-8"))


def banned_patterns() -> list[tuple[str, str]]:
    return [(row["id"], row["pattern"]) for row in rules_data()["lint"]["banned"]]


def bullets(text: str) -> list[str]:
    return [m.group(1) for line in text.splitlines() if (m := BULLET.match(line))]


def normalised(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Problem:
    check: str
    detail: str

    def line(self) -> str:
        return f"{self.check}: {self.detail}"


def check_submission(skill: str, notebook: str, previous: str, regressed: bool,
                     settings: ImproveSettings) -> list[Problem]:
    """Every budget and content rule the submission breaks (empty: accepted)."""
    problems = []
    if not skill.strip():
        problems.append(Problem("empty_skill", "the skill is empty"))
    tokens = count_tokens(skill)
    if tokens > settings.skill_tokens:
        problems.append(Problem("skill_tokens", f"{tokens} tokens, budget {settings.skill_tokens}"))
    items = bullets(skill)
    if len(items) > settings.skill_bullets:
        problems.append(Problem("skill_bullets", f"{len(items)} bullets, budget {settings.skill_bullets}"))
    notebook_tokens = count_tokens(notebook)
    if notebook_tokens > settings.notebook_tokens:
        problems.append(Problem("notebook_tokens", f"{notebook_tokens} tokens, budget {settings.notebook_tokens}"))
    for rule, pattern in banned_patterns():
        hit = re.search(pattern, skill, flags=re.I | re.M)
        if hit:
            problems.append(Problem(rule, f"banned phrase {hit.group(0)!r}"))
    if regressed:
        before, after = set(map(normalised, bullets(previous))), set(map(normalised, items))
        changed = len(before ^ after)
        if changed > settings.bullets_after_regression:
            problems.append(Problem("bullets_after_regression", f"{changed} bullets added or removed after a "
                                    f"regression, at most {settings.bullets_after_regression}"))
    if skill.strip() and normalised(skill) == normalised(previous):
        problems.append(Problem("unchanged_skill", "the skill is the same as this round's"))
    return problems
