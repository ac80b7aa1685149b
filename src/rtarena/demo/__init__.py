"""`make demo`: what rtarena does, offline, with scripted agents only.

`run_demo(out, console, quick=True)` (`rtarena demo --quick`) runs every section with a twentieth of the
steps (`QUICK`; the improvement run: one episode a round instead of three): what the test of `make demo`
runs. Every section and episode says what it starts (without `rtarena warmup`, the first arena match waits
about a minute for its kernels to compile), and every folder it writes is a run the dashboard lists:
`rtarena dashboard --root demo-out` shows the cart-pole and arena runs, the improvement run and the game
suite's table, with one arena episode and one suite game recorded as video (when the `video` extra is
installed).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from rtarena.eval.episodes import EpisodeJob, run_episode
from rtarena.runtime.clocks import make_clock


def started(console: Console, text: str) -> None:
    """A progress line: what the demo is about to do (so a minute of compiling is not silence)."""
    console.print(f"  ... {text}", style="dim", highlight=False)


def can_record_video() -> bool:
    """Whether MP4s can be written here (the `video` extra: imageio-ffmpeg and pygame)."""
    import importlib.util

    return all(importlib.util.find_spec(name) is not None for name in ("imageio_ffmpeg", "pygame"))

CARTPOLE_SETTINGS = [
    ("paused", 0.0), ("paused", 0.1), ("token", 0.0), ("token", 0.1), ("wall", 0.0), ("wall", 0.1),
]


def cartpole_section(out: Path, console: Console, scale: float = 1.0) -> None:
    """The scripted balancer under each clock, with and without a 100 ms injected delay."""
    table = Table("clock", "injected delay", "pole up (s of 10)", "decisions",
                  title="classic/cartpole-v0: a scripted balancer, dt = 20 ms")
    for clock, delay_s in CARTPOLE_SETTINGS:
        job = EpisodeJob("classic/cartpole-v0", ("heuristic",), make_clock(clock, delay_s=delay_s), seed=0,
                         max_steps=round(500 * scale), label=f"{clock}-delay{int(delay_s * 1000)}ms")
        started(console, f"cart-pole, {clock} clock, {delay_s * 1000:.0f} ms delay")
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
    video = can_record_video()
    for number, (env_id, specs, clock, delay_s, title) in enumerate(matches):
        job = EpisodeJob(env_id, specs, make_clock(clock, delay_s=delay_s), seed=0, max_steps=round(1200 * scale),
                         label=f"{clock}-delay{int(delay_s * 1000)}ms",
                         video=video and number == 0)  # one match on video: the dashboard replays it
        started(console, f"{env_id}: {title}" + (" (compiling kernels: about a minute, unless `rtarena warmup` "
                                                 "has filled the cache)" if number == 0 else "")
                + (", with video" if job.video else ""))
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
    started(console, "sample frames and audio of each arena level")
    save_level_samples(folder, steps=max(2, round(12 * scale)))
    console.print(f"sample frames (RGB, depth, minimap, spectator view, audio) of each level: {folder}")


def improve_section(out: Path, console: Console, scale: float = 1.0) -> None:
    """An offline improvement run: scripted player, reflector and judge (improve/demo.py; the quick tour
    plays the same rounds, its rounds being what it shows, with one episode each)."""
    from rtarena.improve.demo import DEMO
    from rtarena.improve.demo import improve_section as run_improve

    settings = DEMO.model_copy(update={"episodes": max(1, round(DEMO.episodes * scale))})
    started(console, f"an improvement run: {settings.rounds} rounds of a scripted player, reflector and judge")
    run_improve(out, console, settings)


def games_section(out: Path, console: Console, scale: float = 1.0) -> None:
    """Each game of the suite: its scripted player against random (seed 0, paused clock) and a sample
    frame of what the player sees."""
    from rtarena.demo.games import game_jobs, save_game_frames

    folder = out / "games"
    started(console, "a sample frame of each game")
    save_game_frames(folder)
    table = Table("game", "heuristic (privileged)", "random",
                  title="game suite: p0's score in [0, 1] (PvP: against random), seed 0, paused")
    scores: dict[str, dict[str, float]] = {}
    for job in game_jobs(max_steps=round(2000 * scale), video=can_record_video()):
        started(console, f"{job.env_id}, {job.label}" + (", with video" if job.video else ""))
        line = run_episode(job, folder)  # a run folder of its own: the dashboard lists the games' table
        scores.setdefault(job.env_id, {})[job.label] = line["agents"]["p0"]["score"]
    for env_id, by_spec in scores.items():
        table.add_row(env_id, f"{by_spec['heuristic']:.2f}", f"{by_spec['random']:.2f}")
    console.print(table)
    console.print(f"sample frames and records of each game: {folder}")


SECTIONS = [cartpole_section, arena_section, senses_section, improve_section, games_section]
# each section's heading: whole sentences (a docstring's first line stops mid-sentence)
TITLES = {
    cartpole_section: "Cart-pole: the scripted balancer under each clock, with and without a 100 ms delay.",
    arena_section: "The arena: heuristic bots cooperating, the same with a 1 s delay, and against random players.",
    senses_section: "What an arena agent sees and hears in each level: RGB, depth, minimap, spectator, audio.",
    improve_section: "An offline improvement run: a scripted player, reflector and judge.",
    games_section: "The game suite: each game's scripted player against random, and a sample frame.",
}
QUICK = 0.05  # `--quick`'s share of the steps: enough for every section to write what it shows


def run_demo(out: Path, console: Console, quick: bool = False) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for number, section in enumerate(SECTIONS, 1):
        console.print(f"[bold][{number}/{len(SECTIONS)}][/bold] {TITLES[section]}", highlight=False)
        section(out, console, scale=QUICK if quick else 1.0)
    console.print(f"[bold]demo output:[/bold] {out.resolve()}")
    console.print(f"browse it: rtarena dashboard --root {out}", highlight=False)
