"""A local web app on 127.0.0.1: one page plus a JSON API, with the safety rules every rtarena page keeps.

The dashboard (and any other local page) reads files as the user who started it, so a web page the user
visits elsewhere must not be able to use it. Every request is checked here, once:

- only 127.0.0.1 is bound, and the `Host` header must name this server (defeats DNS rebinding);
- `/api/` requests carry the per-session token that the page was served with (`X-Rtarena-Token`), and a
  request with an `Origin` must come from this server (defeats cross-site requests);
- request bodies must be JSON (`Content-Type: application/json`) and at most `MAX_BODY_BYTES`;
- a mistake in a request is a 4xx JSON answer `{"error": "..."}`, never a traceback or a dropped
  connection; files are served only from inside the app's root folder.

An app is a table of routes, `{("GET", "/api/runs"): handler}`; a handler takes a `Request` and returns a
JSON-able value, or a `Reply` for other content types.
"""

from __future__ import annotations

import json
import math
import mimetypes
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from rtarena.errors import UserError
from rtarena.limits import LIMITS, loads_json

MAX_BODY_BYTES = int(LIMITS["request.bytes"].value)
TOKEN_HEADER = "X-Rtarena-Token"


class RequestError(Exception):
    """A request the app refuses: its status and a one-line reason for the JSON answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    body: Any = None

    def arg(self, name: str, default: str | None = None) -> str:
        """A query parameter, or a 400 when it is missing and has no default."""
        value = self.query.get(name, default)
        if value is None:
            raise RequestError(400, f"missing query parameter {name!r}")
        return value

    def int_arg(self, name: str, default: int, low: int = 0, high: int = 1 << 31) -> int:
        raw = self.query.get(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise RequestError(400, f"{name}: expected an integer, got {raw!r}") from None
        if not low <= value <= high:
            raise RequestError(400, f"{name}: must be in [{low}, {high}], got {value}")
        return value


@dataclass
class Reply:
    """A non-JSON answer: bytes with a content type (CSV, PNG, MP4 ...)."""

    body: bytes
    content_type: str
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[Request], Any]


def confined(root: Path, relative: str) -> Path:
    """`relative` resolved inside `root`, or a 403: no absolute paths, no `..`, no symlinks out."""
    if not relative or relative.startswith(("/", "\\")) or "\x00" in relative:
        raise RequestError(403, f"path {relative!r} is outside the served folder")
    base = root.resolve()
    path = (base / relative).resolve()
    if path != base and base not in path.parents:
        raise RequestError(403, f"path {relative!r} is outside the served folder")
    return path


def file_reply(root: Path, relative: str) -> Reply:
    """A file from inside `root`, with its content type."""
    path = confined(root, relative)
    if not path.is_file():
        raise RequestError(404, f"no file {relative!r}")
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return Reply(path.read_bytes(), kind)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_json_body(raw: bytes) -> Any:
    """A JSON body; NaN, Infinity, numbers that overflow a float and nesting past the limit are refused."""
    try:
        value = loads_json(raw, parse_constant=_reject_constant)
    except UserError as error:
        raise RequestError(400, f"body: {error}") from None

    def check(item: Any) -> None:
        if isinstance(item, float) and not math.isfinite(item):
            raise RequestError(400, "body holds a number out of range")
        if isinstance(item, dict):
            for sub in item.values():
                check(sub)
        elif isinstance(item, list):
            for sub in item:
                check(sub)

    check(value)
    return value


def read_json_body(headers: Any, stream: Any, need_json_type: bool = True, max_bytes: int = MAX_BODY_BYTES) -> Any:
    """A request's JSON body, read only after its type and size are checked (415, 411/400, 413).

    Shared by every local server (this module's apps and the policy server), so a `Content-Length` of
    99999999999 is refused before anything is read or allocated."""
    if need_json_type and headers.get("Content-Type", "").split(";")[0].strip().lower() != "application/json":
        raise RequestError(415, "request bodies must be application/json")
    try:
        length = int(headers.get("Content-Length", "0"))
    except ValueError:
        raise RequestError(400, "Content-Length is not a number") from None
    if length < 0 or length > max_bytes:
        raise RequestError(413, f"body of {length} bytes refused (at most {max_bytes})")
    return parse_json_body(stream.read(length))


KINDS: dict[str, tuple[type, ...]] = {"object": (dict,), "list": (list,), "text": (str,), "bool": (bool,),
                                      "int": (int,), "number": (int, float)}


def field(body: Any, name: str, kind: str, required: bool = True) -> Any:
    """`body[name]` checked to be of `kind` (object, list, text, bool, int, number), or a 400; None when an
    optional field is absent."""
    if not isinstance(body, dict):
        raise RequestError(400, f"the body must be a JSON object, got {type(body).__name__}")
    value = body.get(name)
    if value is None:
        if required:
            raise RequestError(400, f"missing field {name!r}")
        return None
    if not isinstance(value, KINDS[kind]) or (kind in ("int", "number") and isinstance(value, bool)):
        raise RequestError(400, f"field {name!r} must be {kind}, got {type(value).__name__} {str(value)[:40]!r}")
    return value


class LocalApp:
    """One page and a table of routes, served on 127.0.0.1 with the checks in the module docstring."""

    def __init__(self, page: str, routes: dict[tuple[str, str], Handler], port: int = 0) -> None:
        self.token = secrets.token_urlsafe(24)
        self.page = page.replace("__RTARENA_TOKEN__", self.token).encode("utf-8")
        self.routes = routes
        self.server = _Server(("127.0.0.1", port), self)
        self.thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def allowed_hosts(self) -> set[str]:
        return {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}

    def start(self) -> LocalApp:
        self.thread = threading.Thread(target=self.server.serve_forever, name="rtarena-webapp", daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> LocalApp:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def serve_forever(self) -> None:
        try:
            self.server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self.server.server_close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], app: LocalApp) -> None:
        self.app = app
        super().__init__(address, _RequestHandler)


class _RequestHandler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the page polls
        pass

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def _handle(self, method: str) -> None:
        app = self.server.app
        try:
            url = urlsplit(self.path)
            self._check_host(app)
            if method == "GET" and url.path in ("/", "/index.html"):
                self._send(200, app.page, "text/html; charset=utf-8")
                return
            handler = app.routes.get((method, url.path))
            if handler is None:
                raise RequestError(404, f"no route {method} {url.path}")
            self._check_api(app)
            query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
            body = self._body() if method == "POST" else None
            result = handler(Request(method, url.path, query, body))
            if isinstance(result, Reply):
                self._send(200, result.body, result.content_type, result.headers)
            else:
                self._send(200, json.dumps(result, default=_json_default).encode("utf-8"), "application/json")
        except RequestError as error:
            self.close_connection = True  # an unread body must not be taken for the next request
            self._send_error(error.status, str(error))
        except UserError as error:  # a value the app's own checks refused (an unknown level ...)
            self._send_error(400, str(error))
        except Exception as error:  # an internal bug: still a JSON answer, never a dropped connection
            self._send_error(500, f"{type(error).__name__}: {error}")

    def _check_host(self, app: LocalApp) -> None:
        if self.headers.get("Host", "") not in app.allowed_hosts():
            raise RequestError(403, "Host header does not name this server")

    def _check_api(self, app: LocalApp) -> None:
        origin = self.headers.get("Origin")
        if origin is not None and origin not in {f"http://{h}" for h in app.allowed_hosts()}:
            raise RequestError(403, f"requests from origin {origin!r} are refused")
        if not secrets.compare_digest(self.headers.get(TOKEN_HEADER, ""), app.token):
            raise RequestError(403, f"missing or wrong {TOKEN_HEADER} header (the page carries it)")

    def _body(self) -> Any:
        return read_json_body(self.headers, self.rfile)

    def _send_error(self, status: int, message: str) -> None:
        self._send(status, json.dumps({"error": message}).encode("utf-8"), "application/json")

    def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


def _json_default(value: Any) -> Any:
    """Values DuckDB hands back (dates, decimals, numpy scalars) as JSON."""
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, tuple)):
        return list(value)
    return str(value)
