"""Prompts: the system prompt composed from parts, and one user message per observation.

The wording lives in the template files of this folder (`string.Template` syntax, `$name`), never in code:

| part | file | filled from |
|---|---|---|
| who the agent is | `who_single.txt`, `who_team.txt` | the controller's env agents |
| the domain | (the env's documentation) | the env class docstring sections and its level rules |
| controls and output format | `formats/<parser key>.md`, `formats/team.md` | the action parser |
| the clock instruction | (the runtime's sentence) | `AgentContext.clock.describe()`, its world named per setting |
| the setting | `setting_game.txt`, `setting_web.txt` | the registry family (`web` or any game) |
| the task | `task.md` | the env's own instruction (`AgentContext.docs.instruction`: a browser task's goal) or fixed |
| skill notes | `skill.md` | the `skill=` file, if any |
| each observation | `observation.md`, `team_observation.md` | the configured modalities |
"""

from __future__ import annotations

import inspect
import json
import re
from functools import cache
from pathlib import Path
from string import Template
from typing import Any

import numpy as np

from rtarena.agents.llm.gui_view import goal_text, marks_part
from rtarena.agents.llm.media import audio_part, depth_part, image_part
from rtarena.envs.modalities import MEDIA

HERE = Path(__file__).parent
HEADINGS = {"game": "The game", "web": "The web task"}
WORLDS = {"game": "game", "web": "page"}  # what the world is called in the clock sentence, per setting
DOMAIN_SECTIONS = ("Description", "Observation", "Action Space", "Rewards and Score", "Termination")
LEVEL_RULES_HEADING = "### Level rules"  # the prompt's section of the level's numbers (arena_pixels reads it)


@cache
def template(name: str) -> Template:
    return Template((HERE / name).read_text(encoding="utf-8"))


def render(name: str, **values: Any) -> str:
    return template(name).substitute({k: str(v) for k, v in values.items()}).rstrip("\n")


def _doc_sections(doc: str | None) -> str | None:
    """The agent-facing sections of a Minigrid-style docstring (`## Description` ...), or None."""
    if not doc or "## Description" not in doc:
        return None
    doc = inspect.cleandoc(doc)
    parts = re.split(r"^## ", doc, flags=re.M)
    kept = [p.rstrip() for p in parts[1:] if p.split("\n", 1)[0].strip() in DOMAIN_SECTIONS]
    return "\n\n".join("### " + p for p in kept)


def domain_text(context: Any) -> str:
    """What the game is, from the env's own documentation (`context.docs`, read by the runtime) and, where
    the env has one, its level data."""
    from rtarena.envs.registry import registered

    docs = context.docs
    candidates = [docs.class_doc]
    spec = registered(context.env_id)  # None: an env outside the registry documents itself or not at all
    if spec is not None:
        candidates.append(spec.load().__doc__)
    text = next((s for s in (_doc_sections(d) for d in candidates) if s), None)
    text = text or f"The env `{context.env_id}`."
    shared = family_notes(docs.family_doc)
    if shared:
        text = shared + "\n\n" + text
    return text + (f"\n\n{LEVEL_RULES_HEADING}\n" + docs.rules_text if docs.rules_text else "")


def family_notes(doc: str | None) -> str | None:
    """What a family of levels shares, when the module of the env's class documents it (the arena's
    `levels.py` spells out the action fields there): its docstring, if it speaks of the action space."""
    if not doc or "action space" not in doc.lower() or len(doc) > 2000:
        return None
    return "### About this family of levels\n" + doc


def system_prompt(context: Any, controls: str, skill: str | None = None, extra: str = "") -> str:
    """The whole system prompt for one controller; identical for every turn of an episode."""
    if len(context.agents) == 1:
        who = render("who_single.txt", agent=context.agents[0])
    else:
        who = render("who_team.txt", count=len(context.agents), agents=", ".join(context.agents))
    kind = setting_kind(context.env_id)
    goal = context.docs.instruction or "Score as much as you can before the episode ends."
    text = render("system.md", who=who, setting=render(f"setting_{kind}.txt"), heading=HEADINGS[kind],
                  domain=domain_text(context), controls=controls, clock=clock_text(context.clock.describe(), kind),
                  task=render("task.md", goal=goal, when=WHEN[context.applies_at_commit]))
    if skill:
        text += "\n" + render("skill.md", skill=skill.strip())
    return text + extra


# What the runtime does with a committed action (`AgentContext.applies_at_commit`; DESIGN.md, "The time model")
WHEN = {True: "its action takes effect at the moment your decision arrives, even in the middle of a step",
        False: "its action is taken at the first step that starts at or after the moment your decision arrives"}


def clock_text(sentence: str, kind: str) -> str:
    """The runtime's clock sentence with the world named for the setting: the clocks speak of "the game",
    and on a web task the world that keeps running is the page."""
    world = WORLDS[kind]
    return re.sub(r"\b([Tt])he game\b", lambda m: f"{m.group(1)}he {world}", sentence).replace(
        "game time", f"{world} time")


def setting_kind(env_id: str) -> str:
    """`web` for a web task (registry family `web`), else `game`: which setting sentence opens the prompt."""
    from rtarena.envs.registry import registered

    spec = registered(env_id)
    return "web" if spec is not None and spec.family == "web" else "game"  # outside the registry: a game


def controls_text(parser: Any) -> str:
    """The output-format section for one agent's action parser."""
    return render(f"formats/{parser.format_key}.md", **parser.format_values())


def team_controls_text(team_parser: Any, space_sample: dict[str, Any]) -> str:
    first = next(iter(team_parser.parsers.values()))
    return render("formats/team.md", member=controls_text(first), example=team_parser.format(space_sample))


def _vector(values: Any) -> str:
    flat = np.asarray(values, dtype=float).ravel()
    return json.dumps([round(float(v), 4) for v in flat])


def observation_parts(observation: Any, modalities: tuple[str, ...], image_size: int = 256,
                      image_format: str = "png") -> list[dict[str, Any]]:
    """Content parts for one agent's observation, in a fixed order: text, state, images, audio."""
    parts: list[dict[str, Any]] = []
    if not isinstance(observation, dict):
        if isinstance(observation, str):
            return [{"type": "text", "text": observation}]
        return [{"type": "text", "text": f"state: {_vector(observation)}"}]
    if "text" in modalities and "text" in observation:
        parts.append({"type": "text", "text": str(observation["text"])})
    if "hud" in modalities and "hud" in observation and not ("text" in modalities and "text" in observation):
        parts.append({"type": "text", "text": str(observation["hud"])})  # the text view holds the HUD already
    if "marks" in modalities and "marks" in observation and "text" not in modalities:
        head = goal_text(observation)
        if head:
            parts.append({"type": "text", "text": head})
    if "state" in modalities and "state" in observation:
        parts.append({"type": "text", "text": f"state: {_vector(observation['state'])}"})
    if not parts and "text" in modalities:  # a dict without text: show its numeric fields
        numeric = {k: v for k, v in observation.items()
                   if k not in MEDIA and not isinstance(v, str)}
        parts.append({"type": "text", "text": "\n".join(f"{k}: {_vector(v)}" for k, v in numeric.items())})
    for key in ("rgb", "som"):
        if key in modalities and key in observation:
            parts.append(image_part(observation[key], image_size, image_format))
    if "depth" in modalities and "depth" in observation:
        parts.append(depth_part(observation["depth"], image_size, image_format))
    if "audio" in modalities and "audio" in observation:
        parts.append(audio_part(observation["audio"]))
    if "marks" in modalities and "marks" in observation:
        parts.append(marks_part(observation))  # after the screenshot: history folds the two together
    return parts


def user_content(parts: list[dict[str, Any]], header: str) -> str | list[dict[str, Any]]:
    """A user message body: a plain string when it is all text (every server accepts that), else parts."""
    merged: list[dict[str, Any]] = [{"type": "text", "text": header}]
    for part in parts:
        if part["type"] == "text" and merged[-1]["type"] == "text":
            merged[-1] = {"type": "text", "text": merged[-1]["text"] + "\n" + part["text"]}
        else:
            merged.append(part)
    return merged[0]["text"] if len(merged) == 1 else merged


def observation_message(observation: Any, turn: int, modalities: tuple[str, ...], image_size: int = 256,
                        image_format: str = "png", prefix: str = "") -> str | list[dict[str, Any]]:
    """The user message of one decentralised agent's turn."""
    parts = observation_parts(observation, modalities, image_size, image_format)
    return user_content(parts, prefix + render("observation.md", turn=turn, body="").rstrip())


def team_message(observations: dict[str, Any], turn: int, modalities: tuple[str, ...], image_size: int = 256,
                 image_format: str = "png", prefix: str = "") -> str | list[dict[str, Any]]:
    """The user message of a team controller's turn: each living teammate's observation under its id."""
    parts: list[dict[str, Any]] = []
    for agent, observation in observations.items():
        parts.append({"type": "text", "text": render("team_observation.md", agent=agent, body="").rstrip()})
        parts.extend(observation_parts(observation, modalities, image_size, image_format))
    return user_content(parts, prefix + render("observation.md", turn=turn, body="").rstrip())
