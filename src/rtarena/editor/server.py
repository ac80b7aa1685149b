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

Only 127.0.0.1 is served: the editor reads and writes files as the user who started it.
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

from rtarena.errors import UserError

PAGE = Path(__file__).with_name("page.html")
PREVIEW_SIZE = (320, 240)


class EditorSession:
    """The editor's server-side state: the file, the level, and the level's rules."""

    def __init__(self, path: Path | None, level: str = "arena/coop-v0") -> None:
        from rtarena.envs.arena.maps.format import read_map_file

        self.path = Path(path) if path is not None else None
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

    def save(self, table: dict[str, Any], path: str | None) -> Path:
        from rtarena.envs.arena.maps.format import write_map_file

        target = Path(path) if path else self.path
        if target is None:
            raise UserError("give a file name to save to", field="path")
        if target.suffix.lower() not in (".toml", ".json"):
            raise UserError(f"a map file ends in .toml or .json, got {target.name!r}", field="path")
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
            if self.path in ("/", "/index.html"):
                self._send(200, PAGE.read_bytes(), "text/html; charset=utf-8")
            elif self.path == "/api/state":
                with session.lock:
                    self._json(session.state())
            else:
                self._json({"error": "not found"}, 404)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._json({"error": "the request body is not JSON"}, 400)
                return
            try:
                with session.lock:
                    self._json(self._route(body))
            except UserError as error:
                self._json({"error": str(error)}, 400)
            except KeyError as error:
                self._json({"error": f"missing {error}"}, 400)

        def _route(self, body: dict[str, Any]) -> Any:
            if self.path == "/api/validate":
                return {"problems": session.validate(body["map"])}
            if self.path == "/api/generate":
                table = session.generate(int(body.get("seed", 0)), str(body.get("style", "open")))
                return {"map": table, "problems": session.validate(table)}
            if self.path == "/api/preview":
                problems = session.validate(body["map"])
                png = session.preview(body["map"], float(body["x"]), float(body["y"]), float(body.get("yaw_deg", 0)),
                                      float(body.get("pitch_deg", 0)))
                return {"png": base64.b64encode(png).decode(), "problems": problems}
            if self.path == "/api/level":
                session.set_level(str(body["level"]))
                return session.state()
            if self.path == "/api/save":
                path = session.save(body["map"], body.get("path") or None)
                return {"saved": str(path), "problems": session.validate(body["map"])}
            raise UserError(f"no such route {self.path}")

    return Handler


def start_server(path: Path | None, level: str = "arena/coop-v0", port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Serve the editor on 127.0.0.1 in a daemon thread; returns the server and its URL."""
    session = EditorSession(path, level)
    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(session))
    except OSError as error:
        raise UserError(f"cannot listen on 127.0.0.1:{port}: {error.strerror}", field="--port") from None
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="rtarena-editor", daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def serve(path: Path | None, level: str = "arena/coop-v0", port: int = 8765, open_browser: bool = True,
          console: Any = None) -> None:
    """Run the editor until Ctrl-C."""
    server, url = start_server(path, level, port)
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
