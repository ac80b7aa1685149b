"""Short arena matches whose records must not change when the arena is made faster (issue 19).

`python -m tests.arena_perf.golden_records` rewrites `golden_records.json`; do that only for a deliberate
change of the rules, together with the reason in the commit message.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import rtarena
from rtarena.agents.base import RandomAgent
from rtarena.agents.scripted.arena import HeuristicBot

FIXTURE = Path(__file__).with_name("golden_records.json")
WALL_FIELDS = ("wall_seconds", "period_error_p50_s", "period_error_p99_s")

# (name, env id, clock, clock settings, observation modalities, extra env kwargs, steps)
MATCHES: tuple[tuple[str, str, str, dict[str, Any], tuple[str, ...], dict[str, Any], int], ...] = (
    ("coop-paused", "arena/coop-v0", "paused", {}, ("state", "text"), {}, 200),
    ("competitive-token", "arena/competitive-v0", "token", {"kappa": 80.0}, ("state", "text"), {}, 200),
    ("mixed-paused", "arena/mixed-v0", "paused", {}, ("state", "text"), {}, 200),
    ("basic-token", "arena/basic-v0", "token", {"kappa": 80.0}, ("state", "text"), {}, 200),
    ("mixed-pixels-paused", "arena/mixed-v0", "paused", {}, ("state", "rgb", "depth"),
     {"resolution": (96, 72)}, 40),
)


def play(name: str) -> dict[str, Any]:
    """The records hash and the episode summary (less its wall-clock fields) of one named match."""
    _, env_id, clock, settings, obs, kwargs, steps = next(m for m in MATCHES if m[0] == name)
    env = rtarena.make(env_id, obs=obs, **kwargs)
    n = len(env.possible_agents)
    # heuristic bots in every seat but the last, which a seeded random player takes
    controllers = [HeuristicBot("medium") for _ in range(n - 1)] + [RandomAgent()] if n > 1 else [HeuristicBot()]
    result = rtarena.run_match(env, controllers, clock=clock, seed=11, max_steps=steps, **settings)
    env.close()
    summary = {k: v for k, v in result.summary().items() if k not in WALL_FIELDS}
    summary["agents"] = {a: {k: v for k, v in m.items() if not k.startswith("wall_")}
                         for a, m in summary["agents"].items()}
    summary = json.loads(json.dumps(summary, sort_keys=True))
    return {"records_sha256": hashlib.sha256(result.records_json().encode()).hexdigest(),
            "events_sha256": hashlib.sha256(json.dumps(result.events, sort_keys=True).encode()).hexdigest(),
            "summary": summary}


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps({m[0]: play(m[0]) for m in MATCHES}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE}")
