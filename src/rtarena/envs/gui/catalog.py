"""The browser tasks as registry rows, one per task file: adding a task is a TOML file and a page.

`web/NAME-v0` for a page under `pages/web/`, `gui-games/NAME-v0` under `pages/games/`.
"""

from __future__ import annotations

from typing import NamedTuple

from rtarena.envs.gui.spec import TASKS_DIR, load_spec

FAMILIES = {"web": "web", "game": "gui-games"}  # task domain -> registry family


class TaskRow(NamedTuple):
    """What the registry needs of one task file."""

    env_id: str
    task: str
    family: str
    summary: str


def task_rows() -> list[TaskRow]:
    """Every task file under `tasks/`, web tasks first, then games, each by name."""
    rows = []
    for path in sorted(TASKS_DIR.glob("*.toml")):
        spec = load_spec(path.stem)
        family = FAMILIES[spec.domain]
        rows.append(TaskRow(f"{family}/{spec.name}-v0", spec.name, family, f"Browser: {spec.summary}"))
    return sorted(rows, key=lambda row: (row.family != "web", row.task))
