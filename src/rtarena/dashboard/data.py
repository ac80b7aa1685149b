"""What the dashboard shows, read from the results store: run folders, DuckDB views, episode records.

Everything here reads files the runner wrote (`eval/store.py`); nothing is computed that a report
would compute differently: tables come from `eval/tables.py`, charts from `eval/report.py`'s plots.
"""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtarena.eval.manifest import still_running
from rtarena.eval.query import connect
from rtarena.eval.store import EPISODES, read_episodes
from rtarena.eval.tables import cell_stats, main_metric, metric_names
from rtarena.webapp import RequestError, confined

IMPROVE_FILE = "improve.json"

# Filters of the Compare page: query parameter -> SQL over the `agents` view.
FILTER_SQL = {
    "env": "env_id = ?",
    "clock": "coalesce(clock_name, clock) = ?",
    "delay": "coalesce(delay_ms, 0) = TRY_CAST(? AS DOUBLE)",
    "agent": "agent_label = ?",
}


def finite(value: Any) -> Any:
    """JSON-safe: NaN and infinities become None, recursively (browsers reject NaN in JSON)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


@dataclass
class RunSummary:
    """One row of the Runs page."""

    run_id: str
    kind: str
    envs: list[str]
    agents: list[str]
    clocks: list[str]
    done: int
    failed: int
    expected: int | None
    status: str
    created: str
    updated: float

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def clock_label(job: dict[str, Any]) -> str:
    """`paused`, `token kappa=200`, `wall +250ms`: a job's clock as people read it."""
    settings = job.get("clock_settings") or {}
    parts = [str(job.get("clock", "?"))]
    parts += [f"{k}={v}" for k, v in sorted(settings.items()) if k not in ("delay_s", "obs_every")]
    delay = float(settings.get("delay_s") or 0.0)
    if delay:
        parts.append(f"+{delay * 1000:g}ms")
    return " ".join(parts)


def line_clock(line: dict[str, Any]) -> dict[str, Any]:
    """An episode line's clock in the shape of a job's (`clock`, `clock_settings`), for `clock_label`."""
    clock = dict(line["clock"])
    return {"clock": clock.pop("clock", "?"), "clock_settings": {k: v for k, v in clock.items() if v is not None}}


def run_status(done: int, failed: int, expected: int | None, manifest: dict[str, Any]) -> str:
    """`running` while the driver lives (`run.json`), `stopped early` when episodes are missing, else from the
    counts."""
    if still_running(manifest):
        return "running"
    if expected is not None and done < expected:
        return "stopped early"
    return "failed episodes" if failed else "complete"


class Store:
    """The run folders under one root, with a small cache keyed on each file's size and mtime."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        self._summaries: dict[Path, tuple[tuple[float, int, float], RunSummary]] = {}
        self._videos: OrderedDict[tuple[str, str], VideoFrames] = OrderedDict()

    # -- runs --------------------------------------------------------------------------------------
    def run_dirs(self) -> list[Path]:
        """Run folders directly under the root: `rtarena run` folders and `rtarena improve` folders."""
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.iterdir()
                      if p.is_dir() and not p.is_symlink()  # runs/latest names a run listed already
                      and ((p / EPISODES).exists() or (p / IMPROVE_FILE).exists()))

    def run_dir(self, run_id: str) -> Path:
        """A run folder by id; an improvement round is `<id>/round_NN`. Nothing outside the root."""
        path = confined(self.root, run_id)
        if not ((path / EPISODES).exists() or (path / IMPROVE_FILE).exists()):
            raise RequestError(404, f"no run {run_id!r} under {self.root}")
        return path

    def summary(self, path: Path) -> RunSummary:
        if (path / IMPROVE_FILE).exists():
            return self.improve_summary(path)
        episodes = path / EPISODES
        stat = episodes.stat()
        config_path = path / "config.json"
        key = (stat.st_mtime, stat.st_size, config_path.stat().st_mtime if config_path.exists() else 0.0)
        with self._lock:
            cached = self._summaries.get(path)
            if cached and cached[0] == key:
                return cached[1]
        config = _read_json(config_path)
        manifest = _read_json(path / "run.json")
        jobs = config.get("jobs") or []
        lines = read_episodes(path)
        failed = sum(line.get("status") == "error" for line in lines)
        summary = RunSummary(
            run_id=path.name,
            kind=str(manifest.get("kind") or config.get("kind") or "run"),
            envs=sorted({str(j.get("env_id")) for j in jobs} or {str(line.get("env_id")) for line in lines}),
            # a folder of episodes written without a config.json (the demo's) says the same in its lines
            agents=sorted({" vs ".join(j.get("agent_specs") or []) for j in jobs}
                          or {" vs ".join(line.get("agent_specs") or []) for line in lines} - {""}),
            clocks=sorted({clock_label(j) for j in jobs} or {clock_label(line_clock(line)) for line in lines
                                                              if isinstance(line.get("clock"), dict)}),
            done=len(lines), failed=failed, expected=len(jobs) or None,
            status=run_status(len(lines), failed, len(jobs) or None, manifest),
            created=str(manifest.get("created", "")), updated=stat.st_mtime)
        with self._lock:
            self._summaries[path] = (key, summary)
        return summary

    def improve_summary(self, path: Path) -> RunSummary:
        """An improvement run as one row: its rounds are the unit of progress."""
        rounds = sorted(p for p in path.glob("round_*") if (p / EPISODES).exists())
        inner = [self.summary(r) for r in rounds]
        settings = _read_json(path / IMPROVE_FILE)
        done = sum(bool(_read_json(r / "round.json").get("done")) for r in rounds)
        expected = (settings.get("settings") or {}).get("rounds")
        expected = int(expected) if isinstance(expected, int) else None  # rounds played, round 0 included
        finished = (path / "metrics.json").exists() and (expected is None or done >= expected)
        return RunSummary(
            run_id=path.name, kind="improve", envs=sorted({e for s in inner for e in s.envs}),
            agents=sorted({a for s in inner for a in s.agents}), clocks=sorted({c for s in inner for c in s.clocks}),
            done=done, failed=sum(s.failed for s in inner), expected=expected,
            status="complete" if finished else "stopped early",
            created=str(settings.get("created", "")), updated=max([s.updated for s in inner], default=0.0))

    def runs(self, search: str = "", status: str = "", env: str = "") -> list[dict[str, Any]]:
        rows = [self.summary(p) for p in self.run_dirs()]
        needle = search.lower()
        out = []
        for row in rows:
            text = " ".join([row.run_id, row.kind, *row.envs, *row.agents, *row.clocks]).lower()
            if needle and needle not in text:
                continue
            if status and row.status != status:
                continue
            if env and env not in row.envs:
                continue
            out.append(row.as_dict())
        return out

    # -- compare -----------------------------------------------------------------------------------
    def folders(self, run_ids: list[str]) -> list[Path]:
        """The run folders behind the chosen ids (all when none); an improvement run gives its rounds."""
        chosen = [self.run_dir(r) for r in run_ids] if run_ids else self.run_dirs()
        dirs = [d for p in chosen for d in ([p] if (p / EPISODES).exists() else sorted(
            r for r in p.glob("round_*") if (r / EPISODES).exists()))]
        if not dirs:
            raise RequestError(404, f"no runs under {self.root}")
        return dirs

    def connection(self, run_ids: list[str]) -> Any:
        return connect(self.folders(run_ids))

    def compare(self, run_ids: list[str], filters: dict[str, str]) -> dict[str, Any]:
        """Mean ± standard error per cell over the chosen runs and filters, with the report's charts."""
        from rtarena.eval.failure_modes import failure_section
        from rtarena.eval.pvp import pvp_section
        from rtarena.eval.report import Section, plots
        from rtarena.eval.suite_report import suite_sections

        con = self.connection(run_ids)
        options = {name: [r[0] for r in con.execute(
            f"SELECT DISTINCT CAST({expr} AS VARCHAR) FROM agents ORDER BY 1").fetchall() if r[0] is not None]
            for name, expr in (("env", "env_id"), ("clock", "coalesce(clock_name, clock)"),
                               ("delay", "coalesce(delay_ms, 0)"), ("agent", "agent_label"))}
        where = " AND ".join(FILTER_SQL[name].replace("?", sql_literal(value))
                             for name, value in filters.items() if value and name in FILTER_SQL) or "true"
        # The shared table and chart code reads the `agents` view: put the filtered rows under that name.
        con.execute("ALTER VIEW agents RENAME TO agents_all")
        con.execute(f"CREATE VIEW agents AS SELECT * FROM agents_all WHERE {where}")
        metrics = metric_names(con)
        cells = cell_stats(con, metrics) if metrics else []
        head = ["agent", "lineup", "level", "clock_name", "obs", "delay_ms"]
        rows = []
        for cell in cells:
            row = {k: cell[k] for k in head}
            for m in metrics:
                stat = cell[m]
                row[m] = {"n": stat.n, "mean": stat.mean, "se": stat.se}
            rows.append(row)
        charts = [{"name": name, "svg": text} for name, text in plots(con, cells, metrics)] if cells else []
        # The game suite's own tables (per-game scores, PvP win matrices, co-op scores, capability radar).
        # and the PvP ratings (Bradley-Terry, Elo, non-transitivity) of the runs' two-player matches.
        panels = [{"title": section.title, "html": "\n".join(section.html)}
                  for section in ([*suite_sections(con, Section), *pvp_section(con, Section)] if cells else [])]
        # Failure modes of annotated runs (`rtarena annotate`): the report's table and one chart per agent.
        _, failure_html, failure_charts = failure_section(self.folders(run_ids), self.root, {})
        if failure_html:
            panels.append({"title": "failure modes", "html": "\n".join(
                [*failure_html, *(chart for _, chart in failure_charts)])})
        return finite({"columns": head, "metrics": metrics, "main": main_metric(metrics) if metrics else None,
                       "rows": rows, "charts": charts, "panels": panels, "options": options})

    def compare_csv(self, run_ids: list[str], filters: dict[str, str]) -> str:
        """The Compare table as CSV: one line per cell, `<metric>_mean`, `_se`, `_n` columns."""
        import csv
        import io

        table = self.compare(run_ids, filters)
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow([*table["columns"], *(f"{m}_{part}" for m in table["metrics"] for part in ("mean", "se", "n"))])
        for row in table["rows"]:
            writer.writerow([*("" if row[c] is None else row[c] for c in table["columns"]),
                             *(_csv_number(row[m][part]) for m in table["metrics"] for part in ("mean", "se", "n"))])
        return buffer.getvalue()

    # -- episodes ----------------------------------------------------------------------------------
    def episodes(self, run_id: str) -> list[dict[str, Any]]:
        lines = read_episodes(self.run_dir(run_id))
        keep = ("episode", "status", "env_id", "seed", "steps", "sim_seconds", "decisions", "error", "video")
        out = []
        for line in lines:
            row = {k: line.get(k) for k in keep}
            row["clock"] = (line.get("clock") or {}).get("clock") if isinstance(line.get("clock"), dict) else None
            row["scores"] = {a: m.get("score", m.get("return")) for a, m in (line.get("agents") or {}).items()
                             if isinstance(m, dict)}
            out.append(row)
        return finite(out)

    def episode(self, run_id: str, key: str) -> dict[str, Any]:
        """One episode for the replay page: its line, decisions, steps, events and frame source."""
        import pyarrow.parquet as pq

        path = self.run_dir(run_id)
        line = next((e for e in read_episodes(path) if e.get("episode") == key), None)
        if line is None:
            raise RequestError(404, f"no episode {key!r} in run {run_id!r}")

        def table(kind: str) -> list[dict[str, Any]]:
            file = confined(path, f"{kind}/{key}.parquet")
            return pq.read_table(file).to_pylist() if file.exists() else []

        steps = table("steps")
        frames = self.frame_count(run_id, key, line)
        return finite({
            "line": line, "decisions": table("decisions"), "events": table("events"),
            "steps": [{"step": s.get("step"), "sim_s": s.get("sim_s"), "rewards": s.get("rewards")} for s in steps],
            "frames": frames, "frame_kind": self.frame_kind(path, key, line),
        })

    # -- frames ------------------------------------------------------------------------------------
    def video(self, path: Path, line: dict[str, Any]) -> Path | None:
        """The episode's MP4 when it lies inside the run folder (symlinks resolved); a line naming a file
        elsewhere (an absolute path, `..`, a link out of `--root`) has no video here."""
        if not line.get("video"):
            return None
        try:
            video = confined(path, str(line["video"]))
        except RequestError:
            return None
        return video if video.is_file() else None

    def frame_kind(self, path: Path, key: str, line: dict[str, Any]) -> str:
        if self.video(path, line) is not None:
            return "video"
        return "screenshots" if self.screenshots(path, key, line) else "none"

    def screenshots(self, path: Path, key: str, line: dict[str, Any]) -> list[str]:
        """Run-relative image files an env left for this episode (browser tasks' screenshots)."""
        return sorted(f for f in line.get("files") or [] if f.endswith((".png", ".jpg", ".jpeg")))

    def frame_count(self, run_id: str, key: str, line: dict[str, Any]) -> int:
        path = self.run_dir(run_id)
        kind = self.frame_kind(path, key, line)
        if kind == "video":
            return self._video_frames(run_id, key, self.video(path, line)).count()
        return len(self.screenshots(path, key, line))

    def frame(self, run_id: str, key: str, index: int) -> tuple[bytes, str]:
        """Frame `index` of an episode as PNG (decoded from its MP4) or as the stored screenshot."""
        path = self.run_dir(run_id)
        line = next((e for e in read_episodes(path) if e.get("episode") == key), None)
        if line is None:
            raise RequestError(404, f"no episode {key!r} in run {run_id!r}")
        if self.frame_kind(path, key, line) == "video":
            video = self._video_frames(run_id, key, self.video(path, line))
            count = video.count()
            if count and 0 <= index < count:
                return video.frame(index), "image/png"
            frames: list[Any] = []
        else:
            frames = [confined(path, f) for f in self.screenshots(path, key, line)]
            count = len(frames)
        if not count:
            raise RequestError(404, f"episode {key!r} has no frames")
        if not 0 <= index < count:
            raise RequestError(400, f"frame: must be in [0, {count - 1}], got {index}")
        data = frames[index].read_bytes()
        return data, "image/png" if data[:8] == b"\x89PNG\r\n\x1a\n" else "image/jpeg"

    def _video_frames(self, run_id: str, key: str, video: Path) -> VideoFrames:
        """The episode's video reader, kept for the last few episodes viewed."""
        evicted = []
        with self._lock:
            if (run_id, key) not in self._videos:
                self._videos[(run_id, key)] = VideoFrames(video)
            self._videos.move_to_end((run_id, key))
            while len(self._videos) > 4:
                evicted.append(self._videos.popitem(last=False)[1])
            chosen = self._videos[(run_id, key)]
        for old in evicted:
            with old.lock:
                old.close()
        return chosen


class VideoFrames:
    """One MP4 read frame by frame, never decoded whole: a decoder stays positioned in the stream, so a
    request for a later frame (playing, stepping on) reads on from where it is and an earlier one starts
    again; only the last `KEPT` frames' PNGs are kept. A 300-frame video once cost 262 MB decoded at once."""

    KEPT = 32

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.reader: Any = None
        self.next = 0  # index of the frame the reader yields next
        self.size = (0, 0)
        self.frames: int | None = None
        self.kept: OrderedDict[int, bytes] = OrderedDict()

    def count(self) -> int:
        """Frames in the video, counted by decoding it once without keeping any."""
        import imageio_ffmpeg

        with self.lock:
            if self.frames is None:
                self.frames = int(imageio_ffmpeg.count_frames_and_secs(str(self.path))[0])
            return self.frames

    def frame(self, index: int) -> bytes:
        """Frame `index` as PNG bytes."""
        import numpy as np

        from rtarena.media import encode_png

        with self.lock:
            if index in self.kept:
                self.kept.move_to_end(index)
                return self.kept[index]
            if self.reader is None or index < self.next:
                self._open()
            raw = None
            while self.next <= index:
                raw = next(self.reader, None)
                if raw is None:
                    raise RequestError(404, f"frame {index}: the video ends at frame {self.next - 1}")
                self.next += 1
            width, height = self.size
            png = encode_png(np.frombuffer(raw, dtype=np.uint8).reshape(height, width, 3))
            self.kept[index] = png
            while len(self.kept) > self.KEPT:
                self.kept.popitem(last=False)
            return png

    def _open(self) -> None:
        import imageio_ffmpeg

        self.close()
        self.reader = imageio_ffmpeg.read_frames(str(self.path))
        self.size = tuple(next(self.reader)["size"])
        self.next = 0

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()  # ends the ffmpeg process
            self.reader = None


def sql_literal(value: str) -> str:
    """A string as a SQL literal (filter values come from the page; quotes are doubled, never spliced raw)."""
    return "'" + str(value).replace("'", "''") + "'"


def _csv_number(value: Any) -> str:
    if value is None:
        return ""
    return repr(float(value)) if isinstance(value, float) else str(value)
