"""Evaluation throughput: episodes per second in this process, on the local pool, and (opt-in) on Ray.

    .venv/bin/python bench/eval_throughput.py            # inline and pool
    unshare -n sh -c 'ip link set lo up; RAY_AUTH_MODE=disabled .venv/bin/python bench/eval_throughput.py --ray'

Prints one row per (workload, backend): episodes, env steps, wall seconds, episodes/s, steps/s, and the
driver's cost of writing one episode (video off). Figures depend on the machine's load.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from rtarena.eval.experiment_file import parse_experiment
from rtarena.eval.runner import run_experiment
from rtarena.eval.store import read_episodes

WORKLOADS = {
    "cartpole heuristic, 500 steps": {"envs": ["classic/cartpole-v0"], "agents": ["heuristic"],
                                      "clocks": ["paused"], "seeds": 64, "max_steps": 500},
    "arena/coop-v0 4 heuristic bots, 240 steps": {
        "envs": ["arena/coop-v0"], "agents": ["heuristic"],
        "clocks": [{"clock": "paused", "dt": 0.25}], "seeds": 8, "max_steps": 240},
}


def measure(name: str, table: dict, backend: str, workers: int, ray: str | None, root: Path) -> None:
    experiment = parse_experiment({"name": "bench", "out": str(root), **table})
    quiet = Console(file=open("/dev/null", "w"))  # noqa: SIM115 - lives as long as the run
    started = time.perf_counter()
    result = run_experiment(experiment, run_id=f"{backend}-{abs(hash(name))}", workers=workers, ray=ray,
                            console=quiet)
    wall = time.perf_counter() - started
    lines = read_episodes(result.run_dir)
    steps = sum(line.get("steps", 0) for line in lines)
    worker_s = sum(line.get("worker_seconds") or 0 for line in lines)
    print(f"| {name} | {backend} | {len(lines)} | {steps} | {wall:.2f} | {len(lines) / wall:.1f} | "
          f"{steps / wall:.0f} | {worker_s / max(1, len(lines)) * 1000:.0f} ms |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ray", action="store_true", help="also run on a private local Ray cluster")
    args = parser.parse_args()
    print("| workload | backend | episodes | steps | wall s | episodes/s | steps/s | worker s per episode |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for name, table in WORKLOADS.items():
            measure(name, table, "inline", 1, None, Path(folder))
            measure(name, table, "pool x2", 2, None, Path(folder))
            if args.ray:
                measure(name, table, "ray local x2", 2, "local", Path(folder))


if __name__ == "__main__":
    sys.exit(main())
