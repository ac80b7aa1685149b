"""Delay injection: heuristic bots on the four arena levels with an injected decision delay.

Every controller is a heuristic bot (medium); the clock is `paused` plus `delay_s` (each decision takes
effect `delay_s` of game time after the observation it was made on, and the bot is busy until then). For
each level and delay, over the seeds: score, effective action frequency, accuracy, survival, kills and
incoming hit rate, as mean +- standard error over episodes (each episode's value is the mean over its
agents; ratios undefined in an episode are left out).

    .venv/bin/python bench/arena_delay.py                     # the full design: 4 levels x 4 delays x 20 seeds
    .venv/bin/python bench/arena_delay.py --seeds 5 --levels basic,coop --delays 0,1
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

LEVELS = ("basic", "coop", "competitive", "mixed")
DELAYS = (0.0, 0.25, 1.0, 3.0)
METRICS = ("score", "effective_action_frequency", "accuracy", "survival", "kills", "incoming_hit_rate")


def one_episode(job: tuple[str, float, int, str]) -> tuple[str, float, dict[str, float]]:
    import rtarena
    from rtarena.agents.scripted.arena import HeuristicBot

    level, delay, seed, difficulty = job
    env = rtarena.make(f"arena/{level}-v0")
    steps = round(env.rules.arena.time_limit_s / env.dt)
    bots = [HeuristicBot(difficulty) for _ in env.possible_agents]
    result = rtarena.run_match(env, bots, clock="paused", seed=seed, max_steps=steps, delay_s=delay)
    row = {}
    for metric in METRICS:
        values = [m[metric] for m in result.agents.values() if m.get(metric) is not None]
        row[metric] = float(np.mean(values)) if values else math.nan
    return level, delay, row


def mean_se(values: list[float]) -> str:
    v = np.asarray([x for x in values if not math.isnan(x)])
    if len(v) == 0:
        return "n/a"
    se = v.std(ddof=1) / math.sqrt(len(v)) if len(v) > 1 else 0.0
    return f"{v.mean():.3f} ± {se:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--delays", default=",".join(f"{d:g}" for d in DELAYS))
    parser.add_argument("--difficulty", default="medium")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    levels = [x for x in args.levels.split(",") if x]
    delays = [float(x) for x in args.delays.split(",") if x]
    jobs = [(lv, d, s, args.difficulty) for lv, d, s in itertools.product(levels, delays, range(args.seeds))]
    started = time.perf_counter()
    rows: dict[tuple[str, float], list[dict[str, float]]] = {}
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for level, delay, row in pool.map(one_episode, jobs, chunksize=2):
            rows.setdefault((level, delay), []).append(row)
    print(f"heuristic:{args.difficulty} bots, paused clock + injected delay, dt 0.25 s, {args.seeds} seeds "
          f"({time.perf_counter() - started:.0f} s)")
    header = ["level", "delay_s", *METRICS]
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for level in levels:
        for delay in delays:
            got = rows[(level, delay)]
            print(" | ".join([level, f"{delay:g}", *(mean_se([r[m] for r in got]) for m in METRICS)]))
    print()
    print("monotone (score never rises with delay):")
    for level in levels:
        means = [np.nanmean([r["score"] for r in rows[(level, d)]]) for d in delays]
        ok = all(b <= a + 1e-12 for a, b in itertools.pairwise(means))
        print(f"  {level}: {' > '.join(f'{m:.3f}' for m in means)}  {'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main()
