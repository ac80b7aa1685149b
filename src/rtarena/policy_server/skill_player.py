"""`policy=skill`: a scripted player whose play depends only on the skill notes in its system prompt.

It is the offline stand-in for a model that follows advice: it reads the "Skill notes" section the model
agent appends to its system prompt (`agents/llm/prompts/skill.md`), recognises rules by the patterns of
`skill_rules.toml`, and plays only what the recognised rules say. With no recognised rule it takes the
default action, so an improvement run's round 0 (empty skill) scores low, and its later rounds score what
the reflector's rules are worth. Its reasoning line states what it read and which rules it applied, like a
model's would; the reflector reads that line in the round's step tables.

Domains: cart-pole (`state: [x, x_dot, theta, theta_dot]`), and every suite game's text view: the game's
stand-in (`games_text.py`) with the behaviours its rulebook's recognised rules switch on; with none, the
cold-start stand-in (`policy=heuristic`). All twelve games have a rulebook (the game's HUD title names it):
a helpful rule first and, except on workshop and handoff, a harmful one second, so that a short improvement
run shows a gain, a regression and the rollback (the table and what each is worth: docs/improve.md). Other
observations get the default action whatever the skill says.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

from pydantic import Field, model_validator

from rtarena.policy_server import games_text
from rtarena.schema import Regex, Section, read_toml, validate

SKILL_HEADING = "## Skill notes"
SWING_RAD_S = 0.3  # angular speed above which the harmful `swing` rule takes over


SKILL_RULES = Path(__file__).with_name("skill_rules.toml")


class SkillRule(Section):
    """One `[[rule]]` of `skill_rules.toml`."""

    id: str = Field(min_length=1)
    family: str = Field(min_length=1)
    bullet: str = Field(min_length=1)
    pattern: Regex
    game: str = ""  # family "games": the HUD title of the game whose rulebook this rule is in
    harmful: bool = False  # on purpose, so that an offline run shows a regression and a rollback
    evidence: Regex | None = None  # games: what the scripted reflector looks for in the reasoning lines
    failure: str = ""  # games: the diagnosis the reflector writes when the evidence is there ({n}: matches)
    cause: str = ""
    switch: str = ""  # games: the stand-in's behaviour this rule turns on (default: the id), shared by games

    @model_validator(mode="after")
    def _game_rules_are_complete(self) -> SkillRule:
        if self.family == "games" and not (self.game and self.evidence and self.failure and self.cause):
            raise ValueError(f"rule {self.id}: a games rule needs game, evidence, failure and cause")
        return self


class SkillRules(Section):
    rule: tuple[SkillRule, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> SkillRules:
        ids = [r.id for r in self.rule]
        if len(set(ids)) != len(ids):
            raise ValueError(f"rule: ids must be unique, got {', '.join(ids)}")
        return self


def read_skill_rules(path: str | Path) -> tuple[SkillRule, ...]:
    """A rule catalog read through the typed schema base: a mistake is one line naming file and field."""
    return validate(SkillRules, read_toml(path, "skill rules file"), source=str(path)).rule


@cache
def rules() -> tuple[SkillRule, ...]:
    """The rule catalog shared by the scripted player and the scripted reflector."""
    return read_skill_rules(SKILL_RULES)


def skill_section(system: str) -> str:
    """The skill notes of a system prompt (empty when it has none)."""
    _, found, rest = system.partition(SKILL_HEADING)
    return rest if found else ""


def recognised(skill: str, game: str = "") -> list[str]:
    """Ids of the catalog rules whose pattern the skill text contains, in catalog order (`game`: only
    that game's rulebook)."""
    return [r.id for r in rules() if (not game or r.game == game) and re.search(r.pattern, skill, flags=re.I)]


def rulebook(game: str) -> list[SkillRule]:
    """A suite game's rules (by HUD title), in catalog order."""
    return [r for r in rules() if r.game == game]


# Linear terms on [x, x_dot, theta, theta_dot] that each rule adds (the balancer's law split by rule).
CARTPOLE_TERMS: dict[str, tuple[float, float, float, float]] = {
    "lean": (0.0, 0.0, 8.0, 0.0),
    "angvel": (0.0, 0.0, 0.0, 1.5),
    "centre": (0.3, 0.6, 0.0, 0.0),
}


def cartpole_push(state: list[float], ids: list[str]) -> int | None:
    """1 (right), 0 (left), or None when no recognised rule says anything."""
    theta_dot = state[3]
    if "swing" in ids and abs(theta_dot) >= SWING_RAD_S:
        return int(theta_dot < 0)  # "against the swing": the wrong way, on purpose (see skill_rules.toml)
    terms = [CARTPOLE_TERMS[i] for i in ids if i in CARTPOLE_TERMS]
    if not terms:
        return None
    if "lean" not in ids and "angvel" in ids:
        terms.append(CARTPOLE_TERMS["lean"])  # heading needs the angle too
    drive = sum(sum(w * v for w, v in zip(t, state, strict=True)) for t in terms)
    return int(drive > 0)


def answer(system: str, user: str, default: Callable[[], str]) -> str:
    """The reply (reasoning line, then `ACTION:`) for one observation."""
    game = games_text.title(user)
    if game is not None:  # a suite game's text view: its stand-in with the behaviours the skill names
        ids = recognised(skill_section(system), game)
        switches = {r.id: r.switch or r.id for r in rulebook(game)}
        # no recognised rule: the cold start is the project's own text stand-in (`policy=heuristic`), less
        # any behaviour the game's rulebook teaches (midline's `bench` is its skill's to switch on)
        cold = [b for b in games_text.HEURISTIC_RULES.get(game, ()) if b not in switches.values()]
        chunk, note = games_text.play(user, [switches[i] for i in ids] or cold)
        return f"{note}. (rules applied: {', '.join(ids) or 'none'})\nACTION: {chunk}"
    ids = recognised(skill_section(system))
    state = re.search(r"state: (\[[^\]]*\])", user)
    values = json.loads(state.group(1)) if state else []
    if len(values) != 4:
        return f"No skill rule covers this observation. Rules recognised: {', '.join(ids) or 'none'}.\n" \
               f"ACTION: {default()}"
    x, x_dot, theta, theta_dot = values
    push = cartpole_push(values, ids)
    seen = (f"Cart x {x:+.3f} m, velocity {x_dot:+.3f} m/s; pole angle {theta:+.3f} rad, "
            f"angular velocity {theta_dot:+.3f} rad/s.")
    if push is None:
        return f"Default action: no rule in my skill notes applies. {seen}\nACTION: {default()}"
    side = "right" if push else "left"
    return f"Push {side} (rules: {', '.join(ids)}). {seen}\nACTION: {push}"
