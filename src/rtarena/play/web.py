"""`rtarena play ENV_ID --web`: play any env with a human path in a page on 127.0.0.1 (also over an SSH tunnel).

The page (`page.html`, plain JavaScript) shows each frame as the env renders it and sends the person's
keys and mouse back; the match runs under the wall clock, as in the window (`rtarena.play`), so the world
does not wait for the person. The routes, on the safe local web-app base (`rtarena.webapp`):

| route | answer |
|---|---|
| `GET /api/info` | the env, its family, its keys, whether it takes the mouse; the first call readies the episode |
| `GET /api/frame?after=V` | the first frame newer than version V (waits up to 0.5 s) as PNG; headers (before the |
| | first frame: an empty answer with `X-Frame-Version: -1`, not an error) |
| `POST /api/start` | starts the episode's clock (the page's Start button, or the person's first key or click) |
| `GET /api/meta` | the latest frame's extras (a browser task's marks, when the page shows them) |
| `POST /api/input` | `{"events": [...]}`: `down`/`up` a key, `move` (pixels), `click` (x, y), `key`, `scroll` |
| `GET /api/result` | the episode's line once it ended (`interrupted` when the page went away) |

The episode is reset when the page first asks for its info, and its first frame is shown; the world then
waits for the person (`X-Started: 0`), so no second of a timed game passes before they have seen it and
chosen to begin (issue 47: 1.8 s of a 40 s game went by while the page loaded).

A frame's headers: `X-Frame-Version`, `X-Sim-S`, `X-Frame-Age-Ms` (since it was rendered), `X-Waited-Ms`
(how long the request waited for it), `X-Status`, `X-Started` and `X-Done`. The page's latency readout: the frame's
age at the server, its transfer (the request's time less the wait), and the input round trip.

A page that stops asking for frames for `DISCONNECT_S` ends the episode as interrupted (truncated at the
step it noticed); the records are written like any other episode's, with `interrupted: true`.
"""

from __future__ import annotations

import threading
import time
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rtarena.agents.human import KeyboardSnapshot
from rtarena.media import encode_png
from rtarena.play.session import HumanSession
from rtarena.webapp import LocalApp, Reply, Request, RequestError, field

PAGE = Path(__file__).with_name("page.html")
STATIC = Path(__file__).with_name("static")
DISCONNECT_S = 3.0  # a page silent this long has gone: the episode ends as interrupted
MOUSE_DEG_PER_PX = 0.2  # mouse look: degrees per pixel of pointer-locked movement
MAX_EVENTS = 256  # per input request
GUI_KEYS = 40  # the longest browser key name a page may send ("Control+Shift+ArrowLeft" ...)


class PlayPage(LocalApp):
    """The page and its API over one `HumanSession`'s frames and input snapshot."""

    def __init__(self, session: HumanSession, port: int = 0) -> None:
        self.session = session
        self.keyboard: KeyboardSnapshot = session.keyboard
        self.generation = 0  # which episode of the session list: the page reloads when it changes
        self.connected = threading.Event()
        self.last_seen = 0.0
        self.line: dict[str, Any] | None = None
        self._png: tuple[int, bytes] = (-1, b"")
        self._png_lock = threading.Lock()
        self._hold(session)
        super().__init__(PAGE.read_text(encoding="utf-8"), {
            ("GET", "/api/info"): self.info,
            ("GET", "/api/frame"): self.frame,
            ("GET", "/api/meta"): lambda r: self._seen(self.session.frames.extra),
            ("POST", "/api/input"): self.input,
            ("POST", "/api/start"): self.begin,
            ("GET", "/api/result"): lambda r: self._seen({"done": self.line is not None, "line": self.line,
                                                          "generation": self.generation}),
        }, port, static=STATIC)

    def swap(self, session: HumanSession) -> None:
        """The next episode (a preset's next env): the page sees a new generation and reloads."""
        self.connected.clear()
        self.session, self.keyboard, self.line = session, session.keyboard, None
        self._hold(session)
        self.generation += 1

    @staticmethod
    def _hold(session: HumanSession) -> None:
        """The session's episode waits at its first frame until the person starts it (`/api/start`)."""
        session.watched.start = threading.Event()

    def begin(self, request: Request) -> dict[str, Any]:
        self._seen(None)
        self.session.watched.start.set()
        return {"ok": True}

    def _seen(self, answer: Any) -> Any:
        self.last_seen = time.monotonic()
        return answer

    def info(self, request: Request) -> dict[str, Any]:
        self.connected.set()
        return self._seen({**self.session.describe(), "generation": self.generation})

    def frame(self, request: Request) -> Reply:
        frames = self.session.frames
        after = request.int_arg("after", -1, low=-1)
        self._seen(None)
        asked = time.perf_counter()
        version = frames.newer(after, 0.5)
        waited_ms = (time.perf_counter() - asked) * 1000
        with frames.lock:
            views, status, sim_s, stamp = frames.views, frames.status, frames.sim_s, frames.stamp
        if not views:  # the env is being reset: the page asks again (no error for what is not one)
            return Reply(b"", "text/plain", {"X-Frame-Version": "-1", "X-Started": "0", "X-Done": "0"})
        with self._png_lock:
            if self._png[0] != version:
                self._png = (version, encode_png(views[0]))
            data = self._png[1]
        done = "1" if self.line is not None else "0"
        return Reply(data, "image/png", {
            "X-Frame-Version": str(version), "X-Sim-S": f"{sim_s:.3f}", "X-Status": status.encode("ascii", "replace")
            .decode("ascii")[:200], "X-Frame-Age-Ms": f"{(time.perf_counter() - stamp) * 1000:.1f}", "X-Done": done,
            "X-Waited-Ms": f"{waited_ms:.1f}", "X-Started": "1" if self.session.watched.start.is_set() else "0"})

    def input(self, request: Request) -> dict[str, Any]:
        self._seen(None)
        events = field(request.body, "events", "list")
        if len(events) > MAX_EVENTS:
            raise RequestError(400, f"{len(events)} events in one request; at most {MAX_EVENTS}")
        for event in events:
            self._apply(event)
        return {"ok": True, "sim_s": self.session.frames.sim_s}

    def _apply(self, event: Any) -> None:
        kind = field(event, "t", "text")
        handler = EVENTS.get(kind)
        if handler is None:
            raise RequestError(400, f"event kind {kind!r}; kinds: {', '.join(EVENTS)}")
        handler(self.keyboard, event)

    def watch(self, stop: threading.Event, done: threading.Event) -> None:
        """Ask the episode to end (interrupted) once a connected page has been silent `DISCONNECT_S`."""
        while not done.wait(0.2):
            if self.connected.is_set() and time.monotonic() - self.last_seen > DISCONNECT_S:
                self.session.interrupted = "the page disconnected"
                stop.set()
                return


def _key(event: Any) -> str:
    name = field(event, "k", "text")
    if not 0 < len(name) <= GUI_KEYS:
        raise RequestError(400, f"key name {name[:60]!r} must be 1 to {GUI_KEYS} characters")
    return name


def _coordinate(event: Any, name: str) -> float:
    value = float(field(event, name, "number"))
    if not -1e5 < value < 1e5:
        raise RequestError(400, f"{name} {value!r} is out of range")
    return value


# What each page event does to the input snapshot (the one human path: `agents/human.py`).
EVENTS = {
    "down": lambda kb, e: kb.press(_key(e)),
    "up": lambda kb, e: kb.release(_key(e)),
    "blur": lambda kb, e: kb.release_all(),  # the page lost focus: its key-ups will not come
    "move": lambda kb, e: kb.move(_coordinate(e, "dx") * MOUSE_DEG_PER_PX, -_coordinate(e, "dy") * MOUSE_DEG_PER_PX),
    "click": lambda kb, e: kb.call(f"click_xy({round(_coordinate(e, 'x'))}, {round(_coordinate(e, 'y'))})"),
    "key": lambda kb, e: kb.call(f"key({_key(e)!r})"),
    "scroll": lambda kb, e: kb.call(f"scroll(0, {round(_coordinate(e, 'dy'))})"),
}


def play_web(sessions: list[Callable[[], HumanSession]], port: int = 0, open_browser: bool = True,
             echo: Any = print, out: Path | None = None) -> list[dict[str, Any]]:
    """Serve the page; per session (built when its turn comes): wait for the page, play the episode in real
    time, record it. Returns the episodes' lines."""
    page: PlayPage | None = None
    lines: list[dict[str, Any]] = []
    try:
        for build in sessions:
            session = build()
            if page is None:
                try:
                    page = PlayPage(session, port).start()
                except BaseException:  # a busy port: one line, and the session's env is closed
                    session.close()
                    raise
                echo(f"rtarena play: {page.url} ({session.env_id}; the episode starts at your first key or "
                     "the page's Start button; Ctrl-C stops)")
                if open_browser:
                    webbrowser.open(page.url)
            else:
                page.swap(session)
                echo(f"rtarena play: next, {session.env_id}")
            try:
                lines.append(_play_one(page, session, out))
            finally:
                session.close()
            if session.interrupted:
                break
        return lines
    finally:
        if page is not None:
            page.stop()


def _play_one(page: PlayPage, session: HumanSession, out: Path | None) -> dict[str, Any]:
    while not page.connected.wait(0.2):
        pass
    done = threading.Event()
    watcher = threading.Thread(target=page.watch, args=(session.watched.stop, done), daemon=True)
    watcher.start()
    try:
        result = session.play()
    finally:
        done.set()
    page.line = session.record(result, out)
    if not session.interrupted:
        time.sleep(1.0)  # the page reads the result
    return page.line


def play_command(env_id: str, agents: list[str] | None, *, web: bool, check: bool, port: int, open_browser: bool,
                 map_: str | None, sets: tuple[str, ...], disable: tuple[str, ...], dt: float | None, seed: int,
                 max_steps: int | None, out: Path, echo: Any = print, print_: Any = print,
                 preset: str | None = None) -> None:
    """`rtarena play ENV_ID --web` or `--check` (the CLI's checks of its numbers done)."""
    from rich.table import Table

    from rtarena.play import result_table

    if check:
        from rtarena.play.check import check_envs

        # each env at its own dt: the observation rate its windows were designed for (a browser task's 1 Hz)
        rows = check_envs(env_id, seed=seed, out=out, echo=echo)
        table = Table("env", "success", "score", "sim s", "wall s")
        for row in rows:
            table.add_row(row["env_id"], "yes" if row["success"] else "NO", f"{row['score']:.2f}",
                          f"{row['sim_s']:.1f}", f"{row['wall_s']:.1f}")
        print_(table)
        failed = [row["env_id"] for row in rows if not row["success"]]
        print_(f"{len(rows) - len(failed)} of {len(rows)} feasible for a person reacting in 250 ms"
               + (f"; not: {', '.join(failed)}" if failed else "") + f" (records in {out})")
        if failed:
            raise SystemExit(1)
        return
    env_ids = [env_id]
    if preset:
        from rtarena.eval.presets import load_preset

        experiment = load_preset(preset)
        env_ids, seed = [env.id for env in experiment.envs], experiment.seeds[0]
        agents = list(agents or experiment.lineups[0].slots)
    first = HumanSession.build(env_ids[0], agents, device="web", map=map_, sets=sets, disable=disable, dt=dt,
                               seed=seed, max_steps=max_steps)  # bad input is one line before the page opens
    builders = [lambda: first] + [
        (lambda e=e: HumanSession.build(e, agents, device="web", dt=dt, seed=seed, max_steps=max_steps))
        for e in env_ids[1:]]
    for line in play_web(builders, port=port, open_browser=open_browser, echo=echo, out=out):
        print_(f"{line['env_id']}:")
        print_(result_table(line, line.get("walked_m", {})))
        if line.get("interrupted"):
            print_(f"interrupted: {line.get('interrupted_why')}")
    print_(f"recorded in {out}")
