"""Task specs: the data half of a browser task (the page is the other half).

A task is one TOML file in `tasks/` naming its page under `pages/`, the goal text (a template filled with
the values the page draws from the seed), the step `dt`, the episode's time limit, the viewport and free
parameters handed to the page. Adding a task is adding a TOML file, a page, and a row in the registry.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtarena.errors import UserError

TASKS_DIR = Path(__file__).with_name("tasks")
PAGES_DIR = Path(__file__).with_name("pages")


@dataclass(frozen=True)
class TaskSpec:
    """One task: `name` is the file stem; `page` is relative to `pages/`; times are in seconds."""

    name: str
    title: str
    page: str
    goal: str
    dt: float = 0.25
    time_limit_s: float = 20.0
    viewport: tuple[int, int] = (800, 600)
    params: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    def goal_text(self, values: dict[str, Any], params: dict[str, Any] | None = None) -> str:
        """The goal with the parameters and the page's seeded values filled in (`{name}` placeholders)."""
        try:
            return self.goal.format(**{**self.params, **(params or {}), **values})
        except (KeyError, IndexError, ValueError):
            return self.goal


def load_spec(name: str) -> TaskSpec:
    """Read `tasks/<name>.toml` (or a path to a TOML file) into a `TaskSpec`, with one-line errors."""
    path = Path(name) if name.endswith(".toml") else TASKS_DIR / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in TASKS_DIR.glob("*.toml")))
        raise UserError(f"no task file {path}; known tasks: {known}", field="task")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as error:
        raise UserError(f"{error}", source=str(path)) from None
    known_fields = {"title", "page", "goal", "dt", "time_limit_s", "viewport", "params"}
    for key in data:
        if key not in known_fields:
            raise UserError(f"unknown field (known: {', '.join(sorted(known_fields))})", source=str(path), field=key)
    for key in ("title", "page", "goal"):
        if not isinstance(data.get(key), str):
            raise UserError("missing or not a string", source=str(path), field=key)
    if not (PAGES_DIR / data["page"]).is_file():
        raise UserError(f"page {data['page']!r} is not under {PAGES_DIR}", source=str(path), field="page")
    for key in ("dt", "time_limit_s"):
        value = data.get(key, 1.0)
        if not (isinstance(value, (int, float)) and value > 0):
            raise UserError(f"must be a positive number of seconds, got {value!r}", source=str(path), field=key)
    viewport = tuple(data.get("viewport", (800, 600)))
    if len(viewport) != 2 or not all(isinstance(v, int) and 100 <= v <= 4000 for v in viewport):
        raise UserError(f"must be [width, height] in pixels, got {viewport!r}", source=str(path), field="viewport")
    return TaskSpec(
        name=path.stem, title=data["title"], page=data["page"], goal=data["goal"],
        dt=float(data.get("dt", 0.25)), time_limit_s=float(data.get("time_limit_s", 20.0)),
        viewport=viewport, params=dict(data.get("params", {})), source=str(path),
    )
