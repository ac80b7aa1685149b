"""The scripted policies behind the policy server: they read the prompt, never a model.

The server answers a chat request by reading what rtarena's prompts put there: the action space named in
the system prompt's output-format section (`MultiDiscrete([...])`, `Discrete(n)`, `Text`) and the
observation in the last user message (one block per teammate, under `### <id>`, for a team controller).

- `heuristic`: a domain policy per observation, from text alone: the arena (`arena_text.py`, what the
  arena's heuristic bot would do from the same report; asked for several arena bodies at once, the team
  policy of `arena_team.py`, which gives each body a different coin), the game suite (`games_text.py`, answering in
  the chunked key form), cart-pole (the balancer's linear law on the state vector); anything else gets
  the default action.
  Browser tasks: the live quiz is joined from its lobby and its questions answered from the marks (`gui_text.py`).
- `pixels`: the arena played from the frame and depth image, never the text (`arena_pixels.py`), with the
  level's numbers from the prompt's level rules; a request without a frame or level rules, or for anything
  else, gets the heuristic. A suite game (the chunked key form) is played from its frame, read with the
  prompt's legend, and the HUD line (`games_pixels.py`; of the history, only its previous answer, so that
  it lets go of a tap key before pressing it again); one it cannot read gets the no-op.
- `pixels-flat`: the pixel player that ignores the depth image it is sent (the modality finding's negative
  control: the same player without the property depth gives).
- `independent`: the heuristic, but a team request is answered body by body, as separate models would
  (the centralized-control finding's negative control: the same team reply and cost, no coordination).
- `stale`: the heuristic applied to a stale picture: the OLDEST observation in the conversation on
  which the heuristic would act, not the current one. It locks onto its first target and keeps acting
  on it after the page has changed (a stale-target policy, for testing failure annotation).
- `annotator`: the scripted failure-mode annotator (`annotator_text.py`) for `rtarena annotate --model`.
- `random`: a uniformly random action of the named space, seeded by the request, so the same prompt
  always gets the same answer.
- `skill`, `judge`, `reflector`: the scripted roles of `rtarena improve` (`skill_player.py`, `judge.py`,
  `reflector.py`); `reflector-irrelevant`, the reflector that reads the same evidence and writes well-formed
  skills it does not call for (the improvement finding's negative control).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rtarena.envs.arena.env import ACTION_NVEC
from rtarena.policy_server import (
    annotator_text,
    arena_pixels,
    arena_team,
    arena_text,
    games_pixels,
    games_text,
    gui_text,
    identify_text,
    judge,
    reflector,
    skill_player,
)

CARTPOLE_GAINS = np.array([0.3, 0.6, 8.0, 1.5])  # the same law as agents/scripted/cartpole.py


@dataclass(frozen=True)
class Space:
    """The action space a prompt asks for, as far as the server needs to know it."""

    kind: str  # "multidiscrete" | "discrete" | "text" | "keys" | "unknown"
    nvec: tuple[int, ...] = ()
    n: int = 0
    start: int = 0


def message_text(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content if p.get("type") == "text")


def find_space(system: str) -> Space:
    if m := re.search(r"MultiDiscrete\(\[([\d,\s]+)\]\)", system):
        return Space("multidiscrete", nvec=tuple(int(v) for v in re.split(r"[,\s]+", m.group(1).strip())))
    if m := re.search(r"one integer from (-?\d+) to (-?\d+)", system):
        low, high = int(m.group(1)), int(m.group(2))
        return Space("discrete", n=high - low + 1, start=low)
    if m := re.search(r"Discrete\((\d+)\)", system):
        return Space("discrete", n=int(m.group(1)))
    if "chunked key form" in system:
        return Space("keys")
    if "The action is one line of text" in system:
        return Space("text")
    return Space("unknown")


def observation_blocks(user: str) -> dict[str, str] | None:
    """A team prompt's per-teammate observation blocks (`### p0` ...), or None for a single agent."""
    parts = re.split(r"^### (\S+)\s*$", user, flags=re.M)
    if len(parts) < 3:
        return None
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def default_action(space: Space) -> Any:
    if space.kind == "multidiscrete":
        return [0] * len(space.nvec)
    if space.kind == "discrete":
        return space.start
    if space.kind == "keys":
        return games_text.NOOP
    return "wait()"


def heuristic_action(observation: str, space: Space) -> Any:
    """One agent's action from its observation text."""
    if space.kind == "multidiscrete" and arena_text.looks_like_arena(observation):
        return arena_text.decide(observation)
    if space.kind == "keys" and games_text.looks_like_game(observation):
        return games_text.decide(observation)
    if space.kind == "text" and gui_text.looks_like_gui(observation):
        return gui_text.decide(observation)
    if space.kind == "text" and identify_text.looks_like_probe(observation):
        return identify_text.decide(observation)
    state = re.search(r"state: (\[[^\]]*\])", observation)
    if space.kind == "discrete" and space.n == 2 and state:
        values = json.loads(state.group(1))
        if len(values) == 4:
            return space.start + int(float(np.dot(CARTPOLE_GAINS, values)) > 0)
    return default_action(space)


def random_action(rng: np.random.Generator, space: Space) -> Any:
    if space.kind == "multidiscrete":
        return [int(rng.integers(n)) for n in space.nvec]
    if space.kind == "discrete":
        return space.start + int(rng.integers(max(1, space.n)))
    if space.kind == "keys":
        return "0 0 ; " + (" ".join(k for k in "WASD" if rng.random() < 0.3) or "-")
    return "wait()"


def _format(action: Any) -> str:
    return json.dumps(action, separators=(",", ":")) if not isinstance(action, str) else action


def answer(messages: list[dict[str, Any]], policy: str, seed: int = 0) -> str:
    """The reply text (a short reason, then the `ACTION:` line) for a chat request."""
    system = next((message_text(m) for m in messages if m.get("role") == "system"), "")
    user = next((message_text(m) for m in reversed(messages) if m.get("role") == "user"), "")
    space = find_space(system)
    blocks = observation_blocks(user)
    if policy in ROLE_ANSWERS:
        return ROLE_ANSWERS[policy](system, user, lambda: _format(default_action(space)))
    if policy in PIXEL_POLICIES and blocks is None and space.nvec == tuple(ACTION_NVEC):
        parts = next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), None)
        level = arena_pixels.LevelNumbers.from_prompt(system)
        action = arena_pixels.decide(parts, level, PIXEL_POLICIES[policy]) if isinstance(parts, list) else None
        if action is not None:
            return f"Following the scripted pixel player (frame and depth image only).\nACTION: {_format(action)}"
    if policy == "pixels" and blocks is None and space.kind == "keys" and isinstance(parts := next(
            (m.get("content") for m in reversed(messages) if m.get("role") == "user"), None), list):
        before = next((message_text(m) for m in reversed(messages) if m.get("role") == "assistant"), "")
        played = games_pixels.decide(system, parts, before)
        reply = f"{played[1]} (the scripted pixel player: the frame read with the prompt's legend)." if played \
            else "No frame or legend I can read: waiting (the scripted pixel player)."
        return f"{reply}\nACTION: {played[0] if played else games_text.NOOP}"
    if policy == "random":
        digest = hashlib.sha256(json.dumps([seed, messages], sort_keys=True).encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        decide: Callable[[str], Any] = lambda _obs: random_action(rng, space)  # noqa: E731
        reason = "A random choice."
    elif policy == "stale":
        user = first_actionable(messages, space) or user
        decide = lambda obs: heuristic_action(obs, space)  # noqa: E731
        reason = "Acting on the first target I saw (scripted stale-target policy)."
    else:
        decide = lambda obs: heuristic_action(obs, space)  # noqa: E731
        reason = "Following the scripted heuristic."
    if blocks is None:
        return f"{reason}\nACTION: {_format(decide(user))}"
    arena = space.kind == "multidiscrete" and all(map(arena_text.looks_like_arena, blocks.values()))
    if policy == "heuristic" and arena:
        # one controller for several bodies coordinates them, and writes a plan line per body (arena_team.py)
        team, plans = arena_team.decide_team(blocks)
        reason = "Coordinating the team (scripted team heuristic):\n" + "\n".join(f"- {a}: {p}"
                                                                                  for a, p in plans.items())
    else:
        team = {agent: decide(text) for agent, text in blocks.items()}
    return f"{reason}\nACTION: {json.dumps(team, separators=(',', ':'))}"


def bodies(messages: list[dict[str, Any]]) -> int:
    """How many bodies a request decides for: its last user message's `### <id>` blocks, else one."""
    user = next((message_text(m) for m in reversed(messages) if m.get("role") == "user"), "")
    return len(observation_blocks(user) or {"": ""})


def first_actionable(messages: list[dict[str, Any]], space: Space) -> str | None:
    """The oldest user message on which the heuristic would do something other than the default."""
    for message in messages:
        if message.get("role") == "user":
            text = message_text(message)
            if heuristic_action(text, space) != default_action(space):
                return text
    return None


# Scripted roles of improvement runs (docs/improve.md): a player that follows only its skill notes, a
# judge that checks a submitted skill against the rules in its prompt, and (with `tools`) a reflector;
# and the failure-mode annotator of `rtarena annotate --model` (docs/annotate.md).
ROLE_ANSWERS: dict[str, Callable[[str, str, Callable[[], str]], str]] = {
    "skill": skill_player.answer,
    "judge": judge.answer,
    "reflector": reflector.answer,
    "reflector-irrelevant": reflector.answer,  # writes well-formed skills the evidence does not call for
    "annotator": lambda _system, user, _default: annotator_text.annotate(user),  # rtarena annotate --model
}
PIXEL_POLICIES = {"pixels": True, "pixels-flat": False}  # whether the pixel player uses the depth image
POLICIES = ("heuristic", "independent", *PIXEL_POLICIES, "random", "stale", *ROLE_ANSWERS)
