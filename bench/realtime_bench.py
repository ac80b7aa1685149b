"""Total time of the `realtime-bench` preset with the oracle under `paused`: every browser task, one seed.

    .venv/bin/python bench/realtime_bench.py [--seeds 1] [--workers 1] [--clock paused|token] [--envs ID,...]

The paused clock never waits on real time, so this is what Chromium takes to step every task to its end
(the target is under 15 minutes for all 50 tasks on this 2-core machine). `--clock token` times the
preset's token clock (B = 64 tokens per interval; the oracle declares 32 tokens a decision, so each of its
actions lands one observation later) instead; `--envs` keeps only the named tasks. Prints the run's wall
time, the page time it covered and the oracle's success rate.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import replace

from rtarena.eval.presets import load_preset
from rtarena.eval.runner import run_experiment


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--clock", choices=("paused", "token"), default="paused")
    parser.add_argument("--envs", default="", help="comma-separated env ids (default: every task of the preset)")
    args = parser.parse_args()
    experiment = load_preset("realtime-bench")
    wanted = {e for e in args.envs.split(",") if e}
    envs = tuple(replace(e, lineups=("oracle",)) for e in experiment.envs if not wanted or e.id in wanted)
    with tempfile.TemporaryDirectory() as out:
        oracle = tuple(lu for lu in experiment.lineups if lu.name == "oracle")
        if args.clock == "token":
            oracle = tuple(replace(lu, slots=("oracle:32",)) for lu in oracle)
        clocks = tuple(c for c in experiment.clocks if c.clock == args.clock)
        small = replace(experiment, envs=envs, lineups=oracle, clocks=clocks,
                        seeds=tuple(range(args.seeds)), out=out)
        started = time.perf_counter()
        result = run_experiment(small, run_id="bench", workers=args.workers)
        wall = time.perf_counter() - started
        episodes = [json.loads(line) for line in (result.run_dir / "episodes.jsonl").read_text().splitlines()]
    solved = sum(next(iter(e["agents"].values()))["success"] for e in episodes)
    page_s = sum(float(e.get("sim_seconds", 0.0)) for e in episodes)
    print(f"realtime-bench, oracle, {args.clock}: {len(envs)} tasks x {args.seeds} seed(s), {args.workers} worker(s)")
    print(f"wall {wall:.1f} s for {page_s:.0f} s of page time; solved {solved:.0f}/{len(episodes)}; "
          f"failed jobs {result.failed}")


if __name__ == "__main__":
    main()
