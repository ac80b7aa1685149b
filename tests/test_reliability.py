"""Bounded memory and time for any input, paths confined, servers that survive idle clients (issue 29).

Each test drives the real entry point (the CLI in this process, real HTTP servers on 127.0.0.1) and
measures what the issue bounds: seconds, peak memory of the allocations (tracemalloc), threads, files.
"""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from tests.test_bad_input import check_line, run_cli

from rtarena.limits import LIMITS


def big_map(n: int, overlapping: bool) -> dict:
    """A map of `n` obstacles: all piled on one spot, or spread on a grid without overlaps."""
    rnd = random.Random(0)
    if overlapping:
        obstacles = [[round(10 + rnd.random(), 1), round(10 + rnd.random(), 1), round(12 + rnd.random(), 1),
                      round(12 + rnd.random(), 1), 3, "wall"]
                     for _ in range(n)]
    else:
        side = int(n ** 0.5) + 1
        cell = 990 / side
        obstacles = [[5 + (i % side) * cell, 5 + (i // side) * cell, 5 + (i % side) * cell + cell / 2,
                      5 + (i // side) * cell + cell / 2, 3.0, "crate"] for i in range(n)]
    return {"size_m": 1000.0, "obstacles": obstacles, "spawns": [[1.0, 1.0]], "coins": [[3.0, 3.0]]}


@pytest.mark.parametrize("n, overlapping", [(30_000, True), (10_000, True), (10_000, False)])
def test_a_huge_map_is_validated_or_refused_in_seconds(n, overlapping, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("big.json").write_text(json.dumps(big_map(n, overlapping)))
    Path("small.json").write_text(json.dumps(big_map(4, False)))
    run_cli(["map", "validate", "small.json"], capsys)  # imports done: the time below is the check's own
    started = time.process_time()  # CPU time: the other test workers' load does not count against the check
    code, output = run_cli(["map", "validate", "big.json"], capsys)
    took = time.process_time() - started
    assert took < 5, took
    assert "Traceback" not in output
    if n > LIMITS["map.obstacles"].value:
        assert code == 1 and "map.obstacles" in output and len(output.splitlines()) == 1
    elif overlapping:  # every obstacle after the first overlaps one before it: one line each
        assert code == 1 and len(output.splitlines()) == n - 1 and "overlaps obstacles[0]" in output
    else:
        assert code == 0, output


# A child forked from a big process (pytest after a thousand tests) starts with that process's peak resident
# memory as its own: a small launcher, started fresh, runs the command and reports the command's own peak.
PEAK = ("import os, subprocess, sys; out = open('out.txt', 'w'); "
        "child = subprocess.Popen(sys.argv[1:], stdout=out, stderr=subprocess.STDOUT); "
        "_, status, usage = os.wait4(child.pid, 0); print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)")


@pytest.mark.parametrize("n", [30_000, 10_000])
def test_a_huge_map_takes_under_500_mb(n, tmp_path):
    """The whole `rtarena map validate` process, interpreter included (its peak resident memory)."""
    Path(tmp_path / "big.json").write_text(json.dumps(big_map(n, True)))
    done = subprocess.run([sys.executable, "-c", PEAK, sys.executable, "-m", "rtarena.cli", "map", "validate",
                           "big.json"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    code, peak_kb = (int(v) for v in done.stdout.split())
    assert code == 1, (tmp_path / "out.txt").read_text()[-500:]
    assert peak_kb * 1024 < 500 << 20, peak_kb


def _post(url: str, token: str, path: str, body: bytes) -> tuple[int, dict]:
    request = urllib.request.Request(url + path.lstrip("/"), data=body, method="POST", headers={
        "Content-Type": "application/json", "X-Rtarena-Token": token})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_the_editor_answers_a_30000_obstacle_validate_in_seconds(tmp_path):
    from rtarena.editor.server import start_server

    server, url = start_server(tmp_path / "m.toml", port=0)
    try:
        body = json.dumps({"map": big_map(30_000, True)}, separators=(",", ":")).encode()
        assert len(body) < LIMITS["request.bytes"].value  # the 900 KB request
        started = time.monotonic()
        status, answer = _post(url, server.token, "/api/validate", body)
        assert time.monotonic() - started < 5
        assert status == 200 and "map.obstacles" in json.dumps(answer), answer
        deep = b'{"map": ' + b"[" * 5000 + b"]" * 5000 + b"}"
        status, answer = _post(url, server.token, "/api/validate", deep)
        assert status == 400 and "nesting.depth" in answer["error"], answer
    finally:
        server.stop()


def test_idle_and_half_sent_connections_leave_the_dashboard_answering(tmp_path):
    """200 connections (half of them stopped mid-request, like slow clients) hold no thread: each is a socket
    on uvicorn's event loop, so a normal request is answered at once and the thread count stays put. (1,000
    measured once: docs/limits.md.)"""
    from rtarena.dashboard.server import make_app

    with make_app(tmp_path) as app:
        threads_before = threading.active_count()
        idle = [socket.create_connection(("127.0.0.1", app.port)) for _ in range(200)]
        try:
            for sock in idle[:100]:
                sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1")
            time.sleep(0.3)
            started = time.monotonic()
            request = urllib.request.Request(app.url + "api/runs", headers={"X-Rtarena-Token": app.token})
            with urllib.request.urlopen(request, timeout=5) as answer:
                assert answer.status == 200 and json.loads(answer.read()) == []
            assert time.monotonic() - started < 1
            assert threading.active_count() <= threads_before + 2  # the request's pool thread, at most
        finally:
            for sock in idle:
                sock.close()


def test_a_second_resume_of_a_run_refuses_while_the_first_holds_its_lock(tmp_path, capsys, monkeypatch):
    from rtarena.eval.manifest import run_lock

    monkeypatch.chdir(tmp_path)
    code, output = run_cli(["run", "classic/cartpole-v0", "--agent", "random", "--max-steps", "5", "--out", "r"],
                           capsys)
    assert code == 0, output
    with run_lock(Path("r")):  # as a first `--resume` still running would
        code, output = run_cli(["run", "classic/cartpole-v0", "--agent", "random", "--max-steps", "5", "--seeds",
                                "2", "--out", "r", "--resume"], capsys)
    check_line(code, output, ["lock", "r"])
    code, output = run_cli(["run", "classic/cartpole-v0", "--agent", "random", "--max-steps", "5", "--seeds", "2",
                            "--out", "r", "--resume"], capsys)
    assert code == 0, output  # the lock went with its holder


def test_a_failed_write_leaves_no_temporary_file(tmp_path):
    from rtarena.eval.store import write_bytes

    target = tmp_path / "config.json"

    def explode(_path: Path) -> None:
        raise OSError(28, "No space left on device", str(_path))

    from rtarena.eval import store

    with pytest.raises(OSError):
        store._replace(target, lambda tmp: (tmp.write_bytes(b"partial"), explode(tmp)))
    assert list(tmp_path.iterdir()) == []
    write_bytes(target, b"{}")
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]


def test_the_dashboard_serves_no_video_from_outside_the_run_folder(tmp_path):
    from rtarena.dashboard.data import Store

    run = tmp_path / "root" / "run"
    run.mkdir(parents=True)
    outside = tmp_path / "secret.mp4"
    outside.write_bytes(b"\x00\x00\x00\x18ftypmp42 not really")
    (run / "link.mp4").symlink_to(outside)
    store = Store(tmp_path / "root")
    for named in (str(outside), "../../secret.mp4", "link.mp4"):
        assert store.video(run, {"video": named}) is None
        assert store.frame_kind(run, "k", {"video": named}) == "none"
    (run / "videos").mkdir()
    (run / "videos" / "k.mp4").write_bytes(b"inside")
    assert store.video(run, {"video": "videos/k.mp4"}) == (run / "videos" / "k.mp4").resolve()


def test_keep_alive_pipelining_and_100_continue_on_the_policy_server():
    """One connection: a POST that waits for `100 Continue`, then two GETs sent in one write (pipelined)."""
    from rtarena.policy_server import PolicyServer

    with PolicyServer() as server, socket.create_connection(("127.0.0.1", server.port)) as client:
        client.settimeout(5)
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
        host = b"127.0.0.1:%d" % server.port
        client.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                       b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % (host, len(body)))
        assert client.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        client.sendall(body + b"GET /health HTTP/1.1\r\nHost: %s\r\n\r\nGET /v1/models HTTP/1.1\r\nHost: %s\r\n\r\n"
                       % (host, host))
        received = b""
        deadline = time.monotonic() + 5
        while received.count(b"HTTP/1.1 200 OK") < 3 or not received.rstrip().endswith(b"}"):
            assert time.monotonic() < deadline, received
            received += client.recv(65536)
        assert b"100 Continue" not in received and b'"status": "ok"' in received and b'"data"' in received


def test_version(capsys):
    from importlib.metadata import version

    code, output = run_cli(["--version"], capsys)
    assert code == 0 and output.strip() == f"rtarena {version('rtarena')}"
