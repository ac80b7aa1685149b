"""Level files of the game suite: typed schemas (pydantic), variants as overrides, one-line errors.

A level file (`envs/games/levels/<game>.toml`) holds a game's rules and timings; it is read by the one
level reader, `rtarena.envs.level_files.read_level` (as the arena's are). Its keys and tables:

- `summary`: the game in one line (the registry rows and `rtarena list` show it);
- `[game]` (`GameSection`): title, players, `dt`, `time_limit_s`, keys, mouse, view;
- `[capabilities]` (`Capabilities`): the 0-3 ratings of the seven capabilities;
- `[probe]` (`Probe`): the mechanics list the identification probe scores descriptions against;
- the game's own tables (a `GameRules` subclass declares them);
- (beside it, `levels/drawables/<game>.toml`: the `[drawables]` table, `Drawable` rows: every kind the
  frame draws, its shape, colour, label and meaning; `read_drawables`);
- `[variants.var1]` ... : `about = "..."` plus overrides of any table above, e.g.
  `drops = { pattern = "cluster" }` (converted to the dotted `drops.pattern`). A variant is the base file
  with its overrides, validated as a whole, so a typo in a variant fails like one in the base.

The schemas hold no Python defaults: every number lives once, in the level file, and a file that lacks
one is refused naming the file and the field (`tilefall.toml: drops.warning_s: is required`).

Every table is a `rtarena.schema.Section` (unknown keys refused, floats finite); a mistake is the project's
one-line `UserError` naming the file, the field and the value (`tilefall.toml: drops.warning_s: must be >
0 seconds, got -1`).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Annotated, ClassVar, Literal

from pydantic import Field

from rtarena.envs.capabilities import GAME_ABBREV, GAME_CAPABILITIES
from rtarena.envs.games.canvas import SHAPES
from rtarena.envs.level_files import LevelFile, read_tables
from rtarena.schema import Section, read_toml, validate

LEVELS = Path(__file__).parent / "levels"
CAPABILITIES, CAPABILITY_ABBREV = GAME_CAPABILITIES, GAME_ABBREV  # the names the suite's callers use
Rating = Field(ge=0, le=3)
Channel = Annotated[int, Field(ge=0, le=255)]


class GameSection(Section):
    title: str
    players: int = Field(ge=1, le=8)
    dt: float = Field(gt=0, le=1)  # simulated seconds per step
    time_limit_s: float = Field(gt=0)
    keys: tuple[str, ...]
    mouse: bool
    view: str  # "top-down" | "side" | "first-person": what the rgb observation shows


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


class Probe(Section):
    """What the identification probe scores an answer against (`envs/games/identify.py`)."""

    mechanics: tuple[str, ...] = Field(min_length=2, description="the game's mechanics, one short line each")


class Drawable(Section):
    """One drawable kind of a game's frame (a row of `levels/drawables/<game>.toml`): how it is drawn and what
    it means. The renderer draws the kind from this row and the prompt's legend ("What you see") is written
    from it, so the two cannot disagree. `scatter` alone is optional (0: not decoration)."""

    shape: Literal[SHAPES]  # type: ignore[valid-type]
    color: tuple[Channel, Channel, Channel] = Field(description="RGB, each 0-255")
    label: str = Field(max_length=24, description="the text drawn over it ('' for none)")
    meaning: str = Field(min_length=1, description="what it is, for the legend")
    scatter: int = Field(0, ge=0, le=40, description="decoration: this many copies scattered over the floor")


class DrawablesFile(Section):
    """A game's drawables file (`levels/drawables/<game>.toml`): its `[drawables]` table."""

    drawables: dict[str, Drawable] = Field(min_length=1)


class GameRules(LevelFile):
    """The common tables; each game subclasses this with its own tables."""

    home: ClassVar[Path] = LEVELS
    game: GameSection
    capabilities: Capabilities
    probe: Probe


@cache
def read_drawables(file: str) -> dict[str, Drawable]:
    """The drawables table beside a level file (`levels/drawables/<game>.toml` for `<game>.toml`): every kind
    the game's frame draws. Beside, not inside: it is how the game looks, not a rule a variant overrides."""
    path = LEVELS / "drawables" / file
    return dict(validate(DrawablesFile, read_toml(path, "drawables file"), source=path.name).drawables)


def read_capabilities(file: str) -> Capabilities:
    """The ratings of a level file without building the game."""
    return Capabilities.model_validate(read_tables(file, LEVELS)["capabilities"])


def game_name(env_id: str) -> str:
    """`games/tilefall-var2-v0` -> `tilefall` (the level file is `levels/<name>.toml`)."""
    return env_id.split("/", 1)[-1].split("-", 1)[0]


def variant_notes(file: str) -> dict[str, str]:
    """Each variant's `about` line, by variant name."""
    return {name: table["about"] for name, table in read_tables(file, LEVELS).get("variants", {}).items()}
