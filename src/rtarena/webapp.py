"""A local web app on 127.0.0.1: one page plus a JSON API, with the safety rules every rtarena page keeps.

The dashboard (and any other local page) reads files as the user who started it, so a web page the user
visits elsewhere must not be able to use it. Every request is checked here, once:

- only 127.0.0.1 is bound, and the `Host` header must name this server (defeats DNS rebinding);
- `/api/` requests carry the per-session token that the page was served with (`X-Rtarena-Token`), and a
  request with an `Origin` must come from this server (defeats cross-site requests);
- request bodies must be JSON (`Content-Type: application/json`) and at most `MAX_BODY_BYTES`;
- a mistake in a request is a 4xx JSON answer `{"error": "..."}`, never a traceback or a dropped
  connection; files are served only from inside the app's root folder.

Every local server (these apps and the policy server) runs on `ServerBase`: a bounded pool of worker
threads, a cap on open connections, and read and idle timeouts, so that slow or idle clients never block
the others (issue 29: 1,000 idle connections once held 1,993 threads of the dashboard).

An app is a table of routes, `{("GET", "/api/runs"): handler}`; a handler takes a `Request` and returns a
JSON-able value, or a `Reply` for other content types.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import mimetypes
import queue
import secrets
import selectors
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from socketserver import _SocketWriter  # type: ignore[attr-defined]
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


class Served:
    """The lifecycle every local server shares (pages and the policy server): start in a background thread,
    stop, `with`, or serve in the foreground until Ctrl-C. Subclasses set `self.server` (a `ServerBase`)."""

    server: ServerBase
    thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def start(self) -> Any:
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       name=f"rtarena-{type(self).__name__}", daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted (Ctrl-C ends quietly), then close."""
        try:
            self.server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self.server.server_close()


class LocalApp(Served):
    """One page and a table of routes, served on 127.0.0.1 with the checks in the module docstring."""

    def __init__(self, page: str, routes: dict[tuple[str, str], Handler], port: int = 0) -> None:
        self.token = secrets.token_urlsafe(24)
        self.page = page.replace("__RTARENA_TOKEN__", self.token).encode("utf-8")
        self.routes = routes
        self.server = _Server(("127.0.0.1", port), self)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def allowed_hosts(self) -> set[str]:
        return {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}


class _Continue(Exception):
    """The pending request's head asks for `100 Continue` before its body is sent."""


class _Connection:
    """A client connection waiting in the selector: the bytes of its next request read so far."""

    __slots__ = ("address", "buffer", "continued", "since", "started")

    def __init__(self, address: Any) -> None:
        self.address = address
        self.continued = False  # `100 Continue` sent for the pending request (curl waits for it)
        self.buffer = bytearray()
        self.since = time.monotonic()  # accepted, or last answered
        self.started: float | None = None  # when the first byte of the pending request came

    def request(self, max_body: int = MAX_BODY_BYTES) -> bytes | None:
        """The next whole request (head and body) taken from the buffer, or None while it is incomplete.

        A body larger than `max_body` (the server's request limit) is not waited for: the handler answers
        413 from the head."""
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = bytes(self.buffer[:end + 4])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                try:
                    length = max(0, int(value.strip()))
                except ValueError:
                    length = 0
        if length > max_body:
            length = 0
        total = end + 4 + length
        if len(self.buffer) < total:
            if b"100-continue" in head.lower() and not self.continued:
                self.continued = True
                raise _Continue
            return None
        self.continued = False
        data = bytes(self.buffer[:total])
        del self.buffer[:total]
        self.started = time.monotonic() if self.buffer else None
        return data


class ServerBase(HTTPServer):
    """An HTTP server on a bounded pool of workers, with a connection cap and read and idle timeouts.

    A connection costs a worker only once a whole request has arrived: accepted and kept-alive connections
    wait in one selector (a file descriptor and a buffer each, no thread) that reads what they send without
    blocking, and a worker serves each complete request. Then
    - a request must be complete within `READ_TIMEOUT_S` of its first byte (a slow client is dropped, and
      never held a worker), and its head is at most `MAX_HEAD_BYTES`;
    - a connection silent for `IDLE_TIMEOUT_S` is closed;
    - at most `MAX_CONNECTIONS` are open: one past the cap closes the longest-idle one (or, with none idle,
      is itself closed), so a new client gets through;
    - `WORKERS` requests are served at once; more wait in the queue.
    The handler is any `BaseHTTPRequestHandler`; one that takes its socket over (a WebSocket upgrade) sets
    `detached = True`, and the server forgets the connection.
    """

    allow_reuse_address = True
    request_queue_size = 1024  # the listen backlog: a burst of connections is not dropped at the door
    WORKERS = 16
    MAX_CONNECTIONS = 1024
    MAX_HEAD_BYTES = 64 << 10
    MAX_BODY_BYTES = MAX_BODY_BYTES  # a page's API; the policy server takes a model's requests (larger)
    READ_TIMEOUT_S = 10.0
    IDLE_TIMEOUT_S = 60.0

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self._waiting = selectors.DefaultSelector()
        self._idle: dict[socket.socket, _Connection] = {}
        self._busy = 0
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._closed = False
        self._threads = [threading.Thread(target=self._work, name=f"{type(self).__name__}-worker", daemon=True)
                         for _ in range(self.WORKERS)]
        self._threads.append(threading.Thread(target=self._poll, name=f"{type(self).__name__}-poll", daemon=True))
        for thread in self._threads:
            thread.start()

    @property
    def open_connections(self) -> int:
        with self._lock:
            return len(self._idle) + self._busy

    def process_request(self, request: Any, client_address: Any) -> None:
        """A new connection waits, threadless, until it has sent a whole request (past the cap: see above).

        Nagle's algorithm is off: a handler writes its head and its body in separate sends, and with it on the
        body waits for the client's delayed ACK (40 ms on Linux), which would add 40 ms to every reply."""
        with contextlib.suppress(OSError):
            request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._lock:
            if len(self._idle) + self._busy >= self.MAX_CONNECTIONS:
                if not self._idle:
                    self.shutdown_request(request)
                    return
                oldest = min(self._idle, key=lambda s: self._idle[s].since)
                self._forget(oldest)
                self.shutdown_request(oldest)
            self._wait(request, _Connection(client_address))

    def _wait(self, sock: socket.socket, connection: _Connection) -> None:
        """File a connection in the selector (called with the lock held)."""
        try:
            sock.setblocking(False)
            self._waiting.register(sock, selectors.EVENT_READ)
        except (ValueError, OSError):  # closed meanwhile
            return
        self._idle[sock] = connection

    def _forget(self, sock: socket.socket) -> _Connection | None:
        """Take a connection out of the selector (called with the lock held)."""
        connection = self._idle.pop(sock, None)
        if connection is not None:
            with contextlib.suppress(KeyError, ValueError, OSError):
                self._waiting.unregister(sock)
        return connection

    def _poll(self) -> None:
        last_sweep = time.monotonic()
        while not self._closed:
            try:
                ready = self._waiting.select(timeout=0.2)  # epoll: sockets filed meanwhile are seen
            except (OSError, ValueError):
                ready = []
            for key, _events in ready:
                self._read(key.fileobj)  # type: ignore[arg-type]
            now = time.monotonic()
            if now - last_sweep > 0.5:
                last_sweep = now
                self._sweep(now)

    def _read(self, sock: socket.socket) -> None:
        """Take what a waiting client sent; hand a complete request to a worker."""
        with self._lock:
            connection = self._idle.get(sock)
        if connection is None:
            return
        try:
            data = sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if data:
            connection.buffer += data
            connection.started = connection.started or time.monotonic()
        request = self._next(sock, connection) if data else None
        if not data or (request is None and connection.buffer.find(b"\r\n\r\n") < 0
                        and len(connection.buffer) > self.MAX_HEAD_BYTES):
            with self._lock:
                self._forget(sock)
            self.shutdown_request(sock)
            return
        if request is not None:
            with self._lock:
                self._forget(sock)
                self._busy += 1
            self._jobs.put(lambda: self._serve(sock, connection, request))

    def _next(self, sock: socket.socket, connection: _Connection) -> bytes | None:
        """The connection's next whole request, or None; a head asking for `100 Continue` gets it."""
        try:
            return connection.request(self.MAX_BODY_BYTES)
        except _Continue:
            with contextlib.suppress(OSError):
                sock.send(b"HTTP/1.1 100 Continue\r\n\r\n")
            return None

    def _sweep(self, now: float) -> None:
        """Close connections idle too long, and those whose request has been arriving too long."""
        with self._lock:
            stale = [sock for sock, c in self._idle.items()
                     if (c.started is not None and now - c.started > self.READ_TIMEOUT_S)
                     or (c.started is None and now - c.since > self.IDLE_TIMEOUT_S)]
            for sock in stale:
                self._forget(sock)
        for sock in stale:
            self.shutdown_request(sock)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            job()

    def _serve(self, sock: socket.socket, connection: _Connection, request: bytes | None) -> None:
        """Answer the connection's complete requests, then file it back (keep-alive) or close it."""
        keep = detached = False
        try:
            sock.settimeout(self.READ_TIMEOUT_S)  # for writing the answer to a slow reader
            while request is not None:
                handler = self.RequestHandlerClass.__new__(self.RequestHandlerClass)
                handler.request = handler.connection = sock
                handler.client_address, handler.server = connection.address, self
                handler.rfile = io.BytesIO(request)
                handler.wfile = _SocketWriter(sock)
                handler.close_connection = True
                handler.handle_expect_100 = lambda: True  # the body is here already (`_next` said 100)
                handler.handle_one_request()
                detached = bool(getattr(handler, "detached", False))
                if detached or handler.close_connection or self._closed:
                    return
                request = self._next(sock, connection)
            keep = True
        except Exception:  # a client that went away or stalled; an internal bug is the handler's to answer
            if not isinstance(sys.exc_info()[1], OSError):
                self.handle_error(sock, connection.address)
        finally:
            with self._lock:
                self._busy -= 1
                if keep and not self._closed:
                    connection.since = time.monotonic()
                    self._wait(sock, connection)
            if not keep and not detached:
                self.shutdown_request(sock)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return  # a client that went away (timeout, abandoned stream) is normal here
        super().handle_error(request, client_address)

    def server_close(self) -> None:
        self._closed = True
        super().server_close()
        with self._lock:
            idle = list(self._idle)
            for sock in idle:
                self._forget(sock)
        for sock in idle:
            self.shutdown_request(sock)
        for _ in range(self.WORKERS):
            self._jobs.put(None)


class _Server(ServerBase):
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
