"""What a level's `map=` accepts, turned into a validated map table and the arrays `layout.py` reads.

`map=` (and `--map` on the command line) takes a table, a path to a `.toml`/`.json` map file, or
`procedural:SEED[:STYLE]`. A file or table is validated against the level (its arena size, its players,
its jump height); a procedural map is generated for the level (`settings_for_level`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from rtarena.envs.arena.maps.format import AREA_KEYS, POINT_KEYS, parse_procedural, read_map_file
from rtarena.envs.arena.maps.generate import generate_map, settings_for_level
from rtarena.envs.arena.maps.validate import DEFAULT_JUMP_M, check_map
from rtarena.envs.arena.world import OBSTACLE_KINDS

ZONE_RULE_KEYS = ("start_radius_m", "end_radius_m", "first_shrink_s", "shrink_every_s", "shrink_duration_s",
                  "stages", "damage_per_s")


def jump_height_m(rules: Any) -> float:
    """How high a player's feet rise in a jump under these rules (what a crate must stay below)."""
    if rules is None:
        return DEFAULT_JUMP_M
    speed, gravity = float(rules.players.jump_speed_m_s), float(rules.players.gravity_m_s2)
    return speed * speed / (2 * gravity) if gravity > 0 else float("inf")


def load_level_map(source: Mapping[str, Any] | str | Path, rules: Any = None,
                   players: int | None = None) -> tuple[dict[str, Any], str]:
    """(the map table, its name for messages), validated for the level; raises `UserError` on a problem."""
    spec = parse_procedural(source) if isinstance(source, str) else None
    if spec is not None:
        seed, style = spec
        if rules is None:
            from rtarena.envs.arena.maps.generate import MapSettings

            settings = MapSettings(style=style or "open", players=players or 4)
        else:
            settings = settings_for_level(rules, players, style)
        return generate_map(seed, settings), str(source)
    if isinstance(source, (str, Path)):
        name = str(source)
        table = read_map_file(source)
    elif isinstance(source, Mapping):
        name, table = "map", dict(source)
    else:
        from rtarena.errors import UserError

        raise UserError(f"a map is a table, a .toml/.json file or procedural:SEED[:STYLE], got {source!r}",
                        field="map")
    size = float(rules.arena.size_m) if rules is not None else None
    check_map(table, name, players=players, jump_m=jump_height_m(rules), size_m=size,
              player_radius_m=float(rules.players.radius_m) if rules is not None else 0.4)
    return table, name


def layout_arrays(table: Mapping[str, Any]) -> dict[str, Any]:
    """A validated map table as the arrays `layout.make_layout` takes: only the keys the map gives.

    Points become (K, 2) arrays, obstacles (M, 5) plus `obstacle_kind`; spawns with teams add
    `spawn_teams`; areas are (A, 4); the toxic zone adds `zone_center` and `zone_rules` (rule overrides
    such as `{"toxic_zone.start_radius_m": 30.0}`).
    """
    out: dict[str, Any] = {}
    if "size_m" in table:
        out["size_m"] = float(table["size_m"])
    if "obstacles" in table:
        rows = table["obstacles"]
        boxes = [[min(r[0], r[2]), min(r[1], r[3]), max(r[0], r[2]), max(r[1], r[3]), r[4]] for r in rows]
        out["obstacles"] = np.asarray(boxes, dtype=float).reshape(-1, 5)
        out["obstacle_kind"] = np.asarray([OBSTACLE_KINDS.index(r[5] if len(r) == 6 else "wall") for r in rows],
                                          dtype=np.int64)
    for key in POINT_KEYS:
        if key in table:
            rows = table[key]
            out[key] = np.asarray([r[:2] for r in rows], dtype=float).reshape(-1, 2)
            if key == "spawns" and rows and all(len(r) == 3 for r in rows):
                out["spawn_teams"] = np.asarray([int(r[2]) for r in rows], dtype=np.int64)
    for key in AREA_KEYS:
        if key in table:
            rows = [[min(r[0], r[2]), min(r[1], r[3]), max(r[0], r[2]), max(r[1], r[3])] for r in table[key]]
            out[key] = np.asarray(rows, dtype=float).reshape(-1, 4)
    zone = table.get("toxic_zone")
    if isinstance(zone, Mapping):
        if "center" in zone:
            out["zone_center"] = np.asarray(zone["center"], dtype=float)
        out["zone_rules"] = {f"toxic_zone.{k}": v for k, v in zone.items() if k in ZONE_RULE_KEYS}
    return out


def point_in_area(area: np.ndarray, rng: np.random.Generator, free) -> np.ndarray:
    """A random point of `area` (x0, y0, x1, y1) for which `free(points) -> bool mask` holds; the area's
    centre when none is found."""
    x0, y0, x1, y1 = (float(v) for v in area)
    for _ in range(50):
        points = np.column_stack([rng.uniform(x0, x1, 32), rng.uniform(y0, y1, 32)])
        ok = free(points)
        if ok.any():
            return points[int(np.argmax(ok))]
    return np.array([(x0 + x1) / 2, (y0 + y1) / 2])
