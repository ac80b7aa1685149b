"""Vectorised arena throughput: env steps per second of `ArenaVectorEnv` on `arena/basic-v0`.

    .venv/bin/python bench/arena_vector.py [--steps 200] [--envs 1,8,32]

For state observations and 84x84 pixels, with N copies in one process: the total env steps per second
(N x vector steps per second), random actions drawn before timing, after a warm-up (numba compiles).
Single process; rendering uses the threads the renderer is given (`NUMBA_NUM_THREADS`).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from rtarena.envs.arena.vector import ArenaVectorEnv


def measure(obs: str, n: int, steps: int, seed: int = 0) -> float:
    env = ArenaVectorEnv("arena/basic-v0", num_envs=n, obs=obs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = rng.integers(0, env.single_action_space.nvec, size=(steps + 10, n, len(env.single_action_space.nvec)))
    for k in range(10):
        env.step(actions[k])
    start = time.perf_counter()
    for k in range(10, steps + 10):
        env.step(actions[k])
    took = time.perf_counter() - start
    env.close()
    return steps * n / took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--envs", default="1,8,32")
    args = parser.parse_args()
    counts = [int(v) for v in args.envs.split(",")]
    print(f"arena/basic-v0, {args.steps} vector steps per cell, {len(os.sched_getaffinity(0))} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at the start")
    print("| N | state: env steps/s | pixels 84x84: env steps/s |")
    print("|---|---|---|")
    for n in counts:
        state, pixels = measure("state", n, args.steps), measure("pixels", n, args.steps)
        print(f"| {n} | {state:,.0f} | {pixels:,.0f} |", flush=True)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
