"""The arena map format: what a map file may hold, and reading one from disk.

The format is documented once, in `docs/maps.md` ("The format": every key, its units, an example map, what
`rtarena map validate` checks); `tests/test_docs.py` checks that the example there reads and validates.
The keys below are the format's; obstacle kinds are the world's codes (`world.OBSTACLE_KINDS`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rtarena.errors import UserError
from rtarena.limits import loads_json, loads_toml, read_text_capped

STYLES = ("open", "rooms", "maze")  # the generator's layouts (`generate.py`), named in `procedural:SEED:STYLE`

# Point lists: key -> (radius in metres of what stands there, for overlap checks; must a player reach it)
POINT_KEYS: dict[str, tuple[float, bool]] = {
    "spawns": (0.4, True),
    "coins": (0.3, True),
    "turrets": (0.6, False),
    "ammo": (0.4, True),
    "chickens": (0.3, False),
}
AREA_KEYS = ("ammo_areas", "chicken_areas")
ZONE_KEYS = ("center", "start_radius_m", "end_radius_m", "first_shrink_s", "shrink_every_s",
             "shrink_duration_s", "stages", "damage_per_s")
TEXT_KEYS = ("name", "notes")
MAP_KEYS = ("size_m", "obstacles", *POINT_KEYS, *AREA_KEYS, "toxic_zone", *TEXT_KEYS)
MIN_SIZE_M, MAX_SIZE_M = 10.0, 1000.0


def read_map_file(path: str | Path) -> dict[str, Any]:
    """The raw table of a `.toml` or `.json` map file (no checks beyond the file's own syntax, its size and
    its nesting: `rtarena.limits`)."""
    path = Path(path)
    text = read_text_capped(path, "map file")
    data = (loads_toml if path.suffix.lower() == ".toml" else loads_json)(text, source=str(path))
    if not isinstance(data, dict):
        raise UserError(f"a map must be a table of keys, got {type(data).__name__}", source=str(path))
    return data


def write_map_file(data: Mapping[str, Any], path: str | Path) -> Path:
    """Write a map as JSON (`.json`) or TOML (any other suffix); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".json":
        path.write_text(json.dumps(dict(data), indent=1) + "\n")
    else:
        path.write_text(to_toml(data))
    return path


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(round(float(value), 3)) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} to TOML")


def to_toml(data: Mapping[str, Any]) -> str:
    """A map as TOML text, one row per line for the lists (readable and diff-friendly)."""
    lines = []
    for key in MAP_KEYS:
        if key not in data or key == "toxic_zone":
            continue
        value = data[key]
        if isinstance(value, (list, tuple)) and value and isinstance(value[0], (list, tuple)):
            lines.append(f"{key} = [")
            lines.extend(f"  {_toml_value(row)}," for row in value)
            lines.append("]")
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    if isinstance(data.get("toxic_zone"), Mapping):
        lines.append("\n[toxic_zone]")
        lines.extend(f"{k} = {_toml_value(v)}" for k, v in data["toxic_zone"].items())
    return "\n".join(lines) + "\n"


def parse_procedural(text: str) -> tuple[int, str | None] | None:
    """`procedural:SEED[:STYLE]` -> (seed, style or None); None when `text` is not such a spec."""
    if not isinstance(text, str) or not text.startswith("procedural:"):
        return None
    parts = text.split(":")
    if len(parts) not in (2, 3) or not parts[1].lstrip("-").isdigit():
        raise UserError(f"a procedural map is procedural:SEED or procedural:SEED:STYLE, got {text!r}", field="map")
    style = parts[2] if len(parts) == 3 else None
    if style is not None and style not in STYLES:
        raise UserError(f"unknown map style {style!r}; styles are {', '.join(STYLES)}", field="map")
    return int(parts[1]), style
