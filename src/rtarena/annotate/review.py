"""`rtarena annotate RUN --review`: a local page to accept, change or reject the proposed codes.

The page (`review.html`, plain JavaScript) shows each judged episode's frames, decisions with their
timing and the codes the annotators proposed, and saves the person's verdicts to
`annotations/review.parquet`, beside the automatic tables (which it never changes).

| route | answer |
|---|---|
| `GET /` | the page (it carries the session token) |
| `GET /api/episodes` | the codebook; episodes with decisions, frames, proposed codes, verdicts |
| `GET /api/frame?path=P` | a frame of the run, only if an episode line lists `P` among its files |
| `POST /api/verdicts` | JSON `{verdicts: [{episode, controller, code, verdict, new_code}]}` |

Safety is `webapp.LocalApp`'s: 127.0.0.1 only, Host and Origin checked, a per-session token on every API
call, JSON bodies of at most 1 MB; and only frames that the run lists are readable, nothing else on disk.
"""

from __future__ import annotations

import threading
import webbrowser
from pathlib import Path
from typing import Any

from rtarena.annotate.codebook import Codebook, default_codebook
from rtarena.annotate.evidence import load_run
from rtarena.annotate.store import read_rows, write_rows
from rtarena.webapp import LocalApp, Request, RequestError, file_reply

PAGE = Path(__file__).with_name("review.html")
STATIC = Path(__file__).with_name("static")
DEFAULT_PORT = 8766
VERDICTS = ("accept", "change", "reject")
DECISION_FIELDS = ("index", "obs_sim_s", "committed_sim_s", "applied_sim_s", "delay_sim_s", "tokens_out", "valid",
                   "action")


class ReviewSession:
    """The run under review: what the page shows, and where verdicts go."""

    def __init__(self, run_dir: Path, codebook: Codebook | None = None) -> None:
        self.run_dir = Path(run_dir).resolve()
        self.book = codebook or default_codebook()
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
                        "codes": list(codes.values()), "allowed": list(self.book.for_condition(ev.condition).codes)})
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
            ev = self.episodes[key]
            if code not in self.book.codes or new not in self.book.codes:
                raise ValueError(f"unknown code {new if code in self.book.codes else code!r}")
            if new not in self.book.for_condition(ev.condition).codes:
                raise ValueError(f"{new!r} is not coded under condition {ev.condition!r}")
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

    def frame(self, request: Request) -> Any:
        """A frame the run lists (and that lies inside the run folder); anything else is a 404."""
        relative = request.arg("path")
        if relative not in self.frames:
            raise RequestError(404, f"no frame {relative!r} in this run")
        return file_reply(self.run_dir, relative)

    def verdicts(self, request: Request) -> dict[str, int]:
        body = request.body
        if not isinstance(body, dict) or not isinstance(body.get("verdicts"), list):
            raise RequestError(400, "expected {verdicts: [...]}")
        try:
            return {"saved": self.save(body["verdicts"])}
        except ValueError as error:
            raise RequestError(400, str(error)[:200]) from None


def make_app(run_dir: Path, port: int = 0) -> tuple[LocalApp, ReviewSession]:
    """The review page over one run (not started), and its session."""
    session = ReviewSession(run_dir)
    routes = {("GET", "/api/episodes"): lambda _r: session.payload(), ("GET", "/api/frame"): session.frame,
              ("POST", "/api/verdicts"): session.verdicts}
    return LocalApp(PAGE.read_text(encoding="utf-8"), routes, port=port, static=STATIC), session


def serve(run_dir: Path, port: int = DEFAULT_PORT, open_browser: bool = True, echo: Any = print) -> None:
    """Serve the review page in the foreground until interrupted."""
    app, _ = make_app(run_dir, port)
    echo(f"review page: {app.url}  (Ctrl-C stops; verdicts go to {run_dir}/annotations/review.parquet)")
    if open_browser:
        webbrowser.open(app.url)
    app.serve_forever()
