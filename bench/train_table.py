"""Base vs trained, as the research system's (ROAR's) fine-tuning table: turn-based and real time at
250 ms and 40 ms steps, 20 seeds, score, coins, accuracy, incoming hit rate and decision latency P50/P90.

    .venv/bin/python bench/train_table.py [--steps 60000] [--seeds 20] [--workers 8] [--policy PATH]

Trains PPO on arena/basic-v0's state (`rtarena train sb3`; or takes `--policy`), saves the untrained policy
of the same architecture as the base (`--steps 0`), and plays both on held-out seeds through the experiment
runner (episodes of 30 s of sim time, the training length; real-time episodes take that long in wall time,
so they run `--workers` at once). Prints a Markdown table of means over the seeds (accuracy and hit rate
over the episodes where they are defined).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from rtarena.eval.experiment_file import parse_experiment
from rtarena.eval.runner import run_experiment
from rtarena.train.sb3 import TRAIN_TIME_LIMIT_S, train_sb3

CLOCKS = [{"name": "turn-based", "clock": "paused", "dt": 0.25},
          {"name": "realtime-250ms", "clock": "wall", "dt": 0.25},
          {"name": "realtime-40ms", "clock": "wall", "dt": 0.04}]
COLUMNS = ("score", "coins", "accuracy", "incoming_hit_rate", "wall_latency_p50_s", "wall_latency_p90_s")


def mean(values: list) -> str:
    values = [v for v in values if v is not None]
    return f"{np.mean(values):.3f}" if values else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60000)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--policy", default=None)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    root = Path(args.out or tempfile.mkdtemp(prefix="rtarena-train-table-"))
    policy = Path(args.policy) if args.policy else train_sb3("arena/basic-v0", args.steps, root / "ppo.zip")
    base = train_sb3("arena/basic-v0", 0, root / "base.zip")
    table = {"name": "train-table", "out": str(root / "runs"), "seeds": args.seeds, "seed_start": 1000,
             "max_steps": 100000,
             "envs": [{"id": "arena/basic-v0", "overrides": {"arena.time_limit_s": TRAIN_TIME_LIMIT_S}}],
             "agents": [{"name": "base", "slots": [f"sb3:{base}"]}, {"name": "trained", "slots": [f"sb3:{policy}"]}],
             "clocks": CLOCKS}
    result = run_experiment(parse_experiment(table), run_id="table", workers=args.workers)
    episodes = [json.loads(line) for line in (result.run_dir / "episodes.jsonl").read_text().splitlines()]
    print(f"\narena/basic-v0, {args.seeds} seeds (1000..), {TRAIN_TIME_LIMIT_S:g} s episodes, PPO trained "
          f"{args.steps if not args.policy else 'elsewhere'} steps; {len(os.sched_getaffinity(0))} CPUs, load "
          f"average {os.getloadavg()[0]:.1f}; failed episodes: {result.failed}")
    print("| policy | clock | " + " | ".join(COLUMNS) + " |")
    print("|---|---|" + "---|" * len(COLUMNS))
    for lineup in ("base", "trained"):
        for clock in CLOCKS:
            rows = [e["agents"]["p0"] for e in episodes if e.get("lineup") == lineup and
                    e.get("clock_name") == clock["name"] and "agents" in e]
            print(f"| {lineup} | {clock['name']} | " + " | ".join(mean([r.get(c) for r in rows]) for c in COLUMNS)
                  + f" |  (n={len(rows)})")


if __name__ == "__main__":
    main()
