"""The arena's world state: plain numpy arrays grouped in dataclasses, one per kind of thing.

This module is the data model every other arena module reads (physics, turrets, observations, the
renderer in `envs/arena/render/`). It holds no rules; it only says what exists and where.

Conventions (all units SI):
- The arena floor is the square `[0, size_m] x [0, size_m]`; `x` points east, `y` north, `z` up; the floor
  is at `z = 0`.
- Angles are radians. `yaw = 0` looks along `+x`, positive yaw turns left (counter-clockwise seen from
  above, toward `+y`). `pitch = 0` is level, positive looks up.
- A player is an upright cylinder of `radius_m` and `height_m` standing on `pos[:, 2]` (its feet); the
  eye is at `pos[:, 2] + eye_height_m`.
- Obstacles are axis-aligned boxes `x0, y0, x1, y1, height` standing on the floor. `kind` says whether a
  box is a full wall (`WALL`: blocks movement, sight and shots at every height) or a low crate (`CRATE`:
  blocks walking and sight/shots only below its top; players can jump onto and over it). The four
  boundary walls are ordinary `WALL` boxes just outside the floor.
- Arrays keep their length for the whole episode; things that disappear are flagged (`active`, `alive`)
  rather than removed, so indices are stable ids (`coin 3` is the same coin all episode).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# The one set of obstacle codes: `Obstacles.kind[i]`, compiled collision and sight code, the map generator's
# painted cells, and (by name, `OBSTACLE_KINDS[code]`) the map format's `"wall"` / `"crate"`.
WALL = 0
CRATE = 1
OBSTACLE_KINDS = ("wall", "crate")


def _f(shape) -> np.ndarray:
    return np.zeros(shape, dtype=np.float64)


@dataclass
class Players:
    """Every player of the episode, alive or not; index i is env agent `possible_agents[i]`."""

    pos: np.ndarray  # (N, 3) feet position x, y, z in metres
    vel_z: np.ndarray  # (N,) vertical speed, m/s (gravity acts on it)
    yaw: np.ndarray  # (N,) radians
    pitch: np.ndarray  # (N,) radians
    team: np.ndarray  # (N,) int team index
    health: np.ndarray  # (N,) hit points, 0 when dead
    ammo: np.ndarray  # (N,) rounds carried (int)
    alive: np.ndarray  # (N,) bool
    on_ground: np.ndarray  # (N,) bool: standing on the floor or a crate top
    fire_cooldown_s: np.ndarray  # (N,) seconds until the next shot is allowed
    minimap_open: np.ndarray  # (N,) bool: the minimap action was taken this step
    death_time_s: np.ndarray  # (N,) sim time of death, +inf while alive
    radius_m: float = 0.4
    height_m: float = 1.8
    eye_height_m: float = 1.6
    max_health: float = 100.0
    ammo_max: int = 30

    @classmethod
    def empty(cls, n: int) -> Players:
        return cls(
            pos=_f((n, 3)), vel_z=_f(n), yaw=_f(n), pitch=_f(n), team=np.zeros(n, np.int64),
            health=_f(n), ammo=np.zeros(n, np.int64), alive=np.zeros(n, bool), on_ground=np.ones(n, bool),
            fire_cooldown_s=_f(n), minimap_open=np.zeros(n, bool), death_time_s=np.full(n, np.inf),
        )

    def __len__(self) -> int:
        return len(self.yaw)

    @property
    def eye(self) -> np.ndarray:
        """(N, 3) eye positions."""
        eye = self.pos.copy()
        eye[:, 2] += self.eye_height_m
        return eye


@dataclass
class Obstacles:
    """Axis-aligned boxes on the floor: `boxes[i] = (x0, y0, x1, y1, height)` and `kind[i]` (WALL/CRATE)."""

    boxes: np.ndarray  # (M, 5)
    kind: np.ndarray  # (M,) int

    def __len__(self) -> int:
        return len(self.kind)


@dataclass
class Coins:
    """Coins, placed at the start; a collected coin never comes back."""

    pos: np.ndarray  # (C, 3); z is the height the coin floats at
    active: np.ndarray  # (C,) bool


@dataclass
class AmmoBoxes:
    """Ammo boxes; a picked-up box comes back after `respawn_in_s` at a random free place."""

    pos: np.ndarray  # (A, 3)
    active: np.ndarray  # (A,) bool
    respawn_in_s: np.ndarray  # (A,) seconds until an inactive box reappears


@dataclass
class Chickens:
    """Harmless chickens that wander; a shot chicken comes back after `respawn_in_s`."""

    pos: np.ndarray  # (K, 3)
    yaw: np.ndarray  # (K,) walking direction, radians
    alive: np.ndarray  # (K,) bool
    respawn_in_s: np.ndarray  # (K,)
    turn_in_s: np.ndarray  # (K,) seconds until the chicken picks a new direction
    radius_m: float = 0.3


@dataclass
class Turrets:
    """Fixed turrets; a destroyed turret stays destroyed.

    `target` is the index of the player the turret is locked on, -1 when none. `barrel_yaw` is the
    direction the barrel points (radians); `barrel_height_m` is the height of its muzzle above the floor.
    """

    pos: np.ndarray  # (T, 3) base position
    barrel_yaw: np.ndarray  # (T,)
    health: np.ndarray  # (T,)
    alive: np.ndarray  # (T,) bool
    target: np.ndarray  # (T,) int, -1 = no lock
    cooldown_s: np.ndarray  # (T,) seconds until it may fire again
    wander_rate: np.ndarray  # (T,) current random turn rate while idle, rad/s
    wander_in_s: np.ndarray  # (T,) seconds until the idle turn rate changes
    max_health: float = 100.0
    radius_m: float = 0.6
    barrel_height_m: float = 1.4


@dataclass
class Projectiles:
    """Turret shells in flight (player shots are instantaneous and never appear here)."""

    pos: np.ndarray  # (P, 3)
    vel: np.ndarray  # (P, 3) m/s
    turret: np.ndarray  # (P,) int, the turret that fired it
    target: np.ndarray  # (P,) int, the player it was aimed at
    ttl_s: np.ndarray  # (P,) seconds left before it vanishes

    @classmethod
    def empty(cls) -> Projectiles:
        return cls(_f((0, 3)), _f((0, 3)), np.zeros(0, np.int64), np.zeros(0, np.int64), _f(0))


@dataclass
class Zone:
    """The toxic zone: everything farther than `radius_m` from `center` (in the floor plane) is toxic."""

    center: np.ndarray  # (2,)
    radius_m: float
    enabled: bool = True
    next_shrink_s: float = float("inf")  # sim time at which the next shrink starts (inf: no more)
    target_radius_m: float = 0.0  # radius the current or next shrink ends at


@dataclass
class World:
    """Everything that exists in one arena episode, and the simulated clock."""

    size_m: float
    obstacles: Obstacles
    players: Players
    coins: Coins
    ammo: AmmoBoxes
    chickens: Chickens
    turrets: Turrets
    zone: Zone
    projectiles: Projectiles = field(default_factory=Projectiles.empty)
    time_s: float = 0.0
    time_limit_s: float = 300.0
    # Areas (x0, y0, x1, y1) a map gives for ammo boxes (box k reappears in area k mod A) and chickens;
    # empty: anywhere free.
    ammo_areas: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    chicken_areas: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))

    @property
    def time_left_s(self) -> float:
        return max(0.0, self.time_limit_s - self.time_s)

    def occupancy(self, cell_m: float = 1.0, inflate_m: float = 0.0, crates_block: bool = True) -> np.ndarray:
        """A boolean grid `[ix, iy]` of cells blocked by obstacles (grown by `inflate_m`), for planners
        and the minimap (`occupancy_grid`)."""
        return occupancy_grid(self.obstacles.boxes, self.obstacles.kind, self.size_m, cell_m, inflate_m, crates_block)


def occupancy_grid(boxes: np.ndarray, kinds: np.ndarray, size_m: float, cell_m: float = 1.0, inflate_m: float = 0.0,
                   crates_block: bool = True) -> np.ndarray:
    """A boolean grid `[ix, iy]` of the cells that obstacle `boxes` (rows x0, y0, x1, y1, height; `kinds` per
    box) block, grown by `inflate_m`; cell `(ix, iy)` covers `[ix*cell_m, (ix+1)*cell_m) x [iy*cell_m,
    (iy+1)*cell_m)`. A function of values, so a privileged bot builds it from its snapshot."""
    n = int(np.ceil(size_m / cell_m))
    centres = (np.arange(n) + 0.5) * cell_m
    grid = np.zeros((n, n), dtype=bool)
    for (x0, y0, x1, y1, _h), kind in zip(boxes, kinds, strict=True):
        if kind == CRATE and not crates_block:
            continue
        xs = (centres >= x0 - inflate_m) & (centres <= x1 + inflate_m)
        ys = (centres >= y0 - inflate_m) & (centres <= y1 + inflate_m)
        grid[np.ix_(xs, ys)] = True
    return grid
