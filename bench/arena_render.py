"""The arena's scaling table: per-step env update time (P50, P90) and peak memory by agent count and
observation, on this machine.

    .venv/bin/python bench/arena_render.py [--steps 40] [--agents 4,8,12,16,32,64,128,256] [--state-agents 256,512]

Each cell is a fresh process running `arena/coop-v0` scaled to N agents (`num_agents=N`) with random
actions; the time is one `env.step()` (world simulation, sub-steps, observations, rendering), the
memory the process's peak resident set (Python, numba and all). CPU time per step (all threads) is
shown too: when other work shares the machine, wall times grow but CPU times mostly do not.

Rows: `state` only (also at 256 and 512 agents: issue 19's target is P90 under 40 ms with 512), `rgb` and
`rgb+depth` at 128x128, then 4 agents at 320x240 and 640x480.
Rendering uses every CPU this process may use (`render_threads` default). The table ends with the 25 Hz
line (P90 < 40 ms per update): for each observation, the most agents that stay under it. The research
system this follows (ROAR) keeps 25 Hz with up to 16 agents on state, 12 on pixels and 8 on pixels+depth
(agent counts, not update rates); the target here is 64 agents or more on rgb+depth at 128x128, and
issue 19's: 256 agents on rgb+depth at 128x128 with P90 under 25 ms (the 256 row).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

LINE_MS = 40.0  # 25 Hz: an update every 40 ms at the 90th percentile
PAPER_AGENTS_AT_25HZ = {"state": 16, "rgb": 12, "rgb+depth": 8}  # ROAR's scaling table, agent counts


def run_cell(agents: int, obs: tuple[str, ...], resolution, steps: int) -> dict:
    import numpy as np

    from rtarena.envs.arena.levels import CoopLevel
    from rtarena.envs.arena.render.renderer import ArenaRenderer

    render_s = []
    original = ArenaRenderer.render

    def timed(self, *a, **k):
        start = time.perf_counter()
        out = original(self, *a, **k)
        render_s.append(time.perf_counter() - start)
        return out

    ArenaRenderer.render = timed
    env = CoopLevel(num_agents=agents, obs=obs, resolution=resolution)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    nvec = np.array([3, 3, 3, 3, 2, 2, 2])
    times, rendered, renders, cpu = [], [], [], []
    for k in range(steps + 5):
        if not env.agents:
            env.reset(seed=k)
        actions = {a: rng.integers(0, nvec) for a in env.agents}
        n = len(env.agents)
        render_s.clear()
        start, cpu0 = time.perf_counter(), time.process_time()
        env.step(actions)
        if k >= 5:
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - cpu0)
            rendered.append(n)
            renders.append(sum(render_s))
    env.close()
    t = np.array(times) * 1e3
    r = np.array(renders) * 1e3
    return {"p50_ms": float(np.percentile(t, 50)), "p90_ms": float(np.percentile(t, 90)),
            "cpu_p50_ms": float(np.percentile(np.array(cpu) * 1e3, 50)),
            "cpu_p90_ms": float(np.percentile(np.array(cpu) * 1e3, 90)),
            "render_p50_ms": float(np.percentile(r, 50)), "render_p90_ms": float(np.percentile(r, 90)),
            "agents_mean": float(np.mean(rendered)),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def cell(agents: int, obs: str, resolution: str, steps: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--cell", str(agents), obs, resolution, str(steps)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--agents", default="4,8,12,16,32,64,128,256")
    parser.add_argument("--state-agents", default="256,512", help="more agent counts, state only")
    parser.add_argument("--cell", nargs=4)
    args = parser.parse_args()
    if args.cell:
        n, obs, res, steps = args.cell
        w, h = (int(v) for v in res.split("x"))
        print(json.dumps(run_cell(int(n), tuple(obs.split("+")), (w, h), int(steps))))
        return 0
    counts = [int(v) for v in args.agents.split(",")]
    cell(4, "rgb+depth", "128x128", 2)  # compile the kernels once, outside the timings
    cpus = len(os.sched_getaffinity(0))
    load = os.getloadavg()[0]
    print(f"arena/coop-v0, random actions, {args.steps} steps per cell, {cpus} CPUs (load average "
          f"{load:.1f} at the start); time per env.step() in ms, of which rendering; peak RSS in MB")
    print("| agents | obs | resolution | P50 ms | P90 ms | updates/s (P50) | render P50 / P90 ms | CPU ms per step "
          "(P50 / P90, all threads) | agents alive (mean) | peak MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    state_only = [int(v) for v in args.state_agents.split(",") if v]
    rows = [(n, obs, "128x128") for obs in ("state", "rgb", "rgb+depth")
            for n in (counts + [m for m in state_only if m not in counts] if obs == "state" else counts)]
    rows += [(4, "rgb+depth", "320x240"), (4, "rgb+depth", "640x480")]
    under_line: dict[str, int] = {}
    for n, obs, res in rows:
        r = cell(n, obs, res, args.steps)
        if res == "128x128" and r["p90_ms"] < LINE_MS:
            under_line[obs] = max(under_line.get(obs, 0), n)
        shown_res = res if obs != "state" else "-"
        render = f"{r['render_p50_ms']:.2f} / {r['render_p90_ms']:.2f}" if obs != "state" else "-"
        print(f"| {n} | {obs} | {shown_res} | {r['p50_ms']:.2f} | {r['p90_ms']:.2f} | {1000 / r['p50_ms']:.0f} "
              f"| {render} | {r['cpu_p50_ms']:.2f} / {r['cpu_p90_ms']:.2f} | {r['agents_mean']:.1f} "
              f"| {r['peak_rss_mb']:.0f} |", flush=True)
    print(f"\n25 Hz line (P90 < {LINE_MS:g} ms), most agents under it | here | ROAR")
    for obs, paper in PAPER_AGENTS_AT_25HZ.items():
        tried = max(counts + state_only) if obs == "state" else max(counts)
        print(f"| {obs} | {under_line.get(obs, 0)} (of {tried} tried) | {paper} |")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
