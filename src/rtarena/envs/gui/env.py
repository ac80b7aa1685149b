"""`BrowserTaskEnv`: a web task or canvas game in a real Chromium whose clock the env controls.

Three parts: the env (this module: spaces, PettingZoo bookkeeping, scoring, screenshots kept), the page
session (`session.py`: the tab, driven on the browser thread) and the observation builder
(`observation.py`: the modalities from a page snapshot)."""

from __future__ import annotations

import contextlib
import math
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from rtarena.contract import EnvCapabilities
from rtarena.envs.base import RealtimeParallelEnv
from rtarena.envs.gui import actions as gui_actions
from rtarena.envs.gui.browser import BrowserHost, chromium_path
from rtarena.envs.gui.observation import MAX_TEXT, MODALITIES, ObservationBuilder, ascii_text
from rtarena.envs.gui.server import PageServer
from rtarena.envs.gui.session import PageSession
from rtarena.envs.gui.som import decode, save_jpeg
from rtarena.envs.gui.spec import TaskSpec, load_spec
from rtarena.errors import UserError

AGENT = "user"
DEFAULT_OBS = ("som", "marks", "goal", "time", "text")
TEXT_CHARSET = "".join(chr(c) for c in range(32, 127)) + "\n\t"


class BrowserTaskEnv(RealtimeParallelEnv):
    """A browser task: a small site or canvas game, a goal with a deadline, and a scorer that reads the page.

    ## Description
    You use a small web site or a canvas game in a real browser to reach the goal in the observation
    (win an auction, book seats, buy under a price, eat apples ...) before its deadline, while the page
    keeps changing: other bidders bid, seats and slots are taken, offers expire, pieces fall. What counts
    is both which action and when.

    The page runs in headless Chromium (Debian's `chromium-headless-shell`, else `chromium`; driven by
    Playwright) and its clock (`Date`, `performance`, timers, `requestAnimationFrame`) is Playwright's fake
    clock, which never moves on its own; every episode starts at the same instant (`performance.now()` alone
    keeps counting across the episodes of one env, so pages must not read it). `step()` executes the GUI
    actions (raw mouse and keyboard input at mark centres, taking no page time) at their commit time, to the
    page millisecond (`substep_s`; at the step's start unless the runtime set a later time), and advances
    page time by exactly `dt` in all.
    Under the `paused` and `token` clocks the page is therefore frozen while the agent thinks; under
    `wall` the runtime steps every `dt` of real time, so page time follows real time. All randomness
    comes from the seed, which the page receives with the task's parameters (`tasks/NAME.toml`).

    ## Observation
    A dict with the modalities chosen by `obs` (default all but `rgb`):
    - `som`: uint8 (H, W, 3), the viewport screenshot with the Set-of-Marks drawn on it: each usable
      element outlined and labelled with its mark number; `rgb`: the same screenshot without marks;
    - `marks`: JSON text, a list of `{id, role, text, box: [x, y, w, h], actions, checked?}` for the
      elements that can be used now (visible, enabled, not covered);
    - `goal`: the task's goal text; `time`: float32 `[elapsed_s, left_s]` of simulated time;
    - `text`: the goal, the time, one line per mark and the page's visible text, for reading.

    ## Action Space
    {actions}
    GUI actions take no page time. A string that does not parse is executed as `wait()`, reported as a
    `malformed_action` event and counted in `episode_metrics()`.

    ## Rewards and Score
    The reward is the increase of the task's progress in [0, 1], read from the page after each step, so
    the return is the final progress. `episode_metrics()` gives `success` (0/1), `progress`, and counts
    of GUI actions, failed actions (e.g. an unknown mark) and malformed decisions.

    ## Termination
    Terminated when the page decides the task (success, or a failure that cannot be undone, like a closed
    auction); truncated when `time_limit_s` of page time has passed.

    ## Registered Configurations
    `web/<task>-v0` for each web task and `gui-games/<game>-v0` for each game (see `rtarena list`).
    """

    # - tokens_per_interval: the token clock's default B (tokens per observation interval) for browser tasks:
    #   Realtime-Bench's 1 observation per second and its implied ~64 tokens per second (kappa = B x 1 Hz);
    # - substep_s: the page's timers run on Playwright's clock in whole milliseconds: the env can stop at any
    #   of them, so an action applies at its commit time (`set_action_times`; Realtime-Bench's t_i^act);
    # - privileged: the oracle's snapshot (agents/gui_oracle.py): the task's own solution and page time;
    # - obs_every: the task file's, set per instance.
    capabilities = EnvCapabilities(tokens_per_interval=64, substep_s=0.001, privileged=True)
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "name": "rtarena_gui",
                                          "is_parallelizable": True}

    def __init__(
        self,
        task: str | TaskSpec,
        *,
        dt: float | None = None,
        time_limit_s: float | None = None,
        viewport: tuple[int, int] | None = None,
        obs: tuple[str, ...] | list[str] = DEFAULT_OBS,
        params: dict[str, Any] | None = None,
        screenshot_dir: str | Path | None = None,
        screenshots_per_episode: int = 5,
        jpeg_quality: int = 80,
        executable_path: str | None = None,
        render_mode: str | None = "rgb_array",
    ) -> None:
        super().__init__()
        spec = task if isinstance(task, TaskSpec) else load_spec(task)
        self.spec = spec
        self.dt = float(dt if dt is not None else spec.dt)
        self.time_limit_s = float(time_limit_s if time_limit_s is not None else spec.time_limit_s)
        if not (self.dt > 0 and self.time_limit_s > 0):
            raise UserError(f"dt and time_limit_s must be positive, got {self.dt!r} and {self.time_limit_s!r}",
                            field="dt")
        # the runtime's default: one observation per dt * obs_every
        self.capabilities = replace(type(self).capabilities, obs_every=int(spec.obs_every))
        self.deadline_s = float(spec.deadline_s if spec.deadline_s is not None else self.time_limit_s)
        self.viewport = tuple(viewport or spec.viewport)
        self.params = {**spec.params, **(params or {})}
        unknown = [m for m in obs if m not in MODALITIES]
        if unknown or not obs:
            raise UserError(f"unknown observation modality {unknown!r}; choose from {', '.join(MODALITIES)}",
                            field="obs")
        self.observe = tuple(obs)
        self.jpeg_quality = int(jpeg_quality)
        self.render_mode = render_mode
        self.screenshot_dir = Path(screenshot_dir) if screenshot_dir else None
        self.screenshots_per_episode = int(screenshots_per_episode)
        self.executable_path = chromium_path(executable_path)  # one clear line now if Chromium is missing
        self._user_seed: int | None = None  # the seed of this episode's reset, for screenshot folders
        self._view = ObservationBuilder(self.observe, self.time_limit_s)
        self._session = PageSession(self.executable_path, self.viewport, self.jpeg_quality,
                                    text=self._view.wants_text,
                                    screenshot=self._view.wants_image or self.screenshot_dir is not None)
        self.possible_agents = [AGENT]
        self.agents = []
        width, height = self.viewport
        all_spaces = {
            "som": spaces.Box(0, 255, (height, width, 3), np.uint8),
            "rgb": spaces.Box(0, 255, (height, width, 3), np.uint8),
            "marks": spaces.Text(max_length=MAX_TEXT, min_length=0, charset=TEXT_CHARSET),
            "goal": spaces.Text(max_length=4000, min_length=0, charset=TEXT_CHARSET),
            "time": spaces.Box(0.0, np.float32(self.time_limit_s + self.dt), (2,), np.float32),
            "text": spaces.Text(max_length=MAX_TEXT, min_length=0, charset=TEXT_CHARSET),
        }
        self._observation_space = spaces.Dict({k: all_spaces[k] for k in self.observe})
        self._action_space = gui_actions.action_space()
        self._action_at_ms = 0  # page milliseconds into the next step at which its action applies
        self._episode = 0
        self._reset_counters()

    @property
    def host(self) -> BrowserHost:
        """The shared browser thread; raises the one-line install hint when Chromium is missing."""
        return self._session.host

    # -- spaces and contract ------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Text:
        return self._action_space

    def default_action(self, agent: str) -> str:
        return "wait()"

    @staticmethod
    def describe() -> str:
        """The GUI action set as prompt text."""
        return gui_actions.describe()

    def set_action_times(self, at_s: dict[str, float]) -> None:
        """The next step runs the page `at_s[user]` seconds (whole milliseconds) before it executes the
        action, then the rest of `dt` (contract.RealtimeEnv)."""
        at_ms = math.ceil(float(at_s.get(AGENT, 0.0)) * 1000 - 1e-6)  # never before the commit time
        self._action_at_ms = min(max(0, at_ms), round(self.dt * 1000))

    def episode_metrics(self) -> dict[str, dict[str, float]]:
        return {AGENT: {
            "success": float(self._task.get("success", False)),
            "progress": float(self._task.get("progress", 0.0)),
            "gui_actions": float(self._counts["gui_actions"]),
            "failed_actions": float(self._counts["failed_actions"]),
            "malformed_actions": float(self._counts["malformed_actions"]),
        }}

    @property
    def obs_every(self) -> int:
        """Env steps per observation, the task file's (`capabilities.obs_every`)."""
        return self.capabilities.obs_every

    @property
    def elapsed_s(self) -> float:
        """Simulated seconds since reset (page time)."""
        return self._elapsed()

    @property
    def goal(self) -> str:
        return self._view.goal

    @property
    def instruction(self) -> str:
        """The task's own instruction for a model's prompt: this episode's goal (known after reset)."""
        return ascii_text(self._view.goal)

    @property
    def _task(self) -> dict[str, Any]:
        """The task state the page reported last (`done`, `success`, `progress`, `why`)."""
        return self._view.task

    # -- PettingZoo hooks -----------------------------------------------------------------------------
    def _reset_counters(self) -> None:
        self._counts = {"gui_actions": 0, "failed_actions": 0, "malformed_actions": 0}
        self._view.clear()
        self._steps = 0
        self._view.goal = ""

    def _reset(self, options: dict) -> tuple[dict, dict]:
        self._reset_counters()
        self._episode += 1
        seed = int(self.np_random.integers(2**31))
        self._episode_seed = seed
        cfg = {"seed": seed, "dt": self.dt, "params": self.params}  # the page's RT.setup(cfg)
        snap, shot = self._session.open(PageServer.shared().url(self.spec.page), cfg)
        self._view.goal = self.spec.goal_text(snap.get("vars", {}), self.params)
        events = [{"type": "task_start", "task": self.spec.name, "goal": self._view.goal}, *snap.get("events", [])]
        obs = self._view.build(snap, shot, self._elapsed())
        self._save_screenshot(obs)
        return {AGENT: obs}, {AGENT: {"events": events, "task": dict(self._task)}}

    def _step(self, actions: dict[str, Any]):
        text = actions.get(AGENT, "wait()")
        events: list[dict] = []
        try:
            calls = gui_actions.parse(text)
        except gui_actions.ActionError as error:
            self._counts["malformed_actions"] += 1
            events.append({"type": "malformed_action", "action": str(text)[:200], "error": str(error)})
            calls = []
        calls = [c for c in calls if c.name != "wait"]
        before = float(self._task.get("progress", 0.0))
        at_ms, self._action_at_ms = self._action_at_ms, 0
        boxes = {m["id"]: m["box"] for m in self._view.marks}
        snap, shot, done_events = self._session.step(calls, boxes, round(self.dt * 1000), at_ms)
        self._steps += 1
        for event in done_events:
            self._counts["failed_actions" if event["type"] == "failed_action" else "gui_actions"] += 1
        events += done_events + snap.get("events", [])
        obs = self._view.build(snap, shot, self._elapsed())
        terminated = bool(self._task.get("done"))
        truncated = not terminated and self._elapsed() >= self.time_limit_s - 1e-9
        if terminated or truncated:
            events.append({"type": "task_end", "success": bool(self._task.get("success")),
                           "progress": float(self._task.get("progress", 0.0)), "why": self._task.get("why") or
                           ("time limit reached" if truncated else "")})
        self._save_screenshot(obs, last=terminated or truncated)
        reward = float(self._task.get("progress", 0.0)) - before
        info = {"events": events, "task": dict(self._task)}
        return ({AGENT: obs}, {AGENT: reward}, {AGENT: terminated}, {AGENT: truncated}, {AGENT: info})

    def render(self) -> np.ndarray | None:
        return self._view.pixels

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the browser may be gone at interpreter exit
            self._session.close()

    # -- page access (the oracle and tests) ---------------------------------------------------------
    def oracle_action(self, lead_s: float = 0.0, period_s: float | None = None) -> str:
        """The task's own solution for the page as it is now (the page's `RT.cheat`; privileged: it reads the
        page's state), planned for an action applied `lead_s` page seconds from now by a solver acting every
        `period_s`."""
        return self._session.cheat(lead_s, float(period_s if period_s is not None else self.dt))

    def privileged_state(self, agent: str, lead_s: float = 0.0, after_s: float = 0.0) -> dict[str, Any]:
        """The oracle's snapshot of the page as it is now: page time, the finest stop (`substep_s`, seconds),
        and the task's own solution for an
        action applied `lead_s` page seconds from now by a solver that decides again on the first
        observation showing it (`seen_s`: the end of the step that action lands in); `wait()` without asking
        the page before `after_s` (the oracle's last action is not visible yet)."""
        now = self._elapsed()
        seen_s = (math.floor(round((now + lead_s) / self.dt, 4)) + 1) * self.dt
        early = now < after_s - 1e-4
        return {"elapsed_s": now, "substep_s": self.capabilities.substep_s, "seen_s": seen_s,
                "action": "wait()" if early else self.oracle_action(lead_s, seen_s + lead_s - now)}

    def capture(self) -> np.ndarray:
        """The viewport as it is now, without marks and without advancing page time."""
        return decode(self._session.capture())

    def page_eval(self, expression: str) -> Any:
        """Evaluate a JS expression in the page (for tests and debugging; takes no page time)."""
        return self._session.evaluate(expression)

    # -- helpers -------------------------------------------------------------------------------------
    def _elapsed(self) -> float:
        return round(self._steps * self.dt, 9)

    def _save_screenshot(self, obs: dict[str, Any], last: bool = False) -> None:
        """Keep a few screenshots per episode: the first, evenly spaced ones, and the last."""
        if self.screenshot_dir is None or self._view.pixels is None:
            return
        every = max(1, math.ceil(self.time_limit_s / self.dt / max(1, self.screenshots_per_episode - 1)))
        if not (last or self._steps % every == 0):
            return
        folder = self.screenshot_dir / f"{self.spec.name}-seed{self._seed_label()}"
        folder.mkdir(parents=True, exist_ok=True)
        save_jpeg(self._view.pixels, str(folder / f"step{self._steps:04d}.jpg"))

    def _seed_label(self) -> str:
        return str(self._user_seed if self._user_seed is not None else f"e{self._episode}")

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._user_seed = seed
        return super().reset(seed=seed, options=options)


BrowserTaskEnv.__doc__ = BrowserTaskEnv.__doc__.replace("{actions}", gui_actions.describe().replace("\n", "\n    "))


def make_task(task: str, **kwargs: Any) -> BrowserTaskEnv:
    """The registry's entry point: `rtarena.make("web/auction-v0")` calls `make_task(task="auction")`."""
    return BrowserTaskEnv(task, **kwargs)
