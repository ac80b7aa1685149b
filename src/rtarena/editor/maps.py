"""The headless map commands: `rtarena map generate`, `rtarena map validate`, `rtarena map render`.

Each returns what the command prints, so the CLI stays a thin shell and tests can call these directly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rtarena.envs.arena.maps.format import parse_procedural, read_map_file, write_map_file
from rtarena.envs.arena.maps.generate import MapSettings, generate_map, settings_for_level
from rtarena.envs.arena.maps.topdown import write_topdown_png
from rtarena.envs.arena.maps.validate import Problem, validate_map
from rtarena.errors import UserError


def level_rules(env_id: str | None, disable: tuple[str, ...] = ()) -> Any:
    """The rules of an arena level id, or None."""
    if env_id is None:
        return None
    from rtarena.envs.arena.rules import load_rules
    from rtarena.envs.registry import env_spec

    spec = env_spec(env_id)
    if spec.family != "arena":
        raise UserError(f"{env_id!r} is not an arena level", field="--level")
    return load_rules(spec.load().level_file, None, disable)


def generate_command(out: Path, seed: int, style: str = "open", level: str | None = None,
                     players: int | None = None, **changes: Any) -> tuple[Path, dict[str, Any]]:
    """Generate a map (for a level's rules when given) and write it; `changes` override the settings."""
    changes = {k: v for k, v in changes.items() if v is not None}
    rules = level_rules(level)
    if rules is not None:
        settings = settings_for_level(rules, players, style)
    else:
        settings = MapSettings(style=style, **({"players": players} if players else {}))
    data = generate_map(seed, settings, **changes)
    return write_map_file(data, out), data


def load_any(source: str, level: str | None = None, players: int | None = None) -> tuple[dict[str, Any], str]:
    """A map table from a file or a `procedural:SEED[:STYLE]` spec (generated for the level)."""
    spec = parse_procedural(source)
    if spec is None:
        return read_map_file(source), source
    rules = level_rules(level)
    seed, style = spec
    settings = settings_for_level(rules, players, style) if rules is not None else MapSettings(style=style or "open")
    return generate_map(seed, settings), source


def validate_command(paths: list[str], level: str | None = None, players: int | None = None) -> list[Problem]:
    """Every problem of every map (empty when all are valid)."""
    from rtarena.envs.arena.maps.resolve import jump_height_m

    rules = level_rules(level)
    if rules is not None and players is None:
        players = int(rules.players.count)
    problems: list[Problem] = []
    for path in paths:
        try:
            data, name = load_any(path, level, players)
        except UserError as error:
            problems.append(Problem(path, "file", str(error).removeprefix(f"{path}: ")))
            continue
        size = float(rules.arena.size_m) if rules is not None else None
        problems.extend(validate_map(data, name, players=players, jump_m=jump_height_m(rules), size_m=size))
    return problems


def render_command(source: str, out: Path, px_per_m: float = 6.0, level: str | None = None) -> Path:
    """A top-down PNG of a map (checked first: a map with NaN or out-of-range numbers is refused)."""
    from rtarena.envs.arena.maps.validate import check_map
    from rtarena.limits import check_limit

    data, name = load_any(source, level)
    check_map(data, name)
    side_m = float(data.get("size_m", 100.0))
    check_limit("image.px", side_m * px_per_m, field=f"--px-per-m {px_per_m:g} x the map's {side_m:g} m")
    return write_topdown_png(data, out, px_per_m)
