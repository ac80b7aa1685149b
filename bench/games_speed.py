"""Game suite speed: steps per second of each game at its frame size, and the chunked-action overhead.

The multiplayer games (`MP_GAMES`) are stepped the same way with every player acting and observing:
pixels are drawn for both players each step (one env step = two views).

1. Each game's `-v0` stepped directly (no runtime) with pre-drawn random actions, resetting when an episode
   ends, observing `rgb` (`--size`, default the games' own, 512 x 512) + `text` + `state`, then `rgb` alone.
   Single process, one core (`NUMBA_NUM_THREADS=1`). The target is above 1,000 steps/s.
2. The runtime's cost of chunks: `run_match` on tilefall (paused clock, `state` observations so the env
   is cheap) with an agent answering one action per step, then one chunk of 10 per decision
   (`settle_s=0`), against the bare env loop; printed as microseconds per step.

    .venv/bin/python bench/games_speed.py [--steps 2000] [--size 512]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np

import rtarena
from rtarena.agents.base import Agent, Decision
from rtarena.envs.games.base import DEFAULT_SIZE
from rtarena.envs.registry import GAMES, MP_GAMES

REPEATS = 3


def steps_per_second(env_id: str, steps: int, obs: tuple[str, ...], size: int, seed: int = 0) -> float:
    env = rtarena.make(env_id, obs=obs, size=size)
    space = env.action_space("p0")
    rng = np.random.default_rng(seed)
    actions = [{"keys": rng.integers(0, 2, len(space.key_names)).astype(np.int8),
                "mouse": rng.uniform(-20, 20, 2).astype(np.float32)} for _ in range(steps + 50)]
    env.reset(seed=seed)
    took = 0.0
    for k in range(len(actions)):
        if not env.agents:
            env.reset(seed=seed + k)
        start = time.perf_counter()
        env.step({a: actions[(k + 17 * i) % len(actions)] for i, a in enumerate(env.agents)})
        if k >= 50:  # warm-up (compiled code loads) left out
            took += time.perf_counter() - start
    return steps / took


class Replay(Agent):
    """Plays a fixed action list: one action per decision, or chunks of `chunk` actions."""

    def __init__(self, actions: list, chunk: int) -> None:
        self.actions, self.chunk, self.k = actions, chunk, 0

    def act(self, observation) -> Decision:
        part = self.actions[self.k:self.k + self.chunk] or [self.actions[-1]]
        self.k += len(part)
        return Decision(action=part[0], chunk=tuple(part) if self.chunk > 1 else None)


def runtime_overhead(steps: int) -> dict[str, float]:
    """Microseconds per step: the bare env loop, run_match with one action per decision, with chunks of 10."""
    env_id = "games/tilefall-v0"
    # no drops and a long limit: every run lasts `steps` steps
    kwargs = {"obs": ("state",), "overrides": {"game": {"time_limit_s": steps * 0.1 + 10},
                                                "drops": {"interval_start_s": 1e6, "interval_end_s": 1e6}}}
    space = rtarena.make(env_id, **kwargs).action_space("p0")
    # W and S in turn: the player paces on its tile and never walks off the floor
    actions = [space.action(["W"] if (k // 2) % 2 else ["S"]) for k in range(steps + 20)]
    bare = float("inf")
    for _ in range(REPEATS):
        env = rtarena.make(env_id, **kwargs)
        env.reset(seed=0)
        for action in actions[:50]:  # warm-up
            env.step({"p0": action})
        start = time.perf_counter()
        for action in actions[:steps]:
            env.step({"p0": action})
        bare = min(bare, (time.perf_counter() - start) / steps * 1e6)
    out = {"bare env loop": bare}
    for label, chunk, settle in (("run_match, 1 action per decision", 1, None),
                                 ("run_match, chunks of 10 (settle_s=0)", 10, 0.0)):
        best = float("inf")
        for _ in range(REPEATS):  # the best of a few runs: a shared machine adds noise, never speed
            env = rtarena.make(env_id, **kwargs)
            start = time.perf_counter()
            result = rtarena.run_match(env, [Replay(actions, chunk)], clock="paused", seed=0, max_steps=steps,
                                       settle_s=settle)
            assert len(result.steps) == steps
            best = min(best, (time.perf_counter() - start) / steps * 1e6)
        out[label] = best
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--size", type=int, default=DEFAULT_SIZE, help="frame side in pixels")
    args = parser.parse_args()
    side = f"{args.size}x{args.size}"
    print(f"{'game':22s} {'rgb+text+state':>15s} {'rgb only':>10s}   (steps/s, {side}, one core)")
    for name, *_ in GAMES:
        env_id = f"games/{name}-v0"
        full = steps_per_second(env_id, args.steps, ("rgb", "text", "state"), args.size)
        rgb = steps_per_second(env_id, args.steps, ("rgb",), args.size)
        print(f"{env_id:22s} {full:15.0f} {rgb:10.0f}")
    print(f"\n{'multiplayer game':22s} {'rgb+text+state':>15s} {'rgb only':>10s}   (env steps/s, every player's "
          f"{side} view each step, one core)")
    for name, *_ in MP_GAMES:
        env_id = f"games/{name}-v0"
        full = steps_per_second(env_id, args.steps, ("rgb", "text", "state"), args.size)
        rgb = steps_per_second(env_id, args.steps, ("rgb",), args.size)
        print(f"{env_id:22s} {full:15.0f} {rgb:10.0f}")
    print("\nchunked actions (tilefall, state observations, paused clock), microseconds per step:")
    for label, us in runtime_overhead(args.steps).items():
        print(f"  {label:40s} {us:8.1f}")


if __name__ == "__main__":
    main()
