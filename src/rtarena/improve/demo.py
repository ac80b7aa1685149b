"""The improvement loop in `make demo`: offline, against the scripted policy server (not a model).

Cart-pole, 5 rounds x 3 episodes: the scripted player follows only the rules in its skill notes, the
scripted reflector reads the step tables through its tools and writes rules, the scripted judge checks
them. The curve is measured, not drawn: round 0 (no skill) is low, and what follows is what the
reflector's rules are worth, a harmful one (and its rollback) included.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from rtarena.improve.commands import launch
from rtarena.improve.loop import ImproveRun
from rtarena.improve.report import build_improve_report
from rtarena.improve.settings import ImproveSettings
from rtarena.policy_server import PolicyServer

# CartPole is no suite game: one action per decision (no chunk, no settle), 100 steps per episode for speed
DEMO = ImproveSettings(rounds=5, episodes=3, max_steps=100, settle_s=None)


def improve_section(out: Path, console: Console, settings: ImproveSettings = DEMO) -> None:
    """One offline improvement run and its report (`settings`: the demo's, or `--quick`'s fewer episodes)."""
    import shutil

    run_dir = out / "improve-cartpole"  # directly under the demo folder: the dashboard lists it
    shutil.rmtree(run_dir, ignore_errors=True)
    with PolicyServer() as server:
        def spec(policy: str) -> str:
            return f"scripted-{policy}@{server.url(policy=policy)}"

        run = ImproveRun("classic/cartpole-v0", "llm:" + spec("skill"), spec("reflector"), spec("judge"), settings,
                         run_dir)
        launch(run, console, Console(stderr=True, quiet=True))
    page = build_improve_report([run_dir])
    console.print(f"improvement run (scripted player, reflector and judge): {run_dir}; report: {page}")
