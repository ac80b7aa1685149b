"""Scripted players of the game suite (privileged: they read world facts, not only observations).

`GameBot` is the `heuristic` agent of the `games` family: at reset it picks the game's policy from
`POLICIES` by env id. Every world read goes through `world()`: the game's `privileged_state(agent)` as of
the observation being decided on, a copy the runtime puts in `context.privileged` (only privileged agents
get one; never the env).
"""

from __future__ import annotations

import importlib
from typing import Any

from rtarena.contract import Agent, AgentContext, Decision
from rtarena.envs.games.rules import game_name

# game name (the env id between `games/` and `-v0` / `-varN-v0`) -> "module:function(world, space) -> action"
POLICIES = {
    "tilefall": "rtarena.agents.scripted.games.tilefall:decide",
    "runner2d": "rtarena.agents.scripted.games.runner2d:decide",
    "escape": "rtarena.agents.scripted.games.escape:decide",
    "errands": "rtarena.agents.scripted.games.errands:decide",
    "monsters": "rtarena.agents.scripted.games.monsters:decide",
    "parkour3d": "rtarena.agents.scripted.games.parkour3d:decide",
    "workshop": "rtarena.agents.scripted.games.workshop:decide",
}
# the multiplayer games' players (one per seat; tests/games/test_<game>.py play them against random)
MP_POLICIES = {
    "duel": "rtarena.agents.scripted.games.duel:decide",
    "kitchen": "rtarena.agents.scripted.games.kitchen:decide",
    "handoff": "rtarena.agents.scripted.games.handoff:decide",
    "midline": "rtarena.agents.scripted.games.midline:decide",
    "crystal": "rtarena.agents.scripted.games.crystal:decide",
}


def world(context: AgentContext, agent: str) -> dict[str, Any]:
    """The privileged read: the env's world facts for `agent` (a copy, taken with the observation)."""
    if context.privileged is None:
        raise ValueError("the games' scripted players are privileged: run them through the runtime")
    return context.privileged[agent]


class GameBot(Agent):
    """The game's scripted player: one policy per game, reading the world through `world()`."""

    name = "games-heuristic"
    privileged = True

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        entry = {**POLICIES, **MP_POLICIES}.get(game_name(context.env_id))
        if entry is None:
            raise ValueError(f"no scripted player for {context.env_id}")
        module, attr = entry.split(":")
        self.policy = getattr(importlib.import_module(module), attr)
        self.memory: dict[str, Any] = {}

    def act(self, observation: Any) -> Decision:
        agent = self.context.agent
        space = self.context.action_spaces[agent]
        return Decision(action=self.policy(world(self.context, agent), space, self.memory))
