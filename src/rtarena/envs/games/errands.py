"""Errands: an open area with named characters; follow hints and carry items between them."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from rtarena.envs.games.base import Input, SuiteGame
from rtarena.envs.games.canvas import Canvas
from rtarena.envs.games.reports import ErrandsReport, ErrandsStatus, Person
from rtarena.envs.games.rules import GameRules, Section
from rtarena.envs.games.walker import WalkerRules, blocked, border, draw_walls, nearest_in_reach, place, walk


class Area(Section):
    size_m: float = Field(ge=8)
    layout: Literal["open", "village"]
    houses: int = Field(ge=0)
    view_m: float = Field(gt=0)


class People(Section):
    names: tuple[str, ...]
    items: tuple[str, ...]
    min_apart_m: float = Field(ge=0)
    wander_m_s: float = Field(ge=0)

    @model_validator(mode="after")
    def one_item_each(self) -> People:
        if len(self.names) != len(self.items) or len(self.names) < 2:
            raise ValueError("people.names and people.items need the same length (2 or more)")
        return self


class ErrandRules(Section):
    count: int = Field(ge=1)
    inventory: int = Field(ge=1)


class ErrandsRules(GameRules):
    area: Area
    player: WalkerRules
    people: People
    errands: ErrandRules


class Errands(SuiteGame):
    """Follow the hints ("the baker wants flour"), carry items between characters; ten exchanges.

    ## Description
    An open area (`area.size_m` square) with the characters of `people.names` at seeded places, each
    of whom gives one item (`people.items`, in the same order). The HUD shows the current hint: who
    wants what; it does not say who has it. Within `player.reach_m` of a character the HUD shows the
    interact prompt; `F` then gives them the wanted item if you carry it (an exchange, and the next
    hint appears) or takes their item if you have room (`errands.inventory` items; `Space` drops the
    oldest). You see `area.view_m` around you: finding and remembering who has what is the game.

    ## Observation
    `rgb`: the area around you from above under the HUD strip (characters named, in the colour of the item
    they give; the legend below). `text`: HUD (hint, inventory, prompt) and the characters within view, with
    what they give and where they are. `state`: x, y, exchanges done, then per character their offset from
    you (zeros when out of view), then the wanted item's index and the items carried.

    ## Action Space
    Keys `W A S D F Space`; no mouse. Text form: `0 0 ; W*5 ; F ; - ; S D*3`.

    ## Rewards and Score
    score = exchanges done / `errands.count`; reward = the score's change.

    ## Termination
    The last exchange terminates; the time limit (`game.time_limit_s`) truncates.

    ## Capabilities
    Rated 0-3 in the level file's `[capabilities]` table (`rtarena list --capabilities`).

    ## Variants
    {variants}

    ## Registered Configurations
    - `games/errands-v0`, `games/errands-var1-v0`, `games/errands-var2-v0`, `games/errands-var3-v0`
    """

    level_file = "errands.toml"
    rules_schema = ErrandsRules
    rules: ErrandsRules

    def state_size(self) -> int:
        return 3 + 2 * len(self.rules.people.names) + 1 + self.rules.errands.inventory

    def _new_world(self, rng: np.random.Generator) -> None:
        a, people = self.rules.area, self.rules.people
        walls = border(a.size_m, a.size_m)
        for _ in range(a.houses if a.layout == "village" else 0):
            w, h = rng.uniform(2.0, 3.5, size=2)
            x, y = rng.uniform(1.5, a.size_m - 1.5 - w), rng.uniform(1.5, a.size_m - 1.5 - h)
            walls.append((x, y, x + w, y + h))
        self.walls = np.array(walls, dtype=float)
        self.people: dict[str, np.ndarray] = {}
        for name in people.names:
            for _ in range(200):
                spot = rng.uniform(1.0, a.size_m - 1.0, size=2)
                apart = all(np.hypot(*(spot - p)) >= people.min_apart_m for p in self.people.values())
                if apart and not blocked(spot, 0.8, self.walls):
                    break
            self.people[name] = spot
        self.gives = dict(zip(people.names, people.items, strict=True))
        self.errands = []  # (who wants, item), never an item from themselves
        for _ in range(self.rules.errands.count):
            who, giver = rng.choice(len(people.names), size=2, replace=False)
            self.errands.append((people.names[who], people.items[giver]))
        self.done = 0
        start = np.full(2, a.size_m / 2)
        while blocked(start, 0.4, self.walls):
            start = rng.uniform(1.0, a.size_m - 1.0, size=2)
        self.pos = {ag: start.copy() for ag in self.possible_agents}
        self.bags: dict[str, list[str]] = {ag: [] for ag in self.possible_agents}
        self.heading = {name: rng.uniform(0, 2 * np.pi) for name in people.names}

    @property
    def errand(self) -> tuple[str, str] | None:
        return self.errands[self.done] if self.done < len(self.errands) else None

    def at(self, agent: str) -> str | None:
        return nearest_in_reach(self.pos[agent], self.people, self.rules.player.reach_m)

    def prompt(self, agent: str) -> str | None:
        name = self.at(agent)
        if name is None:
            return None
        if self.errand and self.errand[0] == name and self.errand[1] in self.bags[agent]:
            return f"Press F to give the {self.errand[1]} to the {name}"
        return f"Press F to talk to the {name}"

    def _talk(self, agent: str, name: str) -> dict:
        bag = self.bags[agent]
        if self.errand and self.errand[0] == name and self.errand[1] in bag:
            bag.remove(self.errand[1])
            self.done += 1
            return {"type": "exchange", "to": name, "item": self.errand_item(self.done - 1), "done": self.done}
        item = self.gives[name]
        if item in bag:
            return {"type": "already_have", "item": item}
        if len(bag) >= self.rules.errands.inventory:
            return {"type": "bag_full", "item": item}
        bag.append(item)
        return {"type": "receive", "from": name, "item": item}

    def errand_item(self, index: int) -> str:
        return self.errands[index][1]

    def _wander(self) -> None:
        speed = self.rules.people.wander_m_s
        if not speed:
            return
        for name, spot in self.people.items():
            self.heading[name] += self.np_random.normal(0.0, 0.3)
            step = np.array([np.cos(self.heading[name]), np.sin(self.heading[name])])
            moved = walk(spot, tuple(step), speed * self.dt, 0.5, self.walls)
            if np.array_equal(moved, spot):
                self.heading[name] += np.pi / 2
            self.people[name] = moved

    def _step_world(self, inputs: dict[str, Input]) -> dict[str, list[dict]]:
        p = self.rules.player
        events: dict[str, list[dict]] = {a: [] for a in self.agents}
        self._wander()
        for agent, inp in inputs.items():
            self.pos[agent] = walk(self.pos[agent], inp.direction(), p.speed_m_s * self.dt, p.radius_m, self.walls)
            if inp.tap("Space") and self.bags[agent]:
                events[agent].append({"type": "drop", "item": self.bags[agent].pop(0)})
            if inp.tap("F") and self.errand is not None and (name := self.at(agent)) is not None:
                events[agent].append(self._talk(agent, name))
        return events

    def _score(self, agent: str) -> float:
        return self.done / len(self.errands)

    def _finished(self, agent: str) -> bool:
        return self.errand is None

    def in_view(self, agent: str) -> dict[str, np.ndarray]:
        view = self.rules.area.view_m
        return {n: p for n, p in self.people.items() if np.abs(p - self.pos[agent]).max() <= view}

    def _draw(self, agent: str | None) -> Canvas:
        size, view = self.rules.area.size_m, self.rules.area.view_m
        grass = self.look("grass")
        if agent is None:
            canvas = self.canvas(-0.5, -0.5, size + 0.5, size + 0.5, background=grass.color)
            shown = self.people
        else:
            x, y = self.pos[agent]
            canvas = self.canvas(x - view, y - view, x + view, y + view, background=(20, 30, 20))
            shown = self.in_view(agent)
        canvas.checker(0, 0, size, size, grass.color, 1.0, 0.95)
        self.decorate(canvas, 0, 0, size, size, radius_m=0.3)
        draw_walls(canvas, self.walls, color=self.look("house").color)
        for name, spot in shown.items():
            look = self.look(name)
            canvas.icon(look, *spot, 0.45)
            canvas.label(look.label, spot[0], spot[1] + 0.55)
        you = self.look("you")
        for other in self.possible_agents:
            canvas.icon(you, *self.pos[other], self.rules.player.radius_m * 1.2)
            canvas.label(you.label, self.pos[other][0], self.pos[other][1] + 0.45)
        return canvas

    def _hud(self, agent: str) -> str:
        who, wants = self.errand or ("", "")
        return ErrandsStatus(self.done + 1 if self.errand else 0, len(self.errands) if self.errand else 0, who, wants,
                             tuple(self.bags[agent]), self.rules.errands.inventory, self.prompt(agent) or "").format()

    def _report(self, agent: str) -> str:
        x, y = self.pos[agent]
        seen = tuple(Person(n, self.gives[n], place(self.pos[agent], p)) for n, p in self.in_view(agent).items())
        return ErrandsReport(x, y, self.rules.area.view_m, seen).format()

    def _state(self, agent: str) -> np.ndarray:
        view = self.in_view(agent)
        offsets = [view[n] - self.pos[agent] if n in view else np.zeros(2) for n in self.rules.people.names]
        items = self.rules.people.items
        wanted = items.index(self.errand[1]) + 1.0 if self.errand else 0.0
        bag = [items.index(i) + 1.0 for i in self.bags[agent]]
        bag += [0.0] * (self.rules.errands.inventory - len(bag))
        return np.concatenate([self.pos[agent], [self.done], np.ravel(offsets), [wanted], bag])

    def _metrics(self, agent: str) -> dict[str, float]:
        return {"exchanges": float(self.done)}

    def privileged_state(self, agent: str) -> dict:
        return {"pos": self.pos[agent].copy(), "people": {n: p.copy() for n, p in self.people.items()},
                "gives": dict(self.gives), "errand": self.errand, "bag": list(self.bags[agent]),
                "inventory": self.rules.errands.inventory, "walls": self.walls.copy(),
                "reach_m": self.rules.player.reach_m, "radius_m": self.rules.player.radius_m,
                "size_m": self.rules.area.size_m}
