"""Task specs: the data half of a browser task (the page is the other half).

A task is one TOML file in `tasks/` naming its page under `pages/`, the goal text (a template filled with
the values the page draws from the seed), the step `dt`, the episode's time limit, the viewport and free
parameters handed to the page. Adding a task is adding a TOML file and a page: the registry makes one
row per task file (`catalog.py`), `web/NAME-v0` for pages under `web/`, `gui-games/NAME-v0` under `games/`.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtarena.errors import UserError

TASKS_DIR = Path(__file__).with_name("tasks")
PAGES_DIR = Path(__file__).with_name("pages")
# The three real-time capabilities a task is tagged with (Realtime-Bench's axes): noticing that the page
# changed, thinking within the time left, and deciding whether acting now is worth it at all.
CAPABILITIES = ("perceive_change", "deliberate_in_time", "decide_to_act")


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
    summary: str = ""  # one line for `rtarena list`
    obs_every: int = 1  # env steps per observation: the observation rate is 1 / (dt * obs_every) per page second
    deadline_s: float | None = None  # page second by which the goal must be reached (None: time_limit_s)
    # how hard the task leans on each real-time capability, 0 (not at all) to 3 (the point of the task)
    capabilities: dict[str, int] = field(default_factory=dict)

    @property
    def domain(self) -> str:
        """`web` for a web task, `game` for a canvas game (from the page's folder)."""
        return "game" if self.page.startswith("games/") else "web"

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
    known_fields = {"title", "page", "goal", "dt", "time_limit_s", "viewport", "params", "summary", "obs_every",
                    "deadline_s", "capabilities"}
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
    obs_every = data.get("obs_every", 1)
    if not (isinstance(obs_every, int) and obs_every >= 1):
        raise UserError(f"must be a whole number >= 1, got {obs_every!r}", source=str(path), field="obs_every")
    deadline = data.get("deadline_s")
    limit = data.get("time_limit_s", 20.0)
    if deadline is not None and not (isinstance(deadline, (int, float)) and 0 < deadline <= limit):
        raise UserError(f"must be a number of seconds in (0, time_limit_s], got {deadline!r}", source=str(path),
                        field="deadline_s")
    capabilities = data.get("capabilities", {})
    for tag, level in capabilities.items():
        if tag not in CAPABILITIES or not (isinstance(level, int) and 0 <= level <= 3):
            raise UserError(f"capabilities are {', '.join(CAPABILITIES)} with levels 0-3, got {tag} = {level!r}",
                            source=str(path), field="capabilities")
    return TaskSpec(
        name=path.stem, summary=str(data.get("summary", data["title"])), obs_every=obs_every,
        deadline_s=None if deadline is None else float(deadline), capabilities=dict(capabilities),
        title=data["title"], page=data["page"], goal=data["goal"],
        dt=float(data.get("dt", 0.25)), time_limit_s=float(data.get("time_limit_s", 20.0)),
        viewport=viewport, params=dict(data.get("params", {})), source=str(path),
    )
