"""`SuiteGame`: the base class of the game suite (solo now, 1..N players by design).

The base class owns the PettingZoo protocol, the keyboard-and-mouse action space (`keys.py`), key
presses (a tap key acts on the step it goes down), the clock and time limit, observations (`rgb` from the
compiled 2D canvas, `hud` = the short line a player reads on screen, `text` = title, HUD and report (the
text ablation), `state`), the score in [0, 1] and its reward (the score's
change each step, so an episode's return is its final score), events and metrics. A concrete game
declares `level_file` and `rules_schema` and fills in these hooks:

| hook | returns | called |
|---|---|---|
| `_new_world(rng)` | nothing; builds the world from the seeded generator | at reset |
| `_step_world(inputs)` | `{agent: [event dicts]}` | each step; `inputs[agent]`: an `Input` per living agent |
| `_score(agent)` | float in [0, 1] | after each step |
| `_finished(agent)` | bool: the agent's run is over (fell, reached the flag) | after each step |
| `_draw(agent)` | a `Canvas`: the agent's view (`None`: the spectator's), kinds by `look` | when `rgb` is observed |
| `_hud(agent)` / `_report(agent)` | text the player reads on screen / a fuller text report | when `text` is observed |
| `_state(agent)` | float vector of length `state_size()` | when `state` is observed |
| `privileged_state(agent)` | dict of world facts for privileged scripted players | by those players only |

What the frame shows is data: the game's drawables table (`levels/drawables/<game>.toml`) names every
kind the renderer draws (its shape, colour, label and meaning); `_draw` asks `look(kind)` for each,
`decorate` scatters the table's decoration over a floor, and the base class writes the HUD line on a strip
at the top of every frame. The prompt's legend ("What you see", in `documentation()`) is written from the same table.
"""

from __future__ import annotations

import colorsys
import inspect
import string
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from rtarena.contract import EnvCapabilities
from rtarena.envs.base import AgentID, RealtimeParallelEnv
from rtarena.envs.games.canvas import HUD_FONT, HUD_INK, HUD_PLATE, Canvas, font_atlas, text_width
from rtarena.envs.games.keys import KeyMouseSpace, describe_keys
from rtarena.envs.games.reports import Hud
from rtarena.envs.games.rules import Drawable, GameRules, read_drawables
from rtarena.envs.level_files import META, fill_doc, read_level
from rtarena.envs.modalities import GAME_MODALITIES
from rtarena.errors import UserError

MODALITIES = GAME_MODALITIES
MAX_TEXT = 4000
# The frame's side in pixels unless `size=` says otherwise: OpenAI's low-detail image and one tile of its
# high-detail grid are 512 x 512, and Claude and Gemini take 512 px whole (docs/games.md, "The size a model
# is given"). `size` only shrinks or grows what is drawn; every element scales with it.
DEFAULT_SIZE = 512
HUD_LINES = 3  # the HUD strip's height in lines of its font
HUES = ((15, "red"), (40, "orange"), (68, "yellow"), (165, "green"), (195, "teal"), (255, "blue"),
        (290, "purple"), (340, "pink"), (360, "red"))


def color_name(rgb: tuple[int, int, int]) -> str:
    """A plain colour word for the legend, by hue (grey shades and brown by brightness)."""
    hue, saturation, value = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
    if 0.1 <= saturation < 0.2 and 20 <= hue * 360 < 60 and value > 0.6:
        return "beige"
    if saturation < 0.2 or value < 0.15 or (value < 0.3 and saturation < 0.5):
        return "black" if value < 0.2 else "dark grey" if value < 0.45 else "grey" if value < 0.8 else "white"
    name = next(word for bound, word in HUES if hue * 360 < bound)
    if name in ("orange", "red", "yellow") and value < 0.65 and saturation < 0.85:
        return "brown"
    if name == "blue" and saturation < 0.6:
        return "light blue"
    return ("dark " if value < 0.45 else "") + name


def wrap_hud(line: str, width: int, px: int, lines: int = HUD_LINES) -> list[str]:
    """The HUD line broken at spaces into at most `lines` rows of `width` px (the last row may run over)."""
    rows: list[str] = []
    current = ""
    for word in line.split(" "):
        trial = f"{current} {word}".strip() if current else word
        if text_width(trial, px) <= width or not current:
            current = trial
        else:
            rows.append(current)
            current = word
    rows.append(current)
    if len(rows) > lines:
        rows = [*rows[: lines - 1], " ".join(rows[lines - 1:])]
    return [row.rstrip(" |").lstrip("| ") for row in rows]


@dataclass(frozen=True)
class Input:
    """One agent's input this step: keys held, keys that went down this step, mouse move (degrees)."""

    held: frozenset[str]
    pressed: frozenset[str]
    dx: float = 0.0
    dy: float = 0.0

    def axis(self, negative: str, positive: str) -> float:
        return float(positive in self.held) - float(negative in self.held)

    def direction(self) -> tuple[float, float]:
        """The W A S D direction as a unit vector (x east, y north), (0, 0) when none or opposed."""
        x, y = self.axis("A", "D"), self.axis("S", "W")
        norm = (x * x + y * y) ** 0.5
        return (x / norm, y / norm) if norm else (0.0, 0.0)

    def tap(self, key: str) -> bool:
        """A tap key fires once when it goes down; holding it does not repeat."""
        return key in self.pressed


class SuiteGame(RealtimeParallelEnv):
    """Base class of the suite's games; see the module docstring for the hooks."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "name": "suite_game",
                                          "is_parallelizable": True}
    level_file: ClassVar[str] = ""
    rules_schema: ClassVar[type[GameRules]] = GameRules
    # the scripted players' one read (agents/scripted/games: world): `privileged_state(agent)`, a copy per step
    capabilities = EnvCapabilities(privileged=True)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A game's docstring is a template: `{orders.target_points:g}` and the `{variants}` line are filled
        from its level file (the base level's numbers: the prompt's `### Level rules` states the ones in force)."""
        super().__init_subclass__(**kwargs)
        doc = cls.__dict__.get("__doc__")
        if doc and cls.level_file and "{" in doc:
            cls.__doc__ = fill_doc(doc, read_level(cls.level_file, cls.rules_schema))

    def __init__(self, variant: str | None = None, num_agents: int | None = None,
                 obs: tuple[str, ...] | list[str] | str = MODALITIES, size: int = DEFAULT_SIZE,
                 render_mode: str | None = None, overrides: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.rules = read_level(self.level_file, self.rules_schema, variant, overrides)
        self._looks = read_drawables(self.level_file)
        self.variant = variant or "base"
        game = self.rules.game
        self.dt = float(game.dt)
        self.time_limit_s = float(game.time_limit_s)
        self.max_steps = round(self.time_limit_s / self.dt)
        count = num_agents or game.players
        if count < 1:
            raise UserError(f"num_agents must be >= 1, got {count}", field="num_agents")
        self.possible_agents = [f"p{i}" for i in range(count)]
        names = (obs,) if isinstance(obs, str) else tuple(obs)
        unknown = [n for n in names if n not in MODALITIES]
        if unknown or not names:
            raise UserError(f"obs must name some of {', '.join(MODALITIES)}, got {names!r}", field="obs")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise UserError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}",
                            field="render_mode")
        self.obs_modalities = names
        if int(size) < 32:
            raise UserError(f"size must be at least 32 pixels, got {size!r}", field="size")
        self.size = int(size)
        self.render_mode = render_mode
        self.keyspace = KeyMouseSpace(game.keys, game.mouse)
        self.metadata = {**self.metadata, "render_fps": max(1, round(1 / self.dt))}
        boxes = {
            "rgb": spaces.Box(0, 255, (self.size, self.size, 3), np.uint8),
            "hud": spaces.Text(max_length=MAX_TEXT, min_length=0, charset=string.printable),
            "text": spaces.Text(max_length=MAX_TEXT, min_length=0, charset=string.printable),
            "state": spaces.Box(-np.inf, np.inf, (self.state_size(),), np.float32),
        }
        self._observation_space = spaces.Dict({n: boxes[n] for n in names})

    # -- spaces ----------------------------------------------------------------------------------
    def observation_space(self, agent: AgentID) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: AgentID) -> KeyMouseSpace:
        return self.keyspace

    def state_size(self) -> int:
        """Length of the `state` vector (games override)."""
        return 2

    # -- protocol --------------------------------------------------------------------------------
    def _reset(self, options: dict) -> tuple[dict, dict]:
        self.t = 0.0
        self.step_count = 0
        self.previous: dict[str, frozenset[str]] = {a: frozenset() for a in self.possible_agents}
        self.scores = {a: 0.0 for a in self.possible_agents}
        self.finished = {a: False for a in self.possible_agents}
        # decoration is placed from this seed, read without drawing from the game's generator (layouts stay)
        self._decor_seed = int(self.np_random.bit_generator.state["state"]["state"] % 2**32)
        self._new_world(self.np_random)
        return {a: self._observe(a) for a in self.agents}, {a: {"events": []} for a in self.agents}

    def _step(self, actions: dict[AgentID, Any]):
        inputs = {}
        for agent in self.agents:
            action = actions[agent]
            held = self.keyspace.held(action)
            mouse = np.asarray(action["mouse"], dtype=float).ravel()
            pressed = frozenset(k for k in held - self.previous[agent])
            self.previous[agent] = held
            inputs[agent] = Input(held, pressed, float(mouse[0]), float(mouse[1]))
        events = self._step_world(inputs)
        self.step_count += 1
        self.t = round(self.step_count * self.dt, 9)
        rewards, terminations, truncations, infos = {}, {}, {}, {}
        out_of_time = self.step_count >= self.max_steps
        for agent in self.agents:
            score = float(np.clip(self._score(agent), 0.0, 1.0))
            rewards[agent] = score - self.scores[agent]
            self.scores[agent] = score
            done = bool(self._finished(agent))
            self.finished[agent] = done
            terminations[agent] = done
            truncations[agent] = out_of_time and not done
            infos[agent] = {"events": list(events.get(agent, [])), "score": score}
        observations = {a: self._observe(a) for a in self.agents}
        return observations, rewards, terminations, truncations, infos

    def _observe(self, agent: AgentID) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if "rgb" in self.obs_modalities:
            out["rgb"] = self._frame(agent)
        if "hud" in self.obs_modalities:
            out["hud"] = self.hud(agent)[:MAX_TEXT]
        if "text" in self.obs_modalities:
            out["text"] = self.text(agent)[:MAX_TEXT]
        if "state" in self.obs_modalities:
            out["state"] = np.asarray(self._state(agent), dtype=np.float32).reshape(self.state_size())
        return out

    def _frame(self, agent: AgentID | None) -> np.ndarray:
        canvas = self._draw(agent)
        self._hud_strip(canvas, agent)
        return canvas.paint()

    def hud_px(self) -> int:
        """The HUD strip's height in pixels: `HUD_LINES` lines of the HUD font."""
        return HUD_LINES * (font_atlas(max(6, round(self.size * HUD_FONT)))[0].shape[1] + 2) + 4

    def _hud_strip(self, canvas: Canvas, agent: AgentID | None) -> None:
        """The HUD line written across the top of the frame (a spectator's: time left only), so a screenshot
        alone carries time, score and the game's own HUD facts."""
        px = canvas.font(HUD_FONT)
        height = self.hud_px()
        canvas.rect_px(0, 0, self.size, height, HUD_PLATE)
        if agent is None:
            rows = [f"time left {max(0.0, self.time_limit_s - self.t):.1f} s"]
        else:
            rows = wrap_hud(self.hud(agent), self.size - 8, px)
        line = font_atlas(px)[0].shape[1] + 2
        for i, row in enumerate(rows):
            canvas.text_px(4, 3 + i * line, row, HUD_FONT, HUD_INK, None)

    def canvas(self, x0: float, y0: float, x1: float, y1: float, background=(20, 20, 28)) -> Canvas:
        """A canvas of this env's view size over a world rectangle, below the HUD strip."""
        return Canvas(self.size, x0, y0, x1, y1, background, top=self.hud_px())

    def look(self, kind: str) -> Drawable:
        """How the frame draws `kind`: its row of the game's drawables table."""
        return self._looks[kind]

    def looks(self) -> dict[str, Drawable]:
        """The game's drawables table (`levels/drawables/<game>.toml`), kind by kind."""
        return dict(self._looks)

    def decorate(self, canvas: Canvas, x0: float, y0: float, x1: float, y1: float, radius_m: float = 0.25) -> None:
        """The table's decoration (rows with `scatter` > 0) scattered over a floor at places fixed per episode:
        clutter a reader looks past (the VP rating's point)."""
        rng = np.random.default_rng(self._decor_seed)
        vx0, vy0, vx1, vy1 = canvas.visible(radius_m)
        for look in self._looks.values():
            for x, y in rng.uniform((x0, y0), (x1, y1), size=(look.scatter, 2)):
                if vx0 <= x <= vx1 and vy0 <= y <= vy1:  # only what the view shows is drawn
                    canvas.icon(look, x, y, radius_m, outline=False)

    def legend(self) -> str:
        """What you see: each drawable kind of the level file's table in words (its colour also as hex RGB, so a
        reader of the image can match it), then the HUD strip."""
        lines = ["What you see on the frame (each kind as drawn):"]
        for look in self._looks.values():
            label = f' labelled "{look.label}"' if look.label else ""
            hexa = "#" + "".join(f"{c:02x}" for c in look.color)  # the exact colour, for a reader that measures
            lines.append(f"- {color_name(look.color)} ({hexa}) {look.shape}{label}: {look.meaning}")
        lines.append("- the strip at the top: the HUD line (time left, score and the game's own facts)")
        return "\n".join(lines)

    def documentation(self) -> str:
        """The class docstring with the legend at the end of its `## Observation` section (the prompt's
        domain text reads this, so the legend is the table in force)."""
        doc = inspect.cleandoc(type(self).__doc__ or "")
        head, found, tail = doc.partition("## Observation\n")
        if not found:
            return doc + "\n\n" + self.legend()
        body, rest, after = tail.partition("\n## ")
        return f"{head}{found}{body.rstrip()}\n\n{self.legend()}\n{rest}{after}"

    def hud(self, agent: AgentID) -> str:
        """The `hud` observation: the short line the player reads on screen beside the frame (no title: the
        frame and this line are all a player of the screenshot view gets)."""
        return self._hud_line(agent).line()

    def text(self, agent: AgentID) -> str:
        """The `text` observation (the text ablation): the title and HUD line, then the report (read back by
        `reports.py: Hud.parse` and the game's report's `parse`)."""
        return f"{self._hud_line(agent).format()}\n{self._report(agent)}"

    def _hud_line(self, agent: AgentID) -> Hud:
        return Hud(self.rules.game.title, max(0.0, self.time_limit_s - self.t), self.scores[agent], self._hud(agent))

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array":
            return None
        return self._frame(self.possible_agents[0] if len(self.possible_agents) == 1 else None)

    def episode_metrics(self) -> dict[AgentID, dict[str, float]]:
        return {a: {"score": self.scores[a], **self._metrics(a)} for a in self.possible_agents}

    def rules_text(self) -> str:
        """The level's numbers for prompts (variants and ratings left out)."""
        data = self.rules.model_dump(exclude={*META, "capabilities", "probe"})
        lines = [f"(from {self.level_file}, variant {self.variant}; {describe_keys(self.keyspace)})"]
        lines += [f"- {name}: " + ", ".join(f"{k} = {v}" for k, v in table.items()) for name, table in data.items()]
        return "\n".join(lines)

    # -- hooks -----------------------------------------------------------------------------------
    def _new_world(self, rng: np.random.Generator) -> None:
        raise NotImplementedError

    def _step_world(self, inputs: dict[AgentID, Input]) -> dict[AgentID, list[dict]]:
        raise NotImplementedError

    def _score(self, agent: AgentID) -> float:
        raise NotImplementedError

    def _finished(self, agent: AgentID) -> bool:
        return False

    def _draw(self, agent: AgentID | None) -> Canvas:
        raise NotImplementedError

    def _hud(self, agent: AgentID) -> str:
        return ""

    def _report(self, agent: AgentID) -> str:
        return ""

    def _state(self, agent: AgentID) -> np.ndarray:
        return np.array([self.t / self.time_limit_s, self.scores[agent]], dtype=np.float32)

    def _metrics(self, agent: AgentID) -> dict[str, float]:
        return {}

    def privileged_state(self, agent: AgentID) -> dict[str, Any]:
        """World facts for privileged scripted players (the runtime hands them a copy with each observation)."""
        raise NotImplementedError
