"""Frames per second per core, side by side in one run: the arena's renderer versus ViZDoom.

    .venv/bin/python bench/vizdoom_compare.py [--seconds 5]

Both run pinned to one CPU core (ViZDoom's engine process inherits the pinning), and rates are frames
per CPU second (user + system time of the process and its children, ViZDoom's engine included), so
other load on the machine does not distort them as it would wall-clock rates. ViZDoom plays its
`deathmatch` scenario (software renderer, 1 tic per action, random buttons); the arena plays
`arena/coop-v0` with random actions. Frames per second are measured for:

- `env, 1 agent`: one env step = one frame, world simulation included (ViZDoom's `make_action`
  likewise runs the game for a tic and renders one frame);
- `batch of 16`: sixteen agents per env step, frames = 16 x steps (ViZDoom renders one view per
  game instance, so its row is the same as above);
- `renderer`: the arena's renderer alone, 16 views per batch call as the env makes them (the world
  held still, the views turning), for the cost of pixels without the arena's world simulation (which
  ViZDoom's rate includes for Doom's).

At 160x120 and 320x240, with and without a depth buffer. Needs `pip install 'rtarena[bench]'`
(ViZDoom from PyPI).

    .venv/bin/python bench/vizdoom_compare.py --vector [--copies 8,32,64]

`--vector`: reinforcement-learning throughput instead: `ArenaVectorEnv` on `arena/basic-v0` with 84x84 RGB
observations (one compiled call per batch, autoreset included; random actions), frames = copies x vector
steps, at 8, 32 and 64 copies, beside ViZDoom's single env at 160x120 RGB (the rate RL users compare with),
both on one core in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

RESOLUTIONS = ((160, 120), (320, 240))
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and of its live child processes (ViZDoom's engine
    runs in one): frames per CPU second is a rate per core that other load on the machine does not
    distort the way wall time would."""
    own = os.times()
    total = own.user + own.system
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:  # parent pid
            total += (int(fields[11]) + int(fields[12])) / TICKS
    return total


def vizdoom_fps(width: int, height: int, depth: bool, seconds: float) -> float:
    import random

    import vizdoom as vzd

    game = vzd.DoomGame()
    game.load_config(os.path.join(vzd.scenarios_path, "deathmatch.cfg"))
    game.set_screen_resolution(getattr(vzd.ScreenResolution, f"RES_{width}X{height}"))
    game.set_screen_format(vzd.ScreenFormat.RGB24)
    game.set_depth_buffer_enabled(depth)
    game.set_window_visible(False)
    game.set_sound_enabled(False)
    game.set_mode(vzd.Mode.PLAYER)
    game.init()
    n_buttons = game.get_available_buttons_size()
    rng = random.Random(0)
    frames = 0
    for _ in range(20):  # warm up
        game.make_action([rng.random() < 0.3 for _ in range(n_buttons)], 1)
    start, cpu0 = time.perf_counter(), cpu_seconds()
    while time.perf_counter() - start < seconds:
        if game.is_episode_finished():
            game.new_episode()
        game.make_action([rng.random() < 0.3 for _ in range(n_buttons)], 1)
        state = game.get_state()
        if state is not None:
            _ = state.screen_buffer
            if depth:
                _ = state.depth_buffer
        frames += 1
    cpu = cpu_seconds() - cpu0
    game.close()
    return frames / cpu


def arena_fps(width: int, height: int, depth: bool, seconds: float, agents: int) -> float:
    import numpy as np

    from rtarena.envs.arena.levels import CoopLevel

    obs = ("rgb", "depth") if depth else ("rgb",)
    env = CoopLevel(num_agents=agents, obs=obs, resolution=(width, height), render_threads=1)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    nvec = np.array([3, 3, 3, 3, 2, 2, 2])

    def act():
        return {a: rng.integers(0, nvec) for a in env.agents}

    for _ in range(5):
        env.step(act())
    frames, start, cpu0 = 0, time.perf_counter(), cpu_seconds()
    while time.perf_counter() - start < seconds:
        if not env.agents:
            env.reset(seed=frames)
        n = len(env.agents)
        env.step(act())
        frames += n
    return frames / (cpu_seconds() - cpu0)


def renderer_fps(width: int, height: int, depth: bool, seconds: float, agents: int) -> float:
    """The arena's renderer alone (views of a real level, HUD on), `agents` views per call."""
    from rtarena.envs.arena.levels import CoopLevel
    from rtarena.envs.arena.render.renderer import ArenaRenderer

    env = CoopLevel(num_agents=agents)
    env.reset(seed=0)
    world = env.world
    renderer = ArenaRenderer(world, width, height, threads=1)
    indices = list(range(agents))
    hud = renderer.hud_table(world, indices)
    renderer.render(world, indices, hud=hud)
    frames, start, cpu0 = 0, time.perf_counter(), cpu_seconds()
    while time.perf_counter() - start < seconds:
        world.players.yaw += 0.05  # keep the views changing
        renderer.render(world, indices, hud=hud, depth=depth)  # without depth: a scratch buffer only
        frames += agents
    return frames / (cpu_seconds() - cpu0)


def vector_fps(width: int, height: int, depth: bool, seconds: float, copies: int) -> float:
    """`ArenaVectorEnv` (84x84 RGB, `copies` copies of `arena/basic-v0`): frames = copies x vector steps."""
    import numpy as np

    from rtarena.envs.arena.vector import ArenaVectorEnv

    env = ArenaVectorEnv("arena/basic-v0", num_envs=copies, obs="pixels", env_kwargs={"render_threads": 1})
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = rng.integers(0, env.single_action_space.nvec, size=(64, copies, len(env.single_action_space.nvec)))
    for k in range(5):
        env.step(actions[k])
    frames, start, cpu0 = 0, time.perf_counter(), cpu_seconds()
    while time.perf_counter() - start < seconds:
        env.step(actions[frames // copies % len(actions)])
        frames += copies
    return frames / (cpu_seconds() - cpu0)


KINDS = {"vizdoom": lambda w, h, d, s, n: vizdoom_fps(w, h, d, s), "renderer": renderer_fps, "arena": arena_fps,
         "vector": vector_fps}


def child(kind: str, width: int, height: int, depth: bool, seconds: float, agents: int) -> None:
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    print(json.dumps({"fps": KINDS[kind](width, height, depth, seconds, agents)}))


def measure(kind: str, width: int, height: int, depth: bool, seconds: float, agents: int = 1,
            repeats: int = 1) -> float:
    """The best rate of `repeats` fresh processes (the least disturbed by whatever else runs here)."""
    best = 0.0
    for _ in range(repeats):
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", kind, str(width), str(height),
                              str(int(depth)), str(seconds), str(agents)], capture_output=True, text=True,
                             check=True, cwd=tempfile.gettempdir())  # ViZDoom writes _vizdoom.ini where it runs
        best = max(best, json.loads(out.stdout.strip().splitlines()[-1])["fps"])
    return best


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=2, help="best of this many runs per cell")
    parser.add_argument("--child", nargs=6)
    parser.add_argument("--vector", action="store_true", help="the batched vector env (84x84) beside ViZDoom")
    parser.add_argument("--copies", default="8,32,64", help="with --vector: the numbers of copies")
    args = parser.parse_args()
    if args.child:
        kind, w, h, d, s, n = args.child
        child(kind, int(w), int(h), d == "1", float(s), int(n))
        return 0
    try:
        import vizdoom  # noqa: F401
    except ImportError:
        print("ViZDoom is not installed: pip install 'rtarena[bench]'")
        return 1
    if args.vector:
        return vector_table(args)
    # compile the arena's kernels once, outside the timings
    measure("arena", 160, 120, True, 0.5)
    print(f"frames per CPU second on one core (best of {args.repeats} runs of {args.seconds:g} s per cell); "
          "ratio = arena / ViZDoom")
    print(f"load average: {os.getloadavg()[0]:.1f}")
    print("| resolution | depth | ViZDoom | arena env, 1 agent | ratio | arena env, 16 agents | ratio "
          "| arena renderer (batch of 16) | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for width, height in RESOLUTIONS:
        for depth in (False, True):
            r = args.repeats
            vz = measure("vizdoom", width, height, depth, args.seconds, 1, r)
            one = measure("arena", width, height, depth, args.seconds, 1, r)
            many = measure("arena", width, height, depth, args.seconds, 16, r)
            alone = measure("renderer", width, height, depth, args.seconds, 16, r)
            print(f"| {width}x{height} | {'yes' if depth else 'no'} | {vz:,.0f} | {one:,.0f} | {one / vz:.1f}x "
                  f"| {many:,.0f} | {many / vz:.1f}x | {alone:,.0f} | {alone / vz:.1f}x |", flush=True)
    return 0


def vector_table(args: argparse.Namespace) -> int:
    """Frames per CPU second of the batched vector env at each number of copies, and ViZDoom's single env."""
    copies = [int(v) for v in args.copies.split(",")]
    measure("vector", 84, 84, False, 0.5, copies[0])  # compile outside the timings
    print(f"frames per CPU second on one core (best of {args.repeats} runs of {args.seconds:g} s per cell); "
          "ratio = arena / ViZDoom")
    print(f"load average: {os.getloadavg()[0]:.1f}")
    vz = measure("vizdoom", 160, 120, False, args.seconds, 1, args.repeats)
    print("| env | observation | frames / CPU s | ratio to ViZDoom |")
    print("|---|---|---|---|")
    print(f"| ViZDoom, single env | 160x120 RGB | {vz:,.0f} | 1.0x |", flush=True)
    for n in copies:
        fps = measure("vector", 84, 84, False, args.seconds, n, args.repeats)
        print(f"| arena `ArenaVectorEnv`, {n} copies | 84x84 RGB | {fps:,.0f} | {fps / vz:.1f}x |", flush=True)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
