"""What a browser task costs: reset, one step with and without the screenshot, and whole oracle episodes.

Every task steps at dt = 1 s of page time (Realtime-Bench's one observation per second), so a step's cost
is what one observation costs: `som+marks` is the model's default view (the Set-of-Marks screenshot and
the marks list).

    .venv/bin/python bench/gui_step.py [--steps 40]

Prints medians in milliseconds. A step is: execute the GUI actions, advance page time by dt with
Playwright's clock, read the task state and marks (one JSON string), and (optionally) take a JPEG
screenshot, decode it and draw the Set-of-Marks.
"""

from __future__ import annotations

import argparse
import statistics
import time

import rtarena
from rtarena.agents.gui_oracle import GuiOracleAgent


def median_ms(samples: list[float]) -> float:
    return 1000 * statistics.median(samples)


def step_cost(env_id: str, steps: int, **kwargs) -> tuple[float, float]:
    env = rtarena.make(env_id, **kwargs)
    resets, times = [], []
    for seed in range(3):
        started = time.perf_counter()
        env.reset(seed=seed)
        resets.append(time.perf_counter() - started)
        for _ in range(steps):
            if not env.agents:
                break
            started = time.perf_counter()
            env.step({"user": "wait()"})
            times.append(time.perf_counter() - started)
    env.close()
    return median_ms(resets), median_ms(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    rtarena.make("web/auction-v0").reset(seed=0)  # launch the browser outside the measurements
    print(f"{'env':24s} {'observation':28s} {'reset ms':>9s} {'step ms':>8s}")
    for env_id in ("web/auction-v0", "gui-games/breakout-v0"):
        for label, kwargs in (("som+marks+goal+time+text", {}),
                              ("som+marks (model default)", {"obs": ("som", "marks")}),
                              ("rgb (no marks drawn)", {"obs": ("rgb",)}),
                              ("marks+goal+time only", {"obs": ("marks", "goal", "time")})):
            reset_ms, step_ms = step_cost(env_id, args.steps, **kwargs)
            print(f"{env_id:24s} {label:28s} {reset_ms:9.1f} {step_ms:8.1f}")
    print(f"\n{'env':24s} {'clock':7s} {'sim s':>6s} {'wall s':>7s} success")
    for env_id in ("web/auction-v0", "gui-games/snake-v0"):
        for clock in ("paused", "token", "wall"):
            env = rtarena.make(env_id)
            result = rtarena.run_match(env, GuiOracleAgent(tokens_out=32), clock=clock, seed=0, max_steps=400,
                                       **({"kappa": 64} if clock == "token" else {}))
            env.close()
            print(f"{env_id:24s} {clock:7s} {result.sim_seconds:6.2f} {result.wall_seconds:7.2f} "
                  f"{result.agents['user']['success']:.0f}")


if __name__ == "__main__":
    main()
