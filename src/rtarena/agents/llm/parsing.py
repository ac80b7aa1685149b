"""Model text -> env action, one parser per kind of action space, chosen from a table.

Every parser finds the answer the same way: reasoning inside `<think>...</think>` is ignored, and if the
reply has an `ACTION:` marker only the text after its last occurrence is read. Then:

| space | accepted answers | canonical form |
|---|---|---|
| `MultiDiscrete` (the arena) | JSON object of named fields (missing ones 0), or the N-number list | `[0,2,0,0,1,0,0]` |
| `Discrete` | one integer | `1` |
| `Text` (GUI actions, `click(3)`) | the rest of the `ACTION:` line, else the last non-empty line | the string |
| `Box` | a JSON list of numbers | `[0.5,-1.0]` |
| `KeyMouseSpace` (games) | the chunked key form `dx dy ; W D ; W ; Space` (envs/games/keys.py) | a chunk |
| a team (several agents) | a JSON object mapping agent id to that agent's answer | `{"p0":[...],...}` |

An arena answer may thus be `ACTION: {"move_y": 2, "fire": 1}` or `ACTION: [0, 2, 0, 0, 1, 0, 0]`.

Nothing here raises on model output: a reply that does not parse gives `Parsed(valid=False)` with an
`unparsed: ...` error, and the agent then plays the default action. Env families with other action
spaces add a row with `register_parser`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from rtarena.envs.games.keys import MAX_CHUNK_STEPS, KeyMouseSpace, format_chunk, parse_chunk

THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
MARKER = re.compile(r"ACTION\s*:", re.I)
FLAT_OBJECT = re.compile(r"\{[^{}]*\}", re.S)
FLAT_LIST = re.compile(r"\[[^\[\]]*\]", re.S)
INTEGER = re.compile(r"(?<![\w.])-?\d+(?![\w.])")


@dataclass(frozen=True)
class Parsed:
    """What a reply meant: the action (None when invalid), whether it parsed, and why not."""

    action: Any
    valid: bool
    error: str | None = None
    chunk: tuple[Any, ...] | None = None  # per-step actions, for spaces whose answers span several steps


def answer_region(text: str | None) -> str:
    """The part of a reply that holds the answer: reasoning removed, after the last `ACTION:` if any."""
    text = THINK.sub("", text or "")
    if re.search(r"<think>", text, re.I):  # an unclosed reasoning block: no answer followed it
        text = re.split(r"<think>", text, flags=re.I)[0]
    markers = list(MARKER.finditer(text))
    return text[markers[-1].end():] if markers else text


def _unparsed(why: str) -> Parsed:
    return Parsed(None, False, f"unparsed: {why}")


def _load_json(snippet: str) -> Any:
    try:
        return json.loads(snippet)
    except json.JSONDecodeError:
        try:
            return json.loads(snippet.replace("'", '"'))
        except json.JSONDecodeError:
            return None


def _outer_object(text: str) -> str | None:
    """The first balanced `{...}` in the text (objects may nest, as a team's answer does)."""
    start = text.find("{")
    depth = 0
    for i in range(start, len(text)) if start >= 0 else ():
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start:i + 1]
    return None


class ActionParser:
    """Parses replies for one action space and names the output format the prompt must ask for.

    `format_key` selects the template `prompts/formats/<key>.md`; `format_values()` fills it.
    """

    format_key = "generic"

    def __init__(self, space: spaces.Space, names: Sequence[str] | None = None) -> None:
        self.space = space
        self.names = tuple(names) if names else None

    def parse(self, text: str | None) -> Parsed:
        region = answer_region(text).strip()
        if not region:
            return _unparsed("empty reply")
        return self.parse_region(region)

    def parse_region(self, region: str) -> Parsed:
        value = _load_json(region)
        return self.parse_value(value) if value is not None else _unparsed(f"not JSON: {region[:40]!r}")

    def parse_value(self, value: Any) -> Parsed:
        """An already decoded JSON value (one agent's part of a team answer)."""
        try:
            action = np.asarray(value, dtype=getattr(self.space, "dtype", None))
        except (TypeError, ValueError):
            return _unparsed(f"not an action: {value!r}"[:80])
        return Parsed(action, True) if self.space.contains(action) else _unparsed("outside the action space")

    def format(self, action: Any) -> str:
        return json.dumps(np.asarray(action).tolist(), separators=(",", ":"))

    def format_values(self) -> dict[str, str]:
        return {"space": str(self.space), "example": self.format(self.space.sample())}


class MultiDiscreteParser(ActionParser):
    """N small integers: a JSON object of named fields (omitted ones are 0) or a list of N numbers."""

    format_key = "multidiscrete"

    def __init__(self, space: spaces.MultiDiscrete, names: Sequence[str] | None = None) -> None:
        super().__init__(space, names)
        self.nvec = [int(n) for n in np.asarray(space.nvec).ravel()]
        if not self.names or len(self.names) != len(self.nvec):
            self.names = tuple(f"a{i}" for i in range(len(self.nvec)))

    def parse_region(self, region: str) -> Parsed:
        objects = FLAT_OBJECT.findall(region)
        if objects:
            value = _load_json(objects[-1])
            if isinstance(value, dict):
                return self.parse_value(value)
        lists = FLAT_LIST.findall(region)
        if lists:
            value = _load_json(lists[-1])
            if isinstance(value, list):
                return self.parse_value(value)
        numbers = INTEGER.findall(region)
        if len(numbers) == len(self.nvec):
            return self.parse_value([int(n) for n in numbers])
        return _unparsed(f"no {len(self.nvec)}-number list or JSON object in {region[:40]!r}")

    def parse_value(self, value: Any) -> Parsed:
        if isinstance(value, dict):
            unknown = [k for k in value if k not in self.names]
            if unknown:
                return _unparsed(f"unknown field {unknown[0]!r}")
            value = [value.get(name, 0) for name in self.names]
        if not isinstance(value, list) or len(value) != len(self.nvec):
            return _unparsed(f"expected {len(self.nvec)} numbers, got {value!r}"[:80])
        out = []
        for name, n, v in zip(self.names, self.nvec, value, strict=True):
            if isinstance(v, bool):
                v = int(v)
            if not isinstance(v, int) or not 0 <= v < n:
                return _unparsed(f"{name} must be an integer 0..{n - 1}, got {v!r}")
            out.append(v)
        return Parsed(np.asarray(out, dtype=self.space.dtype), True)

    def format(self, action: Any) -> str:
        return json.dumps([int(v) for v in np.asarray(action).ravel()], separators=(",", ":"))

    def format_values(self) -> dict[str, str]:
        fields = "\n".join(f"- `{name}`: 0..{n - 1}" for name, n in zip(self.names, self.nvec, strict=True))
        example = [0] * len(self.nvec)
        example[min(1, len(example) - 1)] = self.nvec[min(1, len(example) - 1)] - 1
        named = {self.names[min(1, len(example) - 1)]: example[min(1, len(example) - 1)]}
        return {"space": f"MultiDiscrete({self.nvec})", "n": str(len(self.nvec)), "fields": fields,
                "names": ", ".join(self.names), "example_list": self.format(example),
                "example_json": json.dumps(named, separators=(",", ":"))}


class DiscreteParser(ActionParser):
    """One integer in `start .. start + n - 1`."""

    format_key = "discrete"

    def parse_region(self, region: str) -> Parsed:
        numbers = INTEGER.findall(region)
        if not numbers:
            return _unparsed(f"no integer in {region[:40]!r}")
        return self.parse_value(int(numbers[0]))

    def parse_value(self, value: Any) -> Parsed:
        if isinstance(value, bool) or not isinstance(value, int):
            return _unparsed(f"expected an integer, got {value!r}"[:80])
        return Parsed(value, True) if self.space.contains(value) else _unparsed(f"{value} is not a valid choice")

    def format(self, action: Any) -> str:
        return str(int(np.asarray(action).item()))

    def format_values(self) -> dict[str, str]:
        low = int(self.space.start)
        return {"space": f"Discrete({int(self.space.n)})", "low": str(low),
                "high": str(low + int(self.space.n) - 1)}


class TextParser(ActionParser):
    """A raw action string (GUI actions such as `click(3)`), checked against the space's charset."""

    format_key = "text"

    def parse(self, text: str | None) -> Parsed:
        return self.parse_value(self.answer_line(text))

    @staticmethod
    def answer_line(text: str | None) -> str:
        """The first line after the last `ACTION:` marker, else the last non-empty line."""
        cleaned = THINK.sub("", text or "")
        region = answer_region(text)
        if MARKER.search(cleaned):
            line = region.strip().splitlines()[0] if region.strip() else ""
        else:
            lines = [ln for ln in cleaned.splitlines() if ln.strip()]
            line = lines[-1] if lines else ""
        return line.strip().strip("`").strip()

    def parse_value(self, value: Any) -> Parsed:
        if not isinstance(value, str) or not value:
            return _unparsed("empty action string")
        return Parsed(value, True) if self.space.contains(value) else _unparsed(f"not a valid action {value[:40]!r}")

    def format(self, action: Any) -> str:
        return str(action)

    def format_values(self) -> dict[str, str]:
        return {"space": "Text", "example": "click(3)"}


class BoxParser(ActionParser):
    """A JSON list of numbers of the space's size, within its bounds."""

    format_key = "box"

    def parse_region(self, region: str) -> Parsed:
        lists = FLAT_LIST.findall(region)
        value = _load_json(lists[-1]) if lists else None
        return self.parse_value(value) if value is not None else _unparsed(f"no number list in {region[:40]!r}")

    def parse_value(self, value: Any) -> Parsed:
        try:
            action = np.asarray(value, dtype=self.space.dtype).reshape(self.space.shape)
        except (TypeError, ValueError):
            return _unparsed(f"expected {int(np.prod(self.space.shape))} numbers")
        return Parsed(action, True) if self.space.contains(action) else _unparsed("outside the action bounds")

    def format_values(self) -> dict[str, str]:
        return {"space": f"Box(shape={tuple(self.space.shape)}, low={self.space.low.min():g}, "
                         f"high={self.space.high.max():g})", "n": str(int(np.prod(self.space.shape)))}


class KeysParser(ActionParser):
    """The game suite's chunked key form: the first line after `ACTION:` (else the last line)."""

    format_key = "keys"

    def parse(self, text: str | None) -> Parsed:
        return self.parse_value(TextParser.answer_line(text))

    def parse_value(self, value: Any) -> Parsed:
        if not isinstance(value, str):
            return _unparsed("expected a line of keys")
        parsed = parse_chunk(value, self.space)
        if not parsed.valid:
            return Parsed(None, False, parsed.error)
        return Parsed(parsed.actions[0], True, chunk=parsed.actions)

    def format(self, action: Any) -> str:
        return format_chunk([action], self.space)

    def format_values(self) -> dict[str, str]:
        mouse = "dx turns right, dy looks up" if self.space.uses_mouse else "this game has no mouse: write 0 0"
        example = "0 0 ; W ; W D ; D*3" if not self.space.uses_mouse else "15 0 ; W ; W LMB ; W*2"
        return {"keys": " ".join(self.space.key_names), "mouse": mouse, "example": example,
                "max": str(MAX_CHUNK_STEPS)}


class TeamParser:
    """One JSON object for several agents: `{"p0": <p0's answer>, "p1": ...}`; per-agent parsers inside.

    A teammate missing from the object, or whose answer does not parse, gets the default action; the
    decision is valid only when every teammate's answer parsed.
    """

    format_key = "team"

    def __init__(self, parsers: dict[str, ActionParser]) -> None:
        self.parsers = parsers

    def parse(self, text: str | None) -> tuple[dict[str, Any], bool, str | None]:
        region = answer_region(text)
        snippet = _outer_object(region)
        value = _load_json(snippet) if snippet else None
        if not isinstance(value, dict):
            return {}, False, "unparsed: no JSON object of agent actions"
        actions, errors = {}, []
        for agent, parser in self.parsers.items():
            if agent not in value:
                errors.append(f"{agent}: missing")
                continue
            parsed = parser.parse_value(value[agent])
            if parsed.valid:
                actions[agent] = parsed.action
            else:
                errors.append(f"{agent}: {parsed.error}")
        error = "unparsed: " + "; ".join(e.replace("unparsed: ", "") for e in errors) if errors else None
        return actions, not errors, error

    def format(self, actions: dict[str, Any]) -> str:
        inner = ",".join(f'"{a}":{self.parsers[a].format(v)}' for a, v in actions.items() if a in self.parsers)
        return "{" + inner + "}"


ParserFactory = Callable[[spaces.Space, Sequence[str] | None], ActionParser]
PARSERS: list[tuple[type[spaces.Space], ParserFactory]] = [
    (KeyMouseSpace, KeysParser),
    (spaces.MultiDiscrete, MultiDiscreteParser),
    (spaces.Discrete, DiscreteParser),
    (spaces.Text, TextParser),
    (spaces.Box, BoxParser),
]


def register_parser(space_type: type[spaces.Space], factory: ParserFactory) -> None:
    """Put a parser for a kind of action space ahead of the built-in rows."""
    PARSERS.insert(0, (space_type, factory))


def parser_for(space: spaces.Space, names: Sequence[str] | None = None) -> ActionParser:
    """The parser of the first table row whose space type matches."""
    for space_type, factory in PARSERS:
        if isinstance(space, space_type):
            return factory(space, names)
    return ActionParser(space, names)
