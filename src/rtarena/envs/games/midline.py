"""Midline: two workshops race for one order board; the parts lie on the contested midline."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
from pydantic import Field

from rtarena.envs.games.canvas import Canvas
from rtarena.envs.games.reports import WorkshopFloor, WorkshopStatus
from rtarena.envs.games.rules import Section
from rtarena.envs.games.versus import outcome
from rtarena.envs.games.walker import within
from rtarena.envs.games.workshop import Workshop, WorkshopRules


class Midline(Section):
    spots: int = Field(ge=1, le=8)
    respawn_s: float = Field(gt=0)
    linger_s: float = Field(gt=0)
    bench_across: bool
    steal: bool


class MidlineRules(WorkshopRules):
    midline: Midline


class MidlineRace(Workshop):
    """Two players race to fill one order board from parts that lie on the line between them.

    ## Description
    The workshop's rules (see `games/workshop-v0`) for two rivals. The floor is split by a painted
    midline (no wall). Each side has its own bench, its own delivery bin (the counter) and trash,
    placed per seed and mirrored; there are no part bins: parts lie at `midline.spots` places on the
    midline and an emptied place gets a new part (a seeded kind) after `respawn_s`; a part left lying on
    its place for `linger_s` goes away (the place then refills). The order board is
    shared: a delivery into your bin fills the oldest matching order for you and takes it off the board
    for both. The first side with `orders.target_points` points wins at once. Dropped parts (Space) lie
    where they fall and anyone may pick them up.

    ## Observation
    As the workshop's, from your side: `rgb` the floor (you blue, the rival red; each station flagged in its
    side's colour, whichever seat you play; the legend below), `text` HUD (your points and the rival's,
    orders, hands, prompt) and your stations' and the parts' bearings, `state` the workshop's vector plus
    your points, the rival's points, and the rival's x, y.

    ## Action Space
    Keys `W A S D E Space`; no mouse. Text form: `0 0 ; W*4 ; E ; - ; D*3`.

    ## Rewards and Score
    1 for a win, 0.5 for a draw, 0 for a loss by order points (plain {orders.points_plain:g}, upgraded
    {orders.points_upgraded:g}), decided when a side reaches the target or at the time limit (equal points: a
    draw); 0 while the race goes on.

    ## Termination
    A side reaching `orders.target_points` ends the episode; the time limit truncates.

    ## Capabilities
    Rated 0-3 in the level file's `[capabilities]` table (`rtarena list --capabilities`).

    ## Variants
    {variants}

    ## Registered Configurations
    - `games/midline-v0`, `games/midline-var1-v0`, `games/midline-var2-v0`, `games/midline-var3-v0`
    """

    level_file = "midline.toml"
    other_player = "rival"
    rules_schema = MidlineRules
    seated: str | None = None  # the side whose bench the workshop rules act on now (`seat`)
    rules: MidlineRules

    def state_size(self) -> int:
        return super().state_size() + 4

    def rival(self, agent: str) -> str:
        return self.possible_agents[1 - self.possible_agents.index(agent)]

    def _new_world(self, rng: np.random.Generator) -> None:
        super()._new_world(rng)  # orders, hands and floor as in the workshop; the layout is redone
        room, m = self.rules.room, self.rules.midline
        w, h = room.width_m, room.height_m
        self.mid = w / 2
        ys = rng.permutation(np.arange(1.0, h - 0.5, 1.5))[:3]
        west = {name: np.array([0.5, y]) for name, y in zip(("bench", "counter", "trash"), ys, strict=True)}
        if m.bench_across:
            west["bench"] = np.array([self.mid + 1.5, ys[0]])
        east = {name: np.array([w - p[0], p[1]]) for name, p in west.items()}
        self.own = {"p0": west, "p1": east}
        self.benches = {a: (None, 0.0) for a in self.possible_agents}
        self.tally = {a: (0, 0) for a in self.possible_agents}
        self.spot_pos = [np.array([self.mid, y]) for y in np.sort(rng.choice(np.arange(0.8, h - 0.5, 0.9), m.spots,
                                                                              replace=False))]
        self.spot_wait = [0.0] * m.spots
        self.spot_age = [0.0] * m.spots
        kinds = self.rules.parts.kinds
        self.floor = [(kinds[int(rng.integers(len(kinds)))], p.copy()) for p in self.spot_pos]
        self.pos = {"p0": np.array([w / 4, h / 2]), "p1": np.array([3 * w / 4, h / 2])}
        self.stations = {}

    @contextmanager
    def seat(self, agent: str) -> Iterator[None]:
        """Workshop's rules act on one bench, one set of stations and one tally: run them on this side's
        (re-entrant: the workshop's HUD asks for the prompt inside a seat)."""
        if self.seated == agent:
            yield
            return
        self.seated = agent
        self.stations = self.own[agent]
        self.bench_item, self.bench_left_s = self.benches[agent]
        self.points, self.delivered = self.tally[agent]
        try:
            yield
        finally:
            self.benches[agent] = (self.bench_item, self.bench_left_s)
            self.tally[agent] = (self.points, self.delivered)
            self.stations, self.bench_item, self.bench_left_s, self.points, self.delivered = {}, None, 0.0, 0, 0
            self.seated = None

    def _interact(self, agent: str, events: list[dict]) -> None:
        rival = self.rival(agent)
        if self.rules.midline.steal and self.hands[agent].item is None and self.hands[rival].item is not None \
                and within(self.pos[agent], self.pos[rival], self.rules.player.reach_m):
            self.hands[agent].take(self.hands[rival].give())
            events.append({"type": "steal", "item": self.hands[agent].item})
            return
        with self.seat(agent):
            super()._interact(agent, events)

    def prompt(self, agent: str) -> str | None:
        with self.seat(agent):
            return super().prompt(agent)

    def _step_world(self, inputs) -> dict[str, list[dict]]:
        events = super()._step_world(inputs)
        for agent, (item, left) in self.benches.items():
            self.benches[agent] = (item, max(0.0, left - self.dt) if item else left)
        kinds = self.rules.parts.kinds
        for i, spot in enumerate(self.spot_pos):
            lying = [j for j, (_, p) in enumerate(self.floor) if float(np.hypot(*(p - spot))) < 0.05]
            if lying:
                self.spot_age[i] += self.dt
                if self.spot_age[i] + 1e-9 >= self.rules.midline.linger_s:
                    del self.floor[lying[0]]  # left alone too long: it goes, and the place refills
                continue
            self.spot_age[i] = 0.0
            self.spot_wait[i] += self.dt
            if self.spot_wait[i] + 1e-9 >= self.rules.midline.respawn_s:
                self.spot_wait[i] = 0.0
                self.floor.append((kinds[int(self.np_random.integers(len(kinds)))], spot.copy()))
        return events

    def side_points(self, agent: str) -> int:
        return self.tally[agent][0]

    def _finished(self, agent: str) -> bool:
        return max(self.side_points(a) for a in self.possible_agents) >= self.rules.orders.target_points

    def _score(self, agent: str) -> float:
        if self._finished(agent) or self.step_count >= self.max_steps:
            return outcome(self.side_points(agent), self.side_points(self.rival(agent)))
        return 0.0

    # -- senses ------------------------------------------------------------------------------------
    def _draw(self, agent: str | None) -> Canvas:
        viewer = agent or "p0"
        with self.seat(viewer):
            canvas = super()._draw(agent)  # floor, loose parts, both players, the board
        room = self.rules.room
        line = self.look("midline")
        canvas.rect(self.mid - 0.04, 0.0, self.mid + 0.04, room.height_m, line.color)
        for side in self.possible_agents:
            mine = side == viewer
            tag = self.look("your flag" if mine else "rival flag")
            for name, pos in self.own[side].items():
                if not mine:  # the viewer's own were drawn with the workshop's floor
                    self.draw_station(canvas, name, pos)
                canvas.icon(tag, pos[0] + 0.3, pos[1] + 0.3, 0.16)
            if self.benches[side][0] and not mine:
                self.draw_part(canvas, self.benches[side][0], *self.own[side]["bench"])
        return canvas

    def _status(self, agent: str) -> WorkshopStatus:
        with self.seat(agent):
            status = super()._status(agent)
        return replace(status, rival_points=self.side_points(self.rival(agent)))

    def _floor_report(self, agent: str) -> WorkshopFloor:
        with self.seat(agent):
            return replace(super()._floor_report(agent), side="west" if agent == "p0" else "east")

    def _state(self, agent: str) -> np.ndarray:
        rival = self.rival(agent)
        with self.seat(agent):
            head = super()._state(agent)
        return np.concatenate([head, [self.side_points(agent), self.side_points(rival), *self.pos[rival]]])

    def _metrics(self, agent: str) -> dict[str, float]:
        points, delivered = self.tally[agent]
        return {"result": self.scores[agent], "points": float(points), "delivered": float(delivered)}

    def privileged_state(self, agent: str) -> dict:
        with self.seat(agent):
            return {**super().privileged_state(agent), "rival": self.pos[self.rival(agent)].copy(), "mid": self.mid}
