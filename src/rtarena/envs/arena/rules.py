"""A level's rules: the typed schema of its TOML file, with inheritance, per-run overrides and switches.

`load_rules("coop.toml", overrides={"turret.range_m": 30}, disable=("chickens",))` reads
`levels/coop.toml` (and the file it `extends`, if any), replaces `[turret] range_m`, switches the
`[chickens]` section off and validates the result against `LevelRules`. Unknown keys, values of the wrong
type and values out of range (a negative radius, a NaN time) raise a one-line `UserError` naming the file
and key (`coop.toml: turret.range_m: must be > 0 metres, got -30`), so a typo in a `--set` never silently
does nothing. Every other part (the world, the prompt, the docstrings) reads the `LevelRules` instance.

Inheritance is in the data: a level file with `extends = "coop.toml"` starts from that file's tables and
overrides only the keys it gives (`competitive.toml` is coop with `players.teams = "each"`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import model_validator

from rtarena.envs.level_files import META, LevelFile, display, dotted, level_path, read_level
from rtarena.errors import UserError
from rtarena.schema import (
    Flag,
    Float,
    Fraction,
    NonNegFloat,
    NonNegInt,
    PosFloat,
    PosInt,
    Section,
    at_most,
)

LEVELS_DIR = Path(__file__).with_name("levels")

# Features `disable=` can switch off, and how: a section whose `enabled` flag goes false.
DISABLEABLE = ("coins", "ammo", "chickens", "turret", "toxic_zone")
# Features of the renderer, not of the world: `disable=("hud",)` makes `rules.enabled("hud")` false.
RENDER_FEATURES = ("hud",)
DISABLE_ALIASES = {"turrets": "turret", "zone": "toxic_zone", "ammo_boxes": "ammo", "crates": "crates",
                   "walls": "walls"}


class RuleSection(Section):
    """One TOML table of a level file with attribute access: `rules.turret.range_m`."""

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump()


MinMax = tuple[PosFloat, PosFloat]
Count = Annotated[NonNegInt, at_most("level.count")]  # objects of one kind (docs/limits.md)


class Arena(RuleSection):
    size_m: Annotated[PosFloat, at_most("map.size_m")]
    time_limit_s: Annotated[PosFloat, at_most("episode.sim_s")]
    substep_s: PosFloat  # the longest physics sub-step; a step is cut into equal sub-steps no longer than it
    wall_height_m: PosFloat
    crate_height_m: PosFloat


class Layout(RuleSection):
    """Procedural generation, used for whatever a map file does not give."""

    walls: Count
    wall_length_m: MinMax
    wall_thickness_m: PosFloat
    crates: Count
    crate_size_m: MinMax
    gap_m: NonNegFloat
    spawn_clearance_m: NonNegFloat

    @model_validator(mode="after")
    def _ordered(self) -> Layout:
        for name in ("wall_length_m", "crate_size_m"):
            low, high = getattr(self, name)
            if low > high:
                raise ValueError(f"{name}: the minimum {low:g} is above the maximum {high:g} metres")
        return self


class Players(RuleSection):
    count: Annotated[PosInt, at_most("env.agents")]
    teams: Literal["one", "each"] | PosInt  # "one": everyone on team 0; "each": a team each; k: k teams
    health: PosFloat
    ammo_start: NonNegInt
    ammo_max: NonNegInt
    radius_m: PosFloat
    height_m: PosFloat
    eye_height_m: PosFloat
    move_speed_m_s: NonNegFloat
    turn_deg_s: NonNegFloat
    pitch_deg_s: NonNegFloat
    pitch_limit_deg: NonNegFloat
    jump_speed_m_s: NonNegFloat
    gravity_m_s2: PosFloat
    fov_deg: PosFloat
    view_range_m: PosFloat

    @model_validator(mode="after")
    def _consistent(self) -> Players:
        if self.ammo_start > self.ammo_max:
            raise ValueError(f"ammo_start {self.ammo_start} is above ammo_max {self.ammo_max}")
        if self.fov_deg >= 180:
            raise ValueError(f"fov_deg must be < 180 degrees, got {self.fov_deg:g}")
        if self.pitch_limit_deg > 90:
            raise ValueError(f"pitch_limit_deg must be <= 90 degrees, got {self.pitch_limit_deg:g}")
        return self


class Weapon(RuleSection):
    fire_interval_s: PosFloat
    damage: NonNegFloat
    range_m: PosFloat
    spread_deg: NonNegFloat  # standard deviation of the random deviation of each shot
    hit_cone_deg: NonNegFloat  # a shot hits the nearest target within this angle (plus its size)
    aim_window_deg: NonNegFloat  # a shot counts as aimed at a player within this angle of the crosshair
    friendly_fire: Flag


class Coins(RuleSection):
    enabled: Flag
    count: Count
    height_m: NonNegFloat
    pickup_radius_m: PosFloat


class Ammo(RuleSection):
    enabled: Flag
    count: Count
    pickup_radius_m: PosFloat
    respawn_s: NonNegFloat
    relocate_every_s: NonNegFloat  # boxes on the floor respawn at random places this often (0: never)


class Chickens(RuleSection):
    enabled: Flag
    count: Count
    speed_m_s: NonNegFloat
    turn_every_s: PosFloat
    respawn_s: NonNegFloat


class Turret(RuleSection):
    enabled: Flag
    count: Count
    range_m: PosFloat
    turn_deg_s: NonNegFloat
    idle_turn_deg_s: NonNegFloat
    aim_tolerance_deg: NonNegFloat
    fire_interval_s: PosFloat
    damage: NonNegFloat
    shell_speed_m_s: PosFloat
    health: PosFloat
    moving_fire_chance: Fraction  # a ready, aimed turret fires at a moving player with this chance


class ToxicZone(RuleSection):
    enabled: Flag
    start_radius_m: PosFloat
    end_radius_m: NonNegFloat
    first_shrink_s: NonNegFloat
    shrink_every_s: PosFloat
    shrink_duration_s: NonNegFloat
    stages: PosInt
    damage_per_s: NonNegFloat

    @model_validator(mode="after")
    def _shrinks(self) -> ToxicZone:
        if self.end_radius_m > self.start_radius_m:
            raise ValueError(f"end_radius_m {self.end_radius_m:g} is above start_radius_m "
                             f"{self.start_radius_m:g} metres")
        return self


class Points(RuleSection):
    """What each thing is worth (the reward of the step it happens in); negative values are penalties."""

    coin: Float
    kill: Float
    turret: Float
    chicken: Float


class Hud(RuleSection):
    enabled: Flag


class LevelRules(LevelFile):
    """All tables of an arena level file (`summary`, `extends` and `source` come from `LevelFile`)."""

    home: ClassVar[Path] = LEVELS_DIR
    arena: Arena
    layout: Layout
    players: Players
    weapon: Weapon
    coins: Coins
    ammo: Ammo
    chickens: Chickens
    turret: Turret
    toxic_zone: ToxicZone
    points: Points
    hud: Hud | None = None  # present only when switched off (`disable=("hud",)`)

    def as_dict(self) -> dict[str, dict[str, Any]]:
        """The rule tables (plain data, as in the file after inheritance and overrides)."""
        return self.model_dump(exclude=set(META), exclude_none=True)

    def enabled(self, section: str) -> bool:
        table = getattr(self, section, None)
        return bool(getattr(table, "enabled", True))

    def text(self, skip: Iterable[str] = ("layout",)) -> str:
        """The rules as this run uses them, one table a line (the prompt's and the docs' source)."""
        lines = [f"(from {Path(self.source).name})"] if self.source else []
        for table, values in self.as_dict().items():
            if table not in skip:
                lines.append(f"- {table}: " + ", ".join(f"{k} = {_plain(v)}" for k, v in values.items()))
        return "\n".join(lines)


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


_TABLE_LINE = re.compile(r"^- (\w+): (.*)$")
_ENTRY = re.compile(r"(\w+) = (.*?)(?=, \w+ = |$)")


def read_rules_text(text: str) -> dict[str, dict[str, Any]]:
    """`LevelRules.text()` read back: each `- table: key = value, ...` line of `text` as a table of values
    (numbers, flags and lists as Python literals, words as strings). A prompt shows the rules under
    `### Level rules`; the scripted pixel player reads its speeds and field of view there, as a model does."""
    tables: dict[str, dict[str, Any]] = {}
    for line in text.splitlines():
        if (match := _TABLE_LINE.match(line.strip())) is None:
            continue
        tables[match.group(1)] = {key: _literal(value) for key, value in _ENTRY.findall(match.group(2))}
    return tables


def _literal(value: str) -> Any:
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value  # a word (`teams = each`) is written without quotes


# The name the rest of the arena uses for the type.
Rules = LevelRules
SECTIONS = tuple(name for name in LevelRules.model_fields if name not in (*META, "hud"))


def load_rules(
    level_file: str | Path,
    overrides: Mapping[str, Any] | None = None,
    disable: Iterable[str] = (),
) -> LevelRules:
    """Read a level file (a name in `levels/` or a path) and apply overrides and disabled features."""
    switches: dict[str, Any] = {}
    for feature in (disable,) if isinstance(disable, str) else disable:
        name = DISABLE_ALIASES.get(feature, feature)
        if name in ("crates", "walls"):
            switches[f"layout.{name}"] = 0
        elif name in (*RENDER_FEATURES, *DISABLEABLE):
            switches[f"{name}.enabled"] = False
        else:
            known = ", ".join(sorted({*DISABLEABLE, *RENDER_FEATURES, "crates", "walls"}))
            raise UserError(f"cannot disable {feature!r}; features are: {known}",
                            source=display(level_path(level_file, LEVELS_DIR), LEVELS_DIR))
    return read_level(level_file, LevelRules, overrides={**dotted(overrides or {}, LevelRules), **switches})


__all__ = ["DISABLEABLE", "LevelRules", "Rules", "load_rules"]
