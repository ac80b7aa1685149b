"""Handoff: workshop split by a wall; a runner at the bins, a maker at the bench, windows between."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from pydantic import Field

from rtarena.envs.games.canvas import Canvas
from rtarena.envs.games.reports import WorkshopFloor
from rtarena.envs.games.rules import Section
from rtarena.envs.games.walker import place
from rtarena.envs.games.workshop import Workshop, WorkshopRules


class Windows(Section):
    count: int = Field(ge=1, le=4)
    transfer_s: float = Field(ge=0)


class HandoffRules(WorkshopRules):
    windows: Windows


class Handoff(Workshop):
    """A runner fetches parts, a maker upgrades and delivers; they meet only at windows in a wall.

    ## Description
    The workshop's rules (see `games/workshop-v0`) in a room split by a wall from north to south. The
    runner (`p0`) is on the west side with the part bins; the maker (`p1`) on the east side with the
    bench, the counter and the trash. Neither can walk, reach or pick up across the wall. The wall has
    `windows.count` windows (placed per seed) that hold one item each: `E` at a window puts what you
    carry into an empty window, or takes the item out (once `windows.transfer_s` have passed since it
    was put in). Items dropped on the floor stay on their side.

    ## Observation
    As the workshop's, plus the windows: `rgb` shows them on the wall with what they hold (the legend
    below); `text` says what each window holds and where it is; `state` appends per window: kind, upgraded
    flag.

    ## Action Space
    Keys `W A S D E Space`; no mouse. Text form: `0 0 ; W*4 ; E ; - ; D*3`.

    ## Rewards and Score
    Team score, the same for both: min(1, points of delivered orders / `orders.target_points`) (plain
    {orders.points_plain:g}, upgraded {orders.points_upgraded:g}; the documented maximum is
    {orders.target_points:g} points); reward = the score's change.

    ## Termination
    The time limit ({game.time_limit_s:g} s) truncates.

    ## Capabilities
    Rated 0-3 in the level file's `[capabilities]` table (`rtarena list --capabilities`).

    ## Variants
    {variants}

    ## Registered Configurations
    - `games/handoff-v0`, `games/handoff-var1-v0`, `games/handoff-var2-v0`, `games/handoff-var3-v0`
    """

    level_file = "handoff.toml"
    rules_schema = HandoffRules
    rules: HandoffRules

    def state_size(self) -> int:
        return super().state_size() + 2 * self.rules.windows.count

    def _new_world(self, rng: np.random.Generator) -> None:
        super()._new_world(rng)  # orders, bench, hands and floor as in the workshop; the layout is redone
        room, count = self.rules.room, self.rules.windows.count
        w, h = room.width_m, room.height_m
        self.mid = w / 2
        self.walls = np.vstack([self.walls[:4], [[self.mid - 0.1, 0.0, self.mid + 0.1, h]]])
        west = [(0.5, y) for y in np.arange(1.0, h - 0.5, 1.5)]
        west += [(x, 0.5) for x in np.arange(1.5, self.mid - 1.0, 1.5)]
        east = [(w - 0.5, y) for y in np.arange(1.0, h - 0.5, 1.5)]
        east += [(x, h - 0.5) for x in np.arange(self.mid + 1.5, w - 1.0, 1.5)]
        kinds = self.rules.parts.kinds
        west = [west[i] for i in rng.permutation(len(west))[: len(kinds)]]
        east = [east[i] for i in rng.permutation(len(east))[:3]]
        names = [f"{k} bin" for k in kinds] + ["bench", "counter", "trash"]
        self.stations = {n: np.array(p, dtype=float) for n, p in zip(names, west + east, strict=True)}
        ys = np.sort(rng.choice(np.arange(1.0, h - 0.9, 1.5), size=count, replace=False))
        self.window_pos = {f"window {i + 1}": np.array([self.mid, y]) for i, y in enumerate(ys)}
        self.windows: dict[str, tuple[str, float] | None] = dict.fromkeys(self.window_pos)
        self.pos = {"p0": np.array([self.mid / 2, h / 2]), **{a: np.array([self.mid * 1.5, h / 2])
                                                            for a in self.possible_agents[1:]}}

    def _side(self, point) -> bool:
        return bool(point[0] < self.mid)

    def targets(self, agent: str) -> dict[str, np.ndarray]:
        """What `E` can act on: the stations and floor items on the agent's side, and the windows."""
        mine = self._side(self.pos[agent])
        points = {n: p for n, p in super().targets(agent).items() if self._side(p) == mine}
        return {**points, **self.window_pos}

    def window_ready(self, name: str) -> bool:
        slot = self.windows[name]
        return slot is not None and self.t + 1e-9 >= slot[1]

    def prompt(self, agent: str) -> str | None:
        name, held = self.at(agent), self.hands[agent].item
        if name is None or not name.startswith("window"):
            return super().prompt(agent)
        if held is not None and self.windows[name] is None:
            return f"Press E to pass the {held} through {name}"
        if held is None and self.window_ready(name):
            return f"Press E to take the {self.windows[name][0]} from {name}"
        return None

    def _interact(self, agent: str, events: list[dict]) -> None:
        name, hands = self.at(agent), self.hands[agent]
        if name is None or not name.startswith("window"):
            super()._interact(agent, events)
        elif hands.item is not None and self.windows[name] is None:
            item = hands.give()
            self.windows[name] = (item, self.t + self.rules.windows.transfer_s)
            events.append({"type": "window_put", "item": item, "window": name})
        elif hands.item is None and self.window_ready(name):
            hands.take(self.windows[name][0])
            self.windows[name] = None
            events.append({"type": "window_take", "item": hands.item, "window": name})

    def _draw(self, agent: str | None) -> Canvas:
        canvas = super()._draw(agent)
        window = self.look("window")
        for name, pos in self.window_pos.items():
            canvas.icon(window, pos[0], pos[1], 0.42)
            if self.windows[name] is not None:
                self.draw_part(canvas, self.windows[name][0], pos[0], pos[1], 0.17)
            canvas.label(window.label, pos[0], pos[1] + 0.45)
        return canvas

    def _floor_report(self, agent: str) -> WorkshopFloor:
        pos = self.pos[agent]
        slots = tuple((n, place(pos, p), self.windows[n][0] if self.windows[n] else None)
                      for n, p in self.window_pos.items())
        return replace(super()._floor_report(agent), role="runner" if self._side(pos) else "maker", windows=slots)

    def _state(self, agent: str) -> np.ndarray:
        kinds = self.rules.parts.kinds
        codes = [(kinds.index(s[0].rstrip("+")) + 1.0, float(s[0].endswith("+"))) if s else (0.0, 0.0)
                 for s in self.windows.values()]
        return np.concatenate([super()._state(agent), np.array(codes).ravel()])

    def privileged_state(self, agent: str) -> dict:
        mine = self._side(self.pos[agent])
        return {**super().privileged_state(agent), "runner": agent == "p0",
                "stations": {n: p for n, p in self.stations.items() if self._side(p) == mine},
                "windows": {n: (s[0] if s else None, self.window_ready(n)) for n, s in self.windows.items()},
                "window_pos": dict(self.window_pos), "others_held": [self.hands[a].item for a in self.agents
                                                                     if a != agent]}
