"""The one Chromium process of this Python process, owned by one thread running an asyncio loop.

Playwright objects must stay on the thread (and loop) that made them, while the runtime calls an env's
`reset` from one thread and `step` from another, and agents act from threads of their own. So every
browser operation is a coroutine submitted to `BrowserHost`'s loop thread with `host.call(...)`. The
browser is launched lazily, on the first call that needs it, and reused by every env of the process
(each episode gets a fresh browser context: cookies and storage never leak between episodes).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import threading
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, TypeVar

from rtarena.errors import UserError

T = TypeVar("T")

# Debian's headless-only build of the same Chromium (package `chromium-headless-shell`), run as its binary
# rather than through its /bin/sh wrapper: with no browser UI to drive, a page costs less CPU (the 102 web task
# and game tests of tests/gui/test_tasks.py: 43 CPU-s against 76 with `chromium`, 2026-12-04); the full
# browser (package `chromium`) where it is not installed.
DEFAULT_CHROMIUMS = ("/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium")
CHROMIUM_ARGS = (
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-quic",
    # identical pixels for identical pages (partial raster left corner pixels differing between two runs)
    "--disable-partial-raster", "--force-color-profile=srgb",
)
CALL_TIMEOUT_S = 60.0


def chromium_path(executable_path: str | None = None) -> str:
    """The Chromium binary to drive: the argument, `$RTARENA_CHROMIUM`, or the first of Debian's
    `DEFAULT_CHROMIUMS` that is installed.

    Raises a one-line `UserError` saying how to install it when the file is not there (Playwright cannot
    download its own browsers on these machines, so the Debian packages are the supported ones).
    """
    chosen = executable_path or os.environ.get("RTARENA_CHROMIUM")
    candidates = (chosen,) if chosen else DEFAULT_CHROMIUMS
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise UserError(
        f"Chromium is missing: install it with `apt-get install chromium-headless-shell` (looked for "
        f"{' and '.join(candidates)}; RTARENA_CHROMIUM may point at another binary)",
    )


class BrowserHost:
    """A daemon thread with an asyncio loop that owns Playwright and one Chromium browser."""

    _shared: ClassVar[dict[str, BrowserHost]] = {}
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, executable_path: str) -> None:
        self.executable_path = executable_path
        self.pid = os.getpid()  # a forked worker must start its own thread and browser
        self.loop = asyncio.new_event_loop()
        self._playwright: Any = None
        self._browser: Any = None
        self._launch_lock: asyncio.Lock | None = None
        # tabs of closed envs, by viewport, for the next env to navigate anew: a new tab costs a renderer
        # process, most of the time of a first reset
        self._idle: dict[tuple[int, int], list[tuple[Any, Any]]] = {}
        self._thread = threading.Thread(target=self._run, name="rtarena-browser", daemon=True)
        self._thread.start()

    @classmethod
    def shared(cls, executable_path: str | None = None) -> BrowserHost:
        """The process-wide host for this Chromium binary, created on first use."""
        path = chromium_path(executable_path)
        with cls._shared_lock:
            host = cls._shared.get(path)
            if host is None or host.pid != os.getpid() or not host._thread.is_alive():
                host = cls._shared[path] = cls(path)
            return host

    @classmethod
    def close_all(cls) -> None:
        with cls._shared_lock:
            hosts, cls._shared = list(cls._shared.values()), {}
        for host in hosts:
            host.close()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def call(self, fn: Callable[..., Awaitable[T]], *args: Any, timeout: float = CALL_TIMEOUT_S) -> T:
        """Run `await fn(*args)` on the browser thread and return its result (blocking the caller)."""
        if threading.current_thread() is self._thread:
            raise RuntimeError("BrowserHost.call from the browser thread itself would deadlock")
        future = asyncio.run_coroutine_threadsafe(fn(*args), self.loop)
        return future.result(timeout)

    async def browser(self) -> Any:
        """The Chromium browser, launched on first use (on the browser thread)."""
        if self._launch_lock is None:
            self._launch_lock = asyncio.Lock()
        async with self._launch_lock:
            if self._browser is None or not self._browser.is_connected():
                from playwright.async_api import async_playwright

                if self._playwright is None:
                    self._playwright = await async_playwright().start()
                self._browser = await self._playwright.chromium.launch(
                    executable_path=self.executable_path, headless=True, args=list(CHROMIUM_ARGS)
                )
        return self._browser

    def take_tab(self, viewport: tuple[int, int]) -> tuple[Any, Any] | None:
        """A (context, page) a closed env left with this viewport, or None (on the browser thread)."""
        tabs = self._idle.get(tuple(viewport), [])
        while tabs:
            context, page = tabs.pop()
            if not page.is_closed():
                return context, page
        return None

    def give_tab(self, viewport: tuple[int, int], context: Any, page: Any) -> None:
        """Keep a closed env's tab for the next env (a few per viewport; the rest are closed by the caller)."""
        self._idle.setdefault(tuple(viewport), []).append((context, page))

    def idle_count(self, viewport: tuple[int, int]) -> int:
        return len(self._idle.get(tuple(viewport), []))

    async def _shutdown(self) -> None:
        if self._browser is not None:
            await self._browser.close()
            self._browser = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None

    def close(self) -> None:
        """Close the browser and stop the thread; a later `shared()` starts a new host."""
        if not self._thread.is_alive():
            return
        # a browser that already died must not stop the interpreter's exit
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._shutdown(), self.loop).result(15)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)


atexit.register(BrowserHost.close_all)
