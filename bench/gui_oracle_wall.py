"""Whether each browser task's oracle solves it under the wall clock on this machine, and how long it took.

    .venv/bin/python bench/gui_oracle_wall.py [--seeds 2]

Under `paused` and `token` the oracle solves every task (tests/gui/test_tasks.py); under `wall` it must
also keep up with real time, which a loaded machine may not: this prints successes out of the seeds, the
median decision latency and the wall seconds per episode.
"""

from __future__ import annotations

import argparse
import statistics

import rtarena
from rtarena.agents.gui_oracle import GuiOracleAgent
from rtarena.envs.registry import ENV_TABLE


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args()
    ids = [spec.id for spec in ENV_TABLE if spec.family in ("web", "gui-games")]
    print(f"{'env':26s} {'solved':>7s} {'latency ms':>11s} {'wall s':>7s}")
    for env_id in ids:
        env = rtarena.make(env_id, obs=("marks", "goal", "time"))
        solved, latencies, walls = 0, [], []
        for seed in range(args.seeds):
            result = rtarena.run_match(env, GuiOracleAgent(), clock="wall", seed=seed, max_steps=400)
            solved += int(result.agents["user"]["success"] == 1.0)
            latencies += [d.wall_latency_s for d in result.decisions]
            walls.append(result.wall_seconds)
        env.close()
        print(f"{env_id:26s} {solved:3d} / {args.seeds:<2d} {1000 * statistics.median(latencies):11.1f} "
              f"{statistics.median(walls):7.2f}")


if __name__ == "__main__":
    main()
