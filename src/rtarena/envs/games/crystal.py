"""Crystal: first-person, two sides; throw balls at the other side's crystal, defend your own."""

from __future__ import annotations

import math

import numpy as np
from pydantic import Field

from rtarena.envs.games.base import Input, SuiteGame
from rtarena.envs.games.canvas import Canvas
from rtarena.envs.games.firstperson import (
    COIN,
    MAT_BOUNDARY,
    MAT_CRATE,
    MAT_WALL,
    PLAYER,
    FirstPersonView,
    crosshair,
    heading_move,
    look,
    radar,
    relative_bearing_deg,
    sprite_rows,
)
from rtarena.envs.games.monsters import segment_blocked
from rtarena.envs.games.reports import Bearing, CrystalReport, Sight
from rtarena.envs.games.rules import GameRules, Section
from rtarena.envs.games.versus import DRAW, LOSS, WIN, outcome, side_of
from rtarena.envs.games.walker import border, walk
from rtarena.errors import UserError

SUBSTEPS = 4
AHEAD_DEG = 2.0  # the report says a thing within this of the view's centre is `ahead`


def touching(rects: np.ndarray, point: np.ndarray, radius: float) -> np.ndarray:
    """Which rectangles a ball of `radius` at `point` touches (their boxes grown by the radius)."""
    return (rects[:, 0] - radius <= point[0]) & (point[0] <= rects[:, 2] + radius) & \
        (rects[:, 1] - radius <= point[1]) & (point[1] <= rects[:, 3] + radius)


class Field_(Section):
    length_m: tuple[float, float]
    width_m: float = Field(ge=8)
    wall_m: float = Field(gt=0)
    pillars: int = Field(ge=0, le=12)
    gates: int = Field(ge=0, le=4)
    gate_m: float = Field(gt=0)
    gate_hits: int = Field(ge=0)


class CrystalSpec(Section):
    health: int = Field(ge=1)
    radius_m: float = Field(gt=0)


class Thrower(Section):
    speed_m_s: float = Field(gt=0)
    radius_m: float = Field(gt=0)
    fov_deg: float = Field(gt=10, lt=170)
    eye_m: float = Field(gt=0)  # the camera above the feet
    respawn_s: float = Field(ge=0)


class Ball(Section):
    speed_m_s: float = Field(gt=0)
    range_m: float = Field(gt=0)
    radius_m: float = Field(gt=0)
    damage: int = Field(ge=1)
    cooldown_s: float = Field(ge=0)


class CrystalRules(GameRules):
    field: Field_
    crystal: CrystalSpec
    player: Thrower
    ball: Ball


class Crystal(SuiteGame):
    """Destroy the other side's crystal with thrown balls while defending your own.

    ## Description
    A walled field (length drawn per seed from `field.length_m`, `width_m` wide). Each side's crystal
    stands near its end (west for `p0`/`p2`, east for `p1`/`p3`), behind `field.gates` gates placed per
    seed across its front; `pillars` seeded boxes stand in the middle third. `LMB` throws a ball along
    the view (`ball.speed_m_s`, flying at most `range_m`, once per `cooldown_s`). A ball that meets a
    wall, a pillar or a gate is absorbed (in var2 a gate breaks after `gate_hits` balls); one that meets
    the other side's crystal takes `damage` of its health; one that meets a player of the other side
    knocks it out: it is gone for `player.respawn_s`, then back beside its crystal. Balls pass through
    your own side's crystal and players. 1v1 (`num_agents=2`) or 2v2 (`num_agents=4`).

    ## Observation
    `rgb`: the first-person view under the HUD strip (your side blue, theirs red; the radar bottom right;
    what each thing is: the legend below). `text`: HUD (both crystals' health, throw ready or knocked out)
    and where the crystals and the other side's players in view are. `state`: x, y, yaw, your crystal's and
    theirs health fractions, their crystal's offset x, y, throw ready, knocked out, then the offsets x, y of
    up to two players of the other side.

    ## Action Space
    Keys `W A S D LMB` (forward, strafe left, back, strafe right, throw); mouse dx turns (degrees,
    + right), dy looks up. Text form: `-20 0 ; W LMB ; W ; W LMB`.

    ## Rewards and Score
    1 for a win, 0.5 for a draw, 0 for a loss (0 while the game goes on). Destroying the other crystal
    wins at once (both on the same step: a draw). Tie-break at the time limit: the side whose crystal
    has more health left wins; equal health is a draw.

    ## Termination
    A destroyed crystal ends the episode for everyone; the time limit truncates.

    ## Capabilities
    Rated 0-3 in the level file's `[capabilities]` table (`rtarena list --capabilities`).

    ## Variants
    {variants}

    ## Registered Configurations
    - `games/crystal-v0`, `games/crystal-var1-v0`, `games/crystal-var2-v0`, `games/crystal-var3-v0`
    """

    level_file = "crystal.toml"
    rules_schema = CrystalRules
    rules: CrystalRules

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if len(self.possible_agents) not in (2, 4):
            raise UserError(f"crystal is 1v1 or 2v2: num_agents must be 2 or 4, got {len(self.possible_agents)}",
                            field="num_agents")

    def state_size(self) -> int:
        return 13

    # -- world -------------------------------------------------------------------------------------
    def _new_world(self, rng: np.random.Generator) -> None:
        f = self.rules.field
        self.length = float(rng.uniform(*f.length_m))
        length, width = self.length, f.width_m
        self.crystals = [np.array([1.5, width / 2]), np.array([length - 1.5, width / 2])]
        self.crystal_hp = [float(self.rules.crystal.health)] * 2
        gates = []
        for x in (3.8, length - 3.8):
            slots = np.arange(0.8, width - f.gate_m - 0.8, f.gate_m + 1.2)  # apart: a gap between any two
            ys = rng.choice(slots, size=min(f.gates, len(slots)), replace=False) + rng.uniform(0.0, 0.6)
            gates += [(x - 0.3, y, x + 0.3, y + f.gate_m) for y in np.sort(ys)]
        self.gates = np.array(gates, dtype=float).reshape(-1, 4)
        self.gate_hits = np.zeros(len(self.gates), dtype=int)
        self.gate_up = np.ones(len(self.gates), dtype=bool)
        pillars = []
        for _ in range(f.pillars * 30):
            if len(pillars) >= f.pillars:
                break
            w, h = rng.uniform(0.8, 1.8, size=2)
            x, y = rng.uniform(length / 3, 2 * length / 3 - w), rng.uniform(1.0, width - 1.0 - h)
            if all(x > p[2] + 1.0 or x + w < p[0] - 1.0 or y > p[3] + 1.0 or y + h < p[1] - 1.0 for p in pillars):
                pillars.append((x, y, x + w, y + h))
        self.pillars = np.array(pillars, dtype=float).reshape(-1, 4)
        self.border = np.array(border(length, width), dtype=float)
        self._build_view()
        self.pos, self.yaw, self.pitch = {}, {}, {}
        for agent in self.possible_agents:
            self._spawn(agent)
            self.pitch[agent] = 0.0
        self.ready_at = {a: 0.0 for a in self.possible_agents}
        self.down_until = {a: -1.0 for a in self.possible_agents}
        self.dealt = {a: 0.0 for a in self.possible_agents}
        self.balls: list[dict] = []
        self.result: dict[str, float] | None = None

    def _build_view(self) -> None:
        f = self.rules.field
        boxes = [(*r, f.wall_m, MAT_BOUNDARY) for r in self.border]
        boxes += [(*r, 1.2, MAT_WALL) for r in self.gates[self.gate_up]]
        boxes += [(*r, f.wall_m, MAT_CRATE) for r in self.pillars]
        self.view = FirstPersonView(self.size, np.array(boxes), max(self.length, f.width_m), self.rules.player.fov_deg)

    def _spawn(self, agent: str) -> None:
        side, index = side_of(agent), int(agent[1:]) // 2
        offset = (index - 0.5) * 3.0 if len(self.possible_agents) == 4 else 0.0
        crystal = self.crystals[side]
        self.pos[agent] = crystal + np.array([1.1 if side == 0 else -1.1, offset + 1.5])  # behind the gates
        self.yaw[agent] = 0.0 if side == 0 else math.pi

    def solids(self) -> np.ndarray:
        """What blocks walking and balls: the border, the gates still standing and the pillars."""
        return np.concatenate([self.border, self.gates[self.gate_up], self.pillars])

    def up(self, agent: str) -> bool:
        return self.t + 1e-9 >= self.down_until[agent]

    def _throw(self, agent: str) -> dict:
        direction = np.array([math.cos(self.yaw[agent]), math.sin(self.yaw[agent])])
        start = self.pos[agent] + direction * (self.rules.player.radius_m + 0.05)
        self.balls.append({"pos": start, "dir": direction, "left_m": self.rules.ball.range_m, "owner": agent})
        return {"type": "throw"}

    def _fly(self, events: dict[str, list[dict]]) -> None:
        b, cr = self.rules.ball, self.rules.crystal
        step = b.speed_m_s * self.dt / SUBSTEPS
        flying = []
        for ball in self.balls:
            side, owner = side_of(ball["owner"]), ball["owner"]
            gone = False
            for _ in range(SUBSTEPS):
                ball["pos"] = ball["pos"] + ball["dir"] * step
                ball["left_m"] -= step
                p = ball["pos"]
                enemy = self.crystals[1 - side]
                if np.hypot(*(p - enemy)) <= cr.radius_m + b.radius_m:
                    damage = min(float(b.damage), self.crystal_hp[1 - side])
                    self.crystal_hp[1 - side] -= damage
                    self.dealt[owner] += damage
                    events[owner].append({"type": "crystal_hit", "damage": damage})
                    gone = True
                    break
                hit = next((a for a in self.possible_agents if side_of(a) != side and self.up(a)
                            and np.hypot(*(p - self.pos[a])) <= self.rules.player.radius_m + b.radius_m), None)
                if hit is not None:
                    self.down_until[hit] = self.t + self.rules.player.respawn_s
                    self._spawn(hit)
                    events[owner].append({"type": "knockout", "target": hit})
                    events.setdefault(hit, []).append({"type": "knocked_out", "by": owner})
                    gone = True
                    break
                gate = np.flatnonzero(self.gate_up & touching(self.gates, p, b.radius_m))
                if len(gate):
                    self._absorb(int(gate[0]), events[owner])
                    gone = True
                    break
                if touching(self.border, p, b.radius_m).any() or touching(self.pillars, p, b.radius_m).any() \
                        or ball["left_m"] <= 0:
                    gone = True
                    break
            if not gone:
                flying.append(ball)
        self.balls = flying

    def _absorb(self, gate: int, events: list[dict]) -> None:
        self.gate_hits[gate] += 1
        events.append({"type": "absorbed", "gate": gate})
        limit = self.rules.field.gate_hits
        if limit and self.gate_hits[gate] >= limit:
            self.gate_up[gate] = False
            events.append({"type": "gate_broken", "gate": gate})
            self._build_view()

    def _step_world(self, inputs: dict[str, Input]) -> dict[str, list[dict]]:
        p = self.rules.player
        events: dict[str, list[dict]] = {a: [] for a in self.agents}
        solids = self.solids()
        for agent, inp in inputs.items():
            if not self.up(agent):
                continue
            self.yaw[agent], self.pitch[agent] = look(self.yaw[agent], self.pitch[agent], inp.dx, inp.dy)
            way = heading_move(self.yaw[agent], inp.axis("S", "W"), inp.axis("A", "D"))
            self.pos[agent] = walk(self.pos[agent], way, p.speed_m_s * self.dt, p.radius_m, solids)
            if inp.tap("LMB") and self.t + 1e-9 >= self.ready_at[agent]:
                self.ready_at[agent] = self.t + self.rules.ball.cooldown_s
                events[agent].append(self._throw(agent))
        self._fly(events)
        broken = [s for s in (0, 1) if self.crystal_hp[s] <= 0]
        if broken:
            self.result = {a: DRAW if len(broken) == 2 else LOSS if side_of(a) in broken else WIN
                           for a in self.possible_agents}
        return events

    def _score(self, agent: str) -> float:
        if self.result is not None:
            return self.result[agent]
        if self.step_count >= self.max_steps:
            side = side_of(agent)
            return outcome(self.crystal_hp[side], self.crystal_hp[1 - side])
        return 0.0

    def _finished(self, agent: str) -> bool:
        return self.result is not None

    # -- senses ------------------------------------------------------------------------------------
    def side_look(self, viewer: str, side: int, kind: str):
        """Your side is drawn blue and the other red, whichever seat you play: `your crystal`, `their
        player` ... in the drawables table."""
        return self.look(f"{'your' if side == side_of(viewer) else 'their'} {kind}")

    def _draw(self, agent: str | None) -> Canvas:
        viewer = agent or self.possible_agents[0]
        cr = self.rules.crystal
        sprites = [sprite_rows(PLAYER, [[*c, 0.0]], cr.radius_m * 2, 2.0 * max(self.crystal_hp[s], 1) / cr.health + 0.3,
                               self.side_look(viewer, s, "crystal").color) for s, c in enumerate(self.crystals)]
        sprites += [sprite_rows(PLAYER, [[*self.pos[a], 0.0]], 0.8, 1.7,
                                self.side_look(viewer, side_of(a), "player").color)
                    for a in self.possible_agents if a != viewer and self.up(a)]
        if self.balls:
            sprites.append(sprite_rows(COIN, [[*b["pos"], 1.0] for b in self.balls], 0.3, 0.3, self.look("ball").color))
        image = self.view.draw(*self.pos[viewer], self.rules.player.eye_m, self.yaw[viewer], self.pitch[viewer],
                               np.concatenate(sprites))
        canvas = Canvas.over(image)
        crosshair(canvas, self.size, self.look("crosshair"))
        self._radar(canvas, viewer)
        return canvas

    def _radar(self, canvas: Canvas, viewer: str) -> None:
        """The field from above: standing gates, the pillars, both crystals, every player who is up (the
        gates and pillars are what the text view's `clear line` counts, so a reader of the radar can too)."""
        dots = [(c, max(1.5, 0.8 * (self.size // 3) / max(self.length, self.rules.field.width_m)),
                 self.side_look(viewer, s, "crystal").color) for s, c in enumerate(self.crystals)]
        dots += [(self.pos[a], self.size / 110, self.side_look(viewer, side_of(a), "player").color)
                 for a in self.possible_agents if a != viewer and self.up(a)]
        radar(canvas, self.size, (self.length, self.rules.field.width_m),
              [(g, self.look("gate").color) for g in self.gates[self.gate_up]]
              + [(p, self.look("pillar").color) for p in self.pillars], dots, self.pos[viewer],
              self.yaw[viewer], self.look("radar").label)

    def _hud(self, agent: str) -> str:
        side = side_of(agent)
        state = ("ball ready" if self.t + 1e-9 >= self.ready_at[agent] else "ball cooling") if self.up(agent) \
            else f"knocked out ({self.down_until[agent] - self.t:.1f} s)"
        return (f"your crystal {self.crystal_hp[side]:.0f} | their crystal {self.crystal_hp[1 - side]:.0f} | "
                f"{state}")

    def _where(self, agent: str, point: np.ndarray) -> Sight:
        dist = float(np.hypot(*(point - self.pos[agent])))
        at = Bearing.seen(dist, relative_bearing_deg(*self.pos[agent], self.yaw[agent], *point), AHEAD_DEG)
        return Sight(at, not segment_blocked(self.pos[agent], point, self.solids()[4:]))

    def _report(self, agent: str) -> str:
        side = side_of(agent)
        enemies = [a for a in self.possible_agents if side_of(a) != side and self.up(a)]
        foes = tuple((a, self._where(agent, self.pos[a])) for a in enemies)
        return CrystalReport(self._where(agent, self.crystals[1 - side]), self._where(agent, self.crystals[side]),
                             foes, int(self.gate_up.sum())).format()

    def _state(self, agent: str) -> np.ndarray:
        side, hp = side_of(agent), self.rules.crystal.health
        enemies = np.zeros((2, 2))
        for i, a in enumerate([a for a in self.possible_agents if side_of(a) != side][:2]):
            enemies[i] = self.pos[a] - self.pos[agent]
        head = [*self.pos[agent], self.yaw[agent], self.crystal_hp[side] / hp, self.crystal_hp[1 - side] / hp,
                *(self.crystals[1 - side] - self.pos[agent]), float(self.t + 1e-9 >= self.ready_at[agent]),
                float(not self.up(agent))]
        return np.concatenate([head, enemies.ravel()])

    def _metrics(self, agent: str) -> dict[str, float]:
        side = side_of(agent)
        return {"result": self.scores[agent], "crystal_damage_dealt": self.dealt[agent],
                "own_crystal_health": self.crystal_hp[side]}

    def privileged_state(self, agent: str) -> dict:
        side = side_of(agent)
        return {"pos": self.pos[agent].copy(), "yaw": self.yaw[agent], "target": self.crystals[1 - side].copy(),
                "solids": self.solids(), "ready": self.t + 1e-9 >= self.ready_at[agent], "up": self.up(agent),
                "side": side, "length_m": self.length, "width_m": self.rules.field.width_m,
                "range_m": self.rules.ball.range_m, "crystal_radius_m": self.rules.crystal.radius_m,
                "radius_m": self.rules.player.radius_m}
