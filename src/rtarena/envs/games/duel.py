"""Duel: 1v1 melee on a floating square platform; a hit damages and knocks back, falling off loses."""

from __future__ import annotations

import math

import numpy as np
from pydantic import Field

from rtarena.envs.games.base import Input, SuiteGame
from rtarena.envs.games.canvas import Canvas
from rtarena.envs.games.reports import DuelReport
from rtarena.envs.games.rules import GameRules, Section
from rtarena.envs.games.versus import DRAW, LOSS, WIN, outcome
from rtarena.envs.games.walker import place
from rtarena.errors import UserError


class Platform(Section):
    size_m: tuple[float, float]
    holes: int = Field(ge=0, le=6)
    hole_m: float = Field(gt=0)
    shrink_m_s: float = Field(ge=0)
    min_m: float = Field(gt=0)


class Fighter(Section):
    speed_m_s: float = Field(gt=0)
    radius_m: float = Field(gt=0)
    health: int = Field(ge=1)
    reach_m: float = Field(gt=0)
    damage: int = Field(ge=0)
    cooldown_s: float = Field(ge=0)
    knockback_m_s: float = Field(ge=0)
    friction_s: float = Field(gt=0)


class DuelRules(GameRules):
    platform: Platform
    fighter: Fighter


class Duel(SuiteGame):
    """Two fighters on a floating square platform: knock the other off or wear it down.

    ## Description
    A square platform (side drawn per seed from `platform.size_m`) floats over a void. The two fighters
    start on opposite sides of the centre along a seeded direction. `Space` strikes: if the other
    fighter's centre is within `fighter.reach_m`, it loses `damage` health and is knocked straight away
    from you at `knockback_m_s` (the push decays with time constant `friction_s`); a strike is possible
    once per `cooldown_s`. A fighter whose centre leaves the platform (over the edge or into a hole)
    falls and loses at once; one at zero health loses too. Both falling on the same step is a draw.

    ## Observation
    `rgb`: the platform from above under the HUD strip (you blue, labelled YOU; the rival red; the legend
    below). `text`: HUD (both healths, strike ready) and where the other fighter and the nearest edge are.
    `state`: x, y, health fraction, other's offset x, y, other's health fraction, platform inset (m), strike
    ready.

    ## Action Space
    Keys `W A S D Space`; no mouse. Text form: `0 0 ; W D ; W ; Space`.

    ## Rewards and Score
    1 for a win, 0.5 for a draw, 0 for a loss (0 while the fight goes on). At the time limit the fighter
    with more health wins; equal health is a draw. Reward = the score's change.

    ## Termination
    A fall or zero health ends the episode for both; the time limit truncates.

    ## Capabilities
    Rated 0-3 in the level file's `[capabilities]` table (`rtarena list --capabilities`).

    ## Variants
    {variants}

    ## Registered Configurations
    - `games/duel-v0`, `games/duel-var1-v0`, `games/duel-var2-v0`, `games/duel-var3-v0`
    """

    level_file = "duel.toml"
    rules_schema = DuelRules
    rules: DuelRules

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if len(self.possible_agents) != 2:
            raise UserError(f"duel is 1v1: num_agents must be 2, got {len(self.possible_agents)}",
                            field="num_agents")

    def state_size(self) -> int:
        return 8

    def other(self, agent: str) -> str:
        return self.possible_agents[1 - self.possible_agents.index(agent)]

    # -- world -------------------------------------------------------------------------------------
    def _new_world(self, rng: np.random.Generator) -> None:
        pf = self.rules.platform
        self.side_m = float(rng.uniform(*pf.size_m))
        centre = np.full(2, self.side_m / 2)
        angle = float(rng.uniform(-math.pi, math.pi))
        offset = np.array([math.cos(angle), math.sin(angle)]) * self.side_m / 4
        self.pos = {"p0": centre + offset, "p1": centre - offset}
        holes = []
        for _ in range(pf.holes * 50):
            if len(holes) >= pf.holes:
                break
            x, y = rng.uniform(0.5, self.side_m - 0.5 - pf.hole_m, size=2)
            mid = np.array([x, y]) + pf.hole_m / 2
            clear = all(np.hypot(*(mid - p)) > pf.hole_m + 1.0 for p in self.pos.values())
            apart = all(abs(x - h[0]) > pf.hole_m + 0.6 or abs(y - h[1]) > pf.hole_m + 0.6 for h in holes)
            if clear and apart:
                holes.append((x, y, x + pf.hole_m, y + pf.hole_m))
        self.holes = np.array(holes, dtype=float).reshape(-1, 4)
        self.vel = {a: np.zeros(2) for a in self.possible_agents}
        self.health = {a: float(self.rules.fighter.health) for a in self.possible_agents}
        self.ready_at = {a: 0.0 for a in self.possible_agents}
        self.hits = {a: 0 for a in self.possible_agents}
        self.result: dict[str, float] | None = None

    def inset(self) -> float:
        """How far the edge has moved in on every side (var2)."""
        pf = self.rules.platform
        return min(pf.shrink_m_s * self.t, max(0.0, (self.side_m - pf.min_m) / 2))

    def on_platform(self, pos: np.ndarray) -> bool:
        lo, hi = self.inset(), self.side_m - self.inset()
        inside = lo <= pos[0] <= hi and lo <= pos[1] <= hi
        in_hole = bool(np.any((self.holes[:, 0] <= pos[0]) & (pos[0] <= self.holes[:, 2])
                              & (self.holes[:, 1] <= pos[1]) & (pos[1] <= self.holes[:, 3])))
        return inside and not in_hole

    def _step_world(self, inputs: dict[str, Input]) -> dict[str, list[dict]]:
        f = self.rules.fighter
        events: dict[str, list[dict]] = {a: [] for a in self.agents}
        for agent, inp in inputs.items():
            if inp.tap("Space") and self.t + 1e-9 >= self.ready_at[agent]:
                self.ready_at[agent] = self.t + f.cooldown_s
                target = self.other(agent)
                gap = self.pos[target] - self.pos[agent]
                dist = float(np.hypot(*gap))
                if dist <= f.reach_m:
                    away = gap / dist if dist > 1e-9 else np.array([1.0, 0.0])
                    self.health[target] = max(0.0, self.health[target] - f.damage)
                    self.vel[target] = away * f.knockback_m_s
                    self.hits[agent] += 1
                    events[agent].append({"type": "hit", "damage": f.damage})
                    events[target].append({"type": "hurt", "damage": f.damage})
                else:
                    events[agent].append({"type": "miss"})
        decay = math.exp(-self.dt / f.friction_s)
        for agent, inp in inputs.items():
            step = np.array(inp.direction()) * f.speed_m_s + self.vel[agent]
            self.pos[agent] = self.pos[agent] + step * self.dt
            self.vel[agent] = self.vel[agent] * decay
        fell = [a for a in self.possible_agents if not self.on_platform(self.pos[a])]
        out = [a for a in self.possible_agents if self.health[a] <= 0]
        for agent in fell:
            events.setdefault(agent, []).append({"type": "fall"})
        losers = set(fell) or set(out)
        if losers:
            self.result = {a: (DRAW if len(losers) == 2 else LOSS if a in losers else WIN)
                           for a in self.possible_agents}
        return events

    def _score(self, agent: str) -> float:
        if self.result is not None:
            return self.result[agent]
        if self.step_count >= self.max_steps:
            return outcome(self.health[agent], self.health[self.other(agent)])
        return 0.0

    def _finished(self, agent: str) -> bool:
        return self.result is not None

    # -- senses ------------------------------------------------------------------------------------
    def _draw(self, agent: str | None) -> Canvas:
        s, e = self.side_m, self.inset()
        void = self.look("void").color
        canvas = self.canvas(-1.0, -1.0, s + 1.0, s + 1.0, background=void)
        canvas.checker(e, e, s - e, s - e, self.look("platform").color, 0.5, 0.9)
        self.decorate(canvas, e + 0.3, e + 0.3, s - e - 0.3, s - e - 0.3, radius_m=0.2)
        for x0, y0, x1, y1 in self.holes:
            canvas.rect(x0, y0, x1, y1, void)
        radius = self.rules.fighter.radius_m
        viewer = agent or self.possible_agents[0]
        for other in self.possible_agents:
            look = self.look("you" if other == viewer else "rival")
            canvas.icon(look, *self.pos[other], radius * 1.3)
            canvas.label(look.label, self.pos[other][0], self.pos[other][1] + radius + 0.35)
        return canvas

    def _ready(self, agent: str) -> bool:
        return self.t + 1e-9 >= self.ready_at[agent]

    def _hud(self, agent: str) -> str:
        other = self.other(agent)
        return (f"your health {self.health[agent]:.0f} | other's health {self.health[other]:.0f} | "
                f"strike {'ready' if self._ready(agent) else 'cooling'}")

    def _report(self, agent: str) -> str:
        pos, lo, hi = self.pos[agent], self.inset(), self.side_m - self.inset()
        edges = {"west": pos[0] - lo, "east": hi - pos[0], "south": pos[1] - lo, "north": hi - pos[1]}
        edge = min(edges, key=edges.get)
        holes = tuple(place(pos, ((h[0] + h[2]) / 2, (h[1] + h[3]) / 2)) for h in self.holes)
        return DuelReport(place(pos, self.pos[self.other(agent)]), edge, edges[edge], holes).format()

    def _state(self, agent: str) -> np.ndarray:
        other, hp = self.other(agent), self.rules.fighter.health
        return np.array([*self.pos[agent], self.health[agent] / hp, *(self.pos[other] - self.pos[agent]),
                         self.health[other] / hp, self.inset(), float(self._ready(agent))])

    def _metrics(self, agent: str) -> dict[str, float]:
        return {"result": self.scores[agent], "health": self.health[agent], "hits": float(self.hits[agent]),
                "fell": float(not self.on_platform(self.pos[agent]))}

    def privileged_state(self, agent: str) -> dict:
        other = self.other(agent)
        return {"pos": self.pos[agent].copy(), "other": self.pos[other].copy(), "side_m": self.side_m,
                "inset": self.inset(), "holes": self.holes.copy(), "reach_m": self.rules.fighter.reach_m,
                "ready": self._ready(agent), "radius_m": self.rules.fighter.radius_m}
