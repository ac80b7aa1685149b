"""`make demo`: what rtarena does, offline, with scripted agents only.

`run_demo(out, console, quick=True)` (`rtarena demo --quick`) runs every section with a tenth of the steps:
what the test of `make demo` runs.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from rtarena.eval.episodes import EpisodeJob, run_episode

CARTPOLE_SETTINGS = [
    ("paused", 0.0), ("paused", 0.1), ("token", 0.0), ("token", 0.1), ("wall", 0.0), ("wall", 0.1),
]


def cartpole_section(out: Path, console: Console, scale: float = 1.0) -> None:
    """The scripted balancer under each clock, with and without a 100 ms injected delay."""
    table = Table("clock", "injected delay", "pole up (s of 10)", "decisions",
                  title="classic/cartpole-v0: a scripted balancer, dt = 20 ms")
    for clock, delay_s in CARTPOLE_SETTINGS:
        job = EpisodeJob("classic/cartpole-v0", ("heuristic",), clock, seed=0, max_steps=round(500 * scale),
                         clock_settings={"delay_s": delay_s}, label=f"{clock}-delay{int(delay_s * 1000)}ms")
        line = run_episode(job, out / "cartpole")
        table.add_row(clock, f"{delay_s * 1000:.0f} ms", f"{line['sim_seconds']:.2f}", str(line["decisions"]))
    console.print(table)
    console.print(f"cart-pole records: {out / 'cartpole'}/episodes.jsonl and decisions/*.parquet")


# (metric, header, format): headers stay short so the table fits an 80-column terminal
ARENA_COLUMNS = [("score", "score", "{:.2f}"), ("coins", "coins", "{}"), ("kills", "kills", "{}"),
                 ("deaths", "deaths", "{}"), ("accuracy", "acc", "{:.2f}"), ("incoming_hit_rate", "hit in", "{:.2f}"),
                 ("survival", "surv", "{:.2f}"), ("effective_action_frequency", "act f", "{:.2f}"),
                 ("outcome", "result", "{}")]


def _cell(value, fmt: str) -> str:
    return "-" if value is None else fmt.format(value)


def arena_section(out: Path, console: Console, scale: float = 1.0) -> None:
    """A cooperative match of heuristic bots (its metrics table), the same bots with a 1 s delay, and
    heuristic bots against random players in the competitive level."""
    matches = [
        ("arena/coop-v0", ("heuristic",), "paused", 0.0, "coop, heuristic bots, paused clock"),
        ("arena/coop-v0", ("heuristic",), "paused", 1.0, "coop, heuristic bots, 1 s injected delay"),
        ("arena/competitive-v0", ("heuristic", "random", "heuristic", "random"), "paused", 0.0,
         "competitive, heuristic bots (p0, p2) against random players (p1, p3)"),
    ]
    for env_id, specs, clock, delay_s, title in matches:
        job = EpisodeJob(env_id, specs, clock, seed=0, max_steps=round(1200 * scale),
                         clock_settings={"delay_s": delay_s}, label=f"{clock}-delay{int(delay_s * 1000)}ms")
        line = run_episode(job, out / "arena")
        table = Table("agent", *(header for _, header, _ in ARENA_COLUMNS),
                      title=f"{env_id}: {title} ({line['sim_seconds']:.1f} s simulated)")
        for agent, metrics in line["agents"].items():
            table.add_row(agent, *(_cell(metrics.get(name), fmt) for name, _, fmt in ARENA_COLUMNS))
        console.print(table)
    console.print("acc = hits / shots; hit in = hits taken / shots aimed at the agent; surv = fraction of the "
                  "episode alive; act f = effective action frequency (docs/metrics.md)")
    console.print(f"arena records: {out / 'arena'}/episodes.jsonl, decisions/, events/ (Parquet)")


def senses_section(out: Path, console: Console, scale: float = 1.0) -> None:
    """A sample of what an arena agent sees and hears in each level: RGB, depth, minimap, spectator."""
    from rtarena.demo.samples import save_level_samples

    folder = out / "senses"
    save_level_samples(folder, steps=max(2, round(12 * scale)))
    console.print(f"sample frames (RGB, depth, minimap, spectator view, audio) of each level: {folder}")


def improve_section(out: Path, console: Console, scale: float = 1.0) -> None:
    """An offline improvement run: scripted player, reflector and judge (improve/demo.py; the same run in
    the quick tour: its rounds are what it shows)."""
    from rtarena.improve.demo import improve_section as run_improve

    run_improve(out, console)


def games_section(out: Path, console: Console, scale: float = 1.0) -> None:
    """Each game of the suite: its scripted player against random (seed 0, paused clock) and a sample
    frame of what the player sees."""
    from rtarena.demo.games import save_game_frames

    folder = out / "games"
    table = Table("game", "heuristic (privileged)", "random",
                  title="game suite: p0's score in [0, 1] (PvP: against random), seed 0, paused")
    for env_id, scores in save_game_frames(folder, max_steps=round(2000 * scale)).items():
        table.add_row(env_id, f"{scores['heuristic']:.2f}", f"{scores['random']:.2f}")
    console.print(table)
    console.print(f"sample frames of each game: {folder}")


SECTIONS = [cartpole_section, arena_section, senses_section, improve_section, games_section]


def run_demo(out: Path, console: Console, quick: bool = False) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for section in SECTIONS:
        section(out, console, scale=0.1 if quick else 1.0)
    console.print(f"[bold]demo output:[/bold] {out.resolve()}")
