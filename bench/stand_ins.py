"""The suite's scripted stand-ins against random and the privileged bots, full-length games (docs/games.md).

    PYTHONPATH=src python bench/stand_ins.py tilefall,kitchen 2

Per game: the mean score over seeds of the stand-in (`llm:scripted-heuristic`, text view, paused clock with
0.2 s settling), random and the bot (every seat the same), and for PvP games the stand-in against random and
against the bot (seats alternating by seed).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import rtarena
from rtarena.agents.specs import build_agent
from rtarena.policy_server import PolicyServer
from rtarena.runtime import run_match

PVP = ("duel", "midline", "crystal")


def mean_score(env_id: str, specs: list[str], seeds: range, pvp: bool) -> float:
    scores = []
    for seed in seeds:
        swap = pvp and seed % 2 == 1
        order = specs[::-1] if swap else specs
        settle = {"settle_s": 0.2} if any(s.startswith("llm:") for s in order) else {}
        env = rtarena.make(env_id, obs=("text",))
        result = run_match(env, [build_agent(s, "games") for s in order], clock="paused", seed=seed, **settle)
        scores.append(result.agents[f"p{len(order) - 1}" if swap else "p0"]["score"])
    return round(float(np.mean(scores)), 3)


def main() -> None:
    games, seeds = sys.argv[1].split(","), range(int(sys.argv[2]) if len(sys.argv) > 2 else 2)
    with PolicyServer() as server:
        stand = f"llm:scripted-heuristic@{server.base_url},modalities=text"
        for game in games:
            env_id, pvp, started = f"games/{game}-v0", game in PVP, time.time()
            seats = len(rtarena.make(env_id).possible_agents)
            row = {name: mean_score(env_id, [spec] * seats, seeds, pvp)
                   for name, spec in (("stand-in", stand), ("random", "random"), ("bot", "heuristic"))}
            if pvp:
                row["stand-in vs random"] = mean_score(env_id, [stand, "random"], seeds, pvp)
                row["stand-in vs bot"] = mean_score(env_id, [stand, "heuristic"], seeds, pvp)
            print(game, row, f"{time.time() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
