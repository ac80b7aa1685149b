"""Parkour 3D: a first-person platform course over a void, with checkpoints."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import Field

from rtarena.envs.games.base import Input, SuiteGame
from rtarena.envs.games.canvas import Canvas
from rtarena.envs.games.firstperson import (
    MAT_CRATE,
    MAT_WALL,
    FirstPersonView,
    crosshair,
    heading_move,
    look,
    radar,
    relative_bearing_deg,
)
from rtarena.envs.games.reports import Bearing, ParkourReport, Platform
from rtarena.envs.games.rules import GameRules, Section

MARGIN_M = 4.0
AHEAD_DEG = 3.0  # the report says a platform within this of the view's centre is `ahead`


class Course(Section):
    layout: Literal["line", "zigzag"]
    platforms: int = Field(ge=3, le=60)
    size_m: tuple[float, float]
    gap_m: tuple[float, float]
    rise_m: tuple[float, float]
    height_m: tuple[float, float]
    checkpoint_every: int = Field(ge=1)
    sway_m: float = Field(ge=0)
    sway_period_s: float = Field(gt=0)


class Jumper(Section):
    speed_m_s: float = Field(gt=0)
    jump_m_s: float = Field(gt=0)
    gravity_m_s2: float = Field(gt=0)
    radius_m: float = Field(gt=0)
    step_m: float = Field(ge=0)
    fov_deg: float = Field(gt=10, lt=170)
    eye_m: float = Field(gt=0)  # the camera above the feet


class ParkourRules(GameRules):
    course: Course
    player: Jumper


class Parkour3D(SuiteGame):
    """Cross a first-person course of platforms over a void; a fall returns you to the last checkpoint.

    ## Description
    `course.platforms` platforms (rectangles `size_m` wide and deep, tops within `height_m`) lead away
    from the start, each `gap_m` beyond the last and `rise_m` higher or lower; the seed draws them.
    Every `checkpoint_every`-th platform is a checkpoint (brick); the last one is the goal. `W A S D`
    walk relative to the view at `player.speed_m_s`, the mouse turns and looks, `Space` jumps (once per
    press, when standing). Ledges up to `step_m` are walked up; taller sides block. Touching the void
    (the floor far below) puts you back on the last checkpoint you reached.

    ## Observation
    `rgb`: the first-person view (the arena's raycaster) under the HUD strip, the course map bottom right
    (the legend below). `text`: HUD (platform, checkpoint, falls) and where the next platforms are (bearing,
    gap, height). `state`: x, y, z, yaw, vz, standing, then for the next 2 platforms their centre offset,
    top height difference, width and depth.

    ## Action Space
    Keys `W A S D Space`; mouse dx turns (degrees, + right), dy looks up. Text form:
    `10 0 ; W*6 ; W Space ; W*8`.

    ## Rewards and Score
    score = the furthest platform reached / (`course.platforms` - 1) (1 on the goal); reward = the
    score's change.

    ## Termination
    Standing on the goal terminates; the countdown (`game.time_limit_s`) truncates.

    ## Capabilities
    Rated 0-3 in the level file's `[capabilities]` table (`rtarena list --capabilities`).

    ## Variants
    {variants}

    ## Registered Configurations
    - `games/parkour3d-v0`, `games/parkour3d-var1-v0`, `games/parkour3d-var2-v0`, `games/parkour3d-var3-v0`
    """

    level_file = "parkour3d.toml"
    rules_schema = ParkourRules
    rules: ParkourRules

    def state_size(self) -> int:
        return 6 + 2 * 5

    # -- world -------------------------------------------------------------------------------------
    def _new_world(self, rng: np.random.Generator) -> None:
        c = self.rules.course
        heading, rows = 0.0, []  # rows: centre x, y, half width (x), half depth (y), top
        x = y = 0.0
        top = float(np.mean(c.height_m[:1]) + 0.4)
        half = (1.5, 1.5)
        turn = float(rng.choice([-1.0, 1.0])) * math.pi / 2  # a zigzag turns one way, then back
        for i in range(c.platforms):
            if i:
                if c.layout == "zigzag" and i % 3 == 0:
                    heading = turn if heading == 0.0 else 0.0
                size = rng.uniform(*c.size_m, size=2)
                gap = rng.uniform(*c.gap_m)
                side = rng.uniform(-0.6, 0.6) * (size[0] if c.layout == "line" else 0.3)
                dx, dy = math.cos(heading), math.sin(heading)
                reach = (abs(dx) * half[0] + abs(dy) * half[1]) + gap + (abs(dx) * size[0] + abs(dy) * size[1]) / 2
                x, y = x + dx * reach - dy * side, y + dy * reach + dx * side
                half = (size[0] / 2, size[1] / 2)
                top = float(np.clip(top + rng.uniform(*c.rise_m), *c.height_m))
            rows.append((x, y, half[0], half[1], top))
        plat = np.array(rows)
        offset = MARGIN_M - (plat[:, :2] - plat[:, 2:4]).min(axis=0)
        plat[:, :2] += offset
        self.base = plat
        self.extent_m = float((plat[:, :2] + plat[:, 2:4]).max() + MARGIN_M)
        self.swaying = np.array([c.sway_m > 0 and i % 2 == 1 and 0 < i < c.platforms - 1 for i in range(len(plat))])
        self.plat = plat.copy()
        self.view = FirstPersonView(self.size, self._boxes(), self.extent_m, self.rules.player.fov_deg)
        start = plat[0]
        self.body = {a: {"pos": np.array([start[0], start[1], start[4]]), "vz": 0.0, "ground": 0, "best": 0,
                         "checkpoint": 0, "falls": 0} for a in self.possible_agents}
        first = math.atan2(plat[1, 1] - plat[0, 1], plat[1, 0] - plat[0, 0])
        self.yaw = {a: first for a in self.possible_agents}  # facing the first platform
        self.pitch = {a: -math.radians(12) for a in self.possible_agents}

    def _boxes(self) -> np.ndarray:
        every = self.rules.course.checkpoint_every
        p = self.plat
        mats = [MAT_WALL if (i % every == 0 or i == len(p) - 1) else MAT_CRATE for i in range(len(p))]
        return np.column_stack([p[:, 0] - p[:, 2], p[:, 1] - p[:, 3], p[:, 0] + p[:, 2], p[:, 1] + p[:, 3], p[:, 4],
                                mats])

    def _move_platforms(self) -> np.ndarray:
        """Slide the swaying platforms to their place at time t; returns each platform's shift (x, y)."""
        c = self.rules.course
        before = self.plat[:, :2].copy()
        if self.swaying.any():
            phase = math.sin(2 * math.pi * self.t / c.sway_period_s) * c.sway_m
            heading = np.diff(self.base[:, :2], axis=0, prepend=self.base[:1, :2])
            norm = np.hypot(*heading.T)[:, None]
            across = np.column_stack([-heading[:, 1], heading[:, 0]]) / np.where(norm > 0, norm, 1.0)
            self.plat[:, :2] = self.base[:, :2] + np.where(self.swaying[:, None], across * phase, 0.0)
            self.view.boxes = self._boxes()
        return self.plat[:, :2] - before

    def _inside(self, xy: np.ndarray, pad: float = 0.0) -> np.ndarray:
        p = self.plat
        return (np.abs(xy[0] - p[:, 0]) <= p[:, 2] + pad) & (np.abs(xy[1] - p[:, 1]) <= p[:, 3] + pad)

    def _step_world(self, inputs: dict[str, Input]) -> dict[str, list[dict]]:
        r, dt = self.rules.player, self.dt
        shift = self._move_platforms()
        events: dict[str, list[dict]] = {a: [] for a in self.agents}
        for agent, inp in inputs.items():
            b = self.body[agent]
            pos = b["pos"]
            if b["ground"] is not None:
                pos[:2] += shift[b["ground"]]  # a sliding platform carries you
            self.yaw[agent], self.pitch[agent] = look(self.yaw[agent], self.pitch[agent], inp.dx, inp.dy)
            if inp.tap("Space") and b["ground"] is not None:
                b["vz"], b["ground"] = r.jump_m_s, None
                events[agent].append({"type": "jump"})
            way = heading_move(self.yaw[agent], inp.axis("S", "W"), inp.axis("A", "D"))
            for axis in (0, 1):
                trial = pos[:2].copy()
                trial[axis] += way[axis] * r.speed_m_s * dt
                walls = self._inside(trial, r.radius_m) & (self.plat[:, 4] > pos[2] + r.step_m)
                if not walls.any():
                    pos[axis] = trial[axis]
            under = self._inside(pos[:2])
            if b["ground"] is not None:
                tops = np.where(under & (self.plat[:, 4] <= pos[2] + r.step_m), self.plat[:, 4], -np.inf)
                if tops.max() == -np.inf:
                    b["ground"] = None  # walked off the edge
                else:
                    b["ground"] = int(np.argmax(tops))
                    pos[2] = float(tops.max())
            if b["ground"] is None:
                b["vz"] -= r.gravity_m_s2 * dt
                z_new = pos[2] + b["vz"] * dt
                landing = under & (self.plat[:, 4] <= pos[2] + 1e-9) & (self.plat[:, 4] >= z_new) if b["vz"] <= 0 \
                    else np.zeros(len(self.plat), dtype=bool)
                if landing.any():
                    i = int(np.argmax(np.where(landing, self.plat[:, 4], -np.inf)))
                    pos[2], b["vz"], b["ground"] = float(self.plat[i, 4]), 0.0, i
                    events[agent].append({"type": "land", "platform": i})
                else:
                    pos[2] = z_new
            if b["ground"] is not None:
                self._reach(agent, b["ground"], events[agent])
            if pos[2] <= 0.0:
                b["falls"] += 1
                cp = self.plat[b["checkpoint"]]
                b["pos"] = np.array([cp[0], cp[1], cp[4]])
                b["vz"], b["ground"] = 0.0, b["checkpoint"]
                events[agent].append({"type": "fall", "to_checkpoint": b["checkpoint"]})
        return events

    def _reach(self, agent: str, index: int, events: list[dict]) -> None:
        b = self.body[agent]
        if index > b["best"]:
            b["best"] = index
            events.append({"type": "progress", "platform": index})
        every = self.rules.course.checkpoint_every
        if (index % every == 0 or index == len(self.plat) - 1) and index > b["checkpoint"]:
            b["checkpoint"] = index
            events.append({"type": "checkpoint", "platform": index})

    def _score(self, agent: str) -> float:
        return self.body[agent]["best"] / (len(self.plat) - 1)

    def _finished(self, agent: str) -> bool:
        return self.body[agent]["best"] == len(self.plat) - 1 and self.body[agent]["ground"] == len(self.plat) - 1

    # -- senses ------------------------------------------------------------------------------------
    def _draw(self, agent: str | None) -> Canvas:
        viewer = agent or self.possible_agents[0]
        pos = self.body[viewer]["pos"]
        image = self.view.draw(pos[0], pos[1], pos[2] + self.rules.player.eye_m, self.yaw[viewer], self.pitch[viewer])
        canvas = Canvas.over(image)
        crosshair(canvas, self.size, self.look("crosshair"))
        boxes = self._boxes()
        plain, checkpoint = self.look("platform").color, self.look("checkpoint").color
        radar(canvas, self.size, (self.extent_m, self.extent_m),
              [(box[:4], checkpoint if box[5] == MAT_WALL else plain) for box in boxes], [], pos[:2],
              self.yaw[viewer], self.look("map").label)
        return canvas

    def _ahead(self, agent: str) -> list[int]:
        b = self.body[agent]
        start = (b["ground"] if b["ground"] is not None else b["best"]) + 1
        return list(range(start, min(start + 2, len(self.plat))))

    def _hud(self, agent: str) -> str:
        b = self.body[agent]
        where = f"platform {b['ground']}" if b["ground"] is not None else "in the air"
        return f"{where} of {len(self.plat) - 1} | checkpoint {b['checkpoint']} | falls {b['falls']}"

    def _report(self, agent: str) -> str:
        b = self.body[agent]
        x, y, z = b["pos"]
        ahead = []
        for i in self._ahead(agent):
            cx, cy, hw, hd, top = self.plat[i]
            centre = Bearing.seen(math.hypot(cx - x, cy - y), relative_bearing_deg(x, y, self.yaw[agent], cx, cy),
                                  AHEAD_DEG)
            kind = "the goal" if i == len(self.plat) - 1 else f"platform {i}"
            ahead.append(Platform(kind, centre, top - z, 2 * hw, 2 * hd, bool(self.swaying[i])))
        return ParkourReport(z, math.degrees(self.yaw[agent]), tuple(ahead)).format()

    def _state(self, agent: str) -> np.ndarray:
        b = self.body[agent]
        head = [*b["pos"], self.yaw[agent], b["vz"], float(b["ground"] is not None)]
        rows = np.zeros((2, 5))
        for k, i in enumerate(self._ahead(agent)):
            cx, cy, hw, hd, top = self.plat[i]
            rows[k] = (cx - b["pos"][0], cy - b["pos"][1], top - b["pos"][2], 2 * hw, 2 * hd)
        return np.concatenate([head, rows.ravel()])

    def _metrics(self, agent: str) -> dict[str, float]:
        return {"platform": float(self.body[agent]["best"]), "falls": float(self.body[agent]["falls"])}

    def privileged_state(self, agent: str) -> dict:
        b = self.body[agent]
        return {"pos": b["pos"].copy(), "vz": b["vz"], "ground": b["ground"], "best": b["best"],
                "yaw": self.yaw[agent], "platforms": self.plat.copy(), "speed_m_s": self.rules.player.speed_m_s,
                "dt": self.dt}
