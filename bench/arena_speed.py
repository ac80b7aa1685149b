"""Arena simulation speed with text and state observations.

Prints steps per second for the 4-agent levels and the step time for 16, 64 and 128 agents on the coop
level scaled up (more coins, turrets and ammo with more players). Actions are random but drawn before
timing, so only the env is measured; episodes reset when they end. Single process, single core.

    .venv/bin/python bench/arena_speed.py [--steps 2000] [--agents 16,64,128]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np

import rtarena


def measure(env_id: str, steps: int, seed: int = 0, chunk: int = 50, **kwargs) -> tuple[float, float, float]:
    """Seconds per step: the mean over `steps` steps after a warm-up, the best chunk of `chunk` steps
    (what the machine gives when nothing else competes for it), and the mean CPU time of this process."""
    env = rtarena.make(env_id, **kwargs)
    rng = np.random.default_rng(seed)
    n = len(env.possible_agents)
    actions = rng.integers(0, [3, 3, 3, 3, 2, 2, 2], size=(steps + 50, n, 7))
    env.reset(seed=seed)
    wall = cpu = 0.0
    chunks, in_chunk = [], 0.0
    for k in range(steps + 50):
        if not env.agents:
            env.reset(seed=seed + k)
        joint = {a: actions[k, env.agent_index[a]] for a in env.agents}
        start, start_cpu = time.perf_counter(), time.process_time()
        env.step(joint)
        if k >= 50:
            took = time.perf_counter() - start
            wall += took
            cpu += time.process_time() - start_cpu
            in_chunk += took
            if (k - 49) % chunk == 0:
                chunks.append(in_chunk / chunk)
                in_chunk = 0.0
    return wall / steps, min(chunks) if chunks else wall / steps, cpu / steps


def scaled(n: int) -> dict:
    """Coop with n players: counts grow with the number of players so the world stays busy."""
    return {"num_agents": n, "overrides": {"coins.count": max(24, n), "turret.count": max(6, n // 8),
                                           "ammo.count": max(6, n // 4)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--agents", default="16,64,128")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          "figures: mean / best chunk of 50 steps / CPU time")
    for env_id in ("arena/coop-v0", "arena/competitive-v0", "arena/mixed-v0"):
        w, b, c = measure(env_id, args.steps)
        print(f"{env_id:24s} 4 agents   {1 / w:6.0f} / {1 / b:6.0f} / {1 / c:6.0f} steps/s   target > 1000 steps/s")
    w, b, c = measure("arena/basic-v0", args.steps)
    print(f"{'arena/basic-v0':24s} 1 agent    {1 / w:6.0f} / {1 / b:6.0f} / {1 / c:6.0f} steps/s")
    for n in (int(x) for x in args.agents.split(",") if x):
        w, b, c = measure("arena/coop-v0", max(200, args.steps // max(1, n // 8)), chunk=20, **scaled(n))
        target = "   target < 10 ms" if n == 64 else ""
        print(f"{'arena/coop-v0 (scaled)':24s} {n:3d} agents {w * 1e3:6.2f} / {b * 1e3:6.2f} / {c * 1e3:6.2f} "
              f"ms/step{target}")


if __name__ == "__main__":
    main()
