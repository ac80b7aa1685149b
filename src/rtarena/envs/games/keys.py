"""The game suite's one action interface: keys held, a mouse move, and the chunked text form.

Every game of the suite takes the same kind of action each step, a `KeyMouseSpace` (a Gymnasium `Dict`):

| field   | space                         | meaning                                                        |
|---------|-------------------------------|----------------------------------------------------------------|
| `keys`  | `MultiBinary(len(keys))` | 1 = the key is held this step, in the game's declared key order |
| `mouse` | `Box(-90, 90, (2,), float32)` | mouse move this step in degrees: dx (turn right +), dy (look up +) |

Games without a mouse ignore `mouse`.

Mouse buttons are keys named `LMB` / `RMB`. A *tap* key (Space, F, E, LMB ...) acts once, on the step it
goes down; holding it does nothing more (the base class tracks presses).

## The chunked text form (for model agents)

    <dx> <dy> ; W D ; W ; Space

The first group is the mouse move in degrees (it applies on the chunk's first step; leave it out or write
`0 0` for none). Each further group is one env step: the keys held during that step, separated by spaces,
commas or `+`. A key repeated in consecutive groups is held (a tap key then fires once); `W*4` (or `W x4`)
repeats a group four times; `-`, `none` or `wait` is a step with no key. Keys are case-insensitive,
`space`/`jump` name Space, `click`/`fire` name LMB. Unknown words are dropped, but a group that is mostly
unknown words (prose) is ignored; a reply with no key, no mouse move and no explicit wait is unparsable
and plays the no-op. At most `MAX_CHUNK_STEPS` steps.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

MOUSE_MAX_DEG = 90.0
MAX_CHUNK_STEPS = 30
TAP_KEYS = frozenset({"Space", "F", "E", "LMB", "RMB"})
ALL_KEYS = ("W", "A", "S", "D", "Space", "F", "E", "Shift", "LMB", "RMB")
ALIASES = {k.lower(): k for k in ALL_KEYS} | {
    "jump": "Space", "spacebar": "Space", "click": "LMB", "fire": "LMB", "shoot": "LMB", "mouse1": "LMB",
    "lclick": "LMB", "rclick": "RMB", "mouse2": "RMB", "up": "W", "left": "A", "down": "S", "right": "D",
    "lshift": "Shift", "run": "Shift", "interact": "F", "use": "E",
}
WAIT_WORDS = frozenset({"-", "none", "wait", "noop", "nothing", "idle", "()"})
NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
REPEAT = re.compile(r"(?:\*|\bx)\s*(\d+)\s*$", re.I)


class KeyMouseSpace(spaces.Dict):
    """The action space of a suite game: `{"keys": MultiBinary(K), "mouse": Box(2)}` with named keys."""

    def __init__(self, keys: Sequence[str], mouse: bool, seed: int | None = None) -> None:
        unknown = [k for k in keys if k not in ALL_KEYS]
        if unknown:
            raise ValueError(f"unknown keys {unknown}; keys are {ALL_KEYS}")
        self.key_names = tuple(keys)
        self.uses_mouse = bool(mouse)
        super().__init__({
            "keys": spaces.MultiBinary(len(self.key_names)),
            "mouse": spaces.Box(-MOUSE_MAX_DEG, MOUSE_MAX_DEG, (2,), np.float32),
        }, seed=seed)

    def action(self, held: Sequence[str] = (), dx: float = 0.0, dy: float = 0.0) -> dict[str, np.ndarray]:
        """The action holding `held` (names outside this game are ignored) with a mouse move."""
        keys = np.array([name in held for name in self.key_names], dtype=np.int8)
        mouse = np.clip(np.array([dx, dy], dtype=np.float32), -MOUSE_MAX_DEG, MOUSE_MAX_DEG)
        return {"keys": keys, "mouse": mouse.astype(np.float32)}

    def held(self, action: dict[str, np.ndarray]) -> frozenset[str]:
        return frozenset(n for n, v in zip(self.key_names, np.asarray(action["keys"]).ravel(), strict=True) if v)


@dataclass(frozen=True)
class ParsedChunk:
    """What a text reply meant: one action per step (empty when unparsable) and why it failed."""

    actions: tuple[dict[str, np.ndarray], ...]
    error: str | None = None

    @property
    def valid(self) -> bool:
        return self.error is None


def _group_keys(group: str, space: KeyMouseSpace) -> tuple[list[str], bool]:
    """The keys of one step group and whether the group said anything meaningful."""
    words = [w for w in re.split(r"[\s,+]+", group.strip().strip("`[]().").strip()) if w]
    held, known = [], 0
    for word in words:
        lowered = word.lower().strip("\"'`.")
        if lowered in WAIT_WORDS:
            known += 1
            continue
        name = ALIASES.get(lowered)
        if name is not None:
            known += 1
            if name in space.key_names and name not in held:
                held.append(name)
    return held, known > 0 and 2 * known >= len(words)  # prose that mentions "left" is not an answer


def parse_chunk(text: str | None, space: KeyMouseSpace, max_steps: int = MAX_CHUNK_STEPS) -> ParsedChunk:
    """The per-step actions of a chunked text answer (see the module docstring)."""
    line = (text or "").strip().strip("`").replace("|", ";").replace("\n", ";")
    groups = [g.strip() for g in line.split(";")]
    dx = dy = 0.0
    said_something = False
    if groups:
        numbers = [w for w in re.split(r"[\s,]+", groups[0].strip("()[] ")) if w]
        if numbers and all(NUMBER.match(w) for w in numbers) and len(numbers) <= 2:
            values = [float(w) for w in numbers] + [0.0]
            dx, dy = values[0], values[1] if len(numbers) == 2 else 0.0
            said_something = True
            groups = groups[1:]
    steps: list[list[str]] = []
    for group in groups:
        if not group:
            continue
        repeat = 1
        if m := REPEAT.search(group):
            repeat = max(1, int(m.group(1)))
            group = group[: m.start()]
        held, meaningful = _group_keys(group, space)
        if not meaningful:
            continue
        said_something = True
        steps.extend([held] * repeat)
    if not said_something:
        return ParsedChunk((), f"unparsed: no keys or mouse move in {(text or '')[:40]!r}")
    steps = (steps or [[]])[:max_steps]
    actions = tuple(space.action(held, dx if i == 0 else 0.0, dy if i == 0 else 0.0) for i, held in enumerate(steps))
    return ParsedChunk(actions)


def format_chunk(actions: Sequence[dict[str, np.ndarray]], space: KeyMouseSpace) -> str:
    """The text form of a sequence of actions (the mouse move of the first step only)."""
    if not actions:
        return "0 0 ; -"
    mouse = np.asarray(actions[0]["mouse"], dtype=float)
    groups = [" ".join(sorted(space.held(a), key=space.key_names.index)) or "-" for a in actions]
    return f"{mouse[0]:g} {mouse[1]:g} ; " + " ; ".join(groups)


def describe_keys(space: KeyMouseSpace) -> str:
    """One line naming the game's keys for prompts and docs."""
    mouse = "; mouse: dx dy in degrees" if space.uses_mouse else "; no mouse"
    return "keys: " + " ".join(space.key_names) + mouse
