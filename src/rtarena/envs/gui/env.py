"""`BrowserTaskEnv`: a web task or canvas game in a real Chromium whose clock the env controls."""

from __future__ import annotations

import contextlib
import json
import math
import unicodedata
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from rtarena.envs.base import RealtimeParallelEnv
from rtarena.envs.gui import actions as gui_actions
from rtarena.envs.gui.browser import BrowserHost, chromium_path
from rtarena.envs.gui.server import PageServer
from rtarena.envs.gui.som import decode, draw_marks, save_jpeg
from rtarena.envs.gui.spec import TaskSpec, load_spec
from rtarena.envs.gui.text import text_block
from rtarena.errors import UserError

AGENT = "user"
MODALITIES = ("som", "rgb", "marks", "goal", "time", "text")
DEFAULT_OBS = ("som", "marks", "goal", "time", "text")
IMAGE_MODALITIES = ("som", "rgb")
T0_ISO = "2025-03-14T09:00:00Z"  # page time at reset: every episode starts at the same instant
TEXT_CHARSET = "".join(chr(c) for c in range(32, 127)) + "\n\t"
MAX_TEXT = 200_000
MAX_IDLE_TABS = 4  # tabs of closed envs kept per viewport for the next env


class BrowserTaskEnv(RealtimeParallelEnv):
    """A browser task: a small site or canvas game, a goal with a deadline, and a scorer that reads the page.

    ## Description
    You use a small web site or a canvas game in a real browser to reach the goal in the observation
    (win an auction, book seats, buy under a price, eat apples ...) before its deadline, while the page
    keeps changing: other bidders bid, seats and slots are taken, offers expire, pieces fall. What counts
    is both which action and when.

    The page runs in headless Chromium (Debian's `/usr/bin/chromium`, driven by Playwright) and its clock
    (`Date`, `performance`, timers, `requestAnimationFrame`) is Playwright's fake clock, which never moves
    on its own; every episode starts at the same instant (`performance.now()` alone keeps counting across
    the episodes of one env, so pages must not read it). `step()` first executes the GUI actions (raw mouse
    and keyboard input at mark centres, taking no page time), then advances page time by exactly `dt`.
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

    # The token clock's default B (tokens per observation interval) for browser tasks: Realtime-Bench's
    # 1 observation per second and its implied ~64 tokens per second (kappa = B x 1 Hz).
    tokens_per_interval: ClassVar[int] = 64
    # the oracle's reads (agents/gui_oracle.py): the task's own solution and page time
    privileged_queries: ClassVar[tuple[str, ...]] = ("oracle_action", "elapsed_s")
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
        self.obs_every = int(spec.obs_every)  # the runtime's default: one observation per dt * obs_every
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
        self._host: BrowserHost | None = None  # the browser itself starts on the first reset
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
        self._context: Any = None
        self._page: Any = None
        self._episode = 0
        self._reset_counters()

    @property
    def host(self) -> BrowserHost:
        """The shared browser thread; raises the one-line install hint when Chromium is missing."""
        if self._host is None:
            self._host = BrowserHost.shared(self.executable_path)
        return self._host

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

    def episode_metrics(self) -> dict[str, dict[str, float]]:
        return {AGENT: {
            "success": float(self._task.get("success", False)),
            "progress": float(self._task.get("progress", 0.0)),
            "gui_actions": float(self._counts["gui_actions"]),
            "failed_actions": float(self._counts["failed_actions"]),
            "malformed_actions": float(self._counts["malformed_actions"]),
        }}

    @property
    def elapsed_s(self) -> float:
        """Simulated seconds since reset (page time)."""
        return self._elapsed()

    @property
    def goal(self) -> str:
        return self._goal

    @property
    def instruction(self) -> str:
        """The task's own instruction for a model's prompt: this episode's goal (known after reset)."""
        return _ascii(self._goal)

    # -- PettingZoo hooks -----------------------------------------------------------------------------
    def _reset_counters(self) -> None:
        self._counts = {"gui_actions": 0, "failed_actions": 0, "malformed_actions": 0}
        self._task: dict[str, Any] = {}
        self._marks: list[dict] = []
        self._steps = 0
        self._goal = ""
        self._last_pixels: np.ndarray | None = None

    def _reset(self, options: dict) -> tuple[dict, dict]:
        self._reset_counters()
        self._episode += 1
        seed = int(self.np_random.integers(2**31))
        self._episode_seed = seed
        url = PageServer.shared().url(self.spec.page) + "?cfg=" + _quote(json.dumps(
            {"seed": seed, "dt": self.dt, "params": self.params}))
        snap, shot = self.host.call(self._areset, url)
        self._goal = self.spec.goal_text(snap.get("vars", {}), self.params)
        events = [{"type": "task_start", "task": self.spec.name, "goal": self._goal}, *snap.get("events", [])]
        obs = self._observation(snap, shot)
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
        snap, shot, done_events = self.host.call(self._astep, calls, {m["id"]: m["box"] for m in self._marks})
        self._steps += 1
        for event in done_events:
            self._counts["failed_actions" if event["type"] == "failed_action" else "gui_actions"] += 1
        events += done_events + snap.get("events", [])
        obs = self._observation(snap, shot)
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
        return self._last_pixels

    def close(self) -> None:
        if self._context is not None and self._host is not None:
            with contextlib.suppress(Exception):  # the browser may be gone at interpreter exit
                self._host.call(self._aclose)

    # -- page access (the oracle and tests) ---------------------------------------------------------
    def oracle_action(self, lead_s: float = 0.0, period_s: float | None = None) -> str:
        """The task's own solution for the page as it is now (privileged: reads the page's state), planned
        for an action applied `lead_s` page seconds from now by a solver acting every `period_s`."""
        period = float(period_s if period_s is not None else self.dt)
        return self.host.call(self._aeval, f"RT.oracleAction({float(lead_s)!r}, {period!r})")

    def capture(self) -> np.ndarray:
        """The viewport as it is now, without marks and without advancing page time."""
        return decode(self.host.call(self._acapture))

    def page_eval(self, expression: str) -> Any:
        """Evaluate a JS expression in the page (for tests and debugging; takes no page time)."""
        return self.host.call(self._aeval, expression)

    # -- on the browser thread ------------------------------------------------------------------------
    async def _areset(self, url: str):
        if self._page is not None and not self._page.is_closed():
            # The same tab, navigated anew: a new tab costs a renderer process (most of a reset). The page's
            # timers and state go with the navigation; the clock is set back to the same instant, paused.
            await self._context.clear_cookies()
            await self._context.clock.set_system_time(T0_ISO)
            await self._page.goto(url, wait_until="load")
            return await self._asnapshot()
        tab = self.host.take_tab(self.viewport)
        if tab is not None:
            self._context, self._page = tab
            return await self._areset(url)
        browser = await self.host.browser()
        await self._aclose()
        width, height = self.viewport
        self._context = await browser.new_context(viewport={"width": width, "height": height}, locale="en-US",
                                                  timezone_id="UTC", device_scale_factor=1)
        # The clock is paused before the page exists, so the page's first timer already runs on it.
        await self._context.clock.pause_at(T0_ISO)
        self._page = await self._context.new_page()
        await self._page.goto(url, wait_until="load")
        return await self._asnapshot()

    async def _astep(self, calls: list[gui_actions.GuiAction], boxes: dict[int, list[int]]):
        done = []
        for call in calls:
            error = await self._aexecute(call, boxes)
            event = {"type": "failed_action" if error else "gui_action", "action": str(call)}
            if error:
                event["error"] = error
            done.append(event)
        await self._page.clock.run_for(round(self.dt * 1000))
        snap, shot = await self._asnapshot()
        return snap, shot, done

    async def _aexecute(self, call: gui_actions.GuiAction, boxes: dict[int, list[int]]) -> str | None:
        from playwright.async_api import Error as PlaywrightError

        try:
            await call.execute(gui_actions.Hands(self._page, boxes, self.viewport))
        except gui_actions.ActionFailed as error:
            return str(error)
        except PlaywrightError as error:
            return str(error).splitlines()[0][:200]
        return None

    async def _asnapshot(self):
        snap = json.loads(await self._page.evaluate(f"RT.snapshot({'true' if 'text' in self.observe else 'false'})"))
        shot = None
        if any(m in self.observe for m in IMAGE_MODALITIES) or self.screenshot_dir is not None:
            shot = await self._page.screenshot(type="jpeg", quality=self.jpeg_quality)
        return snap, shot

    async def _acapture(self) -> bytes:
        return await self._page.screenshot(type="png")

    async def _aeval(self, expression: str) -> Any:
        return await self._page.evaluate(expression)

    async def _aclose(self) -> None:
        if self._context is not None:
            context, page, self._context, self._page = self._context, self._page, None, None
            if page is not None and not page.is_closed() and self.host.idle_count(self.viewport) < MAX_IDLE_TABS:
                await page.goto("about:blank")  # stop its timers; the next env navigates it anew
                self.host.give_tab(self.viewport, context, page)
            else:
                await context.close()

    # -- helpers -------------------------------------------------------------------------------------
    def _elapsed(self) -> float:
        return round(self._steps * self.dt, 9)

    def _observation(self, snap: dict, shot: bytes | None) -> dict[str, Any]:
        self._task = snap["task"]
        self._marks = snap["marks"]
        obs: dict[str, Any] = {}
        if shot is not None:
            pixels = decode(shot)
            if "rgb" in self.observe:
                obs["rgb"] = pixels
            self._last_pixels = draw_marks(pixels, self._marks)
            if "som" in self.observe:
                obs["som"] = self._last_pixels
        if "marks" in self.observe:
            obs["marks"] = json.dumps(self._marks, ensure_ascii=True, separators=(",", ":"))
        if "goal" in self.observe:
            obs["goal"] = _ascii(self._goal)
        if "time" in self.observe:
            elapsed = self._elapsed()
            obs["time"] = np.array([elapsed, max(0.0, self.time_limit_s - elapsed)], dtype=np.float32)
        if "text" in self.observe:
            obs["text"] = _ascii(self._text_block(snap.get("text", "")))[:MAX_TEXT]
        return obs

    def _text_block(self, page_text: str) -> str:
        elapsed = self._elapsed()
        return text_block(self._goal, elapsed, max(0.0, self.time_limit_s - elapsed), self._marks, page_text)

    def _save_screenshot(self, obs: dict[str, Any], last: bool = False) -> None:
        """Keep a few screenshots per episode: the first, evenly spaced ones, and the last."""
        if self.screenshot_dir is None or self._last_pixels is None:
            return
        every = max(1, math.ceil(self.time_limit_s / self.dt / max(1, self.screenshots_per_episode - 1)))
        if not (last or self._steps % every == 0):
            return
        folder = self.screenshot_dir / f"{self.spec.name}-seed{self._seed_label()}"
        folder.mkdir(parents=True, exist_ok=True)
        save_jpeg(self._last_pixels, str(folder / f"step{self._steps:04d}.jpg"))

    def _seed_label(self) -> str:
        return str(getattr(self, "_user_seed", None) if getattr(self, "_user_seed", None) is not None
                   else f"e{self._episode}")

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._user_seed = seed
        return super().reset(seed=seed, options=options)


BrowserTaskEnv.__doc__ = BrowserTaskEnv.__doc__.replace("{actions}", gui_actions.describe().replace("\n", "\n    "))


def _quote(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


_PUNCTUATION = str.maketrans({"\u00b7": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u2019": "'",
                              "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " ", "\u2026": "...",
                              "\u20ac": "EUR", "\u00d7": "x"})


def _ascii(text: str) -> str:
    """Text for a gymnasium Text space: printable ASCII (accents dropped, common punctuation spelled)."""
    plain = unicodedata.normalize("NFKD", text.translate(_PUNCTUATION))
    return "".join(c if (" " <= c <= "~") or c in "\n\t" else ("" if unicodedata.combining(c) else "?")
                   for c in plain)


def make_task(task: str, **kwargs: Any) -> BrowserTaskEnv:
    """The registry's entry point: `rtarena.make("web/auction-v0")` calls `make_task(task="auction")`."""
    return BrowserTaskEnv(task, **kwargs)
