"""Base vs trained, as the research system's (ROAR's) fine-tuning table, through the `rl-eval` preset:
arena/basic-v0, turn-based and real time at 250 ms and 40 ms steps, full 5-minute episodes, score, coins,
accuracy, incoming hit rate and decision latency P50/P90, with the scripted heuristic bot as reference.

    .venv/bin/python bench/train_table.py [--steps 60000] [--seeds 20] [--workers 8] [--trained SPEC --base SPEC]

Without `--trained`, trains PPO on arena/basic-v0's state (`rtarena train sb3`) and saves the untrained
policy of the same architecture as the base (`--steps 0`); with it, compares any two agent specs (a pixel
policy, `vlm:MODEL,adapter=DIR,history=0` against `vlm:MODEL,history=0`). Real-time episodes take their
five minutes of wall time, so `--workers` run at once; `--seeds` below 20 makes a quicker, smaller table.
Prints a Markdown table of means over the seeds (accuracy and hit rate over the episodes that define them).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from rtarena.eval.presets import load_preset
from rtarena.eval.runner import run_experiment
from rtarena.train.sb3 import train_sb3

CLOCKS = ("turn-based", "realtime-250ms", "realtime-40ms")  # the rl-eval preset's clock settings
COLUMNS = ("score", "coins", "accuracy", "incoming_hit_rate", "wall_latency_p50_s", "wall_latency_p90_s")


def mean(values: list) -> str:
    values = [v for v in values if v is not None]
    return f"{np.mean(values):.3f}" if values else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60000)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--trained", default=None, help="agent spec (default: train sb3 now)")
    parser.add_argument("--base", default=None, help="agent spec (default: the untrained sb3 policy)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    root = Path(args.out or tempfile.mkdtemp(prefix="rtarena-train-table-"))
    trained = args.trained or f"sb3:{train_sb3('arena/basic-v0', args.steps, root / 'ppo.zip')}"
    base = args.base or f"sb3:{train_sb3('arena/basic-v0', 0, root / 'base.zip')}"
    preset = load_preset("rl-eval", params={"trained": trained, "base": base})
    experiment = replace(preset, seeds=tuple(range(1000, 1000 + args.seeds)), out=str(root / "runs"))
    result = run_experiment(experiment, run_id="table", workers=args.workers)
    episodes = [json.loads(line) for line in (result.run_dir / "episodes.jsonl").read_text().splitlines()]
    print(f"\narena/basic-v0 (rl-eval), {args.seeds} seeds (1000..), 300 s episodes; trained {trained}, base {base};"
          f" {len(os.sched_getaffinity(0))} CPUs, load average {os.getloadavg()[0]:.1f}; failed episodes: "
          f"{result.failed}")
    print("| agent | clock | " + " | ".join(COLUMNS) + " |")
    print("|---|---|" + "---|" * len(COLUMNS))
    for lineup in experiment.lineups:
        for clock in CLOCKS:
            rows = [e["agents"]["p0"] for e in episodes if e.get("lineup") == lineup.name and
                    e.get("clock_name") == clock and "agents" in e]
            print(f"| {lineup.name} | {clock} | " + " | ".join(mean([r.get(c) for r in rows]) for c in COLUMNS)
                  + f" |  (n={len(rows)})")


if __name__ == "__main__":
    main()
