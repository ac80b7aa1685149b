"""A model that refuses every call makes the run fail loudly, and its key never lands in the run folder."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import duckdb
import pytest
from tests.helpers import rtarena_cli

from rtarena.policy_server import PolicyServer
from rtarena.redact import redact

SECRET = "sk-proj-abc123456789secret"


class Refusing(BaseHTTPRequestHandler):
    """A tiny OpenAI-style server that answers every completion with 401, quoting the key it refused."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps({"error": {"message": f"Incorrect API key provided: {SECRET}. Bearer {SECRET}",
                                     "type": "invalid_request_error"}}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def refusing_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://alice:hunter2pass@127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_an_agent_whose_every_call_fails_gives_exit_4_a_warning_and_no_credentials(tmp_path, refusing_url):
    out = tmp_path / "run"
    done = rtarena_cli("run", "classic/cartpole-v0", "--agent", f"llm:m@{refusing_url},api_key_env=NO_SUCH_VAR",
                       "--clock", "paused", "--max-steps", "5", "--out", str(out))
    assert done.returncode == 4, done.stdout + done.stderr
    assert "warning: agent_0 failed every decision" in done.stderr and "http_401 x5" in done.stderr
    assert "hunter2pass" not in done.stdout + done.stderr and SECRET not in done.stdout + done.stderr
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {p.parent.name for p in files} >= {"decisions", "agents", "run"}
    for path in files:
        data = path.read_bytes()
        assert b"hunter2pass" not in data and b"abc123456789secret" not in data, path
    errors = json.loads((out / "episodes.jsonl").read_text())["agents"]["agent_0"]["failures"]
    assert errors == {"http_401": 5}


@pytest.mark.parametrize(("text", "masked"), [
    ("http://u:p@host:8000/v1", "http://host:8000/v1"),
    ("llm:m@https://user:secret@api.example.com/v1,timeout=3", "llm:m@https://api.example.com/v1,timeout=3"),
    ("Incorrect API key provided: sk-abcdef123456", "Incorrect API key provided: sk-***"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.x", "Authorization: Bearer ***"),
    ("llm:m@http://127.0.0.1:8000/v1", "llm:m@http://127.0.0.1:8000/v1"),
    ("scikit sk-learn", "scikit sk-learn"),
])
def test_redact(text, masked):
    assert redact(text) == masked


def test_unanswered_calls_under_wall_are_abandoned_decisions_with_a_warning(tmp_path):
    out = tmp_path / "run"
    with PolicyServer() as server:  # the scripted server, told to stay silent longer than the episode
        url = server.url(fault="slow", slow_s=3)
        done = rtarena_cli("run", "classic/cartpole-v0", "--agent", f"llm:scripted-heuristic@{url}", "--clock", "wall",
                           "--max-steps", "10", "--out", str(out))
    assert done.returncode == 4, done.stdout + done.stderr
    assert "model calls were still unanswered when their episodes ended" in done.stderr
    line = json.loads((out / "episodes.jsonl").read_text())
    assert line["agents"]["agent_0"]["failures"] == {"abandoned": 1}
    rows = duckdb.connect().execute(f"SELECT error, committed_sim_s, wall_end_s > wall_start_s FROM "
                                    f"'{out}/decisions/*.parquet'").fetchall()
    assert len(rows) == 1 and rows[0][0].startswith("abandoned: ") and rows[0][1] is None and rows[0][2]
