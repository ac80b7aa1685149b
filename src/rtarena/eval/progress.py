"""Live progress of a run: a bar with counts and an ETA, the episodes running now, the last finished.

On a terminal this is a rich `Live` display redrawn a few times a second; elsewhere (logs, CI, tests)
each finished episode prints one line instead, so the status of every episode is still visible.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table


def headline(line: dict[str, Any]) -> str:
    """A finished episode in a few words: its mean score (or return) over agents."""
    agents = line.get("agents") or {}
    for metric in ("score", "return"):
        values = [m[metric] for m in agents.values() if isinstance(m, dict) and isinstance(m.get(metric), (int, float))]
        if values:
            return f"{metric} {sum(values) / len(values):.3g}"
    return ""


class RunProgress:
    """Call `started(key)`, `finished(key, line)`; use as a context manager around the run."""

    def __init__(self, console: Console, run_id: str, total: int, already_done: int = 0, backend: str = "") -> None:
        self.console = console
        self.live_mode = console.is_terminal
        self.running: dict[str, float] = {}
        self.recent: deque[tuple[str, str, str, float]] = deque(maxlen=6)
        self.ok = self.failed = 0
        self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[counts]}"), TimeElapsedColumn(), TextColumn("ETA"),
                            TimeRemainingColumn(), console=console)
        self.task = self.bar.add_task(f"{run_id} ({backend})" if backend else run_id, total=total,
                                      completed=already_done, counts="")
        self.live: Live | None = None

    def __enter__(self) -> RunProgress:
        if self.live_mode:
            self.live = Live(self.render(), console=self.console, refresh_per_second=4, get_renderable=self.render)
            self.live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.live is not None:
            self.live.__exit__(*exc)

    def started(self, key: str) -> None:
        self.running[key] = time.monotonic()

    def finished(self, key: str, line: dict[str, Any]) -> None:
        began = self.running.pop(key, time.monotonic())
        ok = line.get("status") == "ok"
        self.ok += ok
        self.failed += not ok
        detail = headline(line) if ok else str(line.get("error", ""))[:80]
        self.recent.appendleft((key, "ok" if ok else "FAILED", detail, time.monotonic() - began))
        self.bar.update(self.task, advance=1, counts=f"ok {self.ok}  failed {self.failed}")
        if not self.live_mode:
            done = self.bar.tasks[0].completed
            total = self.bar.tasks[0].total
            self.console.print(f"[{done:.0f}/{total:.0f}] {key}: {'ok' if ok else 'FAILED'} {detail} "
                               f"({time.monotonic() - began:.1f} s)", highlight=False, soft_wrap=True)

    def render(self) -> Group:
        table = Table("episode", "status", "detail", "s", box=None, pad_edge=False)
        now = time.monotonic()
        for key, began in list(self.running.items())[:8]:
            table.add_row(key, "[yellow]running[/yellow]", "", f"{now - began:.1f}")
        if len(self.running) > 8:
            table.add_row(f"... {len(self.running) - 8} more running", "", "", "")
        for key, status, detail, seconds in self.recent:
            colour = "green" if status == "ok" else "red"
            table.add_row(key, f"[{colour}]{status}[/{colour}]", detail, f"{seconds:.1f}")
        return Group(self.bar, table)
