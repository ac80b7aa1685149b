"""Escape: ten chained tasks in a block of rooms; find the named object, press F when the prompt shows."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from rtarena.envs.games.base import Input, SuiteGame
from rtarena.envs.games.canvas import Canvas
from rtarena.envs.games.reports import EscapeReport, EscapeStatus
from rtarena.envs.games.rooms import Room, doors_of, room_of, walls_of
from rtarena.envs.games.rules import GameRules, Section
from rtarena.envs.games.walker import WalkerRules, draw_walls, nearest_in_reach, place, walk

MARGIN_M = 0.8  # objects keep this far from the walls


class Rooms(Section):
    columns: int = Field(ge=1, le=8)
    rows: int = Field(ge=1, le=8)
    size_m: float = Field(ge=3)
    door_m: float = Field(gt=0.7)
    extra_doors: int = Field(ge=0)


class Tasks(Section):
    count: int = Field(ge=1)
    objects: tuple[str, ...]
    shuffle_after_task: bool


class EscapeRules(GameRules):
    rooms: Rooms
    player: WalkerRules
    tasks: Tasks


class Escape(SuiteGame):
    """Indoor rooms and ten chained tasks: the HUD names the current one ("find the red key").

    ## Description
    A block of `rooms.columns` x `rooms.rows` rooms (`size_m` each) joined by doorways (a random
    spanning tree plus `extra_doors`). The ten objects of `tasks.objects` lie in seeded rooms; the
    tasks ask for them in a seeded order. Within `player.reach_m` of an object the HUD shows the
    interact prompt `Press F to use the <object>`; pressing F at the current task's object completes it
    and the next task appears (F at any other object does nothing). You see only the room you are in:
    remembering where things were is part of the game.

    ## Observation
    `rgb`: the current room from above under the HUD strip (each object its own icon and colour; the legend
    below). `text`: HUD (task, prompt), your room and position in it, its doorways and what lies in it.
    `state`: x, y, room column and row, tasks done, then the current task's object as an index.

    ## Action Space
    Keys `W A S D F`; no mouse. Text form: `0 0 ; W*6 ; D*2 ; F`.

    ## Rewards and Score
    score = tasks done / `tasks.count`; reward = the score's change.

    ## Termination
    Finishing every task terminates; the time limit (`game.time_limit_s`) truncates.

    ## Capabilities
    Rated 0-3 in the level file's `[capabilities]` table (`rtarena list --capabilities`).

    ## Variants
    {variants}

    ## Registered Configurations
    - `games/escape-v0`, `games/escape-var1-v0`, `games/escape-var2-v0`, `games/escape-var3-v0`
    """

    level_file = "escape.toml"
    rules_schema = EscapeRules
    rules: EscapeRules

    def state_size(self) -> int:
        return 6

    def _new_world(self, rng: np.random.Generator) -> None:
        r = self.rules.rooms
        self.doors = doors_of(r.columns, r.rows, r.extra_doors, rng)
        self.walls = walls_of(r.columns, r.rows, r.size_m, r.door_m, self.doors)
        names = list(self.rules.tasks.objects)
        self.objects: dict[str, np.ndarray] = {}
        self._place(names, rng)
        order = rng.permutation(len(names))
        self.tasks = [names[i] for i in order[: self.rules.tasks.count]]
        self.done = 0
        start = np.array([(rng.integers(r.columns) + 0.5) * r.size_m, (rng.integers(r.rows) + 0.5) * r.size_m])
        self.pos = {a: start.copy() for a in self.possible_agents}

    def _place(self, names: list[str], rng: np.random.Generator) -> None:
        r = self.rules.rooms
        for name in names:
            c, row = rng.integers(r.columns), rng.integers(r.rows)
            offset = rng.uniform(MARGIN_M, r.size_m - MARGIN_M, size=2)
            self.objects[name] = np.array([c * r.size_m, row * r.size_m]) + offset

    @property
    def task(self) -> str | None:
        return self.tasks[self.done] if self.done < len(self.tasks) else None

    def at(self, agent: str) -> str | None:
        """The object within reach (the nearest), if any."""
        return nearest_in_reach(self.pos[agent], self.objects, self.rules.player.reach_m)

    def prompt(self, agent: str) -> str | None:
        name = self.at(agent)
        return f"Press F to use the {name}" if name else None

    def _step_world(self, inputs: dict[str, Input]) -> dict[str, list[dict]]:
        p = self.rules.player
        events: dict[str, list[dict]] = {a: [] for a in self.agents}
        for agent, inp in inputs.items():
            self.pos[agent] = walk(self.pos[agent], inp.direction(), p.speed_m_s * self.dt, p.radius_m, self.walls)
            if not inp.tap("F") or self.task is None:
                continue
            name = self.at(agent)
            if name is None:
                continue
            if name != self.task:
                events[agent].append({"type": "not_now", "object": name})
                continue
            self.done += 1
            del self.objects[name]
            events[agent].append({"type": "task_done", "object": name, "done": self.done})
            if self.rules.tasks.shuffle_after_task:
                self._place(sorted(self.objects), self.np_random)
                events[agent].append({"type": "objects_moved"})
        return events

    def _score(self, agent: str) -> float:
        return self.done / len(self.tasks)

    def _finished(self, agent: str) -> bool:
        return self.task is None

    def room(self, agent: str) -> Room:
        return room_of(self.pos[agent], self.rules.rooms.size_m)

    def _draw(self, agent: str | None) -> Canvas:
        size = self.rules.rooms.size_m
        r = self.rules.rooms
        floor = self.look("floor")
        if agent is None:
            span = max(r.columns, r.rows) * size
            canvas = self.canvas(-0.3, -0.3, span + 0.3, span + 0.3, background=(25, 25, 30))
            box = (0, 0, r.columns * size, r.rows * size)
        else:
            c, row = self.room(agent)
            canvas = self.canvas(c * size - 0.3, row * size - 0.3, (c + 1) * size + 0.3, (row + 1) * size + 0.3,
                                 background=(25, 25, 30))
            box = (c * size, row * size, (c + 1) * size, (row + 1) * size)
        canvas.checker(*box, floor.color, 0.5, 0.93)
        self.decorate(canvas, 0, 0, r.columns * size, r.rows * size, radius_m=0.22)
        draw_walls(canvas, self.walls, self.look("wall").color)
        for name, pos in self.objects.items():
            canvas.icon(self.look(name), pos[0], pos[1], 0.3)
        you = self.look("you")
        for other in self.possible_agents:
            canvas.icon(you, *self.pos[other], self.rules.player.radius_m * 1.2)
            canvas.label(you.label, self.pos[other][0], self.pos[other][1] + 0.45)
        return canvas

    def _hud(self, agent: str) -> str:
        n, of = (self.done + 1, len(self.tasks)) if self.task else (0, 0)
        return EscapeStatus(n, of, self.task or "", self.prompt(agent) or "").format()

    def _report(self, agent: str) -> str:
        size = self.rules.rooms.size_m
        here = self.room(agent)
        inside = self.pos[agent] - np.array(here) * size
        ways = []
        for (dc, dr), word in (((0, 1), "north"), ((0, -1), "south"), ((1, 0), "east"), ((-1, 0), "west")):
            other = (here[0] + dc, here[1] + dr)
            if tuple(sorted((here, other))) in self.doors:
                ways.append(word)
        seen = tuple((name, place(self.pos[agent], pos)) for name, pos in self.objects.items()
                     if room_of(pos, size) == here)
        return EscapeReport(here, inside[0], inside[1], tuple(ways), seen).format()

    def _state(self, agent: str) -> np.ndarray:
        c, r = self.room(agent)
        index = self.rules.tasks.objects.index(self.task) if self.task else -1
        return np.array([*self.pos[agent], c, r, self.done, index], dtype=float)

    def _metrics(self, agent: str) -> dict[str, float]:
        return {"tasks_done": float(self.done)}

    def privileged_state(self, agent: str) -> dict:
        target = self.objects.get(self.task) if self.task else None
        return {"pos": self.pos[agent].copy(), "target": None if target is None else target.copy(),
                "doors": set(self.doors), "size_m": self.rules.rooms.size_m, "reach_m": self.rules.player.reach_m}
