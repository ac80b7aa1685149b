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
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pydantic import Field, model_validator

from rtarena.agents.llm.tokens import count_tokens
from rtarena.improve.settings import ImproveSettings
from rtarena.schema import Regex, Section, read_toml, validate

BULLET = re.compile(r"^\s*(?:[-*]|\d+[.)])\s+(.*\S)\s*$")
RULES_FILE = Path(__file__).with_name("rules.toml")


class JudgeRule(Section):
    id: str = Field(min_length=1)
    text: str = Field(min_length=1)


class JudgeRules(Section):
    """`[judge]`: the judge's system prompt (intro, one numbered line per rule, the reply format)."""

    intro: str
    reply: str
    rule: list[JudgeRule] = Field(min_length=1)


class BannedPattern(Section):
    id: str = Field(min_length=1)
    pattern: Regex


class LintRules(Section):
    banned: list[BannedPattern]


class ImproveRules(Section):
    """`rules.toml`: the judge's rule set and the content lints, checked when first read."""

    judge: JudgeRules
    lint: LintRules

    @model_validator(mode="after")
    def _banned_rules_are_judge_rules(self) -> ImproveRules:
        rules = {rule.id for rule in self.judge.rule}
        unknown = [row.id for row in self.lint.banned if row.id not in rules]
        if unknown:
            raise ValueError(f"lint.banned: {', '.join(unknown)} is no [[judge.rule]] id ({', '.join(sorted(rules))})")
        return self


def read_rules(path: str | Path) -> ImproveRules:
    """A rules file read through the typed schema base: a mistake is one line naming file and field."""
    return validate(ImproveRules, read_toml(path, "rules file"), source=str(path))


@cache
def improve_rules() -> ImproveRules:
    return read_rules(RULES_FILE)


def banned_patterns() -> list[tuple[str, str]]:
    return [(row.id, row.pattern) for row in improve_rules().lint.banned]


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
