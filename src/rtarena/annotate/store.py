"""Annotation tables in the run folder: `annotations/<annotator>.parquet`, one row per episode,
controller and code (code `none` where an annotator found nothing, so every judged episode is listed).

Columns: run_id, episode, controller, env_id, condition, agent_label, code, capability, annotator,
decisions (JSON list of decision indices), evidence (text), quote_found (model rows: whether the quoted
evidence occurs in what the model was shown). The review page adds verdict (accept, change, reject) and
original_code. `eval/report.py` reads these files by name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from rtarena.annotate.codebook import Codebook
from rtarena.annotate.evidence import EpisodeEvidence
from rtarena.annotate.rules import Finding
from rtarena.eval.schemas import table
from rtarena.eval.store import write_table

FOLDER = "annotations"
NONE = "none"
TEXT = ("run_id", "episode", "controller", "env_id", "condition", "agent_label", "code", "capability", "annotator",
        "decisions", "evidence")
SCHEMA = pa.schema([*(pa.field(name, pa.string()) for name in TEXT), pa.field("quote_found", pa.bool_()),
                    pa.field("verdict", pa.string()), pa.field("original_code", pa.string())])


def table_path(run_dir: Path, annotator: str) -> Path:
    return Path(run_dir) / FOLDER / f"{annotator}.parquet"


def rows_for(ev: EpisodeEvidence, findings: list[Finding], annotator: str, book: Codebook,
             quote_found: list[bool] | None = None) -> list[dict[str, Any]]:
    base = {"run_id": ev.run_id, "episode": ev.episode, "controller": ev.controller, "env_id": ev.env_id,
            "condition": ev.condition, "agent_label": ev.agent_label, "annotator": annotator}
    if not findings:
        return [{**base, "code": NONE, "capability": "", "decisions": "[]", "evidence": "", "quote_found": None}]
    return [{**base, "code": f.code, "capability": book.capability(f.code), "decisions": json.dumps(list(f.decisions)),
             "evidence": f.evidence, "quote_found": None if quote_found is None else quote_found[i]}
            for i, f in enumerate(findings)]


def write_rows(run_dir: Path, annotator: str, rows: list[dict[str, Any]]) -> Path:
    path = table_path(run_dir, annotator)
    write_table(path, table(rows, SCHEMA))  # one schema for every annotator, so tables read together
    return path


def read_rows(run_dir: Path, annotator: str) -> list[dict[str, Any]]:
    path = table_path(run_dir, annotator)
    if not path.exists():
        return []
    return pq.read_table(path).to_pylist()
