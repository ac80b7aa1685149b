"""Tilefall: stay on a floor of tiles that warn (turn red), then drop."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from rtarena.envs.games.base import Input, SuiteGame
from rtarena.envs.games.canvas import Canvas
from rtarena.envs.games.reports import TilefallReport
from rtarena.envs.games.rules import GameRules, Section
from rtarena.envs.games.walker import WalkerRules
from rtarena.envs.search import breadth_first, grid

MIN_SOLID = 6  # tiles never warned, so the floor never vanishes entirely
NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))


class Floor(Section):
    size: int = Field(ge=3, le=16)
    tile_m: float = Field(gt=0)
    shape: Literal["square", "islands"]
    holes: int = Field(ge=0)


class Drops(Section):
    pattern: Literal["single", "cluster", "track"]
    warning_s: float = Field(gt=0)
    interval_start_s: float = Field(gt=0)
    interval_end_s: float = Field(gt=0)
    cluster_size: int = Field(ge=1)


class TilefallRules(GameRules):
    floor: Floor
    player: WalkerRules
    drops: Drops


def connected(solid: np.ndarray) -> bool:
    """Whether the solid tiles form one 4-connected region."""
    cells = np.argwhere(solid)
    if len(cells) == 0:
        return False
    seen = breadth_first([tuple(cells[0])], grid(solid.shape, lambda cell: bool(solid[cell]), NEIGHBOURS))
    return len(seen) == len(cells)


class Tilefall(SuiteGame):
    """Survive on a grid of floor tiles: tiles warn (turn red), then drop; falling ends the run.

    ## Description
    A top-down square floor of `floor.size` x `floor.size` tiles (`tile_m` metres each) hangs over a
    void. Every so often (`drops.interval_start_s`, shrinking linearly to `interval_end_s` at the time
    limit) a tile starts to warn: it turns red and drops `drops.warning_s` later. A player whose centre
    is over a dropped tile or off the floor falls. Layouts (start tile, holes) come from the seed.

    ## Observation
    `rgb`: the floor from above under the HUD strip (a warned tile shows its seconds left; the legend
    below). `text`: HUD line and an ASCII map, north up (`P` you, `.` solid, `!` warned, `_` gone). `state`:
    x, y (fraction of the floor), time left fraction, then one value per tile, column-major from the
    south-west (0 solid, 1 gone, in between: how far its warning ran).

    ## Action Space
    Keys `W A S D` (north, west, south, east; two keys move diagonally) at `player.speed_m_s`; no
    mouse. Text form: `0 0 ; W ; W D ; D*3`.

    ## Rewards and Score
    score = seconds survived / time limit (1 when standing at the end); reward = the score's change.

    ## Termination
    Falling terminates; the time limit (`game.time_limit_s`) truncates.

    ## Capabilities
    Rated 0-3 in the level file's `[capabilities]` table (`rtarena list --capabilities`).

    ## Variants
    {variants}

    ## Registered Configurations
    - `games/tilefall-v0`, `games/tilefall-var1-v0`, `games/tilefall-var2-v0`, `games/tilefall-var3-v0`
    """

    level_file = "tilefall.toml"
    rules_schema = TilefallRules
    rules: TilefallRules

    def state_size(self) -> int:
        return 3 + self.rules.floor.size ** 2

    # -- world -------------------------------------------------------------------------------------
    def _new_world(self, rng: np.random.Generator) -> None:
        n = self.rules.floor.size
        self.gone = np.zeros((n, n), dtype=bool)  # [column, row], row 0 in the south
        self.warn_left = np.full((n, n), np.inf)  # seconds until a warned tile drops
        if self.rules.floor.shape == "islands":
            for _ in range(self.rules.floor.holes * 4):
                if self.gone.sum() >= self.rules.floor.holes:
                    break
                c, r = rng.integers(n, size=2)
                trial = ~self.gone.copy()
                trial[c, r] = False
                if connected(trial):
                    self.gone[c, r] = True
        solid = np.argwhere(~self.gone)
        centre = (n - 1) / 2
        near = solid[np.abs(solid - centre).max(axis=1) <= max(1, n // 4)]
        c, r = near[rng.integers(len(near))] if len(near) else solid[rng.integers(len(solid))]
        tile = self.rules.floor.tile_m
        self.pos = {a: np.array([(c + 0.5) * tile, (r + 0.5) * tile]) for a in self.possible_agents}
        self.fell_at: dict[str, float | None] = {a: None for a in self.possible_agents}
        self.next_warning_s = self._interval()

    def _interval(self) -> float:
        d = self.rules.drops
        frac = min(1.0, self.t / self.time_limit_s)
        return d.interval_start_s + (d.interval_end_s - d.interval_start_s) * frac

    def tile_of(self, pos: np.ndarray) -> tuple[int, int] | None:
        n, tile = self.rules.floor.size, self.rules.floor.tile_m
        c, r = int(np.floor(pos[0] / tile)), int(np.floor(pos[1] / tile))
        return (c, r) if 0 <= c < n and 0 <= r < n else None

    def _candidates(self) -> np.ndarray:
        return np.argwhere(~self.gone & ~np.isfinite(self.warn_left))

    def _choose(self, rng: np.random.Generator) -> list[tuple[int, int]]:
        """The tiles of the next warning, by the drop pattern."""
        free = self._candidates()
        if len(free) <= MIN_SOLID:
            return []
        d = self.rules.drops
        if d.pattern == "track":
            target = self.pos[self.agents[int(rng.integers(len(self.agents)))]] / self.rules.floor.tile_m - 0.5
            dist = np.abs(free - target).sum(axis=1)
            return [tuple(free[int(np.argmin(dist))])]
        first = tuple(free[rng.integers(len(free))])
        chosen = [first]
        if d.pattern == "cluster":
            free_set = {tuple(f) for f in free}
            while len(chosen) < min(d.cluster_size, len(free) - MIN_SOLID):
                around = {(c + dc, r + dr) for c, r in chosen for dc, dr in NEIGHBOURS}
                options = sorted(around & free_set - set(chosen))
                if not options:
                    break
                chosen.append(options[int(rng.integers(len(options)))])
        return chosen

    def _step_world(self, inputs: dict[str, Input]) -> dict[str, list[dict]]:
        events: dict[str, list[dict]] = {a: [] for a in self.agents}
        dt = self.dt
        # warnings run down; expired ones drop
        self.warn_left -= dt
        dropping = np.argwhere(self.warn_left <= 1e-9)
        for c, r in dropping:
            self.gone[c, r] = True
            self.warn_left[c, r] = np.inf
            for agent in self.agents:
                events[agent].append({"type": "drop", "tile": [int(c), int(r)]})
        self.next_warning_s -= dt
        if self.next_warning_s <= 1e-9:
            self.next_warning_s += self._interval()
            for c, r in self._choose(self.np_random):
                self.warn_left[c, r] = self.rules.drops.warning_s
                for agent in self.agents:
                    events[agent].append({"type": "warn", "tile": [int(c), int(r)]})
        speed = self.rules.player.speed_m_s
        for agent, inp in inputs.items():
            dx, dy = inp.direction()
            self.pos[agent] = self.pos[agent] + np.array([dx, dy]) * speed * dt
            tile = self.tile_of(self.pos[agent])
            if tile is None or self.gone[tile]:
                self.fell_at[agent] = round(self.t + dt, 9)
                events[agent].append({"type": "fall", "tile": list(tile) if tile else None})
        return events

    def _score(self, agent: str) -> float:
        survived = self.fell_at[agent] if self.fell_at[agent] is not None else self.t
        return survived / self.time_limit_s

    def _finished(self, agent: str) -> bool:
        return self.fell_at[agent] is not None

    # -- senses ------------------------------------------------------------------------------------
    def _draw(self, agent: str | None) -> Canvas:
        n, tile = self.rules.floor.size, self.rules.floor.tile_m
        hole = self.look("hole").color
        canvas = self.canvas(-0.3 * tile, -0.3 * tile, (n + 0.3) * tile, (n + 0.3) * tile, background=hole)
        canvas.rect(0, 0, n * tile, n * tile, self.look("grout").color)
        gap = 0.06 * tile
        warning = self.rules.drops.warning_s
        solid, warned = self.look("tile"), self.look("warned")
        for c in range(n):
            for r in range(n):
                if self.gone[c, r]:
                    canvas.rect(c * tile, r * tile, (c + 1) * tile, (r + 1) * tile, hole)
                    continue
                left = self.warn_left[c, r]
                if np.isfinite(left):  # redder as the drop nears, the seconds left written on it
                    heat = 1.0 - left / warning
                    color = tuple(int(v * (1.0 - 0.45 * heat)) for v in warned.color)
                    canvas.rect(c * tile + gap, r * tile + gap, (c + 1) * tile - gap, (r + 1) * tile - gap, color)
                    x, y = canvas.px((c + 0.12) * tile, (r + 0.75) * tile)
                    canvas.text_px(x, y, f"{left:.1f}")
                else:
                    canvas.checker(c * tile + gap, r * tile + gap, (c + 1) * tile - gap, (r + 1) * tile - gap,
                                   solid.color, tile / 4, 0.94)
        self.decorate(canvas, 0.0, 0.0, n * tile, n * tile, radius_m=0.12 * tile)
        viewer = agent or self.possible_agents[0]
        for other in self.possible_agents:
            if self.fell_at[other] is None:
                look = self.look("you" if other == viewer else "other")
                canvas.icon(look, *self.pos[other], self.rules.player.radius_m * 1.2)
                canvas.label(look.label, self.pos[other][0], self.pos[other][1] + 0.45 * tile)
        return canvas

    def tile_chars(self, agent: str) -> np.ndarray:
        """The report's map, [column, row]: `P` you, `_` gone, `!` warned, `.` solid."""
        chars = np.where(self.gone, "_", np.where(np.isfinite(self.warn_left), "!", "."))
        me = self.tile_of(self.pos[agent])
        if me is not None:
            chars[me] = "P"
        return chars

    def _hud(self, agent: str) -> str:
        return "fell" if self.fell_at[agent] is not None else "standing"

    def _report(self, agent: str) -> str:  # read back by `reports.py: read_tilefall`
        x, y = self.pos[agent]
        warned = np.argwhere(np.isfinite(self.warn_left))
        soon = {(int(c), int(r)): self.warn_left[c, r] for c, r in warned[:8]}
        return TilefallReport((x, y), soon, self.tile_chars(agent), self.tile_of(self.pos[agent])).format()

    def _state(self, agent: str) -> np.ndarray:
        side = self.rules.floor.size * self.rules.floor.tile_m
        warning = self.rules.drops.warning_s
        tiles = np.where(self.gone, 1.0, np.where(np.isfinite(self.warn_left), 1.0 - self.warn_left / warning, 0.0))
        head = [self.pos[agent][0] / side, self.pos[agent][1] / side, 1.0 - self.t / self.time_limit_s]
        return np.concatenate([head, np.clip(tiles, 0.0, 1.0).ravel()])

    def _metrics(self, agent: str) -> dict[str, float]:
        return {"survived_s": self.fell_at[agent] if self.fell_at[agent] is not None else self.t,
                "tiles_dropped": float(self.gone.sum())}

    def privileged_state(self, agent: str) -> dict:
        return {"pos": self.pos[agent].copy(), "gone": self.gone.copy(), "warn_left": self.warn_left.copy(),
                "tile_m": self.rules.floor.tile_m, "speed_m_s": self.rules.player.speed_m_s, "dt": self.dt}
