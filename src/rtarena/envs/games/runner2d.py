"""Runner 2D: a side-view run across floating platforms to a flag, against a countdown."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from rtarena.envs.games.base import Input, SuiteGame
from rtarena.envs.games.canvas import Canvas
from rtarena.envs.games.reports import RunnerReport
from rtarena.envs.games.rules import GameRules, Section

SLAB_M = 0.4  # platform thickness
BODY_M = 1.0  # runner height (the drawables table says it: "a square 1 m tall", which the pixel player reads)
AHEAD = 3  # platforms described in the text and state


class Course(Section):
    layout: Literal["flat", "stairs"]
    platforms: int = Field(ge=3, le=60)
    length_m: tuple[float, float]
    gap_m: tuple[float, float]
    rise_m: tuple[float, float]
    max_height_m: float = Field(ge=0)
    crumble_s: float = Field(ge=0)


class Runner(Section):
    run_m_s: float = Field(gt=0)
    jump_m_s: float = Field(gt=0)
    gravity_m_s2: float = Field(gt=0)
    half_width_m: float = Field(gt=0)
    fall_below_m: float


class Runner2DRules(GameRules):
    course: Course
    player: Runner


class Runner2D(SuiteGame):
    """Run right across floating platforms, jump the gaps, reach the flag before the countdown ends.

    ## Description
    A side view of `course.platforms` floating platforms (lengths, gaps and height changes drawn from the
    seed within the level file's ranges); the flag stands on the last one. `D`/`A` run right/left at
    `player.run_m_s`; `Space` jumps (when standing; it acts when pressed, so release it between jumps).
    Falling below `player.fall_below_m` ends the run.

    ## Observation
    `rgb`: the side view around the runner under the HUD strip (the legend below). `text`: HUD, position,
    and the next platforms (gap, length, height change). `state`: x / flag x, height, vx, vy, standing, then
    for the next 3 platforms their start and end relative to you and their height relative to yours.

    ## Action Space
    Keys `A D Space`; no mouse. Text form: `0 0 ; D*5 ; D Space ; D*6`.

    ## Rewards and Score
    score = furthest x reached / flag x (1 at the flag); reward = the score's change.

    ## Termination
    Reaching the flag or falling terminates; the countdown (`game.time_limit_s`) truncates.

    ## Capabilities
    Rated 0-3 in the level file's `[capabilities]` table (`rtarena list --capabilities`).

    ## Variants
    {variants}

    ## Registered Configurations
    - `games/runner2d-v0`, `games/runner2d-var1-v0`, `games/runner2d-var2-v0`, `games/runner2d-var3-v0`
    """

    level_file = "runner2d.toml"
    rules_schema = Runner2DRules
    rules: Runner2DRules

    def state_size(self) -> int:
        return 5 + 3 * AHEAD

    def _new_world(self, rng: np.random.Generator) -> None:
        c = self.rules.course
        # platforms: rows (x0, x1, top)
        rows, x, top, climb = [(0.0, 6.0, 0.0)], 6.0, 0.0, 1.0
        for i in range(c.platforms - 1):
            gap = rng.uniform(*c.gap_m)
            length = rng.uniform(*c.length_m)
            if c.layout == "stairs":
                if i % 6 == 0:
                    climb = 1.0 if top < c.max_height_m / 2 else -1.0
                rise = climb * abs(rng.uniform(*c.rise_m))
            else:
                rise = rng.uniform(*c.rise_m)
            top = float(np.clip(top + rise, 0.0, c.max_height_m))
            rows.append((x + gap, x + gap + length, top))
            x += gap + length
        self.platforms = np.array(rows)
        self.flag_x = float(self.platforms[-1, 0] + 0.5 * (self.platforms[-1, 1] - self.platforms[-1, 0]))
        self.crumble_at = np.full(len(rows), np.inf)  # sim time a platform falls
        self.present = np.ones(len(rows), dtype=bool)
        self.body = {a: {"x": 1.0, "y": 0.0, "vx": 0.0, "vy": 0.0, "ground": 0, "best": 1.0, "fell": False,
                         "flag": False} for a in self.possible_agents}

    def _support(self, x: float, y_from: float, y_to: float) -> int | None:
        """The platform whose top the feet cross (from above) moving from y_from to y_to at x."""
        hw = self.rules.player.half_width_m
        p = self.platforms
        hit = self.present & (p[:, 0] - hw <= x) & (x <= p[:, 1] + hw) & (y_from >= p[:, 2] - 1e-9) & (y_to <= p[:, 2])
        found = np.flatnonzero(hit)
        return int(found[np.argmax(p[found, 2])]) if len(found) else None

    def _blocked(self, x_old: float, x_new: float, y: float) -> bool:
        hw = self.rules.player.half_width_m
        p = self.platforms
        overlap_y = self.present & (y < p[:, 2] - 1e-6) & (y + BODY_M > p[:, 2] - SLAB_M)
        inside_new = (x_new + hw > p[:, 0]) & (x_new - hw < p[:, 1])
        inside_old = (x_old + hw > p[:, 0]) & (x_old - hw < p[:, 1])
        return bool(np.any(overlap_y & inside_new & ~inside_old))

    def _step_world(self, inputs: dict[str, Input]) -> dict[str, list[dict]]:
        rules, dt = self.rules.player, self.dt
        events: dict[str, list[dict]] = {a: [] for a in self.agents}
        falling = self.present & (self.crumble_at <= self.t + 1e-9)
        for i in np.flatnonzero(falling):
            self.present[i] = False
            for agent in self.agents:
                events[agent].append({"type": "crumble", "platform": int(i)})
        for agent, inp in inputs.items():
            b = self.body[agent]
            if b["ground"] is not None and not self.present[b["ground"]]:
                b["ground"] = None
            b["vx"] = rules.run_m_s * inp.axis("A", "D")
            if inp.tap("Space") and b["ground"] is not None:
                b["vy"] = rules.jump_m_s
                b["ground"] = None
                events[agent].append({"type": "jump", "x": round(b["x"], 3)})
            x_new = b["x"] + b["vx"] * dt
            if not self._blocked(b["x"], x_new, b["y"]):
                b["x"] = x_new
            if b["ground"] is not None:
                p = self.platforms[b["ground"]]
                if not (p[0] - rules.half_width_m <= b["x"] <= p[1] + rules.half_width_m):
                    b["ground"] = None  # walked off the edge
            if b["ground"] is None:
                b["vy"] -= rules.gravity_m_s2 * dt
                y_new = b["y"] + b["vy"] * dt
                landed = self._support(b["x"], b["y"], y_new) if b["vy"] <= 0 else None
                if landed is not None:
                    b["y"], b["vy"], b["ground"] = float(self.platforms[landed, 2]), 0.0, landed
                    events[agent].append({"type": "land", "platform": landed})
                    if self.rules.course.crumble_s and not np.isfinite(self.crumble_at[landed]) and landed:
                        self.crumble_at[landed] = self.t + self.rules.course.crumble_s
                else:
                    b["y"] = y_new
            b["best"] = max(b["best"], b["x"])
            if b["y"] < rules.fall_below_m and not b["fell"]:
                b["fell"] = True
                events[agent].append({"type": "fall", "x": round(b["x"], 3)})
            if b["x"] >= self.flag_x and b["ground"] is not None and not b["flag"]:
                b["flag"] = True
                events[agent].append({"type": "flag"})
        return events

    def _score(self, agent: str) -> float:
        b = self.body[agent]
        return 1.0 if b["flag"] else min(b["best"] / self.flag_x, 0.99)

    def _finished(self, agent: str) -> bool:
        return self.body[agent]["fell"] or self.body[agent]["flag"]

    def _ahead(self, agent: str) -> np.ndarray:
        b = self.body[agent]
        later = np.flatnonzero(self.platforms[:, 1] > b["x"])
        return self.platforms[later[:AHEAD]]

    def _draw(self, agent: str | None) -> Canvas:
        b = self.body[agent or self.possible_agents[0]]
        canvas = self.canvas(b["x"] - 4.0, -3.0, b["x"] + 8.0, 9.0, background=self.look("sky").color)
        self.decorate(canvas, -4.0, 3.0, self.flag_x + 8.0, 8.5, radius_m=0.6)
        solid, crumbling = self.look("platform"), self.look("crumbling")
        for i, (x0, x1, top) in enumerate(self.platforms):
            if self.present[i]:
                look = crumbling if np.isfinite(self.crumble_at[i]) else solid
                canvas.checker(x0, top - SLAB_M, x1, top, look.color, SLAB_M / 2, 0.85)
        flag, top = self.look("flag"), self.platforms[-1, 2]
        canvas.icon(flag, self.flag_x + 0.45, top + 1.0, 1.0)
        canvas.label(flag.label, self.flag_x + 0.45, top + 2.1)
        viewer = agent or self.possible_agents[0]
        for other in self.possible_agents:
            o = self.body[other]
            look = self.look("you" if other == viewer else "other")
            color = look.color
            if o["ground"] is None:  # airborne: a lighter body, and a streak as long as the vertical speed
                color = tuple(min(255, c + 90) for c in color)
                canvas.rect(o["x"] - 0.06, o["y"] + BODY_M / 2, o["x"] + 0.06,
                            o["y"] + BODY_M / 2 - 0.12 * o["vy"], (255, 255, 255))
            canvas.icon(look, o["x"], o["y"] + BODY_M / 2, BODY_M / 2, color)
            canvas.label(look.label, o["x"], o["y"] + BODY_M + 0.15)
        return canvas

    def _hud(self, agent: str) -> str:
        b = self.body[agent]
        return f"{b['x']:.1f} m of {self.flag_x:.1f} m to the flag"

    def _report(self, agent: str) -> str:  # read back by `reports.py: read_runner`
        b = self.body[agent]
        ahead = self._ahead(agent)
        on = [x1 - b["x"] for x0, x1, _ in ahead if x0 <= b["x"]]  # the platform underfoot comes first
        later = tuple((x0 - b["x"], x1 - x0, top - b["y"]) for x0, x1, top in ahead if x0 > b["x"])
        return RunnerReport(b["x"], b["y"], b["ground"] is not None, on[0] if on else None, later,
                            0.0 if b["ground"] is not None else b["vy"]).format()

    def _state(self, agent: str) -> np.ndarray:
        b = self.body[agent]
        head = [b["x"] / self.flag_x, b["y"], b["vx"], b["vy"], float(b["ground"] is not None)]
        rows = np.zeros((AHEAD, 3))
        ahead = self._ahead(agent)
        rows[: len(ahead)] = ahead - np.array([b["x"], b["x"], b["y"]])
        return np.concatenate([head, rows.ravel()])

    def _metrics(self, agent: str) -> dict[str, float]:
        return {"progress_m": self.body[agent]["best"], "reached_flag": float(self.body[agent]["flag"])}

    def privileged_state(self, agent: str) -> dict:
        b = self.body[agent]
        left = self.crumble_at[b["ground"]] - self.t if b["ground"] is not None else np.inf
        return {**b, "crumble_left_s": float(left), "platforms": self.platforms.copy(),
                "present": self.present.copy(), "flag_x": self.flag_x,
                "run_m_s": self.rules.player.run_m_s, "dt": self.dt}
