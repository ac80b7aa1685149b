"""Every local web server of rtarena on one well-kept stack: Starlette apps served by uvicorn on 127.0.0.1,
behind one middleware (`Guard`) that keeps the safety rules.

The dashboard (and the editor, the play page, the review page) read and write files as the user who
started them, and the policy server answers anything that reaches it, so a web page the user visits
elsewhere must not be able to use them. `Guard` checks every request, HTTP and WebSocket alike, once:

- only 127.0.0.1 is bound, and the `Host` header must name this server (defeats DNS rebinding);
- a request (or a WebSocket upgrade) with an `Origin` must come from this server: a page elsewhere gets
  403 (WebSockets have no CORS, so this is their only guard);
- `/api/` requests of a page carry the per-session token the page was served with (`X-Rtarena-Token`);
- request bodies are JSON (`Content-Type: application/json`, where the app asks for it), at most
  `max_body` bytes (413 before a byte is read when `Content-Length` says more; a chunked body is cut off
  at the cap) and must arrive within `READ_TIMEOUT_S` (408);
- pages get a Content-Security-Policy that allows scripts from the server only (no inline script, no
  `eval`), and `no-store`, `nosniff`, no framing.

Timeouts and limits are uvicorn's: idle keep-alive connections close after `IDLE_TIMEOUT_S`, WebSocket
frames are capped (`ws_max_size`), and an idle or slow client costs a socket on the event loop, never a
thread, so it cannot delay anyone else (issue 29's 1,000 idle connections, issue 46's 64).

A page app (`LocalApp`) is a page, its static files and a table of routes, `{("GET", "/api/runs"):
handler}`; a handler takes a `Request` and returns a JSON-able value, or a `Reply` for other content
types. Handlers are plain functions and run in the server's thread pool.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import math
import mimetypes
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any

from rtarena.errors import UserError
from rtarena.limits import LIMITS, loads_json

MAX_BODY_BYTES = int(LIMITS["request.bytes"].value)
TOKEN_HEADER = "X-Rtarena-Token"
READ_TIMEOUT_S = 10.0  # a request body must arrive within this long
IDLE_TIMEOUT_S = 60  # an idle keep-alive connection is closed after this long
WS_MAX_BYTES = int(LIMITS["websocket.bytes"].value)  # a larger WebSocket message closes the session (1009)
BODY_METHODS = ("POST", "PUT", "PATCH", "DELETE")
# Scripts only from this server: no inline script, no eval; images from the API's blobs and data URLs.
PAGE_CSP = ("default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
            "frame-ancestors 'none'; img-src 'self' blob: data:; style-src 'self' 'unsafe-inline'")
PAGE_HEADERS = {"content-security-policy": PAGE_CSP, "cache-control": "no-store", "x-frame-options": "DENY",
                "referrer-policy": "no-referrer"}


class RequestError(Exception):
    """A request the app refuses: its status and a one-line reason for the JSON answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Dropped(Exception):
    """A handler drops its connection on purpose (the policy server's `cut` fault): uvicorn closes the socket
    without finishing the answer. Not logged."""


class _QuietDrops(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], Dropped))


logging.getLogger("uvicorn.error").addFilter(_QuietDrops())


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
    """A non-JSON answer: bytes (or an iterator of byte chunks, sent as they come) with a content type."""

    body: bytes | Iterator[bytes]
    content_type: str
    headers: dict[str, str] = dataclass_field(default_factory=dict)


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


def page_error(status: int, message: str) -> dict[str, Any]:
    """A page API's error body: `{"error": "..."}`."""
    return {"error": message}


# -- the one middleware -----------------------------------------------------------------------------


class Guard:
    """The safety rules of the module docstring, as one ASGI middleware around any app (HTTP and WebSocket).

    `token`: the session token `/api/` requests must carry (None: no token, as for the policy server);
    `json_only`: bodies must say `application/json`; `page`: add the page headers (CSP ...); `error`: the
    app's error body for a refusal (status, message)."""

    def __init__(self, app: Any, *, token: str | None = None, max_body: int = MAX_BODY_BYTES,
                 json_only: bool = True, page: bool = True,
                 error: Callable[[int, str], dict[str, Any]] = page_error) -> None:
        self.app, self.token, self.max_body, self.json_only = app, token, max_body, json_only
        self.error = error
        self.headers = [(k.encode(), v.encode()) for k, v in
                        ({**PAGE_HEADERS} if page else {}).items()] + [(b"x-content-type-options", b"nosniff")]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)  # lifespan
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self.refusal(scope, headers)
        if refusal is None and scope["type"] == "http" and scope["method"] in BODY_METHODS:
            refusal, receive = await self.body(headers, receive)
        if refusal is not None:
            return await self.refuse(scope, send, *refusal)
        await self.app(scope, receive, self.stamped(send) if scope["type"] == "http" else send)

    def refusal(self, scope: dict[str, Any], headers: dict[str, str]) -> tuple[int, str] | None:
        port = (scope.get("server") or ("", 0))[1]
        hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        if headers.get("host", "") not in hosts:
            return 403, "Host header does not name this server"
        origin = headers.get("origin")
        if origin is not None and origin not in {f"http://{host}" for host in hosts}:
            return 403, f"requests from origin {origin[:80]!r} are refused"
        if self.token is not None and scope["path"].startswith("/api/") and not secrets.compare_digest(
                headers.get(TOKEN_HEADER.lower(), "").encode(), self.token.encode()):
            return 403, f"missing or wrong {TOKEN_HEADER} header (the page carries it)"
        return None

    async def body(self, headers: dict[str, str], receive: Any) -> tuple[tuple[int, str] | None, Any]:
        """The whole body, read only after its type and size are checked, within `READ_TIMEOUT_S`; then a
        `receive` that hands it to the app."""
        if self.json_only and headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            return (415, "request bodies must be application/json"), receive
        try:
            length = int(headers.get("content-length", "0"))
        except ValueError:
            return (400, "Content-Length is not a number"), receive
        if length < 0 or length > self.max_body:
            return (413, f"body of {length} bytes refused (at most {self.max_body})"), receive
        chunks: list[bytes] = []
        size = 0

        async def read() -> None:
            nonlocal size
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    raise ConnectionResetError
                chunks.append(message.get("body", b""))
                size += len(chunks[-1])
                if size > self.max_body:
                    raise OverflowError
                if not message.get("more_body"):
                    return

        try:
            await asyncio.wait_for(read(), READ_TIMEOUT_S)
        except TimeoutError:
            return (408, f"the body did not arrive within {READ_TIMEOUT_S:g} s"), receive
        except OverflowError:
            return (413, f"body of more than {self.max_body} bytes refused"), receive
        data, sent = b"".join(chunks), [False]

        async def replay() -> dict[str, Any]:
            if not sent[0]:
                sent[0] = True
                return {"type": "http.request", "body": data, "more_body": False}
            return await receive()

        return None, replay

    def stamped(self, send: Any) -> Any:
        async def wrapped(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in self.headers if k not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        return wrapped

    async def refuse(self, scope: dict[str, Any], send: Any, status: int, message: str) -> None:
        body = json.dumps(self.error(status, message)).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                   (b"connection", b"close"), *self.headers]
        prefix = "websocket." if scope["type"] == "websocket" else ""
        await send({"type": f"{prefix}http.response.start", "status": status, "headers": headers})
        await send({"type": f"{prefix}http.response.body", "body": body})


# -- serving: uvicorn on 127.0.0.1 ------------------------------------------------------------------


def listen(port: int, flag: str = "--port", host: str = "127.0.0.1") -> socket.socket:
    """A listening socket on `host:port` (0: any free port); a busy port is one line naming the flag."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a port in TIME_WAIT is free, a listened one not
    # Nagle's algorithm off (accepted sockets inherit it): a reply's head and body go out in separate writes,
    # and with it on the body waits for the client's delayed ACK, 40 ms on Linux, on every reply
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
        sock.listen(1024)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise UserError(f"port {port} on {host} is in use; choose another with {flag} PORT (0: any free port)",
                            field=flag) from None
        raise UserError(f"cannot listen on {host}:{port}: {error.strerror}", field=flag) from None
    sock.setblocking(False)
    return sock


class Served:
    """An ASGI app served by uvicorn on 127.0.0.1: start in a background thread, stop, `with`, or serve in
    the foreground until Ctrl-C. The socket is bound at construction (a busy port fails there, as one line)."""

    host = "127.0.0.1"

    def __init__(self, app: Any, port: int = 0, flag: str = "--port") -> None:
        import uvicorn

        self.socket = listen(port, flag, self.host)
        self.port: int = self.socket.getsockname()[1]
        config = uvicorn.Config(app, log_config=None, log_level="warning", access_log=False, server_header=False,
                                lifespan="on", http="httptools", ws="websockets-sansio", ws_max_size=WS_MAX_BYTES,
                                ws_ping_interval=None, ws_per_message_deflate=False,
                                timeout_keep_alive=IDLE_TIMEOUT_S,
                                timeout_graceful_shutdown=2, backlog=1024)
        self.uvicorn = uvicorn.Server(config)
        self.thread: threading.Thread | None = None
        self.failed: BaseException | None = None

    def _run(self) -> None:
        try:
            self.uvicorn.run(sockets=[self.socket])
        except BaseException as error:  # a startup failure, seen by `start`
            self.failed = error

    def start(self) -> Any:
        self.thread = threading.Thread(target=self._run, name=f"rtarena-{type(self).__name__}", daemon=True)
        self.thread.start()
        while not self.uvicorn.started:
            if not self.thread.is_alive():
                raise RuntimeError(f"the server did not start: {self.failed!r}")
            time.sleep(0.002)
        return self

    def stop(self) -> None:
        """Stop serving and release the socket (also of an app that was never started)."""
        self.uvicorn.should_exit = True
        if self.thread is not None:
            self.thread.join(10)
        self.socket.close()

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted (Ctrl-C ends quietly), then close."""
        try:
            self.uvicorn.run(sockets=[self.socket])
        except KeyboardInterrupt:
            pass
        finally:
            self.socket.close()


# -- a page app -------------------------------------------------------------------------------------


def _json_default(value: Any) -> Any:
    """Values DuckDB hands back (dates, decimals, numpy scalars) as JSON."""
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, tuple)):
        return list(value)
    return str(value)


def page_html(page: str, token: str) -> bytes:
    """The page with this session's token written into its `<meta name="rtarena-token">` (scripts read it)."""
    return page.replace("__RTARENA_TOKEN__", token).encode("utf-8")


class LocalApp(Served):
    """One page, its static files (`static/` beside it, at `/static/`) and a table of routes, on 127.0.0.1
    behind `Guard`."""

    def __init__(self, page: str, routes: dict[tuple[str, str], Handler], port: int = 0,
                 static: Path | None = None, flag: str = "--port") -> None:
        from starlette.applications import Starlette
        from starlette.responses import Response
        from starlette.routing import Mount, Route
        from starlette.staticfiles import StaticFiles

        self.token = secrets.token_urlsafe(24)
        self.page = page_html(page, self.token)
        self.routes = routes
        by_path: dict[str, dict[str, Handler]] = {}
        for (method, path), handler in routes.items():
            by_path.setdefault(path, {})[method] = handler
        table: list[Any] = [Route(p, self._endpoint(handlers), methods=list(handlers)) for p, handlers in
                            by_path.items()]
        table += [Route("/", self._page, methods=["GET"]), Route("/index.html", self._page, methods=["GET"])]
        if static is not None:
            table.append(Mount("/static", StaticFiles(directory=static)))

        async def not_found(request: Any, error: Any) -> Response:
            status = getattr(error, "status_code", 404)
            return _json_response(status, {"error": f"no route {request.method} {request.url.path}"})

        app = Starlette(routes=table, exception_handlers={404: not_found, 405: not_found})
        super().__init__(Guard(app, token=self.token), port, flag)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    async def _page(self, request: Any) -> Any:
        from starlette.responses import Response

        return Response(self.page, media_type="text/html; charset=utf-8")

    def _endpoint(self, handlers: dict[str, Handler]) -> Callable[[Any], Any]:
        from starlette.concurrency import iterate_in_threadpool, run_in_threadpool
        from starlette.responses import Response, StreamingResponse

        async def endpoint(request: Any) -> Any:
            try:
                body = parse_json_body(await request.body()) if request.method in BODY_METHODS else None
                query = dict(request.query_params)
                result = await run_in_threadpool(handlers[request.method],
                                                 Request(request.method, request.url.path, query, body))
            except RequestError as error:
                return _json_response(error.status, {"error": str(error)})
            except UserError as error:  # a value the app's own checks refused (an unknown level ...)
                return _json_response(400, {"error": str(error)})
            except Exception as error:  # an internal bug: still a JSON answer, never a dropped connection
                return _json_response(500, {"error": f"{type(error).__name__}: {error}"})
            if isinstance(result, Reply):
                if isinstance(result.body, bytes):
                    return Response(result.body, media_type=result.content_type, headers=result.headers)
                return StreamingResponse(iterate_in_threadpool(result.body), media_type=result.content_type,
                                         headers=result.headers)
            return Response(json.dumps(result, default=_json_default).encode("utf-8"), media_type="application/json")

        return endpoint


def _json_response(status: int, body: Any) -> Any:
    from starlette.responses import Response

    return Response(json.dumps(body).encode("utf-8"), status_code=status, media_type="application/json")
