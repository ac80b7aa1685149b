"""`rtarena play ENV_ID`: up to four people at one keyboard, split-screen, against bots or models.

Threads. The window must live on the main thread (SDL wants its events pumped there), while the runtime's
wall-clock loop steps the env on the thread that calls `run_match`. So the match runs in a worker thread
and the main thread runs the window:

- the window pumps key events into `agents.human.KEYBOARD`, which the human agents read when they act;
- the env is wrapped so that after every reset and step (on the match thread, with the world consistent)
  the humans' first-person views are rendered and handed to the window as the latest frames;
- closing the window (or Esc) asks the wrapper to end the episode at the next step (truncation), so the
  match is recorded like any other: same records, same metrics, written to `--out`.

`script` replays timed key events (`"0.5:+w 2.0:-w"`: at 0.5 s press `w`, at 2.0 s release it) for
demos and tests; they travel through the same event queue as real key presses.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rtarena.agents.human import HUMAN_PATHS, KEYBOARD, LAYOUT_ORDER, LAYOUTS, HumanAgent
from rtarena.envs.base import RealtimeWrapper
from rtarena.errors import UserError

MAX_HUMANS = 4
STATUS_PX = 22

HUMAN_FAMILIES = tuple(HUMAN_PATHS)


def human_family(env_id: str) -> str:
    """The env's family, or the one line naming the families people can play."""
    from rtarena.envs.registry import env_spec

    family = env_spec(env_id).family
    if family not in HUMAN_FAMILIES:
        raise UserError(f"{env_id!r} ({family}) has no human path; people play the families "
                        f"{', '.join(HUMAN_FAMILIES)}", field="ENV_ID")
    return family


@dataclass
class PlayResult:
    """What a play session leaves: the match, its episode line, and how far each human walked (m)."""

    result: Any
    line: dict[str, Any]
    humans: dict[str, str]  # env agent -> keyboard layout
    walked_m: dict[str, float] = field(default_factory=dict)


def parse_script(text: str | None) -> list[tuple[float, bool, str]]:
    """`"0.5:+w 2:-w"` -> [(0.5, True, "w"), (2.0, False, "w")] (time in wall seconds from the start)."""
    out = []
    for item in (text or "").replace(",", " ").split():
        when, sep, key = item.partition(":")
        try:
            t = float(when)
        except ValueError:
            t = -1.0
        if not sep or t < 0 or len(key) < 2 or key[0] not in "+-":
            raise UserError(f"a key script item is SECONDS:+KEY or SECONDS:-KEY, got {item!r}", field="--script")
        out.append((t, key[0] == "+", key[1:].replace("_", " ")))  # left_shift -> "left shift"
    return sorted(out, key=lambda e: e[0])


class _Frames:
    """The latest rendered views and status, handed from the match thread to the window (or the page)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.views: list[np.ndarray] = []
        self.status = "starting"
        self.version = 0
        self.sim_s = 0.0
        self.stamp = 0.0  # perf_counter when published
        self.extra: dict[str, Any] = {}  # what else the page draws (a browser task's marks)

    def publish(self, views: list[np.ndarray], status: str, sim_s: float = 0.0,
                extra: dict[str, Any] | None = None) -> None:
        with self.lock:
            self.views, self.status, self.sim_s, self.extra = views, status, float(sim_s), extra or {}
            self.stamp = time.perf_counter()
            self.version += 1
            self.changed.notify_all()

    def latest(self) -> tuple[list[np.ndarray], str, int]:
        with self.lock:
            return self.views, self.status, self.version

    def newer(self, version: int, wait_s: float) -> int:
        """The latest version, waiting at most `wait_s` for one newer than `version`."""
        with self.lock:
            if self.version <= version:
                self.changed.wait(wait_s)
            return self.version


class ArenaViewer:
    """The arena people's first-person views (the arena renderer at the window's resolution), and how far
    each walked."""

    def __init__(self, humans: list[int], resolution: tuple[int, int]) -> None:
        self._humans, self._resolution = humans, resolution
        self._renderer = None
        self.walked = np.zeros(len(humans))
        self._last: np.ndarray | None = None

    def show(self, env: Any, observations: dict) -> tuple[list[np.ndarray], str, float, dict[str, Any]] | None:
        world = env.world
        if not self._humans or world is None:
            return None
        pos = world.players.pos[self._humans, :2].copy()
        if self._last is not None:
            self.walked += np.hypot(*(pos - self._last).T)
        self._last = pos
        from rtarena.envs.arena.render.renderer import ArenaRenderer

        if self._renderer is None:
            width, height = self._resolution
            self._renderer = ArenaRenderer(world, width, height, fov_deg=float(env.rules.players.fov_deg),
                                           threads=1)
        else:
            self._renderer.set_world(world)
        hud = self._renderer.hud_table(world, self._humans, scores=env.points, show=env.rules.enabled("hud"))
        rgb, _ = self._renderer.render(world, self._humans, hud=hud)
        status = f"t {world.time_s:5.1f} s   left {world.time_left_s:5.1f} s"
        return list(rgb), status, float(world.time_s), {}

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()


class ObsViewer:
    """A suite game's or a browser task's person sees what a model sees: the `rgb` observation (a game's
    HUD line, a browser task's marks beside it); how far a game's person walked (its `pos`). `game`: a suite
    game (its `hud`, `t` and `privileged_state`), else a browser task (its `time` observation, `elapsed_s`)."""

    def __init__(self, humans: list[str], game: bool = True) -> None:
        self._humans, self._game = humans, game
        self.walked = np.zeros(len(humans))
        self._last: list[np.ndarray | None] = [None] * len(humans)
        self._shown: list[np.ndarray] = []

    def show(self, env: Any, observations: dict) -> tuple[list[np.ndarray], str, float, dict[str, Any]] | None:
        views, status, extra = [], "", {}
        for k, agent in enumerate(self._humans):
            obs = observations.get(agent)
            if obs is None:  # this person's run is over: the last frame stays
                views.append(self._shown[k] if k < len(self._shown) else None)
                continue
            views.append(obs["rgb"])
            if self._game:
                status = env.hud(agent)
            if "time" in obs:
                status = f"t {float(obs['time'][0]):5.1f} s   left {float(obs['time'][1]):5.1f} s"
            extra.update({k: obs[k] for k in ("marks", "goal") if k in obs})
            self._walk(env, k, agent)
        if any(v is None for v in views):
            return None
        self._shown = views
        return views, status, float(env.t if self._game else env.elapsed_s), extra

    def _walk(self, env: Any, k: int, agent: str) -> None:
        if not self._game:
            return
        try:
            pos = np.asarray(env.privileged_state(agent)["pos"], dtype=float)[:2]
        except (KeyError, NotImplementedError, TypeError):  # a game whose facts have no position
            return
        if self._last[k] is not None:
            self.walked[k] += float(np.hypot(*(pos - self._last[k])))
        self._last[k] = pos

    def close(self) -> None:
        pass


class _Watched(RealtimeWrapper):
    """The env as the runtime sees it (the contract, forwarded), plus a render hook after reset/step and a
    stop request; `env` is the watched env."""

    def __init__(self, env: Any, viewer: ArenaViewer | ObsViewer, frames: _Frames) -> None:
        super().__init__(env)
        self._viewer, self._frames = viewer, frames
        self.stop = threading.Event()
        # set by the play page: `reset` shows the first frame, then waits for it (the person's Start or first
        # key) or a stop, so the episode's clock starts when the person does, not when the page loads
        self.start: threading.Event | None = None
        self.waited_s = 0.0  # how long the first frame waited for the person (not part of the episode's time)

    @property
    def walked(self) -> np.ndarray:
        return self._viewer.walked

    def reset(self, seed: int | None = None, options: dict | None = None):
        out = self.env.reset(seed=seed, options=options)
        self._show(out[0])
        waiting = time.perf_counter()
        while self.start is not None and not self.start.wait(0.1) and not self.stop.is_set():
            pass
        self.waited_s = time.perf_counter() - waiting
        return out

    def step(self, actions):
        obs, rewards, terms, truncs, infos = self.env.step(actions)
        if self.stop.is_set():
            truncs = {a: True for a in truncs}
            self.env.agents = []
        self._show(obs)
        return obs, rewards, terms, truncs, infos

    def _show(self, observations: dict) -> None:
        shown = self._viewer.show(self.env, observations)
        if shown is not None:
            self._frames.publish(*shown)

    def close(self) -> None:
        self._viewer.close()
        self.env.close()


def _grid(count: int) -> tuple[int, int]:
    return {1: (1, 1), 2: (2, 1)}.get(count, (2, 2))


def _window_loop(frames: _Frames, watched: _Watched, done: threading.Event, names: list[str],
                 script: list[tuple[float, bool, str]], view_px: tuple[int, int], fps: float) -> None:
    """The main-thread loop: pump events (real and scripted) into KEYBOARD and draw the latest views."""
    import pygame

    pygame.display.init()
    pygame.font.init()
    cols, rows = _grid(len(names))
    w, h = view_px
    screen = pygame.display.set_mode((cols * w, rows * (h + STATUS_PX)))
    pygame.display.set_caption("rtarena play: " + ", ".join(names))
    font = pygame.font.Font(None, 20)
    clock = pygame.time.Clock()
    start = None  # the script's clock starts with the first frame, when the match is under way
    pending = list(script)
    try:
        while not done.is_set():
            if start is None and frames.latest()[2]:
                start = time.perf_counter()
            now = time.perf_counter() - start if start is not None else -1.0
            while pending and pending[0][0] <= now:
                _, down, key = pending.pop(0)
                code = pygame.key.key_code(key)
                pygame.event.post(pygame.event.Event(pygame.KEYDOWN if down else pygame.KEYUP, key=code, mod=0))
            for event in pygame.event.get():
                if event.type == pygame.QUIT or (event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE):
                    watched.stop.set()
                elif event.type == pygame.KEYDOWN:
                    KEYBOARD.press(pygame.key.name(event.key))
                elif event.type == pygame.KEYUP:
                    KEYBOARD.release(pygame.key.name(event.key))
            views, status, _ = frames.latest()
            screen.fill((0, 0, 0))
            for k, name in enumerate(names):
                x, y = (k % cols) * w, (k // cols) * (h + STATUS_PX)
                if k < len(views):
                    view = views[k]
                    surface = pygame.surfarray.make_surface(np.ascontiguousarray(view.transpose(1, 0, 2)))
                    if surface.get_size() != (w, h):
                        surface = pygame.transform.scale(surface, (w, h))
                    screen.blit(surface, (x, y))
                label = font.render(f"{name}   {status}", True, (230, 230, 230))
                screen.blit(label, (x + 4, y + h + 4))
            pygame.display.flip()
            clock.tick(fps)
    finally:
        pygame.display.quit()


def assign_slots(env: Any, specs: list[str]) -> tuple[list[str], dict[str, str]]:
    """One spec per env slot: the given ones in order, then `heuristic`; humans get layouts in order."""
    slots = list(env.possible_agents)
    specs = list(specs or ["human"])
    if len(specs) > len(slots):
        raise UserError(f"{len(specs)} --agent specs for {len(slots)} slots", field="--agent")
    specs += ["heuristic"] * (len(slots) - len(specs))
    humans: dict[str, str] = {}
    free_layouts = [lay for lay in LAYOUT_ORDER if f"human:{lay}" not in specs]
    for i, spec in enumerate(specs):
        if spec == "human" or spec.startswith("human:"):
            layout = spec.partition(":")[2] or free_layouts.pop(0)
            if layout not in LAYOUTS:
                raise UserError(f"unknown keyboard layout in {spec!r}; layouts: {', '.join(LAYOUTS)}",
                                field="--agent")
            if layout in humans.values():
                raise UserError(f"two humans share the keyboard layout {layout!r}", field="--agent")
            humans[slots[i]] = layout
            specs[i] = f"human:{layout}"
    if len(humans) > MAX_HUMANS:
        raise UserError(f"at most {MAX_HUMANS} humans share one keyboard, got {len(humans)}", field="--agent")
    return specs, humans


def check_play_options(*, dt: float | None, seed: int, max_steps: int | None, scale: int, out: Path,
                       resolution: tuple[int, int] = (320, 240)) -> None:
    """`play`'s numbers and output folder, checked against `rtarena.limits` before a level is built or a
    window opens (the same bounds as `run`), so a person never plays an episode that cannot be recorded."""
    from rtarena.limits import LIMITS, check_limit
    from rtarena.schema import writable_folder

    widest = int(LIMITS["image.px"].value) // max(resolution)
    if not 1 <= scale <= widest:
        raise UserError(f"must be a whole number of window pixels from 1 to {widest} (a window side of at most "
                        f"{LIMITS['image.px'].shown()} pixels: limit image.px, docs/limits.md), got {scale}",
                        field="--scale")
    if max_steps is not None:
        if max_steps < 1:
            raise UserError(f"must be >= 1, got {max_steps}", field="--max-steps")
        check_limit("episode.steps", max_steps, field="--max-steps")
    if dt is not None:
        if not 0 < dt < float("inf"):
            raise UserError(f"must be a number of seconds > 0, got {dt:g}", field="--dt")
        check_limit("step.dt_s", dt, field="--dt")
        if max_steps is not None:
            check_limit("episode.sim_s", max_steps * dt, field="--max-steps x --dt")
    if seed < 0:
        raise UserError(f"must be >= 0, got {seed}", field="--seed")
    check_limit("run.seed", seed, field="--seed")
    writable_folder(out, "--out")


def check_play(env_id: str, agents: list[str] | None = None, *, map: str | None = None,
               sets: tuple[str, ...] = (), disable: tuple[str, ...] = (), dt: float | None = None) -> None:
    """Everything `play` checks before it opens a window: the level, its options, the slots and layouts."""
    from rtarena.agents.specs import check_spec
    from rtarena.envs.registry import env_spec, make
    from rtarena.eval.customize import arena_kwargs

    if env_spec(env_id).family != "arena":
        human_family(env_id)  # an env without a human path: the line names the families with one
        raise UserError(f"the window plays arena levels; play {env_id!r} in a page with --web", field="ENV_ID")
    kwargs = arena_kwargs(env_id, map, sets, disable)
    env = make(env_id, **kwargs, **({"dt": dt} if dt is not None else {}))
    try:
        specs, _ = assign_slots(env, agents or [])
    finally:
        env.close()
    for text in specs:
        if not text.startswith("human"):
            check_spec(text, "arena")


def play(env_id: str, agents: list[str] | None = None, *, map: str | None = None,
         sets: tuple[str, ...] = (), disable: tuple[str, ...] = (), dt: float | None = None, seed: int = 0,
         max_steps: int | None = None, resolution: tuple[int, int] = (320, 240), scale: int = 2,
         out: Path | None = Path("runs/play"), script: str | None = None, fps: float = 30.0) -> PlayResult:
    """Play one episode of an arena level in a window; returns when it ends or the window is closed."""
    from rtarena.agents.specs import build_agent, parse_spec
    from rtarena.envs.registry import env_spec, make
    from rtarena.eval.customize import arena_kwargs
    from rtarena.runtime.match import run_match

    spec = env_spec(env_id)
    if spec.family != "arena":
        raise UserError(f"`rtarena play` plays arena levels, not {env_id!r}", field="ENV_ID")
    kwargs = arena_kwargs(env_id, map, sets, disable)
    if dt is not None:
        kwargs["dt"] = dt
    events = parse_script(script)
    env = make(env_id, **kwargs)
    specs, humans = assign_slots(env, agents or [])
    controllers = {}
    for agent_id, text in zip(env.possible_agents, specs, strict=True):
        parsed = parse_spec(text)
        controllers[agent_id] = HumanAgent(humans[agent_id]) if agent_id in humans else build_agent(parsed, "arena")
        controllers[agent_id].name = text
    human_ids = list(humans)
    frames = _Frames()
    watched = _Watched(env, ArenaViewer([env.possible_agents.index(a) for a in human_ids], resolution), frames)
    steps = int(max_steps) if max_steps else round(float(env.rules.arena.time_limit_s) / float(env.dt)) + 1
    done = threading.Event()
    outcome: dict[str, Any] = {}

    def match() -> None:
        try:
            outcome["result"] = run_match(watched, controllers, clock="wall", seed=seed, max_steps=steps,
                                          env_id=env_id)
        except BaseException as error:  # handed to the main thread, raised there
            outcome["error"] = error
        finally:
            done.set()

    KEYBOARD.clear()
    thread = threading.Thread(target=match, name="rtarena-play-match", daemon=True)
    thread.start()
    names = [f"{a} ({humans[a]})" for a in human_ids]
    view_px = (resolution[0] * scale, resolution[1] * scale)
    try:
        if names:
            _window_loop(frames, watched, done, names, events, view_px, fps)
        thread.join()
    except KeyboardInterrupt:
        watched.stop.set()
        thread.join()
    finally:
        for agent in controllers.values():
            agent.close()
        watched.close()
    if "error" in outcome:
        raise outcome["error"]
    result = outcome["result"]
    extra = {"agent_specs": specs, "env_kwargs": {k: v for k, v in kwargs.items()}, "humans": humans,
             "label": "play"}
    if out is not None:
        from rtarena.eval.store import episode_key, write_episode

        line = write_episode(Path(out), episode_key(env_id, seed, f"play{int(time.time())}"), result, extra)
    else:
        line = {**result.summary(), **extra}
    walked = {a: round(float(d), 3) for a, d in zip(human_ids, watched.walked, strict=True)}
    return PlayResult(result, line, humans, walked)


def result_table(line: dict[str, Any], walked_m: dict[str, float]) -> Any:
    """The table `rtarena play` prints: each slot's spec, return and how far a person walked."""
    from rich.table import Table

    table = Table("agent", "spec", "return", "walked m")
    specs = line.get("agent_specs") or [""] * len(line["agents"])
    for (agent_id, numbers), spec in zip(line["agents"].items(), specs, strict=False):
        walked = walked_m.get(agent_id)
        table.add_row(agent_id, spec, f"{numbers['return']:.2f}", "" if walked is None else f"{walked:.2f}")
    return table


def needs_display() -> str | None:
    """Why no window can open here (None when one can)."""
    if os.environ.get("SDL_VIDEODRIVER") in ("dummy", "offscreen"):
        return None
    if os.name == "posix" and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return ("no display here: `rtarena play ENV_ID --web` works without one (a page on 127.0.0.1), "
                "or set DISPLAY (or run under xvfb-run)")
    return None
