"""Level files of the game suite: typed schemas (pydantic), variants as overrides, one-line errors.

A level file (`envs/games/levels/<game>.toml`) holds a game's rules and timings. Its tables:

- `[game]` (`GameSection`): title, players, `dt`, `time_limit_s`, keys, mouse, view size;
- `[capabilities]` (`Capabilities`): the 0-3 ratings of the seven capabilities;
- `[probe]` (`Probe`): the mechanics list the identification probe scores descriptions against;
- the game's own tables (a `GameRules` subclass declares them);
- `[variants.var1]` ... : `about = "..."` plus overrides of any table above, e.g.
  `tiles = { pattern = "cluster" }`. A variant is the base file deep-merged with its overrides, then
  validated as a whole, so a typo in a variant fails like one in the base.

Every table is a `rtarena.schema.Section` (unknown keys refused, floats finite); a mistake is the project's
one-line `UserError` naming the file, the field and the value (`tilefall.toml: drops.warning_s: must be >
0 seconds, got -1`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field

from rtarena.errors import UserError
from rtarena.schema import Section, read_toml, validate

LEVELS = Path(__file__).parent / "levels"
CAPABILITIES = ("visual_perception", "spatial_navigation", "reaction_time", "memory", "planning",
                "adversarial", "cooperation")
CAPABILITY_ABBREV = dict(zip(CAPABILITIES, ("VP", "SN", "RT", "MEM", "PLN", "ADV", "COOP"), strict=True))
Rating = Field(ge=0, le=3)


class GameSection(Section):
    title: str
    players: int = Field(1, ge=1, le=8)
    dt: float = Field(0.1, gt=0, le=1)  # simulated seconds per step
    time_limit_s: float = Field(60.0, gt=0)
    keys: tuple[str, ...] = ("W", "A", "S", "D")
    mouse: bool = False
    view: str = "top-down"  # "top-down" | "side" | "first-person": what the rgb observation shows


class Capabilities(Section):
    """Ratings 0 (not needed) to 3 (central) of what the game asks of a player."""

    visual_perception: int = Rating
    spatial_navigation: int = Rating
    reaction_time: int = Rating
    memory: int = Rating
    planning: int = Rating
    adversarial: int = Rating
    cooperation: int = Rating

    def short(self) -> str:
        return ", ".join(f"{CAPABILITY_ABBREV[name]} {getattr(self, name)}" for name in CAPABILITIES)


class Variant(Section):
    """A variant: what it changes (`about`) and its overrides of the base tables (any keys)."""

    model_config = ConfigDict(extra="allow")
    about: str


class Probe(Section):
    """What the identification probe scores an answer against (`envs/games/identify.py`)."""

    mechanics: tuple[str, ...] = Field(min_length=2, description="the game's mechanics, one short line each")


class GameRules(Section):
    """The common tables; each game subclasses this with its own tables."""

    game: GameSection
    capabilities: Capabilities
    probe: Probe
    variants: dict[str, Variant] = Field(default_factory=dict)


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        out[key] = deep_merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def read_level(schema: type[GameRules], file: str, variant: str | None = None,
               overrides: dict[str, Any] | None = None) -> GameRules:
    """The rules of `file` (in `levels/` or a path), with a variant's and the caller's overrides."""
    path = Path(file) if Path(file).is_absolute() else LEVELS / file
    data = read_toml(path, "level file")
    if variant:
        found = data.get("variants", {}).get(variant)
        if found is None:
            known = ", ".join(data.get("variants", {})) or "none"
            raise UserError(f"unknown variant {variant!r} (this game has: {known})", source=path.name,
                            field="variant")
        data = deep_merge(data, {k: v for k, v in found.items() if k != "about"})
    if overrides:
        data = deep_merge(data, overrides)
    return validate(schema, data, source=path.name + (f" [{variant}]" if variant else ""))


def read_capabilities(file: str) -> Capabilities:
    """The ratings of a level file without building the game."""
    data = read_toml(LEVELS / file, "level file")
    return Capabilities.model_validate(data["capabilities"])


def game_name(env_id: str) -> str:
    """`games/tilefall-var2-v0` -> `tilefall` (the level file is `levels/<name>.toml`)."""
    return env_id.split("/", 1)[-1].split("-", 1)[0]


def variant_notes(file: str) -> dict[str, str]:
    """Each variant's `about` line, by variant name."""
    data = read_toml(LEVELS / file, "level file")
    return {name: table["about"] for name, table in data.get("variants", {}).items()}
