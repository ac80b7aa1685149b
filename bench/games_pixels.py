"""The scripted pixel player on the suite (issue 41): its mean score against the text stand-in's and random's.

Each game's `-v0` is played through the real protocol against one in-process policy server, paused clock,
`--steps` steps, seeds 0 .. `--seeds`-1: `policy=pixels` (the default view: the frame and the HUD line;
`games_pixels.py` reads the frame with the prompt's legend), `policy=heuristic` under `modalities=text`
(the text stand-in) and `policy=random`. In a PvP game the player scored is `p0` and `p1` is always the text
stand-in, so the three rows meet the same opponent. In a co-op game (Kitchen, Handoff: the score is the
team's, `ratings.suite_ratings`' mode) every seat plays the row's player, so the row is that player's team
(a text stand-in beside it would earn the score whoever sat next to it). Prints one row per game (the table
in docs/games.md, "A pixel player").

    .venv/bin/python bench/games_pixels.py [--games tilefall,duel] [--seeds 10] [--steps 150]
"""

from __future__ import annotations

import argparse
import time

from rtarena.agents.llm import LLMAgent
from rtarena.envs.games.ratings import suite_ratings
from rtarena.envs.registry import make
from rtarena.policy_server import PolicyServer
from rtarena.policy_server.games_pixels import READERS
from rtarena.runtime.match import run_match

COOP = {r.env_id: r.mode == "coop" for r in suite_ratings()}
# the games the pixel player reads, by env id (a reader is keyed by the game's title: "Runner" is runner2d)
COVERED = tuple(env_id.removeprefix("games/").removesuffix("-v0") for env_id in COOP
                if make(env_id).rules.game.title in READERS)


def mean_score(env_id: str, spec: str, opponent: str, seeds: int, steps: int, team: bool = False,
               metric: str = "score") -> float:
    """`p0`'s mean score (or another of its episode metrics) with `spec` in seat `p0` (every seat when
    `team`), `opponent` in the others."""
    scores = []
    for seed in range(seeds):
        env = make(env_id)
        agents = [LLMAgent(spec if i == 0 or team else opponent) for i in range(len(env.possible_agents))]
        run_match(env, agents, clock="paused", seed=seed, max_steps=steps)
        scores.append(env.episode_metrics()["p0"][metric])
        env.close()
    return sum(scores) / len(scores)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(COVERED))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--metric", default="score", help="the episode metric averaged (`points`: Midline's "
                        "delivered points, where no side can reach the target, so decide the score, in --steps)")
    args = parser.parse_args()
    with PolicyServer() as server:
        text = f"scripted-heuristic@{server.base_url},modalities=text"
        specs = {"pixels": f"scripted-pixels@{server.url(policy='pixels')}", "text": text,
                 "random": f"scripted-random@{server.url(policy='random')}"}
        print("| game | pixel player | text stand-in | random | pixel / text |")
        print("|---|---|---|---|---|")
        for game in args.games.split(","):
            start = time.monotonic()
            team = COOP.get(f"games/{game}-v0", False)
            got = {name: mean_score(f"games/{game}-v0", spec, text, args.seeds, args.steps, team, args.metric)
                   for name, spec in specs.items()}
            share = f"{got['pixels'] / got['text']:.0%}" if got["text"] else "-"
            name = f"{game} (team)" if team else game
            print(f"| {name} | {got['pixels']:.3f} | {got['text']:.3f} | {got['random']:.3f} | {share} |"
                  f"  <!-- {time.monotonic() - start:.0f} s -->", flush=True)


if __name__ == "__main__":
    main()
