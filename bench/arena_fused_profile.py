"""Where the fused arena step's time goes (issue 33), CPU time on one pinned core, one process:

    .venv/bin/python bench/arena_fused_profile.py

- batch: 32 copies of `arena/basic-v0` at 84x84 RGB: the batched step, the renderer alone on the same copies'
  worlds (`ArenaRenderer.render`: tables, `render_range`, HUD), the world step alone (`Simulation.step`), and
  the copy-by-copy loop (`batched=False`), best of 3 interleaved rounds, us of CPU per frame;
- one agent: `arena/coop-v0` with one agent at 160x120 RGB: `env.step` fused, its compiled call alone for the
  same actions, the renderer alone for that view, `env.step` with `fuse = False`, us of CPU per step.
"""

from __future__ import annotations

import os
import time

import numpy as np

from rtarena.envs.arena.levels import CoopLevel
from rtarena.envs.arena.render.observations import Senses
from rtarena.envs.arena.vector import ArenaVectorEnv

NVEC = [3, 3, 3, 3, 2, 2, 2]


def cpu_us(fn, frames: int) -> float:
    start = time.process_time()
    fn()
    return (time.process_time() - start) / frames * 1e6


def batch(n: int = 32, steps: int = 60) -> dict[str, float]:
    envs = {}
    for batched in (True, False):
        env = ArenaVectorEnv("arena/basic-v0", num_envs=n, obs="pixels", env_kwargs={"render_threads": 1},
                             batched=batched)
        for copy in env.envs:
            copy.fuse = batched  # copy by copy: the env's own step
        env.reset(seed=0)
        envs[batched] = env
    acts = np.random.default_rng(0).integers(0, NVEC, size=(steps, n, 7))
    for env in envs.values():
        for k in range(5):
            env.step(acts[k])

    def stepping(env):
        return lambda: [env.step(a) for a in acts]

    def rendering():
        for _ in range(steps):
            for e in envs[True].envs:
                r = Senses.of(e).ensure_renderer()
                e.world.players.yaw[0] += 0.05
                r.render(e.world, [0], hud=r.hud_table(e.world, [0], e.points), depth=False)

    def world():
        for _ in range(steps):
            for e in envs[False].envs:
                e.sim.step(e.world, e.log, e.np_random, np.zeros((1, 7), np.int64), e.substeps, e.substep_s, e._motion)

    rows = {"batched step": stepping(envs[True]), "copy by copy (batched=False)": stepping(envs[False]),
            "renderer alone": rendering, "world step alone (Simulation.step)": world}
    best = dict.fromkeys(rows, float("inf"))
    for _ in range(3):
        for name, fn in rows.items():
            best[name] = min(best[name], cpu_us(fn, steps * n))
    return best


def one_agent(steps: int = 300) -> dict[str, float]:
    acts = np.random.default_rng(0).integers(0, NVEC, size=(steps, 7))
    out = {}
    for fuse in (True, False):
        env = CoopLevel(num_agents=1, obs=("rgb",), resolution=(160, 120), render_threads=1)
        env.fuse = fuse
        env.reset(seed=0)
        played = []

        def play(env=env, played=played):
            for a in acts:
                if not env.agents:
                    break
                env.step({"p0": a})
                played.append(a)

        us = cpu_us(play, steps)
        out[f"env.step, fuse={fuse}"] = us * steps / max(1, len(played))
        if fuse:
            env.reset(seed=0)
            one, buf = env._fused, np.zeros((1, 7), np.int64)

            def kernel(one=one, buf=buf, played=played):
                for a in played:
                    buf[0] = a
                    one.batch.step(buf)

            out["its compiled call alone"] = cpu_us(kernel, len(played))
            r, world = Senses.of(env).ensure_renderer(), env.world
            hud, sprites = r.hud_table(world, [0], env.points), r.sprite_table(world)

            def render(r=r, world=world, hud=hud, sprites=sprites, played=played):
                for _ in played:
                    world.players.yaw[0] += 0.05
                    r.render_cameras(world, r.camera_table(world, [0]), sprites, hud, depth=False)

            out["renderer alone, one view"] = cpu_us(render, len(played))
    return out


def main() -> None:
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    print("32 copies of arena/basic-v0, 84x84 RGB, us of CPU per frame (best of 3 rounds):")
    for name, us in batch().items():
        print(f"  {name}: {us:.1f} us ({1e6 / us:,.0f} frames per CPU second)")
    print("one agent, arena/coop-v0, 160x120 RGB, us of CPU per step:")
    for name, us in one_agent().items():
        print(f"  {name}: {us:.1f} us")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
