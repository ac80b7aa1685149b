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

Only 127.0.0.1 is served, and only to the editor's own page: `access.py` checks `Host`, `Origin`, the
session token and the body's type on every API call, and confines saves to one folder.
"""

from __future__ import annotations

import base64
import json
import math
import threading
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np

from rtarena.editor.access import TOKEN_HEADER, Access
from rtarena.errors import UserError
from rtarena.http_json import BadRequest, check, read_object

PAGE = Path(__file__).with_name("page.html")
PREVIEW_SIZE = (320, 240)
MAX_BODY_BYTES = 4 * 1024 * 1024  # a map with thousands of obstacles is well under this


class EditorSession:
    """The editor's server-side state: the file, the level, and the level's rules."""

    def __init__(self, path: Path | None, level: str = "arena/coop-v0", root: Path | None = None) -> None:
        from rtarena.envs.arena.maps.format import read_map_file

        self.path = Path(path) if path is not None else None
        self.access = Access(root or (self.path.resolve().parent if self.path else Path.cwd()))
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
        from rtarena.envs.registry import ENV_TABLE

        return {"map": self.map, "path": str(self.path) if self.path else "", "level": self.level,
                "levels": [s.id for s in ENV_TABLE if s.family == "arena"], "styles": list(STYLES),
                "players": int(self.rules.players.count), "wall_height_m": float(self.rules.arena.wall_height_m),
                "crate_height_m": float(self.rules.arena.crate_height_m)}

    def validate(self, table: dict[str, Any]) -> list[dict[str, str]]:
        from rtarena.envs.arena.maps.resolve import jump_height_m
        from rtarena.envs.arena.maps.validate import validate_map

        name = str(self.path) if self.path else "map"
        problems = validate_map(table, name, players=int(self.rules.players.count), jump_m=jump_height_m(self.rules),
                                size_m=float(self.rules.arena.size_m))
        return [{"field": p.field, "message": p.message, "line": p.line()} for p in problems]

    def generate(self, seed: int, style: str) -> dict[str, Any]:
        from rtarena.envs.arena.maps.generate import generate_map, settings_for_level

        return generate_map(int(seed), settings_for_level(self.rules, None, style))

    def preview(self, table: dict[str, Any], x: float, y: float, yaw_deg: float, pitch_deg: float = 0.0) -> bytes:
        """PNG bytes of the first-person view of a player standing at (x, y) facing `yaw_deg`."""
        from rtarena.envs.arena.layout import make_layout, world_from_layout
        from rtarena.envs.arena.maps.resolve import layout_arrays
        from rtarena.envs.arena.render.png import encode_png
        from rtarena.envs.arena.render.renderer import ArenaRenderer

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

    def save(self, table: dict[str, Any], path: str | None) -> Path:
        from rtarena.envs.arena.maps.format import write_map_file

        if not path and self.path is None:
            raise BadRequest(400, "give a file name to save to")
        problems = self.validate(table)
        if problems:
            raise BadRequest(422, f"not saved: the map has {len(problems)} problem(s), first: {problems[0]['line']}")
        target = self.access.save_target(path or str(self.path), self.path)
        self.path = write_map_file(table, target)
        self.map = table
        return self.path


def make_handler(session: EditorSession) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # the terminal stays quiet
            pass

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, data: Any, status: int = 200) -> None:
            self._send(status, json.dumps(data).encode(), "application/json")

        def do_GET(self) -> None:
            self._answer(lambda: self._get())

        def do_POST(self) -> None:
            self._answer(lambda: self._post())

        def _answer(self, work: Any) -> None:
            """Every request gets a JSON answer: 4xx for a bad one, 500 (no traceback) for a bug."""
            try:
                work()
            except BadRequest as error:
                self.close_connection = True  # an unread body must not be taken for the next request
                self._json({"error": str(error)}, error.status)
            except UserError as error:
                self._json({"error": str(error)}, 400)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
                self._json({"error": f"malformed request: {type(error).__name__}: {str(error)[:160]}"}, 400)
            except Exception as error:  # a bug: say so, keep serving
                self._json({"error": f"internal error: {type(error).__name__}"}, 500)

        def _get(self) -> None:
            session.access.check_host(self.headers.get("Host"), self.headers.get("Origin"))
            if self.path in ("/", "/index.html"):
                self._send(200, session.access.page(PAGE.read_bytes()), "text/html; charset=utf-8")
            elif self.path == "/api/state":
                session.access.check_token(self.headers.get(TOKEN_HEADER))
                with session.lock:
                    self._json(session.state())
            else:
                self._json({"error": "not found"}, 404)

        def _post(self) -> None:
            session.access.check_host(self.headers.get("Host"), self.headers.get("Origin"))
            session.access.check_token(self.headers.get(TOKEN_HEADER))
            body = read_object(self.headers, self.rfile, MAX_BODY_BYTES, need_json_type=True)
            with session.lock:
                self._json(self._route(body))

        def _route(self, body: dict[str, Any]) -> Any:
            if self.path == "/api/validate":
                return {"problems": session.validate(check(body, "map", "object"))}
            if self.path == "/api/generate":
                table = session.generate(check(body, "seed", "int", False) or 0,
                                         check(body, "style", "text", False) or "open")
                return {"map": table, "problems": session.validate(table)}
            if self.path == "/api/preview":
                table = check(body, "map", "object")
                problems = session.validate(table)
                png = session.preview(table, check(body, "x", "number"), check(body, "y", "number"),
                                      check(body, "yaw_deg", "number", False) or 0.0,
                                      check(body, "pitch_deg", "number", False) or 0.0)
                return {"png": base64.b64encode(png).decode(), "problems": problems}
            if self.path == "/api/level":
                session.set_level(check(body, "level", "text"))
                return session.state()
            if self.path == "/api/save":
                path = session.save(check(body, "map", "object"), check(body, "path", "text", False) or None)
                return {"saved": str(path), "problems": []}
            raise BadRequest(404, f"no such route {self.path}")

    return Handler


def start_server(path: Path | None, level: str = "arena/coop-v0", port: int = 0,
                 root: Path | None = None) -> tuple[ThreadingHTTPServer, str]:
    """Serve the editor on 127.0.0.1 in a daemon thread; returns the server and its URL."""
    session = EditorSession(path, level, root)
    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(session))
    except OSError as error:
        raise UserError(f"cannot listen on 127.0.0.1:{port}: {error.strerror}", field="--port") from None
    server.daemon_threads = True
    session.access.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, name="rtarena-editor", daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def serve(path: Path | None, level: str = "arena/coop-v0", port: int = 8765, open_browser: bool = True,
          console: Any = None, root: Path | None = None) -> None:
    """Run the editor until Ctrl-C."""
    server, url = start_server(path, level, port, root)
    if console is not None:
        console.print(f"map editor on {url} (Ctrl-C to stop)")
    if open_browser:
        webbrowser.open(url)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
