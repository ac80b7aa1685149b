"""`make demo`: what rtarena does, offline, with scripted agents only."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from rtarena.eval.episodes import EpisodeJob, run_episode

CARTPOLE_SETTINGS = [
    ("paused", 0.0), ("paused", 0.1), ("token", 0.0), ("token", 0.1), ("wall", 0.0), ("wall", 0.1),
]


def cartpole_section(out: Path, console: Console) -> None:
    """The scripted balancer under each clock, with and without a 100 ms injected delay."""
    table = Table("clock", "injected delay", "pole up (s of 10)", "decisions",
                  title="classic/cartpole-v0: a scripted balancer, dt = 20 ms")
    for clock, delay_s in CARTPOLE_SETTINGS:
        job = EpisodeJob("classic/cartpole-v0", ("heuristic",), clock, seed=0, max_steps=500,
                         clock_settings={"delay_s": delay_s}, label=f"{clock}-delay{int(delay_s * 1000)}ms")
        line = run_episode(job, out / "cartpole")
        table.add_row(clock, f"{delay_s * 1000:.0f} ms", f"{line['sim_seconds']:.2f}", str(line["decisions"]))
    console.print(table)
    console.print(f"cart-pole records: {out / 'cartpole'}/episodes.jsonl and decisions/*.parquet")


SECTIONS = [cartpole_section]


def run_demo(out: Path, console: Console) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for section in SECTIONS:
        section(out, console)
    console.print(f"[bold]demo output:[/bold] {out.resolve()}")
