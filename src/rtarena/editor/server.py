"""`rtarena edit [MAP]`: the map editor, a page served on 127.0.0.1 with a small JSON API.

The page (`page.html`, plain JavaScript, no build step) holds the map being edited in the format of
`envs/arena/maps/format.py` and calls the API for everything that needs the Python side:

| route | body | answer |
|---|---|---|
| `GET /` | | the page |
| `GET /api/state` | | the map, its file, the level, the levels and styles |
| `POST /api/validate` | `{map}` | `{problems: [{field, message, line}]}` (live, after every edit) |
| `POST /api/generate` | `{seed, style}` | `{map}`: a procedural start for the level |
| `POST /api/preview` | `{map, x, y, yaw_deg, pitch_deg}` | `{png}`: the first-person view from there (base64) |
| `POST /api/level` | `{level}` | the state, checked against another level |
| `POST /api/save` | `{map, path?}` | `{saved, problems}` |

The editor is a `webapp.LocalApp`: only 127.0.0.1, only to its own page (`Host`, `Origin`, the session
token in the page, JSON bodies of bounded size, 4xx JSON answers to malformed requests). Saves are
confined to one folder and refused for maps with problems (`save_path.py`). A map is checked off the
session's lock, in one checking thread, and the answer comes within `VALIDATE_S` (or a 503), so a huge map
holds neither the session nor any other request.
"""

from __future__ import annotations

import base64
import concurrent.futures
import math
import threading
import webbrowser
from pathlib import Path
from typing import Any

import numpy as np

from rtarena.editor.save_path import save_target
from rtarena.webapp import Handler, LocalApp, Request, RequestError, field

PAGE = Path(__file__).with_name("page.html")
STATIC = Path(__file__).with_name("static")
DEFAULT_PORT = 8768
PREVIEW_SIZE = (320, 240)
VALIDATE_S = 10.0  # a map check answers within this long, or 503 (the map limits keep it well under)
_CHECKER = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="rtarena-editor-check")


class EditorSession:
    """The editor's server-side state: the file, the level, and the level's rules."""

    def __init__(self, path: Path | None, level: str = "arena/coop-v0", root: Path | None = None) -> None:
        from rtarena.envs.arena.maps.format import read_map_file

        self.path = Path(path) if path is not None else None
        self.root = Path(root or (self.path.resolve().parent if self.path else Path.cwd())).resolve()
        self.lock = threading.Lock()
        self.set_level(level)
        if self.path is not None and self.path.exists():
            self.map = read_map_file(self.path)
        else:
            self.map = {"size_m": float(self.rules.arena.size_m), "obstacles": [], "spawns": [], "coins": [],
                        "turrets": [], "ammo": [], "chickens": []}

    def set_level(self, level: str) -> None:
        from rtarena.editor.maps import level_rules

        self.rules = level_rules(level)
        self.level = level

    def state(self) -> dict[str, Any]:
        from rtarena.envs.arena.maps.generate import STYLES
        from rtarena.envs.arena.maps.topdown import palette_css
        from rtarena.envs.registry import ENV_TABLE

        return {"map": self.map, "path": str(self.path) if self.path else "", "level": self.level,
                "palette": palette_css(),
                "levels": [s.id for s in ENV_TABLE if s.family == "arena"], "styles": list(STYLES),
                "players": int(self.rules.players.count), "wall_height_m": float(self.rules.arena.wall_height_m),
                "crate_height_m": float(self.rules.arena.crate_height_m)}

    def validate(self, table: dict[str, Any]) -> list[dict[str, str]]:
        from rtarena.envs.arena.maps.resolve import jump_height_m
        from rtarena.envs.arena.maps.validate import validate_map

        name, rules = (str(self.path) if self.path else "map"), self.rules  # one snapshot: a level change may come
        problems = validate_map(table, name, players=int(rules.players.count), jump_m=jump_height_m(rules),
                                size_m=float(rules.arena.size_m))
        return [{"field": p.field, "message": p.message, "line": p.line()} for p in problems]

    def generate(self, seed: int, style: str) -> dict[str, Any]:
        from rtarena.envs.arena.maps.generate import generate_map, settings_for_level

        return generate_map(int(seed), settings_for_level(self.rules, None, style))

    def preview(self, table: dict[str, Any], x: float, y: float, yaw_deg: float, pitch_deg: float = 0.0) -> bytes:
        """PNG bytes of the first-person view of a player standing at (x, y) facing `yaw_deg`."""
        from rtarena.envs.arena.layout import make_layout, world_from_layout
        from rtarena.envs.arena.maps.resolve import layout_arrays
        from rtarena.envs.arena.render.renderer import ArenaRenderer
        from rtarena.media import encode_png

        rng = np.random.default_rng(0)
        arrays = layout_arrays(table)
        players = max(1, len(arrays.get("spawns", ())))
        layout = make_layout(self.rules, players, rng, arrays)
        world = world_from_layout(layout, self.rules, rng)
        world.players.pos[0, :2] = (x, y)
        world.players.yaw[0] = math.radians(yaw_deg)
        world.players.pitch[0] = math.radians(pitch_deg)
        renderer = ArenaRenderer(world, *PREVIEW_SIZE, fov_deg=float(self.rules.players.fov_deg), threads=1)
        try:
            rgb, _ = renderer.render(world, [0])
        finally:
            renderer.close()
        return encode_png(rgb[0])

    def save(self, table: dict[str, Any], path: str | None, problems: list[dict[str, str]] | None = None) -> Path:
        """Write a valid map (`problems`: its check, done already off the lock) into the editor's folder."""
        from rtarena.envs.arena.maps.format import write_map_file

        if not path and self.path is None:
            raise RequestError(400, "give a file name to save to")
        problems = self.validate(table) if problems is None else problems
        if problems:
            raise RequestError(422, f"not saved: the map has {len(problems)} problem(s), first: {problems[0]['line']}")
        target = save_target(self.root, path or str(self.path), self.path)
        self.path = write_map_file(table, target)
        self.map = table
        return self.path


def routes(session: EditorSession) -> dict[tuple[str, str], Handler]:
    """The API as a route table. Checking and drawing a map read a snapshot of the session's rules and run
    off its lock, bounded by `VALIDATE_S`; only changes of the session (level, save) take the lock."""

    def validate(r: Request) -> Any:
        return {"problems": bounded(session, field(r.body, "map", "object"))}

    def generate(r: Request) -> Any:
        table = session.generate(field(r.body, "seed", "int", False) or 0, field(r.body, "style", "text", False)
                                 or "open")
        return {"map": table, "problems": bounded(session, table)}

    def preview(r: Request) -> Any:
        table = field(r.body, "map", "object")
        problems = bounded(session, table)
        png = session.preview(table, field(r.body, "x", "number"), field(r.body, "y", "number"),
                              field(r.body, "yaw_deg", "number", False) or 0.0,
                              field(r.body, "pitch_deg", "number", False) or 0.0)
        return {"png": base64.b64encode(png).decode(), "problems": problems}

    def level(r: Request) -> Any:
        with session.lock:
            session.set_level(field(r.body, "level", "text"))
            return session.state()

    def save(r: Request) -> Any:
        table, path = field(r.body, "map", "object"), field(r.body, "path", "text", False) or None
        problems = bounded(session, table)
        if problems:
            raise RequestError(422, f"not saved: the map has {len(problems)} problem(s), first: {problems[0]['line']}")
        with session.lock:
            return {"saved": str(session.save(table, path, problems)), "problems": []}

    table = {("GET", "/api/state"): lambda r: session.state(), ("POST", "/api/validate"): validate,
             ("POST", "/api/generate"): generate, ("POST", "/api/preview"): preview, ("POST", "/api/level"): level,
             ("POST", "/api/save"): save}
    return {key: malformed_is_400(handler) for key, handler in table.items()}


def bounded(session: EditorSession, table: dict[str, Any]) -> list[dict[str, str]]:
    """`session.validate(table)` in the one checking thread, answered within `VALIDATE_S` or refused (503):
    a huge map cannot hold a request (or the session) longer, and checks queue rather than pile up."""
    job = _CHECKER.submit(session.validate, table)
    try:
        return job.result(timeout=VALIDATE_S)
    except concurrent.futures.TimeoutError:
        raise RequestError(503, f"checking the map took longer than {VALIDATE_S:g} s; try again after a "
                                "smaller change") from None


def malformed_is_400(handler: Handler) -> Handler:
    """`handler`, with a map whose content does not fit the format answered 400."""

    def run(request: Request) -> Any:
        try:
            return handler(request)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
            raise RequestError(400, f"malformed request: {type(error).__name__}: {str(error)[:160]}") from None

    return run


def make_app(path: Path | None, level: str = "arena/coop-v0", port: int = 0, root: Path | None = None) -> LocalApp:
    """The editor over one map file (not started)."""
    session = EditorSession(path, level, root)
    return LocalApp(PAGE.read_text(encoding="utf-8"), routes(session), port, static=STATIC)


def start_server(path: Path | None, level: str = "arena/coop-v0", port: int = 0,
                 root: Path | None = None) -> tuple[LocalApp, str]:
    """Serve the editor on 127.0.0.1 in a background thread; returns the started app and the page's URL."""
    app = make_app(path, level, port, root).start()
    return app, app.url


def serve(path: Path | None, level: str = "arena/coop-v0", port: int = DEFAULT_PORT, open_browser: bool = True,
          console: Any = None, root: Path | None = None) -> None:
    """Run the editor until Ctrl-C."""
    app = make_app(path, level, port, root)
    if console is not None:
        console.print(f"map editor on {app.url} (Ctrl-C to stop)")
    if open_browser:
        webbrowser.open(app.url)
    app.serve_forever()
