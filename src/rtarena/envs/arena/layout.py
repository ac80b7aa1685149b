"""Where things are at the start of an episode: obstacles, spawns, coins, turrets, ammo boxes, chickens.

A `Layout` is plain data. It comes from a map (`map=` a dict, or a path to a JSON/TOML file with the same
keys) or is generated from the level's `[layout]` rules and the episode seed; a map may give only some
keys (say the obstacles) and the rest is generated around them. `world_from_layout` turns a layout and
the rules into the `World` of `world.py`.

Map format (every key optional, positions in metres):

    size_m = 100.0
    obstacles = [[x0, y0, x1, y1, height, "wall" | "crate"], ...]
    spawns = [[x, y], ...]      coins = [[x, y], ...]      turrets = [[x, y], ...]
    ammo = [[x, y], ...]        chickens = [[x, y], ...]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from rtarena.envs.arena.rules import Rules
from rtarena.envs.arena.world import (
    CRATE,
    OBSTACLE_KINDS,
    WALL,
    AmmoBoxes,
    Chickens,
    Coins,
    Obstacles,
    Players,
    Turrets,
    World,
    Zone,
)
from rtarena.errors import UserError

BOUNDARY_THICKNESS_M = 1.0


@dataclass
class Layout:
    """Start positions; `obstacles` excludes the boundary walls, which every world gets."""

    size_m: float
    obstacles: np.ndarray  # (M, 5)
    obstacle_kind: np.ndarray  # (M,)
    spawns: np.ndarray  # (N, 2)
    coins: np.ndarray  # (C, 2)
    turrets: np.ndarray  # (T, 2)
    ammo: np.ndarray  # (A, 2)
    chickens: np.ndarray  # (K, 2)
    # From a map only (envs/arena/maps/format.py): each spawn's team, areas where ammo boxes and chickens
    # (re)appear, the toxic zone's centre.
    spawn_teams: np.ndarray | None = None  # (N,) int
    ammo_areas: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))  # (A, 4) x0, y0, x1, y1
    chicken_areas: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    zone_center: np.ndarray | None = None  # (2,)

    def to_map(self) -> dict[str, Any]:
        """This layout in the map format (what a map editor would save)."""
        return {
            "size_m": float(self.size_m),
            "obstacles": [[*map(float, box), OBSTACLE_KINDS[int(kind)]]
                          for box, kind in zip(self.obstacles, self.obstacle_kind, strict=True)],
            **{key: getattr(self, key).round(3).tolist() for key in ("spawns", "coins", "turrets", "ammo",
                                                                      "chickens", "ammo_areas", "chicken_areas")},
        }


def read_map(source: Mapping[str, Any] | str | Path, rules: Rules | None = None,
             num_players: int | None = None) -> dict[str, Any]:
    """A map as the arrays `make_layout` takes, from a table, a `.json`/`.toml` file or
    `procedural:SEED[:STYLE]`; validated for the level (format and checks: `envs/arena/maps/`)."""
    from rtarena.envs.arena.maps.resolve import layout_arrays, load_level_map

    if isinstance(source, Mapping) and source.get("read_from"):
        return dict(source)  # already read
    table, name = load_level_map(source, rules, num_players)
    return {**layout_arrays(table), "read_from": name}


@njit(cache=True)
def _spaced(candidates, others, spacing, room, cell, size):
    """The indices (in order) of the candidates `_Sampler.sample` keeps: each at least `spacing` from every
    point of `others` and from every candidate kept before it, at most `room` of them. The points are filed
    in a grid of `cell` >= `spacing`, so each test looks at the 3 x 3 cells around a candidate, not at every
    point placed (`coins.count = 1000` took 48 s to lay out one point at a time in numpy, issue 47)."""
    n, m = others.shape[0], candidates.shape[0]
    side = int(size // cell) + 3
    head = np.full(side * side, -1, dtype=np.int64)
    chain = np.full(n + m, -1, dtype=np.int64)
    points = np.empty((n + m, 2))
    total = 0
    kept = np.empty(m, dtype=np.int64)
    count = 0
    for i in range(n + m):
        if i >= n and count >= room:
            break
        x, y = (others[i, 0], others[i, 1]) if i < n else (candidates[i - n, 0], candidates[i - n, 1])
        ix, iy = min(max(int(x // cell) + 1, 1), side - 2), min(max(int(y // cell) + 1, 1), side - 2)
        if i >= n:
            clear = True
            for jx in range(ix - 1, ix + 2):
                for jy in range(iy - 1, iy + 2):
                    k = head[jx * side + jy]
                    while k >= 0 and clear:
                        if np.hypot(points[k, 0] - x, points[k, 1] - y) < spacing:
                            clear = False
                        k = chain[k]
            if not clear:
                continue
            kept[count] = i - n
            count += 1
        points[total, 0], points[total, 1] = x, y
        chain[total] = head[ix * side + iy]
        head[ix * side + iy] = total
        total += 1
    return kept[:count]


@njit(cache=True)
def _free(points, boxes, clearance):
    """`_Sampler.free` compiled (a numpy pass per obstacle was a third of a reset, issue 19): the same
    distances, the same comparison."""
    ok = np.ones(points.shape[0], dtype=np.bool_)
    for b in range(boxes.shape[0]):
        x0, y0, x1, y1 = boxes[b, 0], boxes[b, 1], boxes[b, 2], boxes[b, 3]
        for i in range(points.shape[0]):
            dx = max(max(x0 - points[i, 0], points[i, 0] - x1), 0.0)
            dy = max(max(y0 - points[i, 1], points[i, 1] - y1), 0.0)
            if not dx * dx + dy * dy >= clearance * clearance:
                ok[i] = False
    return ok


class _Sampler:
    """Random free points, kept away from obstacles and from points placed before."""

    def __init__(self, size: float, boxes: np.ndarray, rng: np.random.Generator) -> None:
        self.size, self.boxes, self.rng = size, boxes, rng
        self.placed = np.zeros((0, 2))

    def free(self, points: np.ndarray, clearance: float) -> np.ndarray:
        """Which points are at least `clearance` from every obstacle."""
        boxes = np.asarray(self.boxes, dtype=np.float64).reshape(-1, 5)
        return _free(np.asarray(points, dtype=np.float64).reshape(-1, 2), boxes, float(clearance))

    def sample(self, count: int, clearance: float = 1.2, spacing: float = 2.0,
               avoid: np.ndarray | None = None, avoid_m: float = 0.0) -> np.ndarray:
        out: list[np.ndarray] = []
        margin = clearance + 0.5
        for attempt in range(400):
            if len(out) >= count:
                break
            if attempt and attempt % 50 == 0:
                # Crowded arena (many players): keep away from spawns as far as still possible.
                avoid_m, spacing = avoid_m / 2, spacing * 0.75
            candidates = self.rng.uniform(margin, self.size - margin, size=(max(64, 4 * count), 2))
            candidates = candidates[self.free(candidates, clearance)]
            if avoid is not None and len(avoid):  # one vector test for the whole batch
                avoid = np.asarray(avoid, dtype=float).reshape(-1, 2)
                gaps = np.hypot(candidates[:, None, 0] - avoid[None, :, 0], candidates[:, None, 1] - avoid[None, :, 1])
                candidates = candidates[~(gaps.min(axis=1) < avoid_m)]
            others = np.vstack([self.placed, np.asarray(out, dtype=float).reshape(-1, 2)])
            cell = max(float(spacing), self.size / 1024.0)  # a grid of at most about 1024 x 1024 cells
            chosen = _spaced(np.ascontiguousarray(candidates, dtype=np.float64), others, float(spacing),
                             count - len(out), cell, float(self.size))
            out.extend(candidates[chosen])
        if len(out) < count:
            raise UserError(f"cannot place {count} things on a {self.size:g} m arena; lower the counts")
        points = np.asarray(out, dtype=float).reshape(-1, 2)
        self.placed = np.vstack([self.placed, points])
        return points

    def spread(self, count: int, clearance: float = 1.2) -> np.ndarray:
        """`count` points spread over the whole arena (greedy farthest-point choice among candidates)."""
        from rtarena.envs.arena.maps.generate import farthest_points

        pool = self.rng.uniform(clearance + 0.5, self.size - clearance - 0.5, size=(max(400, 30 * count), 2))
        pool = pool[self.free(pool, clearance)]
        points = farthest_points(pool, int(self.rng.integers(len(pool))), count)
        self.placed = np.vstack([self.placed, points])
        return points


def _generate_obstacles(rules: Rules, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    lay, size = rules.layout, float(rules.arena.size_m)
    boxes: list[list[float]] = []
    kinds: list[int] = []

    def fits(box: list[float]) -> bool:
        x0, y0, x1, y1 = box[:4]
        if x0 < lay.gap_m or y0 < lay.gap_m or x1 > size - lay.gap_m or y1 > size - lay.gap_m:
            return False
        return all(x0 >= b[2] + lay.gap_m or x1 <= b[0] - lay.gap_m or y0 >= b[3] + lay.gap_m
                   or y1 <= b[1] - lay.gap_m for b in boxes)

    for count, kind in ((int(lay.walls), WALL), (int(lay.crates), CRATE)):
        placed = 0
        for _ in range(count * 50):
            if placed == count:
                break
            if kind == WALL:
                length = rng.uniform(*lay.wall_length_m)
                w, h = (length, lay.wall_thickness_m) if rng.random() < 0.5 else (lay.wall_thickness_m, length)
                height = float(rules.arena.wall_height_m)
            else:
                w = h = rng.uniform(*lay.crate_size_m)
                height = float(rules.arena.crate_height_m)
            x, y = rng.uniform(0, size - w), rng.uniform(0, size - h)
            box = [x, y, x + w, y + h, height]
            if fits(box):
                boxes.append(box)
                kinds.append(kind)
                placed += 1
    return np.asarray(boxes, dtype=float).reshape(-1, 5), np.asarray(kinds, dtype=np.int64)


def make_layout(rules: Rules, num_players: int, rng: np.random.Generator, game_map: dict | None = None) -> Layout:
    """The episode's layout: the map's entries where given, generated from the rules and `rng` elsewhere."""
    sections = {"coins": "coins", "turrets": "turret", "ammo": "ammo", "chickens": "chickens", "ammo_areas": "ammo",
                "chicken_areas": "chickens"}
    # A disabled feature stays off even where the map places it.
    given = {k: v for k, v in (game_map or {}).items() if k not in sections or rules.enabled(sections[k])}
    size = float(given.get("size_m", rules.arena.size_m))
    if "obstacles" in given:
        boxes, kinds = given["obstacles"], given["obstacle_kind"]
    else:
        boxes, kinds = _generate_obstacles(rules, rng)
    sampler = _Sampler(size, boxes, rng)
    clearance = float(rules.players.radius_m) + 0.6

    def take(key: str, count: int, **kwargs) -> np.ndarray:
        if key in given:
            sampler.placed = np.vstack([sampler.placed, given[key]])
            return given[key]
        return sampler.sample(count, clearance=clearance, **kwargs) if count else np.zeros((0, 2))

    if "spawns" in given:
        spawns = given["spawns"]
        if len(spawns) < num_players:
            raise UserError(f"the map has {len(spawns)} spawns for {num_players} players", field="spawns")
        sampler.placed = np.vstack([sampler.placed, spawns])
    else:
        spawns = sampler.spread(num_players, clearance=clearance)
    away = float(rules.layout.spawn_clearance_m)

    def count(section: str) -> int:
        return int(getattr(rules, section).count) if rules.enabled(section) else 0

    turrets = take("turrets", count("turret"), spacing=6.0, avoid=spawns, avoid_m=away)
    coins = take("coins", count("coins"), spacing=2.5, avoid=spawns, avoid_m=min(away, 4.0))
    ammo_areas, chicken_areas = given.get("ammo_areas", np.zeros((0, 4))), given.get("chicken_areas", np.zeros((0, 4)))

    def in_areas(areas: np.ndarray, number: int) -> np.ndarray:
        from rtarena.envs.arena.maps.resolve import point_in_area

        free = lambda points: sampler.free(points, clearance)  # noqa: E731
        return np.asarray([point_in_area(areas[i % len(areas)], rng, free) for i in range(number)]).reshape(-1, 2)

    if "ammo" not in given and len(ammo_areas) and rules.enabled("ammo"):
        ammo = in_areas(ammo_areas, len(ammo_areas))  # one box per area
    else:
        ammo = take("ammo", count("ammo"), spacing=3.0)
    if "chickens" not in given and len(chicken_areas):
        chickens = in_areas(chicken_areas, count("chickens"))
    else:
        chickens = take("chickens", count("chickens"), spacing=2.0)
    teams = given.get("spawn_teams")
    return Layout(size, boxes, kinds, spawns[:num_players], coins, turrets, ammo, chickens,
                  spawn_teams=None if teams is None else teams[:num_players], ammo_areas=ammo_areas,
                  chicken_areas=chicken_areas, zone_center=given.get("zone_center"))


def boundary_walls(size: float, height: float) -> np.ndarray:
    t = BOUNDARY_THICKNESS_M
    return np.array([
        [-t, -t, size + t, 0.0, height],
        [-t, size, size + t, size + t, height],
        [-t, 0.0, 0.0, size, height],
        [size, 0.0, size + t, size, height],
    ])


def team_of(index: int, count: int, teams: Any) -> int:
    """Team of player `index` of `count`: "one" -> 0, "each" -> index, k -> contiguous blocks of k teams."""
    if teams == "one":
        return 0
    if teams == "each":
        return index
    k = int(teams)
    return index * k // count


def world_from_layout(layout: Layout, rules: Rules, rng: np.random.Generator) -> World:
    """A fresh `World` at time 0 from a layout and the rules."""
    pl, size = rules.players, layout.size_m
    n = len(layout.spawns)
    boxes = np.vstack([boundary_walls(size, float(rules.arena.wall_height_m)), layout.obstacles])
    kinds = np.concatenate([np.full(4, WALL, dtype=np.int64), layout.obstacle_kind])

    players = Players.empty(n)
    players.radius_m, players.height_m, players.eye_height_m = pl.radius_m, pl.height_m, pl.eye_height_m
    players.max_health, players.ammo_max = float(pl.health), int(pl.ammo_max)
    players.pos[:, :2] = layout.spawns
    centre = np.array([size / 2, size / 2])
    # Everyone starts facing the centre of the arena, where the action is.
    players.yaw[:] = np.arctan2(centre[1] - layout.spawns[:, 1], centre[0] - layout.spawns[:, 0])
    players.team[:] = layout.spawn_teams if layout.spawn_teams is not None else [team_of(i, n, pl.teams)
                                                                                 for i in range(n)]
    players.health[:] = pl.health
    players.ammo[:] = min(int(pl.ammo_start), int(pl.ammo_max))
    players.alive[:] = True

    def lifted(points: np.ndarray, z: float) -> np.ndarray:
        return np.column_stack([points, np.full(len(points), z)]) if len(points) else np.zeros((0, 3))

    c, a, k, t = len(layout.coins), len(layout.ammo), len(layout.chickens), len(layout.turrets)
    tu = rules.turret
    turrets = Turrets(
        pos=lifted(layout.turrets, 0.0), barrel_yaw=rng.uniform(-np.pi, np.pi, t),
        health=np.full(t, float(tu.health)), alive=np.ones(t, bool), target=np.full(t, -1, np.int64),
        cooldown_s=np.zeros(t), wander_rate=np.zeros(t), wander_in_s=np.zeros(t), max_health=float(tu.health),
    )
    zone_rules = rules.toxic_zone
    zone_centre = centre if layout.zone_center is None else np.asarray(layout.zone_center, dtype=float)
    zone = Zone(center=zone_centre.copy(), radius_m=float(zone_rules.start_radius_m),
                enabled=rules.enabled("toxic_zone"))
    return World(
        size_m=size,
        obstacles=Obstacles(boxes, kinds),
        players=players,
        coins=Coins(lifted(layout.coins, float(rules.coins.height_m)), np.ones(c, bool)),
        ammo=AmmoBoxes(lifted(layout.ammo, 0.0), np.ones(a, bool), np.zeros(a)),
        chickens=Chickens(lifted(layout.chickens, 0.0), rng.uniform(-np.pi, np.pi, k), np.ones(k, bool),
                          np.zeros(k), np.zeros(k)),
        turrets=turrets,
        zone=zone,
        time_limit_s=float(rules.arena.time_limit_s),
        ammo_areas=layout.ammo_areas,
        chicken_areas=layout.chicken_areas,
    )
