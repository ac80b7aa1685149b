"""The results folder of a run: `episodes.jsonl` plus per-episode Parquet records.

    runs/<run_id>/
      config.json        the resolved experiment (what `--resume` checks against)
      run.json           run id, sessions (start, backend, command), package versions, machine
      episodes.jsonl     one line per finished episode: summary, cell tags, status ok|error
      agents/KEY.parquet     one row per env agent: cell tags, spec, every metric (what reports read)
      decisions/KEY.parquet  one row per decision;  steps/KEY.parquet one row per env step
      events/KEY.parquet     the env's events;      videos/KEY.mp4  when asked for
      latency.parquet    the latency trace: per answered decision its wall latency, TTFT and tokens

Every finished episode is written at once: its video and Parquet files first (each written to a
temporary name and renamed), then its line in `episodes.jsonl` (one `write` of a whole line, flushed and
fsynced). The line is the commit: readers (`query.connect`) take only the files of episodes with a
line, an episode without its line is simply run again on resume, and `repair_tail` drops a torn last line.
Tables have declared schemas (`schemas.py`) and every text passes through `rtarena.redact`.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from rtarena.eval import schemas
from rtarena.redact import redact_all
from rtarena.runtime import records
from rtarena.runtime.records import MatchResult, jsonable

EPISODES = "episodes.jsonl"


def episode_key(env_id: str, seed: int, label: str = "") -> str:
    """A file-name-safe key naming one episode of a run."""
    base = f"{env_id.replace('/', '__')}__seed{seed:05d}"
    return f"{base}__{label}" if label else base


LATEST = "latest"


def fresh_run_folder(root: Path) -> Path:
    """A new run folder `root/<YYYYmmdd-HHMMSS>` (`-2`, `-3` ... within one second), made now, with
    `root/latest` pointing to it: a repeated `rtarena run ENV_ID --agent ...` without `--out` gets a folder of
    its own instead of refusing the one before, and `runs/latest` is always the newest. A `latest` that is
    a real folder (an older version's default) is left as it is."""
    import time

    root = Path(root)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(1, 1000):
        folder = root / (stamp if n == 1 else f"{stamp}-{n}")
        try:
            folder.mkdir(parents=True)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"no free run folder name under {root} for {stamp}")
    latest = root / LATEST
    if latest.is_symlink() or not latest.exists():
        tmp = root / f".{LATEST}.{os.getpid()}"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(folder.name, target_is_directory=True)
        os.replace(tmp, latest)  # atomic: a reader sees the old run or the new one
    return folder


def _replace(path: Path, write: Any) -> None:
    """Write `path` through a temporary file next to it and a rename; on any failure (a full disk, a
    read-only folder) the temporary file is removed and the error goes on to the CLI's one line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise _named(error, path) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _named(error: OSError, path: Path) -> OSError:
    """`error` with the path it happened on (a full disk's write names no file): the CLI's line names it."""
    if error.filename is not None:
        return error
    return OSError(error.errno, error.strerror or str(error), str(path))


def write_table(path: Path, data: pa.Table) -> None:
    _replace(path, lambda tmp: pq.write_table(data, tmp))


def append_line(path: Path, record: dict[str, Any]) -> None:
    """Append one JSON line atomically enough for resume: a single write, flushed and fsynced."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(redact_all(jsonable(record)), sort_keys=True) + "\n"
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as error:
        raise _named(error, path) from None


def write_bytes(path: Path, data: bytes) -> None:
    _replace(path, lambda tmp: tmp.write_bytes(data))


def move_file(source: Path, path: Path) -> None:
    """Put the finished file `source` (a streamed episode's records) at `path`, through a temporary name."""
    _replace(path, lambda tmp: shutil.move(source, tmp))


class RecordSpool:
    """Streams one episode's records (`runtime.records.RecordSink`) into `folder`: decisions and steps to
    `VIEW.parquet`, one row group per batch as it arrives, with the declared schemas; events to a JSON-lines
    file first, made into `events.parquet` at the end (their columns are the fields the episode's events
    had, known only then). The driver then moves the files into the run (`write_episode`), so a run folder
    still never holds half an episode."""

    def __init__(self, folder: Path, key: str) -> None:
        self.folder, self.key = Path(folder), key
        self.folder.mkdir(parents=True, exist_ok=True)
        self.writers: dict[str, pq.ParquetWriter] = {}
        self.event_names: dict[str, None] = {}
        self.events_file: Any = None

    def path(self, view: str) -> Path:
        return self.folder / f"{view}.parquet"

    def write(self, view: str, rows: list[dict[str, Any]]) -> None:
        rows = [{"episode": self.key, **row} for row in rows]
        if view == "events":
            if self.events_file is None:
                self.events_file = open(self.folder / "events.jsonl", "w", encoding="utf-8")  # noqa: SIM115
            for row in rows:
                self.event_names.update(dict.fromkeys(row))
                self.events_file.write(json.dumps(row) + "\n")
            return
        self._append(view, schemas.table(rows, SPOOLED[view]))

    def _append(self, view: str, data: pa.Table) -> None:
        if view not in self.writers:
            self.writers[view] = pq.ParquetWriter(self.path(view), data.schema)
        self.writers[view].write_table(data)

    def close(self) -> dict[str, str]:
        """Finish every view's file (an empty view keeps its columns); returns view -> path."""
        if self.events_file is not None:
            self.events_file.close()
            schema = schemas.events_schema(self.event_names)
            with open(self.folder / "events.jsonl", encoding="utf-8") as lines:
                batch: list[dict[str, Any]] = []
                for line in lines:
                    batch.append(json.loads(line))
                    if len(batch) >= records.BATCH_ROWS:
                        self._append("events", schemas.table(batch, schema))
                        batch = []
                if batch:
                    self._append("events", schemas.table(batch, schema))
            (self.folder / "events.jsonl").unlink()
            self.events_file = None
        for view, schema in {**SPOOLED, "events": schemas.EVENT_CORE}.items():
            if view not in self.writers:
                self._append(view, schemas.table([], schema))
        for writer in self.writers.values():
            writer.close()
        files = {view: str(self.path(view)) for view in self.writers}
        self.writers = {}
        return files


SPOOLED = {"decisions": schemas.DECISIONS, "steps": schemas.STEPS}


TAG_COLUMNS = ("run_id", "level", "lineup", "clock_name", "delay_ms", "obs")


def agent_rows(key: str, result: MatchResult, extra: dict[str, Any], slot_specs: dict[str, str]) -> list[dict]:
    """One row per env agent: who it was, the experiment cell, and every metric (flat columns)."""
    controller_of = {a: name for name, agents in result.controllers.items() for a in agents}
    rows = []
    for agent, metrics in result.agents.items():
        spec = slot_specs.get(agent, "")
        rows.append({
            "episode": key, "env_id": result.env_id, "seed": result.seed, "clock": result.clock.get("clock"),
            **{tag: extra.get(tag) for tag in TAG_COLUMNS},
            "agent": agent, "controller": controller_of.get(agent), "spec": spec,
            "agent_label": spec.split("@", 1)[0], "sim_seconds": result.sim_seconds, "steps": result.step_count,
            **{name: value for name, value in jsonable(metrics).items() if not isinstance(value, (dict, list))},
        })
    return rows


def write_episode(out_dir: Path, key: str, result: MatchResult, extra: dict[str, Any] | None = None,
                  slot_specs: dict[str, str] | None = None, video: bytes | None = None,
                  files: dict[str, bytes] | None = None) -> dict:
    """Write one finished episode's records and its line in `episodes.jsonl`; returns the line."""
    out_dir = Path(out_dir)
    extra = dict(extra or {})
    # Every table (and the line) is built before any file is written, so a record that cannot be stored
    # fails here, with nothing of the episode on disk yet. A streamed match's records are files already
    # (`RecordSpool`, or `files` where they travelled as bytes from a Ray node): they are moved in.
    tables = {"agents": schemas.agents_table(agent_rows(key, result, extra, slot_specs or {}))}
    if result.record_files is None:
        tables.update({
            "decisions": schemas.table([{"episode": key, **row} for row in result.decision_rows()],
                                       schemas.DECISIONS),
            "steps": schemas.table([{"episode": key, **row} for row in result.step_rows()], schemas.STEPS),
            "events": schemas.events_table([{"episode": key, **e} for e in result.events]),
        })
    if video is not None:
        extra["video"] = f"videos/{key}.mp4"
    listed = sorted(f for f in files or {} if f.split("/", 1)[0] not in RECORD_VIEWS)  # not a Ray task's records
    if listed:
        extra["files"] = listed
    line = {"episode": key, "status": "ok", **result.summary(), **extra}
    json.dumps(jsonable(line))  # a line that cannot be written fails now, not after the files
    if video is not None:
        write_bytes(out_dir / extra["video"], video)
    for relative, content in (files or {}).items():
        write_bytes(out_dir / relative, content)
    for view, source in (result.record_files or {}).items():
        move_file(Path(source), out_dir / view / f"{key}.parquet")
    for view, data in tables.items():
        write_table(out_dir / view / f"{key}.parquet", data)
    append_line(out_dir / EPISODES, line)
    return line


RECORD_VIEWS = ("agents", "decisions", "steps", "events")


def write_latency_trace(out_dir: Path) -> Path | None:
    """Write `RUN/latency.parquet` (`runtime/latency_trace.py`) from the run's committed episodes, so any run
    can be replayed under `--clock replay`; rewritten at the end of every session (a resumed run's trace
    holds every episode). None when the run has no decisions yet."""
    from rtarena.runtime.latency_trace import TRACE_FILE, trace_table

    out_dir = Path(out_dir)
    keys = sorted({line["episode"] for line in read_episodes(out_dir) if line.get("status", "ok") == "ok"})
    files = [p for k in keys if (p := out_dir / "decisions" / f"{k}.parquet").exists()]
    if not files:
        return None
    specs = {}
    for key in keys:
        path = out_dir / "agents" / f"{key}.parquet"
        if path.exists():
            for row in pq.read_table(path, columns=["controller", "spec"]).to_pylist():
                specs[(key, row["controller"])] = row["spec"]
    # a batch of the columns the trace needs at a time: a long episode's decisions are never all in memory
    parts = [trace_table(pa.Table.from_batches([batch]), specs) for file in files
             for batch in pq.ParquetFile(file).iter_batches(batch_size=records.BATCH_ROWS, columns=TRACE_READS)]
    path = out_dir / TRACE_FILE
    write_table(path, pa.concat_tables(parts) if parts else trace_table(pq.read_table(files[0]).slice(0, 0), specs))
    return path


TRACE_READS = ["episode", "controller", "delay_sim_s", "wall_latency_s", "extra", "tokens_in", "tokens_out",
               "tokens_source"]


def remove_episode_files(out_dir: Path, key: str) -> None:
    """Delete whatever an episode left of its Parquet files (before its line was written)."""
    for view in RECORD_VIEWS:
        for suffix in (".parquet", ".parquet.tmp"):
            (Path(out_dir) / view / f"{key}{suffix}").unlink(missing_ok=True)


def write_failure(out_dir: Path, key: str, error: str, details: dict[str, Any]) -> dict:
    """Record an episode that raised: its line says `status: error` and why; it is not run again."""
    line = {"episode": key, "status": "error", "error": error, **details}
    append_line(Path(out_dir) / EPISODES, line)
    return line


def repair_tail(out_dir: Path) -> int:
    """Cut a torn last line (a run killed mid-write) so that appends start on a fresh line; returns the
    number of bytes dropped."""
    path = Path(out_dir) / EPISODES
    if not path.exists():
        return 0
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return 0
    keep = data.rfind(b"\n") + 1
    with open(path, "r+b") as handle:
        handle.truncate(keep)
        handle.flush()
        os.fsync(handle.fileno())
    return len(data) - keep


def done_keys(out_dir: Path) -> set[str]:
    """Keys of the episodes a run has already recorded (finished or failed)."""
    return {line["episode"] for line in read_episodes(out_dir) if "episode" in line}


def read_episodes(out_dir: Path) -> list[dict[str, Any]]:
    """Whole lines of `episodes.jsonl` (a torn last line from a killed run is ignored)."""
    path = Path(out_dir) / EPISODES
    if not path.exists():
        return []
    episodes = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            episode = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(episode, dict) and isinstance(episode.get("episode"), str):
            episodes.append(episode)  # anything else is not an episode line (junk, a foreign file)
    return episodes
