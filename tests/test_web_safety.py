"""The local servers as an attacker on 127.0.0.1 meets them (issue 46): a page elsewhere cannot use them over
HTTP or WebSocket, idle clients delay no one, a huge frame or setting is refused, and a busy port is one line."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import time
import urllib.error
import urllib.request

import pytest
from tests.helpers import rtarena_cli
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from rtarena.errors import UserError
from rtarena.policy_server import PolicyServer

CHAT = json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode()


@pytest.fixture(scope="module")
def server():
    with PolicyServer() as served:
        yield served


def post(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=CHAT, method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_cross_origin_http_and_websocket_are_refused_with_403(server):
    chat = server.base_url + "/chat/completions"
    assert post(chat)[0] == 200  # the control: a local client without an Origin
    assert post(chat, {"Origin": f"http://127.0.0.1:{server.port}"})[0] == 200  # its own origin
    status, body = post(chat, {"Origin": "http://evil.example"})
    assert status == 403 and "evil.example" in body["error"]["message"]
    assert post(chat, {"Host": "evil.example"})[0] == 403  # DNS rebinding
    ws = f"ws://127.0.0.1:{server.port}/v1/realtime"
    with connect(ws) as session:  # the control: accepted
        assert json.loads(session.recv(timeout=10))["type"] == "session.created"
    for headers in ({"Origin": "http://evil.example"}, {"Host": "evil.example"}):
        with pytest.raises(InvalidStatus) as refused:
            connect(ws, additional_headers=headers, open_timeout=10).close()
        assert refused.value.response.status_code == 403


def test_64_slow_or_idle_clients_do_not_delay_health(server):
    clients = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(64)]
    try:
        for sock in clients[:32]:  # slow: a head begun and never finished
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1")
        for sock in clients[32:48]:  # slow: a head whole, the body promised and never sent
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 5000\r\n\r\n"
                         % server.port)
        time.sleep(0.3)  # the last 16 send nothing at all
        started = time.monotonic()
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/health", timeout=5) as answer:
            assert json.loads(answer.read()) == {"status": "ok"}
        assert time.monotonic() - started < 1.0
        for sock in clients:  # they were still connected and waiting all along: nothing came back to them
            sock.settimeout(0.01)
            with pytest.raises(TimeoutError):
                sock.recv(1)
    finally:
        for sock in clients:
            sock.close()


def _frame_head(length: int) -> bytes:
    """A masked text frame's header claiming `length` bytes of payload (RFC 6455, 64-bit length)."""
    return struct.pack("!BBQ", 0x81, 0x80 | 127, length) + os.urandom(4)


def _upgrade(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(f"GET /v1/realtime HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                 f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def _close_code(sock: socket.socket) -> int | None:
    """Read frames until the server's close frame; its status code (None: the socket closed without one)."""
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
        while len(data) >= 2:
            opcode, length = data[0] & 0x0F, data[1] & 0x7F
            start = 2 + {126: 2, 127: 8}.get(length, 0)
            if length >= 126:
                length = int.from_bytes(data[2:start], "big")
            if len(data) < start + length:
                break
            if opcode == 0x8:
                return int.from_bytes(data[start:start + 2], "big")
            data = data[start + length:]


def test_a_300_mb_frame_is_refused_from_its_header(server):
    sock = _upgrade(server.port)
    try:
        sock.sendall(_frame_head(300 << 20) + b"x" * 1024)  # 300 MB claimed, 1 KB sent
        started = time.monotonic()
        assert _close_code(sock) == 1009  # message too big, before the payload is read
        assert time.monotonic() - started < 5
    finally:
        sock.close()
    control = _upgrade(server.port)  # the control: a small frame is read and answered (an error event)
    try:
        payload = b"{}"
        mask = os.urandom(4)
        control.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in
                                                                         enumerate(payload)))
        control.settimeout(10)
        received = b""
        while b"invalid_request_error" not in received:
            chunk = control.recv(65536)
            assert chunk, received
            received += chunk
    finally:
        control.close()


def test_a_request_for_a_billion_filler_tokens_is_refused(server):
    status, body = post(f"http://127.0.0.1:{server.port}/s/filler_tokens=1000000000/v1/chat/completions")
    assert status == 400 and "policy.tokens" in body["error"]["message"]
    assert post(f"http://127.0.0.1:{server.port}/s/filler_tokens=5/v1/chat/completions")[0] == 200  # control
    status, body = post(f"http://127.0.0.1:{server.port}/s/ttft_s=1e9/v1/chat/completions")
    assert status == 400 and "policy.delay_s" in body["error"]["message"]
    status, body = post(f"http://127.0.0.1:{server.port}/s/reasoning_model=true/effort_scale=1e9/v1/chat/completions")
    assert status == 400 and "policy.tokens" in body["error"]["message"]
    with pytest.raises(UserError, match=r"policy\.tokens"):
        server.url(filler_tokens=10**9)


@pytest.mark.parametrize("argv", [["dashboard", "--no-open", "--root", "."], ["serve-policy"], ["edit", "--no-open"]])
def test_a_busy_port_is_one_line_naming_the_port_and_the_flag(argv, tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        done = rtarena_cli(*argv, "--port", str(port), cwd=tmp_path, merged=True)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1, done.stdout
    assert str(port) in lines[0] and "--port" in lines[0] and "in use" in lines[0], lines[0]


def test_each_server_has_its_own_default_port():
    import typer

    from rtarena.cli import app

    command = typer.main.get_command(app)
    defaults = {name: next(p.default for p in command.commands[name].params if p.name == "port")
                for name in ("dashboard", "edit", "annotate", "play", "serve-policy")}
    assert len(set(defaults.values())) == len(defaults), defaults


def test_port_0_picks_a_free_port_and_prints_it(tmp_path):
    import re
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-m", "rtarena.cli", "serve-policy", "--port", "0"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    try:
        line = child.stdout.readline()
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/v1", line).group(1))
        assert port != 0
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as answer:
            assert json.loads(answer.read()) == {"status": "ok"}
    finally:
        child.terminate()
        child.wait(10)


def test_an_idle_realtime_session_is_closed(monkeypatch):
    from websockets.exceptions import ConnectionClosed

    from rtarena.policy_server import realtime

    monkeypatch.setattr(realtime, "IDLE_S", 0.5)  # websocket.idle_s, shortened for the test
    with PolicyServer() as served, connect(f"ws://127.0.0.1:{served.port}/v1/realtime") as session:
        assert json.loads(session.recv(timeout=10))["type"] == "session.created"
        session.send(json.dumps({"type": "session.update", "session": {}}))  # the control: a live session answers
        assert json.loads(session.recv(timeout=10))["type"] == "session.updated"
        started = time.monotonic()
        with pytest.raises(ConnectionClosed) as closed:
            session.recv(timeout=10)
        assert closed.value.rcvd.code == 1000 and closed.value.rcvd.reason == "idle"
        assert 0.4 < time.monotonic() - started < 5
