"""Task specs: the data half of a browser task (the page is the other half).

A task is one TOML file in `tasks/` naming its page under `pages/`, the goal text (a template filled with
the values the page draws from the seed), the step `dt`, the episode's time limit, the viewport and free
parameters handed to the page. Adding a task is adding a TOML file and a page: the registry makes one
row per task file (`catalog.py`), `web/NAME-v0` for pages under `web/`, `gui-games/NAME-v0` under `games/`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from rtarena.envs.capabilities import REALTIME_CAPABILITIES
from rtarena.envs.level_files import read_level
from rtarena.errors import UserError
from rtarena.schema import PosFloat, PosInt, Section

TASKS_DIR = Path(__file__).with_name("tasks")
PAGES_DIR = Path(__file__).with_name("pages")
# The three real-time capabilities a task is tagged with (Realtime-Bench's axes, `envs/capabilities.py`):
# noticing that the page changed, thinking within the time left, deciding whether acting now is worth it.
CAPABILITIES = REALTIME_CAPABILITIES

Pixels = Field(ge=100, le=4000)


class TaskSpec(Section):
    """One task file: `name` is the file stem; `page` is relative to `pages/`; times are in seconds.

    The typed schema of `tasks/*.toml` (`rtarena.schema`): unknown keys, a missing page, a non-positive or
    NaN time and a viewport outside 100..4000 pixels are refused with one line naming file and field.
    """

    model_config = ConfigDict(frozen=True)
    home: ClassVar[Path] = TASKS_DIR  # where `read_level` looks up a bare file name

    name: str = Field("", description="the file stem (set by load_spec)")
    title: str = Field(min_length=1, description="shown in `rtarena list`")
    page: str = Field(min_length=1, description="the page, relative to pages/")
    goal: str = Field(min_length=1, description="goal template: {placeholders} from params and the page")
    dt: PosFloat = Field(0.25, description="simulated seconds per step")
    time_limit_s: PosFloat = Field(20.0, description="episode time limit, seconds")
    viewport: tuple[int, int] = Field((800, 600), description="[width, height] in pixels, each 100..4000")
    params: dict[str, Any] = Field(default_factory=dict, description="free parameters handed to the page")
    source: str = Field("", description="the file read (set by read_level)")
    summary: str = Field("", description="one line for `rtarena list` (default: the title)")
    obs_every: PosInt = Field(1, description="env steps per observation: 1 / (dt * obs_every) observations per second")
    deadline_s: PosFloat | None = Field(None, description="page second by which the goal must be reached "
                                                          "(None: time_limit_s)")
    capabilities: dict[Literal[CAPABILITIES], int] = Field(
        default_factory=dict, description="how hard the task leans on each real-time capability, 0..3")

    @property
    def domain(self) -> str:
        """`web` for a web task, `game` for a canvas game (from the page's folder)."""
        return "game" if self.page.startswith("games/") else "web"

    @field_validator("capabilities")
    @classmethod
    def _levels(cls, value: dict[str, int]) -> dict[str, int]:
        for tag, level in value.items():
            if not 0 <= level <= 3:
                raise ValueError(f"{tag}: levels are 0-3, got {level}")
        return value

    @model_validator(mode="before")
    @classmethod
    def _name_and_summary(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if data.get("source"):
            if "name" in data:
                raise ValueError("name: unknown field (it is set from the file's name)")
            data = {**data, "name": Path(data["source"]).stem}
        if not data.get("summary") and isinstance(data.get("title"), str):
            data = {**data, "summary": data["title"]}
        return data

    @model_validator(mode="after")
    def _deadline_in_time(self) -> TaskSpec:
        if self.deadline_s is not None and self.deadline_s > self.time_limit_s:
            raise ValueError(f"deadline_s ({self.deadline_s:g}) must not exceed time_limit_s ({self.time_limit_s:g})")
        return self

    @field_validator("viewport", mode="before")
    @classmethod
    def _pair(cls, value: Any) -> Any:
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise ValueError(f"must be [width, height] in pixels, got {value!r}")
        return value

    @field_validator("viewport")
    @classmethod
    def _pixels(cls, value: tuple[int, int]) -> tuple[int, int]:
        if not all(100 <= v <= 4000 for v in value):
            raise ValueError(f"must be [width, height] in pixels, each 100..4000, got {list(value)}")
        return value

    @field_validator("page")
    @classmethod
    def _page_exists(cls, value: str) -> str:
        if not (PAGES_DIR / value).is_file():
            raise ValueError(f"page {value!r} is not under {PAGES_DIR}")
        return value

    def __hash__(self) -> int:  # params is a dict: hash by identity of the file read
        return hash((self.name, self.source))

    def goal_text(self, values: dict[str, Any], params: dict[str, Any] | None = None) -> str:
        """The goal with the parameters and the page's seeded values filled in (`{name}` placeholders)."""
        try:
            return self.goal.format(**{**self.params, **(params or {}), **values})
        except (KeyError, IndexError, ValueError):
            return self.goal


def load_spec(name: str) -> TaskSpec:
    """Read `tasks/<name>.toml` (or a path to a TOML file) into a `TaskSpec` with the one level reader."""
    path = Path(name) if name.endswith(".toml") else TASKS_DIR / f"{name}.toml"
    if not path.is_file() and not path.is_dir():
        known = ", ".join(sorted(p.stem for p in TASKS_DIR.glob("*.toml")))
        raise UserError(f"no task file {path}; known tasks: {known}", field="task")
    return read_level(path, TaskSpec)
