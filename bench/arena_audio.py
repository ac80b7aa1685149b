"""Audio cost per step with many agents in a firefight: everyone walks, turns and fires every step.

    .venv/bin/python bench/arena_audio.py [--agents 64] [--steps 30]

Prints, per step, the time of the `audio` modality alone (source table and spatial mix for every
listener), P50 / P90 in ms and CPU P50, and the number of sound sources in the last step. Issue 19's target:
under 3 ms per step for 64 agents. Single-threaded and with the default render threads.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def run(agents: int, steps: int, threads: int | None) -> dict:
    from rtarena.envs.arena.audio import AudioObservation
    from rtarena.envs.arena.levels import CompetitiveLevel

    spent: list[float] = []
    cpu: list[float] = []
    original = AudioObservation.prepare

    def timed(self):
        start, cpu0 = time.perf_counter(), time.process_time()
        original(self)
        spent.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu0)

    AudioObservation.prepare = timed
    try:
        env = CompetitiveLevel(num_agents=agents, obs=("audio",), render_threads=threads,
                               overrides={"arena.time_limit_s": 600.0})
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        for k in range(steps + 5):
            actions = {a: np.array([rng.integers(0, 3), 2, rng.integers(0, 3), 1, 1, 0, 0]) for a in env.agents}
            env.step(actions)
            if not env.agents:
                env.reset(seed=k)
        times = np.array(spent[6:]) * 1e3  # the reset's prepare and the first five steps warm up
        cpu_ms = np.array(cpu[6:]) * 1e3
        from rtarena.envs.arena.audio.sources import hearing_of

        return {"p50_ms": float(np.percentile(times, 50)), "p90_ms": float(np.percentile(times, 90)),
                "cpu_p50_ms": float(np.percentile(cpu_ms, 50)),
                "sources_last_step": len(hearing_of(env).sources)}
    finally:
        AudioObservation.prepare = original


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=64)
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    for threads in (1, None):
        r = run(args.agents, args.steps, threads)
        label = "1 thread" if threads == 1 else "default threads"
        print(f"{args.agents} agents, {label}: audio P50 {r['p50_ms']:.2f} ms, P90 {r['p90_ms']:.2f} ms, "
              f"CPU P50 {r['cpu_p50_ms']:.2f} ms, "
              f"{r['sources_last_step']} sources in the last step")


if __name__ == "__main__":
    main()
