"""Matches of the suite's multiplayer games between agent specs, for tests."""

from __future__ import annotations

import numpy as np

import rtarena
from rtarena.agents.specs import build_agent
from rtarena.runtime import run_match


def scores(env_id: str, specs: list[str], seed: int, **kwargs) -> dict[str, float]:
    """One paused match, one spec per seat in order; each seat's final score."""
    env = rtarena.make(env_id, obs=("state",), **kwargs)
    result = run_match(env, [build_agent(spec, "games") for spec in specs], clock="paused", seed=seed,
                       max_steps=100_000)
    return {agent: result.agents[agent]["score"] for agent in env.possible_agents}


def bot_vs_random(env_id: str, seeds: range, **kwargs) -> float:
    """The scripted player's mean score against a random player, seated on both sides in turn."""
    totals = []
    for seed in seeds:
        bot_seat = seed % 2
        specs = ["heuristic", "random"] if bot_seat == 0 else ["random", "heuristic"]
        totals.append(scores(env_id, specs, seed, **kwargs)[f"p{bot_seat}"])
    return float(np.mean(totals))


def team_mean(env_id: str, spec: str, seeds: range, **kwargs) -> float:
    """Two (or more) seats of the same spec: the mean team score (every seat scores the team's score)."""
    return float(np.mean([scores(env_id, [spec, spec], seed, **kwargs)["p0"] for seed in seeds]))


def step(env, keys: dict[str, list[str]] | None = None, steps: int = 1) -> list[dict]:
    """Step `steps` times with each agent holding its keys (others none); every agent's events as
    `(agent, event)` dicts with the agent under "who"."""
    seen = []
    for _ in range(steps):
        if not env.agents:
            break
        actions = {a: env.action_space(a).action((keys or {}).get(a, ())) for a in env.agents}
        _, _, _, _, infos = env.step(actions)
        seen += [{"who": a, **e} for a in infos for e in infos[a]["events"]]
    return seen
