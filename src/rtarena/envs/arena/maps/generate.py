"""Procedural arena maps: seeded, three styles, every coin and spawn reachable, mirror-symmetric on demand.

`generate_map(seed, MapSettings(style="rooms", size_m=100, players=4, symmetric=True))` returns a map
table in the format of `maps/format.py`. The same seed and settings always give the same map.

How it works. Obstacles are painted on a 0.5 m grid over a *region*: the whole arena, or for symmetric
maps its south-west half or quarter, which is then mirrored across the centre lines (two-fold for 2 or 6
players, four-fold when the players divide by four), so every spawn sees the same arena. The painted
cells become non-overlapping boxes. A flood fill over the grid (every obstacle blocking, grown by a
player's radius) finds the open floor's largest connected part, and every spawn, coin, ammo box and
chicken is placed on it, so each is reachable by walking. The result must pass `validate_map`; a
candidate that does not (rare) is dropped and the next one is drawn from the same seed.

Styles:
- `open`: scattered walls and crates with at least `gap_m` of floor between any two;
- `rooms`: a grid of rooms of random sizes with a door in each shared wall (some walls left out), and
  crates inside; symmetric maps keep open corridors along the centre lines;
- `maze`: a maze of `maze_cell_m` corridors (a random spanning tree, with a share of extra openings so
  that there are loops), with a few crates.

Counts in symmetric maps: things come in mirror images; a count that the symmetry does not divide puts
a pair on a centre line and, for an odd count, one thing at the very centre (or a pair more when the
centre is taken).
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from rtarena.envs.arena.maps.format import STYLES
from rtarena.envs.arena.maps.grid import blocked_grid, boxes_from_cells, label_free
from rtarena.envs.arena.rules import load_rules
from rtarena.envs.arena.world import CRATE, OBSTACLE_KINDS, WALL
from rtarena.errors import UserError

FREE = -1  # a painted cell holds an obstacle code of `world.py` (WALL, CRATE), or FREE
TARGET_CELL_M = 0.5
MAX_ATTEMPTS = 12


# the settings a level decides (`settings_for_level`); left unset, they are the co-op level's (DEFAULT_LEVEL)
LEVEL_FIELDS = ("size_m", "players", "teams", "coins", "turrets", "ammo", "chickens", "wall_height_m",
                "crate_height_m", "wall_thickness_m", "gap_m", "spawn_clearance_m")
DEFAULT_LEVEL = "coop.toml"


@dataclass(frozen=True)
class MapSettings:
    """What to generate. Lengths in metres; `density` is the share of the floor covered by obstacles. The
    level's numbers (`LEVEL_FIELDS`: size, counts, teams, heights, gaps) are read from a level file, the
    co-op level's where not given, never written here; the rest are the generator's own."""

    size_m: float | None = None
    style: str = "open"
    density: float = 0.04
    crate_ratio: float = 0.5
    players: int | None = None
    teams: Any = None  # as the level's players.teams: "one", "each" or a number of teams
    coins: int | None = None
    turrets: int | None = None
    ammo: int | None = None  # ammo areas, one box each
    chickens: int | None = None
    symmetric: bool = False
    wall_height_m: float | None = None
    crate_height_m: float | None = None
    wall_thickness_m: float | None = None
    gap_m: float | None = None
    spawn_clearance_m: float | None = None
    maze_cell_m: float = 8.0

    def __post_init__(self) -> None:
        unset = [name for name in LEVEL_FIELDS if getattr(self, name) is None]
        if unset:
            level = settings_for_level(load_rules(DEFAULT_LEVEL))
            for name in unset:
                object.__setattr__(self, name, getattr(level, name))

    def checked(self) -> MapSettings:
        def bad(field: str, value: Any, want: str) -> UserError:
            return UserError(f"must be {want}, got {value!r}", field=field)

        if self.style not in STYLES:
            raise bad("style", self.style, " | ".join(STYLES))
        if not 10 <= self.size_m <= 1000:
            raise bad("size_m", self.size_m, "10 .. 1000 metres")
        if not 0 <= self.density <= 0.5:
            raise bad("density", self.density, "from 0 to 0.5")
        if not 0 <= self.crate_ratio <= 1:
            raise bad("crate_ratio", self.crate_ratio, "from 0 to 1")
        for name in ("players", "coins", "turrets", "ammo", "chickens"):
            value = getattr(self, name)
            if int(value) != value or value < 0 or (name == "players" and value < 1):
                raise bad(name, value, "a whole number >= 0" if name != "players" else "a whole number >= 1")
        return self


def settings_for_level(rules: Any, players: int | None = None, style: str | None = None, **changes: Any) -> MapSettings:
    """Generator settings matching a level's rules (`envs/arena/rules.py`): its size, counts and teams;
    competitive and mixed levels (more than one team) get symmetric maps."""

    def count(section: str) -> int:
        return int(getattr(rules, section).count) if rules.enabled(section) else 0

    players = int(players if players is not None else rules.players.count)
    teams = rules.players.teams
    lay = rules.layout
    settings = MapSettings(
        size_m=float(rules.arena.size_m), style=style or "open", players=players, teams=teams,
        coins=count("coins"), turrets=count("turret"), ammo=count("ammo"), chickens=count("chickens"),
        symmetric=teams != "one" and players > 1,
        wall_height_m=float(rules.arena.wall_height_m), crate_height_m=float(rules.arena.crate_height_m),
        wall_thickness_m=float(lay.wall_thickness_m), gap_m=float(lay.gap_m),
        spawn_clearance_m=float(lay.spawn_clearance_m),
        crate_ratio=0.0 if not lay.crates else (1.0 if not lay.walls else 0.5),
    )
    if not lay.walls and not lay.crates:
        settings = replace(settings, density=0.0)
    return replace(settings, **changes)


class _Canvas:
    """The painted grid and the region being generated."""

    def __init__(self, s: MapSettings, rng: np.random.Generator) -> None:
        self.s, self.rng = s, rng
        self.n = 2 * max(2, round(s.size_m / (2 * TARGET_CELL_M)))
        self.g = s.size_m / self.n
        self.fold = 1 if not s.symmetric else (4 if s.players % 4 == 0 else 2)
        self.rx = self.n // 2 if self.fold >= 2 else self.n
        self.ry = self.n // 2 if self.fold == 4 else self.n
        self.cells = np.full((self.rx, self.ry), FREE, dtype=np.int8)

    def cells_of(self, metres: float) -> int:
        return max(1, round(metres / self.g))

    def fits(self, x0: int, y0: int, x1: int, y1: int, gap: int) -> bool:
        """Whether box cells [x0, x1) x [y0, y1) and `gap` cells around it are free and inside the region,
        keeping `gap` from the arena's edge and half of it from mirror lines (its image keeps `gap`)."""
        far_x = self.rx - (gap + 1) // 2 if self.fold >= 2 else self.rx - gap
        far_y = self.ry - (gap + 1) // 2 if self.fold == 4 else self.ry - gap
        if x0 < gap or y0 < gap or x1 > far_x or y1 > far_y:
            return False
        return bool((self.cells[max(0, x0 - gap):x1 + gap, max(0, y0 - gap):y1 + gap] == FREE).all())

    def scatter(self, cover_cells: float, crate_share: float) -> None:
        """Open-style obstacles until `cover_cells` cells are covered."""
        s, rng = self.s, self.rng
        gap, thick = self.cells_of(s.gap_m), self.cells_of(s.wall_thickness_m)
        covered, tries = 0, 0
        while covered < cover_cells and tries < 4000:
            tries += 1
            if rng.random() < crate_share:
                w = h = self.cells_of(rng.uniform(1.2, 2.0))
                value = CRATE
            else:
                length = self.cells_of(rng.uniform(6.0, 12.0))
                w, h = (length, thick) if rng.random() < 0.5 else (thick, length)
                value = WALL
            x0, y0 = int(rng.integers(0, max(1, self.rx - w))), int(rng.integers(0, max(1, self.ry - h)))
            if self.fits(x0, y0, x0 + w, y0 + h, gap):
                self.cells[x0:x0 + w, y0:y0 + h] = value
                covered += w * h

    def rooms(self) -> None:
        s, rng = self.s, self.rng
        thick = self.cells_of(s.wall_thickness_m)
        door = self.cells_of(3.0)

        def cuts(extent: int, mirrored: bool) -> list[int]:
            # Interior wall lines; the arena edge (and a mirror line, kept as a corridor) get none.
            out, at = [], 0
            while True:
                at += self.cells_of(rng.uniform(12.0, 20.0))
                limit = extent - self.cells_of(8.0 if mirrored else 10.0)
                if at >= limit:
                    return out
                out.append(at)

        xs, ys = cuts(self.rx, self.fold >= 2), cuts(self.ry, self.fold == 4)
        far_x = self.rx - (self.cells_of(3.0) if self.fold >= 2 else 0)
        far_y = self.ry - (self.cells_of(3.0) if self.fold == 4 else 0)
        bounds_x, bounds_y = [0, *xs, far_x], [0, *ys, far_y]
        for x in xs:  # vertical walls, one segment per room they separate, each with a door
            for a, b in itertools.pairwise(bounds_y):
                if rng.random() < 0.15:
                    continue
                self.cells[x:x + thick, a:b + (thick if b != far_y else 0)] = WALL
                self._door(x, a + thick, b, door, vertical=True)
        for y in ys:
            for a, b in itertools.pairwise(bounds_x):
                if rng.random() < 0.15:
                    continue
                self.cells[a:b + (thick if b != far_x else 0), y:y + thick] = WALL
                self._door(y, a + thick, b, door, vertical=False)

    def _door(self, line: int, a: int, b: int, width: int, vertical: bool) -> None:
        thick = self.cells_of(self.s.wall_thickness_m)
        if b - a <= width + 2:
            lo, hi = a, b
        else:
            lo = int(self.rng.integers(a + 1, b - width))
            hi = lo + width
        if vertical:
            self.cells[line:line + thick, lo:hi] = FREE
        else:
            self.cells[lo:hi, line:line + thick] = FREE

    def maze(self) -> None:
        s, rng = self.s, self.rng
        k = self.cells_of(s.maze_cell_m)
        thick = self.cells_of(s.wall_thickness_m)
        cx, cy = max(1, self.rx // k), max(1, self.ry // k)
        # walls[(a, b)] for neighbouring maze cells a, b: present until the spanning tree opens it
        east = np.ones((cx, cy), dtype=bool)  # wall between (i, j) and (i + 1, j)
        north = np.ones((cx, cy), dtype=bool)  # wall between (i, j) and (i, j + 1)
        seen = np.zeros((cx, cy), dtype=bool)
        stack = [(int(rng.integers(cx)), int(rng.integers(cy)))]
        seen[stack[0]] = True
        while stack:
            i, j = stack[-1]
            options = [(a, b) for a, b in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1))
                       if 0 <= a < cx and 0 <= b < cy and not seen[a, b]]
            if not options:
                stack.pop()
                continue
            a, b = options[int(rng.integers(len(options)))]
            if a != i:
                east[min(a, i), j] = False
            else:
                north[i, min(b, j)] = False
            seen[a, b] = True
            stack.append((a, b))
        east &= rng.random(east.shape) >= 0.12  # extra openings: loops, so no dead end is a trap
        north &= rng.random(north.shape) >= 0.12

        def edge(i: int, extent: int, count: int) -> int:
            return extent if i >= count else i * k

        for i in range(cx - 1):
            for j in range(cy):
                if east[i, j]:
                    x = (i + 1) * k
                    self.cells[x - thick // 2:x - thick // 2 + thick,
                               max(0, j * k - thick // 2):edge(j + 1, self.ry, cy) + thick - thick // 2] = WALL
        for i in range(cx):
            for j in range(cy - 1):
                if north[i, j]:
                    y = (j + 1) * k
                    self.cells[max(0, i * k - thick // 2):edge(i + 1, self.rx, cx) + thick - thick // 2,
                               y - thick // 2:y - thick // 2 + thick] = WALL
        self.cells[self.rx:, :] = FREE
        self.cells[:, self.ry:] = FREE

    def full(self) -> np.ndarray:
        """The whole arena's cells: the region and its mirror images."""
        grid = np.full((self.n, self.n), FREE, dtype=np.int8)
        grid[:self.rx, :self.ry] = self.cells
        if self.fold >= 2:
            grid[self.n - self.rx:, :self.ry] = self.cells[::-1, :]
        if self.fold == 4:
            grid[:, self.n - self.ry:] = grid[:, :self.ry][:, ::-1]
        return grid


def farthest_points(pool: np.ndarray, first: int, count: int) -> np.ndarray:
    """`count` points of `pool` spread apart: `pool[first]`, then each time the point farthest from all
    chosen so far (greedy farthest-point sampling). Spawns, here and in a level's generated layout
    (`layout.py`)."""
    chosen = [first]
    best = np.hypot(*(pool - pool[first]).T)
    for _ in range(count - 1):
        index = int(np.argmax(best))
        chosen.append(index)
        best = np.minimum(best, np.hypot(*(pool - pool[index]).T))
    return pool[chosen]


def _images(point: np.ndarray, size: float, fold: int) -> list[np.ndarray]:
    x, y = point
    if fold == 1:
        return [point]
    if fold == 2:
        return [point, np.array([size - x, y])]
    return [point, np.array([x, size - y]), np.array([size - x, y]), np.array([size - x, size - y])]


class _Placer:
    """Places things on reachable open floor, in mirror images, keeping spacings."""

    def __init__(self, canvas: _Canvas, boxes: list[list[float]]) -> None:
        self.c = canvas
        s, g = canvas.s, canvas.g
        strict = blocked_grid(s.size_m, boxes, g, inflate_m=0.4)
        labels = label_free(strict)
        counts = np.bincount(labels.ravel())
        counts[0] = 0
        self.main = labels == int(counts.argmax())
        if canvas.fold >= 2 and not np.array_equal(self.main, self.main[::-1, :]):
            raise _Retry("main floor not symmetric")
        if canvas.fold == 4 and not np.array_equal(self.main, self.main[:, ::-1]):
            raise _Retry("main floor not symmetric")
        self.ok = self.main & ~blocked_grid(s.size_m, boxes, g, inflate_m=1.2)
        self.placed = np.zeros((0, 2))
        self._cache: dict[tuple[str, float], np.ndarray] = {}
        self.centres = (np.arange(canvas.n) + 0.5) * g

    def _free(self, xy: np.ndarray) -> np.ndarray:
        g, n = self.c.g, self.c.n
        ix = np.clip((xy[:, 0] / g).astype(int), 0, n - 1)
        iy = np.clip((xy[:, 1] / g).astype(int), 0, n - 1)
        # a point on a cell boundary (a mirror line) needs both neighbouring cells free
        ix2 = np.clip(np.ceil(xy[:, 0] / g).astype(int) - 1, 0, n - 1)
        iy2 = np.clip(np.ceil(xy[:, 1] / g).astype(int) - 1, 0, n - 1)
        return self.ok[ix, iy] & self.ok[ix2, iy2] & self.ok[ix, iy2] & self.ok[ix2, iy]

    def _candidates(self, where: str, margin: float) -> np.ndarray:
        c, size = self.c, self.c.s.size_m
        half = size / 2
        xs, ys = np.meshgrid(self.centres, self.centres, indexing="ij")
        pts = np.column_stack([xs.ravel(), ys.ravel()])
        if where == "region":
            keep = (pts[:, 0] < (half - margin if c.fold >= 2 else size)) & \
                   (pts[:, 1] < (half - margin if c.fold == 4 else size))
            pts = pts[keep]
        elif where == "x_line":  # on y = half, west of the centre (fold 4) / on x = half (fold 2)
            if c.fold == 2:
                pts = np.column_stack([np.full(c.n, half), self.centres])
            else:
                pts = np.column_stack([self.centres, np.full(c.n, half)])
                pts = pts[pts[:, 0] < half - margin]
        elif where == "centre":
            pts = np.array([[half, half]])
        return pts[self._free(pts)]

    def _far_enough(self, pts: np.ndarray, spacing: float, avoid: np.ndarray | None, avoid_m: float) -> np.ndarray:
        ok = np.ones(len(pts), dtype=bool)
        for other, dist in ((self.placed, spacing), (avoid, avoid_m)):
            if other is not None and len(other) and dist > 0:
                d = np.hypot(pts[:, None, 0] - other[None, :, 0], pts[:, None, 1] - other[None, :, 1])
                ok &= d.min(axis=1) >= dist
        return ok

    def _take(self, where: str, spacing: float, avoid, avoid_m: float) -> np.ndarray | None:
        key = (where, spacing)
        if key not in self._cache:
            self._cache[key] = self._candidates(where, spacing / 2)
        pts = self._cache[key]
        order = self.c.rng.permutation(len(pts))
        point = None
        for start in range(0, len(order), 512):  # random order, checked a chunk at a time
            chunk = pts[order[start:start + 512]]
            ok = np.flatnonzero(self._far_enough(chunk, spacing, avoid, avoid_m))
            if len(ok):
                point = chunk[ok[0]]
                break
        if point is None:
            return None
        if where == "region":
            images = _images(point, self.c.s.size_m, self.c.fold)
        elif where == "x_line" and self.c.fold == 4:  # a pair on the line y = half
            images = [point, np.array([self.c.s.size_m - point[0], point[1]])]
        else:  # on the mirror line x = half (fold 2), or the centre: its own image
            images = [point]
        out = np.array(images)
        self.placed = np.vstack([self.placed, out])
        return out

    def place(self, count: int, spacing: float = 2.0, avoid: np.ndarray | None = None,
              avoid_m: float = 0.0) -> np.ndarray:
        fold = self.c.fold
        out: list[np.ndarray] = []
        for _ in range(count // fold):
            got = self._take("region", spacing, avoid, avoid_m)
            if got is None:
                raise _Retry("no room")
            out.append(got)
        rest = count % fold
        if fold == 4 and rest >= 2:
            got = self._take("x_line", spacing, avoid, avoid_m)
            if got is None:
                raise _Retry("no room on the centre line")
            out.append(got)
            rest -= 2
        if rest:
            got = self._take("centre" if fold == 4 else ("x_line" if fold == 2 else "region"), spacing, avoid, avoid_m)
            if got is None and fold == 4:
                got = self._take("x_line", spacing, avoid, avoid_m)  # the centre is taken: one pair more
            if got is None:
                raise _Retry("no room for the odd one")
            out.append(got)
        if not out:
            return np.zeros((0, 2))
        return np.vstack(out)[: count if fold == 1 else None]

    def spawns(self, count: int) -> np.ndarray:
        """Spawns spread apart: in symmetric maps the region's share starts at its outer corner."""
        c = self.c
        per = count // c.fold if c.fold > 1 else count
        if c.fold > 1 and count % c.fold:
            per += 1  # more spawns than players; the extra ones are harmless
        pts = self._candidates("region", 2.0)
        if len(pts) < per:
            raise _Retry("no room for spawns")
        # symmetric: start nearest the region's outer (south-west) corner; otherwise anywhere
        first = int(np.argmin(pts.sum(axis=1))) if c.fold > 1 else int(c.rng.integers(len(pts)))
        region = farthest_points(pts, first, per)
        groups = [region]
        if c.fold >= 2:
            size = c.s.size_m
            if c.fold == 4:
                groups.append(np.column_stack([region[:, 0], size - region[:, 1]]))
            west = np.vstack(groups)
            groups = [west, np.column_stack([size - west[:, 0], west[:, 1]])]
        spawns = np.vstack(groups)
        self.placed = np.vstack([self.placed, spawns])
        return spawns


class _Retry(Exception):
    """This candidate map cannot be completed; draw the next one."""


def _attempt(s: MapSettings, rng: np.random.Generator) -> dict[str, Any]:
    canvas = _Canvas(s, rng)
    area = canvas.rx * canvas.ry
    if s.style == "open":
        canvas.scatter(s.density * area, s.crate_ratio)
    elif s.style == "rooms":
        canvas.rooms()
        canvas.scatter(s.density * area * s.crate_ratio, 1.0)
    else:
        canvas.maze()
        canvas.scatter(s.density * area * s.crate_ratio * 0.5, 1.0)
    heights = {WALL: s.wall_height_m, CRATE: s.crate_height_m}
    boxes = [[round(x0, 3), round(y0, 3), round(x1, 3), round(y1, 3), heights[v], OBSTACLE_KINDS[v]]
             for x0, y0, x1, y1, v in boxes_from_cells(canvas.full(), canvas.g, empty=FREE)]
    placer = _Placer(canvas, boxes)
    spawns = placer.spawns(s.players)
    turrets = placer.place(s.turrets, spacing=6.0, avoid=spawns, avoid_m=s.spawn_clearance_m)
    coins = placer.place(s.coins, spacing=2.5, avoid=spawns, avoid_m=min(s.spawn_clearance_m, 4.0))
    ammo = placer.place(s.ammo, spacing=3.0)
    chickens = placer.place(s.chickens, spacing=2.0)

    def rows(points: np.ndarray) -> list[list[float]]:
        return [[round(float(x), 3), round(float(y), 3)] for x, y in points]

    def around(points: np.ndarray, half: float) -> list[list[float]]:
        return [[round(max(0.0, x - half), 3), round(max(0.0, y - half), 3),
                 round(min(s.size_m, x + half), 3), round(min(s.size_m, y + half), 3)] for x, y in points]

    spawn_rows = rows(spawns)
    if not isinstance(s.teams, str):  # a number of teams: each spawn says its team (west half first)
        k = int(s.teams)
        spawn_rows = [[*row, i * k // len(spawn_rows)] for i, row in enumerate(spawn_rows)]
    return {
        "name": f"procedural {s.style}",
        "size_m": float(s.size_m),
        "obstacles": boxes,
        "spawns": spawn_rows,
        "coins": rows(coins),
        "turrets": rows(turrets),
        "ammo": rows(ammo),
        "chickens": rows(chickens),
        "ammo_areas": around(ammo, 3.0),
        "chicken_areas": around(chickens, 5.0),
    }


def generate_map(seed: int, settings: MapSettings | None = None, **changes: Any) -> dict[str, Any]:
    """A valid map for `settings` (and keyword changes to them), the same for the same seed."""
    from rtarena.envs.arena.maps.validate import validate_map

    s = replace(settings or MapSettings(), **changes).checked()
    last = "no attempt"
    for attempt in range(MAX_ATTEMPTS):
        rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, attempt])
        try:
            data = _attempt(s, rng)
        except _Retry as why:
            last = str(why)
            continue
        problems = validate_map(data, f"procedural:{seed}:{s.style}", players=s.players)
        if not problems:
            data["notes"] = f"seed {seed}; " + ", ".join(f"{k}={v}" for k, v in asdict(s).items())
            return data
        last = problems[0].line()
    raise UserError(f"cannot generate a {s.style} map with these settings ({last}); lower the density or counts",
                    source=f"procedural:{seed}")
