"""Driving suite games by keys in tests."""

from __future__ import annotations

import rtarena


def game(env_id: str, seed: int = 0, **kwargs):
    env = rtarena.make(env_id, obs=("text", "state"), **kwargs)
    env.reset(seed=seed)
    return env


def hold(env, keys=(), steps: int = 1, dx: float = 0.0, dy: float = 0.0):
    """Step `steps` times holding `keys`; returns the last step's (rewards, terminations, infos) for p0
    and every event seen on the way."""
    events = []
    result = None
    for i in range(steps):
        if not env.agents:
            break
        action = env.action_space("p0").action(keys, dx if i == 0 else 0.0, dy if i == 0 else 0.0)
        _, rewards, terms, truncs, infos = env.step({"p0": action})
        events += infos["p0"]["events"]
        result = (rewards["p0"], terms["p0"], truncs["p0"], infos["p0"])
    return result, events


def types(events) -> list[str]:
    return [e["type"] for e in events]
