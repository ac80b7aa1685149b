"""Monsters: a first-person shooter in a closed arena against monsters that chase and explode."""

from __future__ import annotations

import math

import numpy as np
from pydantic import Field

from rtarena.envs.games.base import Input, SuiteGame
from rtarena.envs.games.canvas import Canvas
from rtarena.envs.games.firstperson import (
    MAT_BOUNDARY,
    MAT_CRATE,
    PLAYER,
    FirstPersonView,
    crosshair,
    heading_move,
    look,
    radar,
    relative_bearing_deg,
    sprite_rows,
)
from rtarena.envs.games.reports import Bearing, MonstersReport
from rtarena.envs.games.rules import GameRules, Section
from rtarena.envs.games.walker import border, walk

AHEAD_DEG = 2.0  # the report says a monster within this of the view's centre is `ahead`


def _by_words(where: Bearing) -> tuple[float, str]:
    """The report's order: nearest first, then by the words of the side."""
    return where.dist_m, where.side()


class Arena(Section):
    size_m: float = Field(ge=8)
    pillars: int = Field(ge=0)
    pillar_m: tuple[float, float]
    wall_m: float = Field(gt=0)


class Shooter(Section):
    speed_m_s: float = Field(gt=0)
    radius_m: float = Field(gt=0)
    health: int = Field(ge=1)
    fov_deg: float = Field(gt=10, lt=170)
    eye_m: float = Field(gt=0)  # the camera above the feet
    shot_damage: int = Field(ge=1)
    cooldown_s: float = Field(ge=0)


class Horde(Section):
    count: int = Field(ge=1)
    health: int = Field(ge=1)
    speed_m_s: float = Field(ge=0)
    radius_m: float = Field(gt=0)
    first_wave: int = Field(ge=1)
    spawn_every_s: float = Field(gt=0)
    spawn_min_m: float = Field(ge=0)
    explode_m: float = Field(gt=0)
    explode_damage: int = Field(ge=0)
    frozen_in_view: bool


class MonstersRules(GameRules):
    arena: Arena
    player: Shooter
    monsters: Horde


def segment_blocked(a: np.ndarray, b: np.ndarray, rects: np.ndarray) -> bool:
    """Whether the segment a-b passes through any rectangle (slab test)."""
    return len(rects) > 0 and bool(np.any(_crossings(a, b - a, rects)))


def segments_blocked(a: np.ndarray, b: np.ndarray, rects: np.ndarray) -> np.ndarray:
    """For each of the `(k, 2)` segments a-b, whether it passes through any rectangle (slab test): one array
    pass, so a player can test many candidate lines at once."""
    if len(rects) == 0:
        return np.zeros(len(a), dtype=bool)
    return np.any(_crossings(a[:, None, :], (b - a)[:, None, :], rects), axis=1)


def _crossings(a: np.ndarray, d: np.ndarray, rects: np.ndarray) -> np.ndarray:
    """Per rectangle (per segment and rectangle when a and d carry a segment axis): whether the segment from a
    along d enters it."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (rects[:, [0, 1]] - a) / d
        t2 = (rects[:, [2, 3]] - a) / d
    t1 = np.where(np.isnan(t1), -np.inf, t1)
    t2 = np.where(np.isnan(t2), np.inf, t2)
    near = np.minimum(t1, t2).max(axis=-1)
    far = np.maximum(t1, t2).min(axis=-1)
    return (near <= far) & (far > 0) & (near < 1)


class Monsters(SuiteGame):
    """Shoot the monsters that chase you through a closed arena before they reach you and explode.

    ## Description
    A closed arena (`arena.size_m` square, walls `wall_m` high) with seeded pillars. Monsters
    (`monsters.count` in all, `health` each) appear `first_wave` at a time and then one every
    `spawn_every_s`, at least `spawn_min_m` from you, and walk straight at you at `speed_m_s`
    (sliding along pillars). A monster that comes within `explode_m` explodes: it is gone, you lose
    `explode_damage` health and score nothing for it. `LMB` fires a hitscan shot along the crosshair
    (`player.shot_damage`, at most once per `cooldown_s`; each press fires once); pillars stop shots.

    ## Observation
    `rgb`: the first-person view (the arena's raycaster) under the HUD strip; crosshair in the middle, the
    radar bottom right (the legend below). `text`: HUD (health, monsters left, gun) and the monsters in view
    with distance and bearing, and how many are out of view. `state`: x, y, yaw (rad), health fraction, then
    per monster slot: offset x, offset y, health fraction (zeros when not alive).

    ## Action Space
    Keys `W A S D LMB` (forward, strafe left, back, strafe right, fire); mouse dx turns (degrees, +
    right), dy looks up. Text form: `-20 0 ; W LMB ; W ; W LMB`.

    ## Rewards and Score
    score = damage dealt / (`monsters.count` x `monsters.health`) (exploded monsters count for
    nothing); reward = the score's change.

    ## Termination
    Losing all health or leaving no monster (all killed or exploded) terminates; the time limit
    truncates.

    ## Capabilities
    Rated 0-3 in the level file's `[capabilities]` table (`rtarena list --capabilities`).

    ## Variants
    {variants}

    ## Registered Configurations
    - `games/monsters-v0`, `games/monsters-var1-v0`, `games/monsters-var2-v0`, `games/monsters-var3-v0`
    """

    level_file = "monsters.toml"
    rules_schema = MonstersRules
    rules: MonstersRules

    def state_size(self) -> int:
        return 4 + 3 * self.rules.monsters.count

    # -- world -------------------------------------------------------------------------------------
    def _new_world(self, rng: np.random.Generator) -> None:
        a = self.rules.arena
        size = a.size_m
        pillars = []
        for _ in range(a.pillars * 20):
            if len(pillars) >= a.pillars:
                break
            w, h = rng.uniform(*a.pillar_m, size=2)
            x, y = rng.uniform(1.0, size - 1.0 - w), rng.uniform(1.0, size - 1.0 - h)
            rect = (x, y, x + w, y + h)
            clear_of_start = not (x - 1.5 < size / 2 < x + w + 1.5 and y - 1.5 < size / 2 < y + h + 1.5)
            diagonal = (np.array([x - 0.6, y - 0.6]), np.array([x + w + 0.6, y + h + 0.6]))
            if clear_of_start and not segment_blocked(*diagonal, np.array(pillars).reshape(-1, 4)):
                pillars.append(rect)  # apart from the others (their padded diagonal crosses none)
        self.pillars = np.array(pillars, dtype=float).reshape(-1, 4)
        self.walls = np.concatenate([np.array(border(size, size)), self.pillars])
        table = [(*r, a.wall_m, MAT_BOUNDARY) for r in border(size, size)] + [(*r, a.wall_m, MAT_CRATE)
                                                                               for r in self.pillars]
        self.view = FirstPersonView(self.size, np.array(table), size, self.rules.player.fov_deg)
        self.pos = {ag: np.full(2, size / 2) for ag in self.possible_agents}
        self.yaw = {ag: float(rng.uniform(-math.pi, math.pi)) for ag in self.possible_agents}
        self.pitch = {ag: 0.0 for ag in self.possible_agents}
        self.health = {ag: float(self.rules.player.health) for ag in self.possible_agents}
        self.ready_at = {ag: 0.0 for ag in self.possible_agents}
        self.dealt = {ag: 0.0 for ag in self.possible_agents}
        m = self.rules.monsters
        self.mpos = np.zeros((m.count, 2))
        self.mhealth = np.zeros(m.count)
        self.alive = np.zeros(m.count, dtype=bool)
        self.spawned = 0
        self.next_spawn_s = m.spawn_every_s
        for _ in range(min(m.first_wave, m.count)):
            self._spawn(rng)

    def _spawn(self, rng: np.random.Generator) -> None:
        m, size = self.rules.monsters, self.rules.arena.size_m
        players = [self.pos[a] for a in self.agents or self.possible_agents]
        spot = np.array([1.0, 1.0])
        for _ in range(200):
            spot = rng.uniform(1.0, size - 1.0, size=2)
            far = all(np.hypot(*(spot - p)) >= m.spawn_min_m for p in players)
            if far and not segment_blocked(spot - m.radius_m, spot + m.radius_m, self.pillars):
                break
        i = self.spawned
        self.mpos[i], self.mhealth[i], self.alive[i] = spot, m.health, True
        self.spawned += 1

    def sees(self, agent: str, point: np.ndarray) -> bool:
        """Whether `point` is inside the agent's field of view with nothing in between."""
        bearing = relative_bearing_deg(*self.pos[agent], self.yaw[agent], *point)
        return abs(bearing) <= self.rules.player.fov_deg / 2 and not segment_blocked(self.pos[agent], point,
                                                                                     self.pillars)

    def _shoot(self, agent: str) -> dict:
        m = self.rules.monsters
        origin, yaw = self.pos[agent], self.yaw[agent]
        direction = np.array([math.cos(yaw), math.sin(yaw)])
        rel = self.mpos - origin
        along = rel @ direction
        across = np.abs(rel[:, 0] * direction[1] - rel[:, 1] * direction[0])
        hit = self.alive & (along > 0) & (across <= m.radius_m)
        for i in np.argsort(np.where(hit, along, np.inf)):
            if not hit[i]:
                break
            if segment_blocked(origin, self.mpos[i], self.pillars):
                return {"type": "shot", "hit": None}
            damage = min(float(self.rules.player.shot_damage), self.mhealth[i])
            self.mhealth[i] -= damage
            self.dealt[agent] += damage
            if self.mhealth[i] <= 0:
                self.alive[i] = False
                return {"type": "shot", "hit": int(i), "damage": damage, "killed": True}
            return {"type": "shot", "hit": int(i), "damage": damage, "killed": False}
        return {"type": "shot", "hit": None}

    def _step_world(self, inputs: dict[str, Input]) -> dict[str, list[dict]]:
        p, m = self.rules.player, self.rules.monsters
        events: dict[str, list[dict]] = {a: [] for a in self.agents}
        for agent, inp in inputs.items():
            self.yaw[agent], self.pitch[agent] = look(self.yaw[agent], self.pitch[agent], inp.dx, inp.dy)
            way = heading_move(self.yaw[agent], inp.axis("S", "W"), inp.axis("A", "D"))
            self.pos[agent] = walk(self.pos[agent], way, p.speed_m_s * self.dt, p.radius_m, self.walls)
            if inp.tap("LMB") and self.t + 1e-9 >= self.ready_at[agent]:
                self.ready_at[agent] = self.t + p.cooldown_s
                events[agent].append(self._shoot(agent))
        self.next_spawn_s -= self.dt
        if self.next_spawn_s <= 1e-9 and self.spawned < m.count:
            self.next_spawn_s += m.spawn_every_s
            self._spawn(self.np_random)
        for i in np.flatnonzero(self.alive):
            target = min(self.agents, key=lambda a: float(np.hypot(*(self.pos[a] - self.mpos[i]))))
            if m.frozen_in_view and any(self.sees(a, self.mpos[i]) for a in self.agents):
                continue
            gap = self.pos[target] - self.mpos[i]
            dist = float(np.hypot(*gap))
            if dist > 1e-9:
                self.mpos[i] = walk(self.mpos[i], tuple(gap / dist), m.speed_m_s * self.dt, m.radius_m, self.walls)
            if float(np.hypot(*(self.pos[target] - self.mpos[i]))) <= m.explode_m:
                self.alive[i] = False
                self.health[target] = max(0.0, self.health[target] - m.explode_damage)
                events[target].append({"type": "explode", "monster": int(i), "damage": m.explode_damage})
        return events

    def _score(self, agent: str) -> float:
        m = self.rules.monsters
        return self.dealt[agent] / (m.count * m.health)

    def _finished(self, agent: str) -> bool:
        cleared = self.spawned >= self.rules.monsters.count and not self.alive.any()
        return self.health[agent] <= 0 or cleared

    # -- senses ------------------------------------------------------------------------------------
    def _draw(self, agent: str | None) -> Canvas:
        viewer = agent or self.possible_agents[0]
        alive = np.flatnonzero(self.alive)
        xyz = np.column_stack([self.mpos[alive], np.zeros(len(alive))])
        monster = self.look("monster").color
        sprites = sprite_rows(PLAYER, xyz, 0.8, 1.4, monster)
        eye = self.rules.player.eye_m
        image = self.view.draw(*self.pos[viewer], eye, self.yaw[viewer], self.pitch[viewer], sprites)
        canvas = Canvas.over(image)
        crosshair(canvas, self.size, self.look("crosshair"))
        size_m = self.rules.arena.size_m  # the radar: the monsters out of sight the text view counts too
        radar(canvas, self.size, (size_m, size_m), [], [(self.mpos[i], self.size / 110, monster) for i in alive],
              self.pos[viewer], self.yaw[viewer], self.look("radar").label)
        return canvas

    def _hud(self, agent: str) -> str:
        left = self.rules.monsters.count - self.spawned + int(self.alive.sum())
        gun = "ready" if self.t + 1e-9 >= self.ready_at[agent] else "cooling"
        return f"health {self.health[agent]:.0f}/{self.rules.player.health} | monsters left {left} | gun {gun}"

    def _report(self, agent: str) -> str:
        x, y = self.pos[agent]
        seen, unseen = [], []
        for i in np.flatnonzero(self.alive):
            dist = float(np.hypot(*(self.mpos[i] - self.pos[agent])))
            where = Bearing.seen(dist, relative_bearing_deg(x, y, self.yaw[agent], *self.mpos[i]), AHEAD_DEG)
            (seen if self.sees(agent, self.mpos[i]) else unseen).append(where)
        order = sorted(seen, key=_by_words), min(unseen, key=_by_words, default=None)
        return MonstersReport(x, y, math.degrees(self.yaw[agent]), tuple(order[0]), len(unseen), order[1]).format()

    def _state(self, agent: str) -> np.ndarray:
        rel = np.where(self.alive[:, None], self.mpos - self.pos[agent], 0.0)
        health = np.where(self.alive, self.mhealth / self.rules.monsters.health, 0.0)
        head = [*self.pos[agent], self.yaw[agent], self.health[agent] / self.rules.player.health]
        return np.concatenate([head, np.column_stack([rel, health]).ravel()])

    def _metrics(self, agent: str) -> dict[str, float]:
        return {"damage_dealt": self.dealt[agent], "health": self.health[agent]}

    def privileged_state(self, agent: str) -> dict:
        return {"pos": self.pos[agent].copy(), "yaw": self.yaw[agent], "monsters": self.mpos[self.alive].copy(),
                "pillars": self.pillars.copy(), "ready": self.t + 1e-9 >= self.ready_at[agent],
                "radius_m": self.rules.monsters.radius_m, "fov_deg": self.rules.player.fov_deg,
                "frozen_in_view": self.rules.monsters.frozen_in_view, "size_m": self.rules.arena.size_m}
