"""A level's rules: the numbers of its TOML file, with per-run overrides and disabled features.

`load_rules("coop.toml", overrides={"turret.range_m": 30}, disable=("chickens",))` reads
`levels/coop.toml`, replaces `[turret] range_m`, and switches the `[chickens]` section off. Keys that do
not exist and values of the wrong type raise a one-line `UserError` naming the file and key, so a typo
in a `--set` never silently does nothing.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from rtarena.errors import UserError

LEVELS_DIR = Path(__file__).with_name("levels")

# Features `disable=` can switch off, and how: a section whose `enabled` flag goes false.
DISABLEABLE = ("coins", "ammo", "chickens", "turret", "toxic_zone")
# Features of the renderer, not of the world: `disable=("hud",)` makes `rules.enabled("hud")` false.
RENDER_FEATURES = ("hud",)
DISABLE_ALIASES = {"turrets": "turret", "zone": "toxic_zone", "ammo_boxes": "ammo", "crates": "crates",
                   "walls": "walls"}


class Section:
    """One TOML table with attribute access: `rules.turret.range_m`."""

    def __init__(self, name: str, values: Mapping[str, Any]) -> None:
        self._name = name
        self._values = dict(values)

    def __getattr__(self, key: str) -> Any:
        try:
            return self._values[key]
        except KeyError:
            raise AttributeError(f"rules section [{self._name}] has no key {key!r}") from None

    def get(self, key: str, default: Any = None) -> Any:
        return self._values.get(key, default)

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)


class Rules:
    """All sections of a level file; `source` names the file for error messages."""

    def __init__(self, data: Mapping[str, Mapping[str, Any]], source: str) -> None:
        self.source = source
        self._data = {name: dict(values) for name, values in data.items()}
        self._sections = {name: Section(name, values) for name, values in self._data.items()}

    def __getattr__(self, name: str) -> Section:
        try:
            return self.__dict__["_sections"][name]
        except KeyError:
            raise AttributeError(f"{self.__dict__.get('source')}: no section [{name}]") from None

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return copy.deepcopy(self._data)

    def enabled(self, section: str) -> bool:
        return bool(self._data.get(section, {}).get("enabled", True))


def _coerce(value: Any, old: Any, where: str, source: str) -> Any:
    """The override in the type of the value it replaces (ints may become floats, not the reverse)."""
    if isinstance(old, bool):
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "on", "off"):
            return value.lower() in ("true", "1", "on")
    elif isinstance(old, (int, float)) and not isinstance(old, bool):
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = None
        if number is not None and isinstance(old, float):
            return number
        if number is not None and number == int(number):
            return int(number)
    elif isinstance(old, list) and isinstance(value, (list, tuple)):
        return list(value)
    elif isinstance(old, str):
        return str(value)
    if type(old) is not bool and isinstance(value, type(old)):
        return value
    # a "teams" setting may be a word or a number
    if where.endswith(".teams") and isinstance(value, (int, str)):
        return value
    raise UserError(f"{where} must be like {old!r}, got {value!r}", source=source)


def load_rules(
    level_file: str | Path,
    overrides: Mapping[str, Any] | None = None,
    disable: Iterable[str] = (),
) -> Rules:
    """Read a level file (a name in `levels/` or a path) and apply overrides and disabled features."""
    path = Path(level_file)
    if not path.is_absolute() and not path.exists():
        path = LEVELS_DIR / path
    source = str(path.name if path.parent == LEVELS_DIR else path)
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise UserError(f"no such level file: {level_file}") from None
    except tomllib.TOMLDecodeError as error:
        raise UserError(f"not valid TOML: {error}", source=source) from None
    for key, value in (overrides or {}).items():
        section, _, name = str(key).partition(".")
        if section not in data or not name or name not in data[section]:
            known = ", ".join(f"{s}.{k}" for s in data for k in data[s])
            raise UserError(f"unknown rule {key!r}; rules are: {known}", source=source)
        data[section][name] = _coerce(value, data[section][name], key, source)
    if isinstance(disable, str):
        disable = (disable,)
    for feature in disable:
        name = DISABLE_ALIASES.get(feature, feature)
        if name in ("crates", "walls"):
            data["layout"][name] = 0
        elif name in RENDER_FEATURES:
            data[name] = {"enabled": False}
        elif name in DISABLEABLE:
            data[name]["enabled"] = False
        else:
            known = ", ".join(sorted({*DISABLEABLE, *RENDER_FEATURES, "crates", "walls"}))
            raise UserError(f"cannot disable {feature!r}; features are: {known}", source=source)
    return Rules(data, source)
