"""How long the dashboard takes to show its first page over a store of 10,000 episodes.

The store is written with the project's own store functions (`eval/store.py`): RUNS runs of cart-pole
episodes, each episode a real `MatchResult` of a short paused-clock match, copied under new seeds (running
10,000 matches would measure the runtime, not the dashboard). The figure is the wall time from a cold
server to the Runs page's data (`GET /` then `GET /api/runs`), and the Compare table over every run.

    .venv/bin/python bench/dashboard_first_page.py [--episodes 10000] [--runs 20]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
import time
import urllib.request
from pathlib import Path

from rtarena.dashboard.server import make_app
from rtarena.eval.store import episode_key, write_episode
from rtarena.runtime.match import run_match


def build_store(root: Path, episodes: int, runs: int) -> None:
    from rtarena.agents.specs import build_agent
    from rtarena.envs.registry import make

    env = make("classic/cartpole-v0")
    result = run_match(env, [build_agent("heuristic", family="classic")], "paused", seed=0, max_steps=50,
                       env_id="classic/cartpole-v0")
    per_run = episodes // runs
    for r in range(runs):
        run = root / f"run{r:03d}"
        jobs = []
        for i in range(per_run):
            seed = r * per_run + i
            key = episode_key("classic/cartpole-v0", seed)
            jobs.append({"env_id": "classic/cartpole-v0", "key": key, "agent_specs": ["heuristic"], "clock": "paused",
                         "clock_settings": {"delay_s": 0.0, "obs_every": 1}, "seed": seed})
            write_episode(run, key, dataclasses.replace(result, seed=seed),
                          {"run_id": run.name, "level": "cartpole-v0", "lineup": "heuristic", "clock_name": "paused",
                           "delay_ms": 0.0, "obs": ""}, {"agent_0": "heuristic"})
        (run / "config.json").write_text(json.dumps({"jobs": jobs}))


def timed_get(url: str, token: str) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(urllib.request.Request(url, headers={"X-Rtarena-Token": token}), timeout=1800) as r:
        r.read()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        start = time.perf_counter()
        build_store(root, args.episodes, args.runs)
        print(f"store: {args.episodes} episodes in {args.runs} runs, written in {time.perf_counter() - start:.1f} s")
        with make_app(root) as app:
            page = timed_get(app.url, app.token)
            runs = timed_get(app.url + "api/runs", app.token)
            print(f"first page (GET / + /api/runs, cold): {page + runs:.3f} s   (target < 2 s)", flush=True)
            print(f"/api/runs again (cached summaries):   {timed_get(app.url + 'api/runs', app.token):.3f} s",
                  flush=True)
            one = timed_get(app.url + "api/compare?runs=run000", app.token)
            print(f"/api/compare over one run ({args.episodes // args.runs} episodes): {one:.3f} s", flush=True)


if __name__ == "__main__":
    main()
