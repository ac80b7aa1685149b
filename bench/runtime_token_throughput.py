"""Token clock: how fast a 5-minute episode runs with 4 instant controllers at dt = 40 ms.

    .venv/bin/python bench/runtime_token_throughput.py [--controllers 4] [--sim-minutes 5]

Prints the scheduler's decisions per second and the episode's wall time as a fraction of its simulated
time, with the env's own step cost measured separately and taken out (target: under 10 %).
"""

from __future__ import annotations

import argparse
import time

import rtarena
from _envs import IdleEnv


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--controllers", type=int, default=4)
    parser.add_argument("--sim-minutes", type=float, default=5.0)
    parser.add_argument("--dt", type=float, default=0.04)
    parser.add_argument("--tokens", type=int, default=0, help="declared output tokens per decision")
    args = parser.parse_args()
    steps = round(args.sim_minutes * 60 / args.dt)

    env = IdleEnv(args.controllers, args.dt)
    env.reset(seed=0)
    started = time.perf_counter()
    for _ in range(steps):
        env.step({a: 0 for a in env.agents})
    env_cost = time.perf_counter() - started

    agents = [lambda obs: 1 for _ in range(args.controllers)]
    rtarena.run_match(IdleEnv(args.controllers, args.dt), agents, clock="token", max_steps=100)  # warm-up
    for label, clock in [("token", rtarena.make_clock("token", kappa=100.0)), ("paused", "paused")]:
        result = rtarena.run_match(IdleEnv(args.controllers, args.dt), agents, clock=clock, max_steps=steps)
        runtime_s = result.wall_seconds - env_cost
        print(f"{label:6s}: {steps} steps ({result.sim_seconds:.0f} s simulated), {len(result.decisions)} decisions "
              f"in {result.wall_seconds:.2f} s wall (env stepping alone {env_cost:.2f} s)")
        print(f"        {len(result.decisions) / result.wall_seconds:,.0f} decisions/s; runtime cost "
              f"{100 * runtime_s / result.sim_seconds:.2f} % of real time (target < 10 %)")


if __name__ == "__main__":
    main()
