"""`rtarena dashboard [--root runs]`: browse runs, compare agents, replay an episode against its decisions.

One page (`page.html`, plain JavaScript, no build step) over a small JSON API, served on 127.0.0.1 with
the checks of `rtarena.webapp` (Host, Origin, per-session token, JSON bodies, files only from the root):

| route | query | answer |
|---|---|---|
| `GET /api/runs` | `q`, `status`, `env` | one row per run folder: envs, agents, clocks, done/expected, status |
| `GET /api/compare` | `runs` (comma list), `env`, `clock`, `delay`, `agent` | per cell: mean, se, n; charts |
| `GET /api/compare.csv` | as above | the same table as CSV |
| `GET /api/episodes` | `run` | the run's episodes (key, status, seed, scores) |
| `GET /api/episode` | `run`, `episode` | decisions, steps, events, frame count of one episode |
| `GET /api/frame` | `run`, `episode`, `i` | frame `i` as an image (decoded from the MP4, or a stored screenshot) |
| `GET /api/improve` | `run` | rounds of a `rtarena improve` run: scores, skills, diagnoses, verdicts |
"""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Any

from rtarena.dashboard.data import FILTER_SQL, Store
from rtarena.dashboard.improve import improve_run
from rtarena.webapp import LocalApp, Reply, Request

PAGE = Path(__file__).with_name("page.html")
STATIC = Path(__file__).with_name("static")
DEFAULT_PORT = 8765


def _runs_arg(request: Request) -> list[str]:
    return [r for r in request.query.get("runs", "").split(",") if r]


def _filters(request: Request) -> dict[str, str]:
    return {name: request.query.get(name, "") for name in FILTER_SQL}


def routes(store: Store) -> dict[tuple[str, str], Any]:
    """The API as a table: (method, path) -> handler."""

    def frame(request: Request) -> Reply:
        data, kind = store.frame(request.arg("run"), request.arg("episode"), request.int_arg("i", 0))
        return Reply(data, kind)

    return {
        ("GET", "/api/runs"): lambda r: store.runs(r.query.get("q", ""), r.query.get("status", ""),
                                                   r.query.get("env", "")),
        ("GET", "/api/compare"): lambda r: store.compare(_runs_arg(r), _filters(r)),
        ("GET", "/api/compare.csv"): lambda r: Reply(store.compare_csv(_runs_arg(r), _filters(r)).encode("utf-8"),
                                                     "text/csv; charset=utf-8",
                                                     {"Content-Disposition": 'attachment; filename="compare.csv"'}),
        ("GET", "/api/episodes"): lambda r: store.episodes(r.arg("run")),
        ("GET", "/api/episode"): lambda r: store.episode(r.arg("run"), r.arg("episode")),
        ("GET", "/api/frame"): frame,
        ("GET", "/api/improve"): lambda r: improve_run(store.run_dir(r.arg("run"))),
    }


def make_app(root: Path, port: int = 0) -> LocalApp:
    """The dashboard over the run folders under `root` (not started)."""
    return LocalApp(PAGE.read_text(encoding="utf-8"), routes(Store(Path(root))), port=port, static=STATIC)


def serve(root: Path, port: int = DEFAULT_PORT, open_browser: bool = True, echo=print) -> None:
    app = make_app(root, port)
    echo(f"rtarena dashboard: {app.url} (runs under {Path(root).resolve()}; Ctrl-C stops)")
    if open_browser:
        webbrowser.open(app.url)
    app.serve_forever()
