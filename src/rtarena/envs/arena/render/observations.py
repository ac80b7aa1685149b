"""The `rgb`, `depth` and `minimap` observation modalities, and the env's render modes.

All three share one `Senses` object per env, which renders every living agent's view once per step
(one batch call), however many modalities ask. Options come from the env's `sense_options` (set from
the constructor's `resolution=`, `hud=`, `render_threads=`): `resolution=128` for 128 x 128,
`resolution=(320, 240)` for width x height.

- `rgb`: `(H, W, 3)` uint8, the first-person view with the HUD (unless `hud=False`) and, while the agent
  holds its minimap action, the minimap inset.
- `depth`: `(H, W)` float32 metres, aligned pixel for pixel with `rgb` (no HUD), sky = `far_m`.
- `minimap`: `(M, M, 3)` uint8, the minimap picture with the agent's arrow while its minimap action is
  on, black otherwise.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from rtarena.envs.arena.observations import register_modality
from rtarena.envs.arena.render.hud import minimap_layout
from rtarena.envs.arena.render.renderer import ArenaRenderer, parse_resolution

DEFAULT_RESOLUTION = 128


class Senses:
    """One env's renderer and the current step's frames (shared by its pixel modalities)."""

    def __init__(self, env: Any) -> None:
        self.env = env
        options = env.sense_options
        self.width, self.height = parse_resolution(options["resolution"])
        self.hud = bool(options["hud"])
        self.threads = options["render_threads"]
        rules = env.rules
        self.fov_deg = float(rules.players.fov_deg)
        self.far_m = round(float(rules.arena.size_m) * 1.5, 3)
        self.renderer: ArenaRenderer | None = None
        self._key: tuple | None = None
        self.rgb = self.depth = None
        self.rows: dict[int, int] = {}

    @classmethod
    def of(cls, env: Any) -> Senses:
        senses = env.__dict__.get("_senses")
        if senses is None:
            senses = env.__dict__["_senses"] = cls(env)
        return senses

    def ensure_renderer(self):
        world = self.env.world
        if self.renderer is None:
            self.renderer = ArenaRenderer(world, self.width, self.height, fov_deg=self.fov_deg,
                                          threads=self.threads, far_m=self.far_m)
        else:
            self.renderer.set_world(world)
        return self.renderer

    def flags(self, i: int) -> dict[str, bool]:
        env = self.env
        me = env.possible_agents[i]
        if not env.events_of(me):  # most agents most steps: no event of theirs, every flag off (issue 19)
            return {"hit": False, "fired": False, "hurt": False}
        f = env.event_flags(i)
        fired = any(e.get("type") == "shot" and e.get("shooter") == me for e in env.events_of(me))
        return {"hit": bool(f.get("my_shot_hit")), "fired": fired,
                "hurt": bool(f.get("hit_by_player") or f.get("hit_by_turret") or f.get("zone_damage"))}

    def frames(self) -> tuple[np.ndarray, np.ndarray]:
        """This step's views of every agent still in the episode (rendered on first request)."""
        env, world = self.env, self.env.world
        key = (id(world), float(world.time_s), tuple(env.agents))
        if key != self._key:
            renderer = self.ensure_renderer()
            indices = [env.agent_index[a] for a in env.agents]
            flags = [self.flags(i) for i in indices] if env.log.step else None  # no events: no flags
            if flags is not None and not any(any(f.values()) for f in flags):
                flags = None  # the same HUD rows, without making a table of flags that are all off
            rendered = np.array(indices, dtype=np.int64)  # made once for the HUD and camera tables
            hud = renderer.hud_table(world, rendered, env.points, flags, show=self.hud)
            wants_depth = "depth" in env.builders  # else a scratch depth only
            self.rgb, self.depth = renderer.render(world, rendered, env.log.step, env.possible_agents, hud=hud,
                                                   depth=wants_depth)
            self.rows = {i: k for k, i in enumerate(indices)}
            self._key = key
        return self.rgb, self.depth


class RgbObservation:
    def __init__(self, env: Any) -> None:
        self.senses = Senses.of(env)
        self.space = spaces.Box(0, 255, shape=(self.senses.height, self.senses.width, 3), dtype=np.uint8)

    def prepare(self) -> None:
        self.senses.frames()

    def build(self, i: int) -> np.ndarray:
        return self.senses.rgb[self.senses.rows[i]]


class DepthObservation:
    def __init__(self, env: Any) -> None:
        self.senses = Senses.of(env)
        self.space = spaces.Box(0.0, self.senses.far_m, shape=(self.senses.height, self.senses.width),
                                dtype=np.float32)

    def prepare(self) -> None:
        self.senses.frames()

    def build(self, i: int) -> np.ndarray:
        return self.senses.depth[self.senses.rows[i]]


class MinimapObservation:
    def __init__(self, env: Any) -> None:
        self.env = env
        self.senses = Senses.of(env)
        self.size = minimap_layout(self.senses.width, self.senses.height)[2]
        self.space = spaces.Box(0, 255, shape=(self.size, self.size, 3), dtype=np.uint8)

    def prepare(self) -> None:
        self.senses.ensure_renderer()

    def build(self, i: int) -> np.ndarray:
        world = self.env.world
        if not world.players.minimap_open[i]:
            return np.zeros(self.space.shape, dtype=np.uint8)
        return self.senses.renderer.minimap_view(world, i)


register_modality("rgb", RgbObservation)
register_modality("depth", DepthObservation)
register_modality("minimap", MinimapObservation)


def spectator_pixels(height: int) -> int:
    return max(256, min(720, height))


def compose(spectator: np.ndarray, views: np.ndarray, gap: int = 4) -> np.ndarray:
    """The spectator's top-down view on the left, every agent's view in a grid on the right."""
    n, h, w = views.shape[:3]
    cols = max(1, math.ceil(math.sqrt(n * h / max(w, 1))))
    rows = max(1, math.ceil(n / cols))
    grid_h, grid_w = rows * h + (rows - 1) * gap, cols * w + (cols - 1) * gap
    s = spectator.shape[0]
    height = max(s, grid_h)
    frame = np.full((height, s + gap + grid_w, 3), 24, dtype=np.uint8)
    frame[:s, :s] = spectator
    for k in range(n):
        r, c = divmod(k, cols)
        y, x = r * (h + gap), s + gap + c * (w + gap)
        frame[y:y + h, x:x + w] = views[k]
    return frame


class EnvRenderer:
    """`env.render()` for the arena: `rgb_array` returns the spectator's map beside every agent's view;
    `human` shows the same in a pygame window (split screen)."""

    modes = ("rgb_array", "human")

    def __init__(self, env: Any, mode: str) -> None:
        from rtarena.errors import UserError

        if mode not in self.modes:
            raise UserError(f"render_mode must be one of {', '.join(self.modes)}, got {mode!r}",
                            field="render_mode")
        self.env = env
        self.mode = mode
        self.window = None

    def frame(self) -> np.ndarray:
        env = self.env
        if env.world is None:
            raise RuntimeError("call reset() before render()")
        senses = Senses.of(env)
        rgb, _ = senses.frames()
        if len(rgb) == 0:  # the episode is over: show everyone's last view
            renderer = senses.ensure_renderer()
            rgb, _ = renderer.render(env.world, range(len(env.possible_agents)), env.log.step,
                                     env.possible_agents, depth=False)
        n, h, w = rgb.shape[:3]
        cols = max(1, math.ceil(math.sqrt(n * h / max(w, 1))))
        grid_h = math.ceil(n / cols) * (h + 4) - 4
        spectator = senses.renderer.spectator(env.world, spectator_pixels(grid_h), env.log.step,
                                              env.possible_agents)
        return compose(spectator, rgb)

    def render(self):
        frame = self.frame()
        if self.mode == "rgb_array":
            return frame
        if self.window is None:
            from rtarena.envs.arena.render.window import HumanWindow

            self.window = HumanWindow()
        self.window.show(frame)
        return None

    def close(self) -> None:
        if self.window is not None:
            self.window.close()
            self.window = None
        senses = self.env.__dict__.get("_senses")
        if senses is not None and senses.renderer is not None:
            senses.renderer.close()
            senses.renderer = None
            senses._key = None
