"""Small experiment files and a CLI runner shared by the eval tests."""

from __future__ import annotations

import json
import sys
from pathlib import Path

RTARENA = [sys.executable, "-m", "rtarena.cli"]

CARTPOLE = """
name = "{name}"
seeds = {seeds}
max_steps = {max_steps}
out = "{out}"
envs = ["classic/cartpole-v0"]
agents = {agents}

[[clocks]]
name = "turn-based"
clock = "paused"

[[clocks]]
name = "delay-60ms"
clock = "paused"
delay_ms = 60
"""


def cartpole_experiment(folder: Path, name: str = "cp", seeds: int = 5, max_steps: int = 200,
                        agents: tuple[str, ...] = ("heuristic", "random")) -> Path:
    """A paused-clock cart-pole experiment: agents x 2 clock settings x seeds episodes."""
    path = folder / f"{name}.toml"
    path.write_text(CARTPOLE.format(name=name, seeds=seeds, max_steps=max_steps, out=folder / "runs",
                                    agents=json.dumps(list(agents))))
    return path


def lines(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "episodes.jsonl").read_text().splitlines()]


def comparable(line: dict) -> dict:
    """An episode line without what depends on the machine (wall times, worker, latencies)."""
    out = {k: v for k, v in line.items()
           if k not in ("wall_seconds", "worker", "worker_seconds", "run_id", "period_error_p50_s",
                        "period_error_p99_s")}
    out["agents"] = {a: {k: v for k, v in m.items() if not k.startswith("wall_latency")}
                     for a, m in line.get("agents", {}).items()}
    return out
