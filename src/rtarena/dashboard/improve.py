"""The Improvement page's data: an `rtarena improve` run folder read as rounds (see `improve/loop.py`).

    runs/<id>/improve.json, metrics.json, transfer.json
    runs/<id>/round_NN/round.json, skill_in.md, skill_out.md, diagnosis.md, verdicts.jsonl, lints.md

Only files are read (the dashboard sits above `improve` in the layers but needs none of its code): a
round's score interval, whether the runner rolled back, its skill diffed against the previous round's,
the diagnosis, the judge's verdicts and the pre-reflection lints.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from rtarena.dashboard.data import finite
from rtarena.webapp import RequestError

TEXT_FILES = ("skill_in.md", "skill_out.md", "diagnosis.md", "lints.md", "notebook.md")
MAX_TEXT_CHARS = 20_000


def is_improve_run(path: Path) -> bool:
    return (path / "improve.json").is_file()


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _jsonl(path: Path) -> list[Any]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue
    return rows


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")[:MAX_TEXT_CHARS]
    except OSError:
        return ""


def skill_diff(previous: str, current: str) -> list[dict[str, str]]:
    """Line diff of two skills: `{"op": " "|"+"|"-", "line": ...}` rows."""
    rows = []
    for line in difflib.ndiff(previous.splitlines(), current.splitlines()):
        if line[:1] in (" ", "+", "-"):
            rows.append({"op": line[0], "line": line[2:]})
    return rows


def improve_run(path: Path) -> dict[str, Any]:
    """Rounds, curve points and the run's metrics, for the Improvement page."""
    if not is_improve_run(path):
        raise RequestError(404, f"{path.name} is not an improvement run (no improve.json)")
    rounds = []
    previous_skill = ""
    for round_dir in sorted(p for p in path.glob("round_*") if p.is_dir()):
        state = _json(round_dir / "round.json") or {}
        texts = {name: _text(round_dir / name) for name in TEXT_FILES}
        interval = state.get("interval") or {}
        rounds.append({
            "round": round_dir.name, "done": bool(state.get("done")), "rollback": bool(state.get("rollback")),
            "skill_source": state.get("skill_source"), "mean": interval.get("mean"), "lo": interval.get("lo"),
            "hi": interval.get("hi"), "n": interval.get("n"), "reflection": state.get("reflection"),
            "texts": texts, "skill_diff": skill_diff(previous_skill, texts["skill_in.md"]),
            "verdicts": _jsonl(round_dir / "verdicts.jsonl"),
        })
        previous_skill = texts["skill_in.md"]
    return finite({"run": path.name, "settings": _json(path / "improve.json"), "metrics": _json(path / "metrics.json"),
                   "transfer": _json(path / "transfer.json"), "rounds": rounds})
