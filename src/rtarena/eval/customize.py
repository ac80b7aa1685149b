"""Per-run customisation of an arena level from the command line: `--map`, `--set` and `--disable`.

`arena_kwargs("arena/coop-v0", map="procedural:7:maze", sets=["turret.range_m=30"],
disable=["chickens,toxic_zone", "hud"])` returns the keyword arguments for `rtarena.make`, checked
before any episode runs: every `--set` key must be a rule of the level's data file (`levels/*.toml`), every
`--disable` name a feature the level can switch off, and the map must be valid for the level. A suite
game takes `--set` too (`games/tilefall-v0 --set drops.warning_s=2`), read by the same `read_level`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rtarena.errors import UserError


def parse_sets(pairs: Iterable[str]) -> dict[str, str]:
    """`["turret.range_m=30", ...]` -> `{"turret.range_m": "30"}` (values are coerced by the rules)."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = str(pair).partition("=")
        if not sep or "." not in key or not value.strip():
            raise UserError(f"expected SECTION.KEY=VALUE (like turret.range_m=30), got {pair!r}", field="--set")
        out[key.strip()] = value.strip()
    return out


def parse_disable(values: Iterable[str]) -> tuple[str, ...]:
    """`["chickens,toxic_zone", "hud"]` -> `("chickens", "toxic_zone", "hud")`."""
    return tuple(name.strip() for value in values for name in str(value).split(",") if name.strip())


def arena_kwargs(env_id: str, map: str | None = None, sets: Iterable[str] = (),
                 disable: Iterable[str] = (), num_agents: int | None = None) -> dict[str, Any]:
    """Env keyword arguments for the options, validated against the level (a `UserError` if not)."""
    from rtarena.envs.registry import env_spec

    overrides, names = parse_sets(sets), parse_disable(disable)
    if map is None and not overrides and not names:
        return {}
    spec = env_spec(env_id)
    if spec.family == "games" and map is None and not names:  # a suite game's level file takes --set too
        from rtarena.envs.level_files import read_level

        game = spec.load()
        read_level(game.level_file, game.rules_schema, spec.kwargs.get("variant"), overrides)
        return {"overrides": overrides}
    if spec.family != "arena":
        flag = "--map" if map is not None else ("--set" if overrides else "--disable")
        raise UserError(f"{flag} applies to arena levels, not {env_id!r}", field=flag)
    level = spec.load()
    from rtarena.envs.arena.maps.resolve import load_level_map
    from rtarena.envs.arena.rules import load_rules

    rules = load_rules(level.level_file, overrides, names)
    kwargs: dict[str, Any] = {}
    if overrides:
        kwargs["overrides"] = overrides
    if names:
        kwargs["disable"] = names
    if map is not None:
        players = int(num_agents if num_agents is not None else rules.players.count)
        load_level_map(map, rules, players)  # fail now, with the map's first problem
        kwargs["map"] = map
    return kwargs
