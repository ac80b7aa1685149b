"""Workshop: parts, a bench, an order board and a counter, one item in hand at a time."""

from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np
from pydantic import Field

from rtarena.envs.games.base import Input, SuiteGame
from rtarena.envs.games.canvas import Canvas
from rtarena.envs.games.reports import Order, WorkshopFloor, WorkshopStatus
from rtarena.envs.games.rules import GameRules, Section
from rtarena.envs.games.walker import Carry, WalkerRules, border, draw_walls, nearest_in_reach, place, walk

UPGRADED = "+"  # an upgraded part is named `gear+`
FULL = "Hands full: drop first (Space)"
ORDER_FONT = 0.028  # the order board's entries, smaller than the name plates so four fit across


class Room(Section):
    width_m: float = Field(ge=6)
    height_m: float = Field(ge=5)
    layout: Literal["one-room", "two-rooms"]
    door_m: float = Field(gt=0.8)


class Parts(Section):
    kinds: tuple[str, ...]


class Bench(Section):
    upgrade_s: float = Field(gt=0)
    manual: bool


class Orders(Section):
    max_open: int = Field(ge=1)
    interval_s: float = Field(gt=0)
    expire_s: float = Field(gt=0)
    upgraded_share: float = Field(ge=0, le=1)
    points_plain: int = Field(ge=1)
    points_upgraded: int = Field(ge=1)
    target_points: int = Field(ge=1)


class WorkshopRules(GameRules):
    room: Room
    player: WalkerRules
    parts: Parts
    bench: Bench
    orders: Orders


class Workshop(SuiteGame):
    """Fill the order board: fetch parts, upgrade some at the bench, deliver at the counter.

    ## Description
    A top-down workshop. Along the walls (placed by the seed): one bin per part kind, a bench, a
    counter and a trash bin. Orders appear on the board every `orders.interval_s` (at most `max_open`),
    each asking for a part, plain or upgraded (`gear+`), and expire after `expire_s`. `E` interacts
    with the nearest station or floor item within `player.reach_m`: take a part from a bin or the floor,
    put a part on the bench / take it back (upgraded once `bench.upgrade_s` have passed), deliver at the
    counter (the oldest matching order is filled; a part no order wants is refused and kept), discard at
    the trash. You carry one item: to pick up another, first drop the one you hold (`Space` drops it on
    the floor) or use it. The HUD shows the interact prompt only within reach.

    ## Observation
    `rgb`: the workshop from above under the HUD strip, stations named, the order board on top (the legend
    below). `text`: HUD (orders, hands, prompt) and where each station is from you. `state`: x, y, carried
    kind and upgraded flag, bench state, then per order slot kind, upgraded, time left.

    ## Action Space
    Keys `W A S D E Space`; no mouse. Text form: `0 0 ; W*4 ; E ; - ; D*3`.

    ## Rewards and Score
    score = min(1, order points / `orders.target_points`) (plain order `points_plain`, upgraded
    `points_upgraded`); reward = the score's change.

    ## Termination
    The time limit (`game.time_limit_s`) truncates; there is no other end.

    ## Capabilities
    Rated 0-3 in the level file's `[capabilities]` table (`rtarena list --capabilities`).

    ## Variants
    {variants}

    ## Registered Configurations
    - `games/workshop-v0`, `games/workshop-var1-v0`, `games/workshop-var2-v0`, `games/workshop-var3-v0`
    """

    level_file = "workshop.toml"
    rules_schema = WorkshopRules
    rules: WorkshopRules
    other_player: ClassVar[str] = "mate"  # the drawables row of another player (a co-op partner; midline's rival)

    def state_size(self) -> int:
        return 7 + 3 * self.rules.orders.max_open

    # -- world -------------------------------------------------------------------------------------
    def _new_world(self, rng: np.random.Generator) -> None:
        room = self.rules.room
        w, h = room.width_m, room.height_m
        walls = border(w, h)
        kinds = self.rules.parts.kinds
        slots_west = [(0.5, y) for y in np.arange(1.0, h - 0.5, 1.5)]
        slots_west += [(x, 0.5) for x in np.arange(1.0, w / 2 - 0.5, 1.5)]
        slots_east = [(w - 0.5, y) for y in np.arange(1.0, h - 0.5, 1.5)]
        slots_east += [(x, h - 0.5) for x in np.arange(w / 2 + 1.0, w - 0.5, 1.5)]
        self.door = None
        if room.layout == "two-rooms":
            door = rng.uniform(1.0, h - 1.0 - room.door_m)
            self.door = np.array([w / 2, door + room.door_m / 2])
            walls += [(w / 2 - 0.1, 0.0, w / 2 + 0.1, door), (w / 2 - 0.1, door + room.door_m, w / 2 + 0.1, h)]
            west = [slots_west[i] for i in rng.permutation(len(slots_west))]
            east = [slots_east[i] for i in rng.permutation(len(slots_east))]
            spots = west[: len(kinds) + 1] + east[:2]
        else:
            every = slots_west + slots_east
            spots = [every[i] for i in rng.permutation(len(every))[: len(kinds) + 3]]
        self.walls = np.array(walls, dtype=float)
        names = [f"{k} bin" for k in kinds] + ["bench", "counter", "trash"]
        self.stations = {name: np.array(spot, dtype=float) for name, spot in zip(names, spots, strict=True)}
        start = np.array([w / 4 if room.layout == "two-rooms" else w / 2, h / 2])
        self.pos = {a: start.copy() for a in self.possible_agents}
        self.hands = {a: Carry() for a in self.possible_agents}
        self.floor: list[tuple[str, np.ndarray]] = []
        self.bench_item: str | None = None
        self.bench_left_s = 0.0
        self.orders: list[dict] = []
        self.next_order_s = 0.0
        self.points = 0
        self.delivered = 0

    def _new_orders(self) -> list[dict]:
        o = self.rules.orders
        # an order that runs out is an event (the improvement loop shows its moment to the reflector)
        events = [{"type": "expired", "item": order["item"]} for order in self.orders
                  if order["expires_s"] <= self.t + 1e-9]
        self.orders = [order for order in self.orders if order["expires_s"] > self.t + 1e-9]
        if self.t + 1e-9 >= self.next_order_s:
            self.next_order_s += o.interval_s
            if len(self.orders) < o.max_open:
                kind = self.rules.parts.kinds[int(self.np_random.integers(len(self.rules.parts.kinds)))]
                upgraded = bool(self.np_random.random() < o.upgraded_share)
                order = {"item": kind + (UPGRADED if upgraded else ""), "expires_s": round(self.t + o.expire_s, 9),
                         "points": o.points_upgraded if upgraded else o.points_plain}
                self.orders.append(order)
                events.append({"type": "order", "item": order["item"]})
        return events

    def targets(self, agent: str) -> dict[str, np.ndarray]:
        """What `E` can act on: stations and floor items, by name."""
        points = dict(self.stations)
        for i, (item, pos) in enumerate(self.floor):
            points[f"floor:{i}:{item}"] = pos
        return points

    def at(self, agent: str) -> str | None:
        """The nearest station or floor item within reach."""
        return nearest_in_reach(self.pos[agent], self.targets(agent), self.rules.player.reach_m)

    def prompt(self, agent: str) -> str | None:
        """The interact prompt the HUD shows, or None out of reach of anything `E` would act on."""
        name = self.at(agent)
        held = self.hands[agent].item
        if name is None:
            return None
        if name.startswith("floor:"):
            return f"Press E to pick up the {name.split(':')[2]}" if held is None else FULL
        if name.endswith(" bin"):
            return f"Press E to take a {name[:-4]}" if held is None else FULL
        if name == "bench":
            if held is not None and self.bench_item is None:
                return f"Press E to put the {held} on the bench"
            if held is None and self.bench_item is not None:
                if self.rules.bench.manual and self.bench_left_s > 0:
                    return f"Hold E to work the {self.bench_item}"
                return f"Press E to take the {self.bench_item}"
            return None
        if held is None:
            return None
        return f"Press E to deliver the {held}" if name == "counter" else f"Press E to discard the {held}"

    def _interact(self, agent: str, events: list[dict]) -> None:
        name = self.at(agent)
        hands = self.hands[agent]
        if name is None:
            return
        if name.startswith("floor:") or name.endswith(" bin"):
            item = name.split(":")[2] if name.startswith("floor:") else name[:-4]
            if not hands.take(item):
                events.append({"type": "hands_full", "holding": hands.item})
                return
            if name.startswith("floor:"):
                del self.floor[int(name.split(":")[1])]
            events.append({"type": "pickup", "item": item})
        elif name == "bench":
            if hands.item is not None and self.bench_item is None:
                self.bench_item, self.bench_left_s = hands.give(), self.rules.bench.upgrade_s
                events.append({"type": "bench_put", "item": self.bench_item})
            elif hands.item is None and self.bench_item is not None and not self._manual_work_left():
                item = self.bench_item
                if self.bench_left_s <= 1e-9 and not item.endswith(UPGRADED):
                    item += UPGRADED
                hands.take(item)
                self.bench_item = None
                events.append({"type": "bench_take", "item": item})
        elif name == "counter" and hands.item is not None:
            match = next((o for o in self.orders if o["item"] == hands.item), None)
            if match is None:
                events.append({"type": "refused", "item": hands.item})
                return
            self.orders.remove(match)
            self.points += match["points"]
            self.delivered += 1
            events.append({"type": "deliver", "item": hands.give(), "points": match["points"]})
        elif name == "trash" and hands.item is not None:
            events.append({"type": "discard", "item": hands.give()})

    def _manual_work_left(self) -> bool:
        """A manual bench keeps its part until the work is done (E held there works it)."""
        return self.rules.bench.manual and self.bench_left_s > 1e-9

    def _step_world(self, inputs: dict[str, Input]) -> dict[str, list[dict]]:
        p = self.rules.player
        shared = self._new_orders()
        events: dict[str, list[dict]] = {a: list(shared) for a in self.agents}
        if self.bench_item is not None and self.bench_left_s > 0:
            working = not self.rules.bench.manual or any(
                "E" in inp.held and self.hands[a].item is None and self.at(a) == "bench" for a, inp in inputs.items())
            if working:
                self.bench_left_s = max(0.0, self.bench_left_s - self.dt)
        for agent, inp in inputs.items():
            self.pos[agent] = walk(self.pos[agent], inp.direction(), p.speed_m_s * self.dt, p.radius_m, self.walls)
            if inp.tap("Space") and self.hands[agent].item is not None:
                item = self.hands[agent].give()
                self.floor.append((item, self.pos[agent].copy()))
                events[agent].append({"type": "drop", "item": item})
            if inp.tap("E"):
                self._interact(agent, events[agent])
        return events

    def _score(self, agent: str) -> float:
        return self.points / self.rules.orders.target_points

    # -- senses ------------------------------------------------------------------------------------
    def part_look(self, item: str):
        """A part's row of the drawables table (`gear+` draws as `gear` with the `upgraded` ring)."""
        return self.look(item.rstrip(UPGRADED))

    def draw_part(self, canvas: Canvas, item: str, x: float, y: float, radius_m: float = 0.2) -> None:
        if item.endswith(UPGRADED):
            canvas.icon(self.look("upgraded"), x, y, radius_m * 1.45)
        canvas.icon(self.part_look(item), x, y, radius_m)

    def draw_station(self, canvas: Canvas, name: str, pos, look=None) -> None:
        look = look or self.look(name)
        canvas.icon(look, pos[0], pos[1], 0.38)
        if name.endswith(" bin"):
            self.draw_part(canvas, name[:-4], pos[0], pos[1] + 0.05, 0.22)
        canvas.label(look.label, pos[0], pos[1] + 0.45)

    def draw_floor(self, canvas: Canvas) -> None:
        room = self.rules.room
        floor = self.look("floor")
        canvas.checker(0, 0, room.width_m, room.height_m, floor.color, 1.0)
        self.decorate(canvas, 0.3, 0.3, room.width_m - 0.3, room.height_m - 0.3)
        draw_walls(canvas, self.walls, self.look("wall").color)

    def draw_worker(self, canvas: Canvas, agent: str, look) -> None:
        pos = self.pos[agent]
        canvas.icon(look, pos[0], pos[1], self.rules.player.radius_m * 1.2)
        if self.hands[agent].item:
            self.draw_part(canvas, self.hands[agent].item, pos[0] + 0.25, pos[1] - 0.15, 0.17)
        canvas.label(look.label, pos[0], pos[1] + 0.45)

    def draw_board(self, canvas: Canvas) -> None:
        """The order board above the room: each open order's part and the seconds it has left."""
        top = self.rules.room.height_m + 0.35
        board = self.look("board")
        canvas.rect(-0.4, top, self.rules.room.width_m + 0.4, top + 0.9, board.color)
        x, y = canvas.px(-0.3, top + 0.75)
        canvas.text_px(x, y, board.label)
        step = (self.rules.room.width_m - 2.4) / max(self.rules.orders.max_open, 1)
        for i, order in enumerate(self.orders):
            x = 2.6 + i * step
            self.draw_part(canvas, order["item"], x, top + 0.45, 0.22)
            px, py = canvas.px(x + 0.35, top + 0.66)
            canvas.text_px(px, py, f"{order['item']} {order['expires_s'] - self.t:.0f}s", ORDER_FONT)

    def _draw(self, agent: str | None) -> Canvas:
        room = self.rules.room
        canvas = self.canvas(-0.5, -0.5, room.width_m + 0.5, room.height_m + 1.4, background=(60, 58, 56))
        self.draw_floor(canvas)
        for name, pos in self.stations.items():
            self.draw_station(canvas, name, pos)
        if self.bench_item is not None and "bench" in self.stations:
            bx, by = self.stations["bench"]
            self.draw_part(canvas, self.bench_item, bx, by, 0.2)
            if self.bench_left_s > 0:  # the work left, as a bar under the bench
                canvas.rect(bx - 0.4, by - 0.6, bx - 0.4 + 0.8 * self.bench_left_s / self.rules.bench.upgrade_s,
                            by - 0.48, (250, 250, 250))
        for item, pos in self.floor:
            self.draw_part(canvas, item, *pos)
        viewer = agent or self.possible_agents[0]
        for other in self.possible_agents:
            self.draw_worker(canvas, other, self.look("you" if other == viewer else self.other_player))
        self.draw_board(canvas)
        return canvas

    def _hud(self, agent: str) -> str:
        return self._status(agent).format()

    def _status(self, agent: str) -> WorkshopStatus:
        orders = tuple(Order(o["item"], o["expires_s"] - self.t) for o in self.orders)
        return WorkshopStatus(self.points, orders, self.hands[agent].item, self.prompt(agent) or "")

    def _report(self, agent: str) -> str:
        return self._floor_report(agent).format()

    def _floor_report(self, agent: str) -> WorkshopFloor:
        pos = self.pos[agent]
        return WorkshopFloor(tuple((name, place(pos, p)) for name, p in self.stations.items()), self.bench_item or None,
                             self.bench_left_s, tuple((item, place(pos, p)) for item, p in self.floor))

    def _state(self, agent: str) -> np.ndarray:
        kinds = self.rules.parts.kinds
        held = self.hands[agent].item

        def code(item: str | None) -> tuple[float, float]:
            return (kinds.index(item.rstrip(UPGRADED)) + 1.0, float(item.endswith(UPGRADED))) if item else (0.0, 0.0)

        head = [self.pos[agent][0], self.pos[agent][1], *code(held), *code(self.bench_item), self.bench_left_s]
        slots = np.zeros((self.rules.orders.max_open, 3))
        for i, order in enumerate(self.orders):
            slots[i] = (*code(order["item"]), order["expires_s"] - self.t)
        return np.concatenate([head, slots.ravel()])

    def _metrics(self, agent: str) -> dict[str, float]:
        return {"points": float(self.points), "delivered": float(self.delivered)}

    def privileged_state(self, agent: str) -> dict:
        return {"pos": self.pos[agent].copy(), "held": self.hands[agent].item, "stations": dict(self.stations),
                "bench_item": self.bench_item, "bench_left_s": self.bench_left_s, "manual": self.rules.bench.manual,
                "orders": [dict(o) for o in self.orders], "door": self.door, "floor": list(self.floor),
                "reach_m": self.rules.player.reach_m, "t": self.t}
