"""The map editor's API answers only its own page, writes only inside its folder, and never chokes on a body;
the policy server answers malformed requests with 4xx JSON too."""

from __future__ import annotations

import http.client
import json
import re
from pathlib import Path

import pytest

from rtarena.editor.maps import level_rules
from rtarena.editor.server import start_server
from rtarena.envs.arena.maps import read_map_file
from rtarena.envs.arena.maps.generate import generate_map, settings_for_level
from rtarena.policy_server import PolicyServer


def request(port: int, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
            length: int | None = None) -> tuple[int, dict | str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.putrequest(method, path, skip_host=True)
        sent = {"Host": f"127.0.0.1:{port}", **(headers or {})}
        if body is not None or length is not None:
            sent.setdefault("Content-Length", str(length if length is not None else len(body)))
        for key, value in sent.items():
            if value is not None:
                conn.putheader(key, value)
        conn.endheaders(body if length is None else None)
        reply = conn.getresponse()
        data = reply.read().decode()
        kind = reply.getheader("Content-Type") or ""
        return reply.status, json.loads(data) if kind.startswith("application/json") else data
    finally:
        conn.close()


@pytest.fixture
def editor(tmp_path):
    folder = tmp_path / "maps"
    folder.mkdir()
    server, _ = start_server(folder / "edited.toml", level="arena/basic-v0")
    port = server.port
    status, page = request(port, "GET", "/")
    assert status == 200
    token = re.search(r'<meta name="rtarena-token" content="([^"]+)">', page).group(1)
    yield port, token, folder
    server.stop()


def valid_map() -> dict:
    return generate_map(3, settings_for_level(level_rules("arena/basic-v0"), None, "open"))


def post(port, token, path, data, **headers):
    body = data if isinstance(data, bytes) else json.dumps(data).encode()
    sent = {"Content-Type": "application/json", "X-Rtarena-Token": token, **headers}
    return request(port, "POST", path, body, {k: v for k, v in sent.items() if v is not None})


def test_the_page_carries_a_fresh_token_and_api_calls_need_it(editor):
    port, token, folder = editor
    assert token != "__RTARENA_TOKEN__" and len(token) >= 20
    assert request(port, "GET", "/api/state")[0] == 403
    assert request(port, "GET", "/api/state", headers={"X-Rtarena-Token": token})[0] == 200
    status, answer = post(port, "wrong", "/api/save", {"map": valid_map(), "path": "a.toml"})
    assert status == 403 and "X-Rtarena-Token" in answer["error"]
    assert not (folder / "a.toml").exists()


def test_foreign_hosts_and_origins_are_refused(editor):
    port, token, folder = editor
    assert request(port, "GET", "/", headers={"Host": "evil.example:80"})[0] == 403  # DNS rebinding
    status, _ = post(port, token, "/api/save", {"map": valid_map(), "path": "a.toml"}, Origin="https://evil.example")
    assert status == 403 and not (folder / "a.toml").exists()
    status, _ = post(port, token, "/api/save", {"map": valid_map(), "path": "a.toml"},
                     Origin=f"http://127.0.0.1:{port}")
    assert status == 200 and (folder / "a.toml").exists()


def test_a_text_plain_body_is_refused(editor):
    port, token, folder = editor
    status, answer = post(port, token, "/api/save", {"map": valid_map(), "path": "a.toml"},
                          **{"Content-Type": "text/plain"})
    assert status == 415 and "application/json" in answer["error"]
    assert not (folder / "a.toml").exists()


@pytest.mark.parametrize(("where", "status"), [
    ("../escape.toml", 403),
    ("/tmp/rtarena-editor-escape.toml", 403),
    ("new/folder/x.toml", 400),
    ("x.py", 400),
])
def test_saves_stay_inside_the_maps_folder(editor, where, status):
    port, token, folder = editor
    got, answer = post(port, token, "/api/save", {"map": valid_map(), "path": where})
    assert got == status, answer
    assert "error" in answer
    assert not Path("/tmp/rtarena-editor-escape.toml").exists() and not (folder.parent / "escape.toml").exists()
    assert not (folder / "new").exists() and not (folder / "x.py").exists()


def test_save_neither_overwrites_other_files_nor_writes_invalid_maps(editor):
    port, token, folder = editor
    other = folder / "other.toml"
    other.write_text("# someone else's map\n")
    assert post(port, token, "/api/save", {"map": valid_map(), "path": "other.toml"})[0] == 409
    assert other.read_text() == "# someone else's map\n"
    broken = {**valid_map(), "spawns": []}
    status, answer = post(port, token, "/api/save", {"map": broken, "path": "edited.toml"})
    assert status == 422 and "problem" in answer["error"] and not (folder / "edited.toml").exists()
    status, answer = post(port, token, "/api/save", {"map": valid_map()})  # the edited file, twice
    assert status == 200 and Path(answer["saved"]) == (folder / "edited.toml").resolve()
    assert post(port, token, "/api/save", {"map": valid_map()})[0] == 200
    assert read_map_file(folder / "edited.toml")["size_m"] == valid_map()["size_m"]


@pytest.mark.parametrize(("route", "body"), [
    ("/api/validate", b"[]"),
    ("/api/validate", b"not json"),
    ("/api/validate", b'{"map": []}'),
    ("/api/validate", b'{"map": 1e400}'),
    ("/api/preview", b'{"map": {}, "x": "a", "y": 1}'),
    ("/api/preview", b'{"map": {}, "x": 1e400, "y": 1}'),
    ("/api/generate", b'{"seed": "x"}'),
    ("/api/generate", b'{"seed": 1, "style": 5}'),
    ("/api/level", b'{"level": ["arena/coop-v0"]}'),
    ("/api/level", b'{"level": "no/such-v0"}'),
    ("/api/save", b'{"map": "x", "path": 3}'),
    ("/api/nowhere", b"{}"),
])
def test_malformed_bodies_get_a_4xx_json_answer(editor, route, body):
    port, token, _ = editor
    status, answer = post(port, token, route, body)
    assert 400 <= status < 500 and isinstance(answer, dict) and answer["error"]
    assert request(port, "GET", "/api/state", headers={"X-Rtarena-Token": token})[0] == 200  # still serving


def test_a_huge_content_length_is_refused_before_reading(editor):
    port, token, _ = editor
    status, answer = request(port, "POST", "/api/validate", headers={
        "Content-Type": "application/json", "X-Rtarena-Token": token}, length=99999999999)
    assert status == 413 and "bytes" in answer["error"]


@pytest.fixture(scope="module")
def policy():
    with PolicyServer() as server:
        yield server.port


@pytest.mark.parametrize("body", [b"[]", b"3", b"{", b'{"messages": "hi"}', b'{"messages": [3]}',
                                  b'{"messages": [{"role": "user", "content": 5}]}', b'{"max_tokens": 1e400}',
                                  b'{"max_tokens": "9"}', b'{"max_tokens": -1}', b'{"stream": "yes"}',
                                  b'{"messages": [], "temperature": NaN}'])
def test_policy_server_answers_malformed_requests_with_400(policy, body):
    status, answer = request(policy, "POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    assert status == 400 and answer["error"]["type"] == "invalid_request_error"
    ok, _ = request(policy, "POST", "/v1/chat/completions",
                    json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode())
    assert ok == 200


def test_policy_server_refuses_a_huge_content_length(policy):
    status, answer = request(policy, "POST", "/v1/chat/completions", headers={"Content-Type": "application/json"},
                             length=99999999999)
    assert status == 413 and "bytes" in answer["error"]["message"]
