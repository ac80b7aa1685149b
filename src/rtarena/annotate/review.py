"""`rtarena annotate RUN --review`: a local page to accept, change or reject the proposed codes.

The page (`review.html`, plain JavaScript) shows each judged episode's frames, decisions with their
timing and the codes the annotators proposed, and saves the person's verdicts to
`annotations/review.parquet`, beside the automatic tables (which it never changes).

| route | answer |
|---|---|
| `GET /?token=T` | the page |
| `GET /api/episodes?token=T` | the codebook; episodes with decisions, frames, proposed codes, verdicts |
| `GET /frame?token=T&path=P` | a frame of the run, only if an episode line lists `P` among its files |
| `POST /api/verdicts` (`X-Review-Token: T`) | JSON `{verdicts: [{episode, controller, code, verdict, new_code}]}` |

Safety: served on 127.0.0.1 only; the Host header must name this server and an Origin, when sent, must be
its own (no other site can drive it); every route needs the per-session token printed at start; bodies are
JSON of at most 1 MB; only frames listed by the run are readable, nothing else on disk.
"""

from __future__ import annotations

import json
import secrets
import threading
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from rtarena.annotate.codebook import Codebook, default_codebook
from rtarena.annotate.evidence import load_run
from rtarena.annotate.store import read_rows, write_rows
from rtarena.errors import UserError

PAGE = Path(__file__).with_name("review.html")
MAX_BODY = 1 << 20
VERDICTS = ("accept", "change", "reject")
DECISION_FIELDS = ("index", "obs_sim_s", "committed_sim_s", "applied_sim_s", "delay_sim_s", "tokens_out", "valid",
                   "action")


class ReviewSession:
    """The run under review: what the page shows, and where verdicts go."""

    def __init__(self, run_dir: Path, codebook: Codebook | None = None) -> None:
        self.run_dir = Path(run_dir).resolve()
        self.book = codebook or default_codebook()
        self.token = secrets.token_urlsafe(24)
        self.lock = threading.Lock()
        _, episodes = load_run(self.run_dir)
        self.episodes = {(e.episode, e.controller): e for e in episodes}
        self.frames = {f for e in episodes for f in e.files}
        self.proposed = read_rows(self.run_dir, "rules") + read_rows(self.run_dir, "model")

    def payload(self) -> dict[str, Any]:
        saved = {(r["episode"], r["controller"], r["original_code"]): r for r in read_rows(self.run_dir, "review")}
        out = []
        for (episode, controller), ev in self.episodes.items():
            codes: dict[str, dict[str, Any]] = {}
            for r in self.proposed:
                if (r["episode"], r["controller"]) == (episode, controller) and r["code"] != "none":
                    entry = codes.setdefault(r["code"], {"code": r["code"], "capability": r["capability"],
                                                         "evidence": [], "annotators": []})
                    entry["evidence"].append(r["evidence"])
                    entry["annotators"].append(r["annotator"])
            for code, entry in codes.items():
                verdict = saved.get((episode, controller, code))
                entry["verdict"] = verdict["verdict"] if verdict else None
                entry["new_code"] = verdict["code"] if verdict else None
            out.append({"episode": episode, "controller": controller, "condition": ev.condition,
                        "agent_label": ev.agent_label, "env_id": ev.env_id, "end_s": ev.end_s,
                        "success": ev.success, "frames": [f for f in ev.files if f.endswith((".jpg", ".png"))],
                        "decisions": [{k: d.get(k) for k in DECISION_FIELDS} for d in ev.decisions],
                        "codes": list(codes.values())})
        modes = [{"code": m.code, "capability": m.capability, "name": m.name} for m in self.book.modes]
        return {"run": self.run_dir.name, "modes": modes, "episodes": out}

    def save(self, verdicts: list[Any]) -> int:
        """Write the verdicts (replacing earlier ones for the same codes); a bad entry raises ValueError."""
        rows = {}
        for v in verdicts:
            if not isinstance(v, dict):
                raise ValueError("each verdict is an object")
            key = (v.get("episode"), v.get("controller"))
            if key not in self.episodes:
                raise ValueError(f"no episode {key[0]!r} with controller {key[1]!r}")
            if v.get("verdict") not in VERDICTS:
                raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}")
            code = v.get("code")
            new = v.get("new_code") if v["verdict"] == "change" else code
            if code not in self.book.codes or new not in self.book.codes:
                raise ValueError(f"unknown code {new if code in self.book.codes else code!r}")
            ev = self.episodes[key]
            rows[(*key, code)] = {"run_id": ev.run_id, "episode": ev.episode, "controller": ev.controller,
                                  "env_id": ev.env_id, "condition": ev.condition, "agent_label": ev.agent_label,
                                  "code": new, "capability": self.book.capability(new), "annotator": "review",
                                  "decisions": "[]", "evidence": str(v.get("note", ""))[:500], "quote_found": None,
                                  "verdict": v["verdict"], "original_code": code}
        with self.lock:
            for r in read_rows(self.run_dir, "review"):
                rows.setdefault((r["episode"], r["controller"], r["original_code"]), r)
            write_rows(self.run_dir, "review", list(rows.values()))
        return len(verdicts)

    def frame(self, relative: str) -> Path | None:
        """The frame's path if the run lists it and it lies inside the run folder."""
        if relative not in self.frames:
            return None
        path = (self.run_dir / relative).resolve()
        return path if path.is_relative_to(self.run_dir) and path.is_file() else None


def make_handler(session: ReviewSession, port_of: Any) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(body)

        def _error(self, status: int, message: str) -> None:
            self._send(status, json.dumps({"error": message}).encode())

        def _allowed(self, token: str | None) -> bool:
            port = port_of()
            hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
            origin = self.headers.get("Origin")
            if self.headers.get("Host") not in hosts or (origin is not None and origin not in
                                                         {f"http://{h}" for h in hosts}):
                self._error(403, "wrong host or origin")
                return False
            if not token or not secrets.compare_digest(token, session.token):
                self._error(403, "missing or wrong session token")
                return False
            return True

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            if not self._allowed((query.get("token") or [None])[0]):
                return
            if url.path == "/":
                return self._send(200, PAGE.read_bytes(), "text/html; charset=utf-8")
            if url.path == "/api/episodes":
                return self._send(200, json.dumps(session.payload()).encode())
            if url.path == "/frame":
                path = session.frame((query.get("path") or [""])[0])
                if path is None:
                    return self._error(404, "no such frame in this run")
                kind = "image/png" if path.suffix == ".png" else "image/jpeg"
                return self._send(200, path.read_bytes(), kind)
            self._error(404, "no such route")

        def do_POST(self) -> None:
            if not self._allowed(self.headers.get("X-Review-Token")):
                return
            if urlsplit(self.path).path != "/api/verdicts":
                return self._error(404, "no such route")
            if not (self.headers.get("Content-Type") or "").startswith("application/json"):
                return self._error(415, "send JSON")
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                return self._error(413, f"body over {MAX_BODY} bytes")
            try:
                body = json.loads(self.rfile.read(length) or b"null")
                verdicts = body.get("verdicts") if isinstance(body, dict) else None
                if not isinstance(verdicts, list):
                    raise ValueError("expected {verdicts: [...]}")
                saved = session.save(verdicts)
            except ValueError as error:  # JSONDecodeError is a ValueError
                return self._error(400, str(error)[:200])
            self._send(200, json.dumps({"saved": saved}).encode())

    return Handler


class ReviewServer:
    """The review page for one run, in a background thread: `with ReviewServer(run) as server: server.url`."""

    def __init__(self, run_dir: Path, port: int = 0) -> None:
        self.session = ReviewSession(run_dir)
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), make_handler(self.session, lambda: self.port))
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.session.token}"

    def __enter__(self) -> ReviewServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True, name="rtarena-review").start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def serve(run_dir: Path, port: int = 8766, open_browser: bool = True, echo: Any = print) -> None:
    """Serve the review page in the foreground until interrupted."""
    try:
        server = ReviewServer(run_dir, port)
    except OSError as error:
        raise UserError(f"cannot listen on 127.0.0.1:{port}: {error.strerror}", field="--port") from None
    echo(f"review page: {server.url}  (Ctrl-C to stop; verdicts go to {run_dir}/annotations/review.parquet)")
    if open_browser:
        webbrowser.open(server.url)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        echo("stopped")
    finally:
        server.httpd.server_close()
