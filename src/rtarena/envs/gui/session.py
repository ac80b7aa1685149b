"""One browser task's tab: what the env asks of the page, run on the browser thread (`browser.BrowserHost`).

The page side is BrowserGym's task contract, in `pages/rt.js`: `RT.setup(cfg)` once per episode,
`RT.validate()` (the task's verdict, in every snapshot) and `RT.cheat(lead, period)` (the task's own
solution); `open`, `validate` and `cheat` here are the Python side of those three names.

Playwright objects live on the host's asyncio thread, so every public method here submits a coroutine
there and waits for it. The page's clock is Playwright's fake clock, paused at the same instant at every
reset (`T0_ISO`): page time moves only in `step`, by exactly the milliseconds asked for.
"""

from __future__ import annotations

import json
from typing import Any

from rtarena.envs.gui import actions as gui_actions
from rtarena.envs.gui.browser import BrowserHost

T0_ISO = "2025-03-14T09:00:00Z"  # page time at reset: every episode starts at the same instant
MAX_IDLE_TABS = 4  # tabs of closed envs kept per viewport for the next env


class PageSession:
    """The tab of one env: navigate and set the task up (`open`), act and advance page time (`step`), read
    (`validate`, `cheat`, `evaluate`, `capture`), give the tab back (`close`). `text` and `screenshot` say
    what each snapshot carries."""

    def __init__(self, executable_path: str, viewport: tuple[int, int], jpeg_quality: int, text: bool,
                 screenshot: bool) -> None:
        self.executable_path = executable_path
        self.viewport = viewport
        self.jpeg_quality = jpeg_quality
        self.text = text
        self.screenshot = screenshot
        self._host: BrowserHost | None = None  # the browser itself starts on the first open
        self._context: Any = None
        self._page: Any = None

    @property
    def host(self) -> BrowserHost:
        """The shared browser thread; raises the one-line install hint when Chromium is missing."""
        if self._host is None:
            self._host = BrowserHost.shared(self.executable_path)
        return self._host

    @property
    def is_open(self) -> bool:
        return self._context is not None

    # -- what the env calls (any thread) --------------------------------------------------------------
    def open(self, url: str, cfg: dict[str, Any]) -> tuple[dict, bytes | None]:
        """Load the task page at `url` with the clock paused at `T0_ISO`, run `RT.setup(cfg)` (cfg: `seed`,
        `dt`, `params`); the first snapshot."""
        return self.host.call(self._areset, url, cfg)

    def step(self, calls: list[gui_actions.GuiAction], boxes: dict[int, list[int]], step_ms: int,
             at_ms: int = 0) -> tuple[dict, bytes | None, list[dict]]:
        """Run the page `at_ms`, execute the GUI actions (taking no page time), run it to `step_ms` in all;
        the snapshot after, and one event per action executed or failed."""
        return self.host.call(self._astep, calls, boxes, step_ms, at_ms)

    def validate(self) -> dict[str, Any]:
        """`RT.validate()`: the task's verdict now, `{done, success, progress, why}` (takes no page time)."""
        return self.evaluate("RT.validate()")

    def cheat(self, lead_s: float, period_s: float) -> str:
        """`RT.cheat(lead, period)`: the task's own solution for the page as it is now, as an action string,
        planned for an action applied `lead_s` page seconds from now by a solver acting every `period_s`."""
        return self.evaluate(f"RT.cheat({float(lead_s)!r}, {float(period_s)!r})")

    def evaluate(self, expression: str) -> Any:
        """A JS expression's value in the page (takes no page time)."""
        return self.host.call(self._aeval, expression)

    def capture(self) -> bytes:
        """The viewport as PNG bytes, without advancing page time."""
        return self.host.call(self._acapture)

    def close(self) -> None:
        if self._context is not None and self._host is not None:
            self._host.call(self._aclose)

    # -- on the browser thread ------------------------------------------------------------------------
    async def _areset(self, url: str, cfg: dict[str, Any]):
        if self._page is not None and not self._page.is_closed():
            # The same tab, navigated anew: a new tab costs a renderer process (most of a reset). The page's
            # timers and state go with the navigation; the clock is set back to the same instant, paused.
            await self._context.clear_cookies()
            await self._context.clock.set_system_time(T0_ISO)
            await self._page.goto(url, wait_until="load")
            await self._page.evaluate("(cfg) => { RT.setup(cfg); }", cfg)
            return await self._asnapshot()
        tab = self.host.take_tab(self.viewport)
        if tab is not None:
            self._context, self._page = tab
            return await self._areset(url, cfg)
        browser = await self.host.browser()
        await self._aclose()
        width, height = self.viewport
        self._context = await browser.new_context(viewport={"width": width, "height": height}, locale="en-US",
                                                  timezone_id="UTC", device_scale_factor=1)
        # The clock is paused before the page exists, so the page's first timer already runs on it.
        await self._context.clock.pause_at(T0_ISO)
        self._page = await self._context.new_page()
        await self._page.goto(url, wait_until="load")
        await self._page.evaluate("(cfg) => { RT.setup(cfg); }", cfg)
        return await self._asnapshot()

    async def _astep(self, calls: list[gui_actions.GuiAction], boxes: dict[int, list[int]], step_ms: int,
                     at_ms: int):
        if at_ms:  # the page runs to the action's commit time first
            await self._page.clock.run_for(at_ms)
        done = []
        for call in calls:
            error = await self._aexecute(call, boxes)
            event = {"type": "failed_action" if error else "gui_action", "action": str(call)}
            if error:
                event["error"] = error
            done.append(event)
        await self._page.clock.run_for(step_ms - at_ms)
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
        snap = json.loads(await self._page.evaluate(f"RT.snapshot({'true' if self.text else 'false'})"))
        shot = await self._page.screenshot(type="jpeg", quality=self.jpeg_quality) if self.screenshot else None
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
