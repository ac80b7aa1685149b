"""The results folder of a run: `episodes.jsonl` plus per-episode Parquet records.

Every finished episode is written at once: its Parquet files first (each written to a temporary name and
renamed), then its line in `episodes.jsonl` (one `write` of a whole line, flushed and fsynced). A run
killed at any moment therefore leaves only whole episodes behind, and an episode without its line is
simply run again on resume.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from rtarena.runtime.records import MatchResult, jsonable

EPISODES = "episodes.jsonl"


def episode_key(env_id: str, seed: int, label: str = "") -> str:
    """A file-name-safe key naming one episode of a run."""
    base = f"{env_id.replace('/', '__')}__seed{seed:05d}"
    return f"{base}__{label}" if label else base


def _table(rows: list[dict[str, Any]]) -> pa.Table:
    """Rows as a Parquet table; nested values (actions, dicts) are stored as JSON text."""
    if not rows:
        return pa.table({})
    names = list(dict.fromkeys(name for row in rows for name in row))  # union, first-seen order
    columns: dict[str, list[Any]] = {name: [] for name in names}
    for row in rows:
        for name in columns:
            value = row.get(name)
            if isinstance(value, (dict, list, tuple)):
                value = json.dumps(jsonable(value), sort_keys=True)
            columns[name].append(value)
    return pa.table(columns)


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    pq.write_table(_table(rows), tmp)
    os.replace(tmp, path)


def append_line(path: Path, record: dict[str, Any]) -> None:
    """Append one JSON line atomically enough for resume: a single write, flushed and fsynced."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(jsonable(record), sort_keys=True) + "\n"
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())


def write_episode(out_dir: Path, key: str, result: MatchResult, extra: dict[str, Any] | None = None) -> dict:
    """Write one finished episode's records and its line in `episodes.jsonl`; returns the line."""
    out_dir = Path(out_dir)
    write_parquet(out_dir / "decisions" / f"{key}.parquet",
                  [{"episode": key, **row} for row in result.decision_rows()])
    write_parquet(out_dir / "steps" / f"{key}.parquet", [{"episode": key, **row} for row in result.step_rows()])
    if result.events:
        write_parquet(out_dir / "events" / f"{key}.parquet", [{"episode": key, **e} for e in result.events])
    line = {"episode": key, **result.summary(), **(extra or {})}
    append_line(out_dir / EPISODES, line)
    return line


def read_episodes(out_dir: Path) -> list[dict[str, Any]]:
    """Whole lines of `episodes.jsonl` (a torn last line from a killed run is ignored)."""
    path = Path(out_dir) / EPISODES
    if not path.exists():
        return []
    episodes = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            episodes.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return episodes
