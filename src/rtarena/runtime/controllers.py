"""Controllers: one decision maker owning one env agent (decentralised) or several (a team).

This module turns what the user passed to `run_match` into controller slots, gives each its view of a
joint observation, and checks what it decided against the env's action spaces: an action that does not
fit becomes the default action and is counted as invalid, never a crash. A privileged agent's slot holds
its `PrivilegedFeed`; `snapshot` fills it with copies of the env's `privileged_state`, never the env.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from gymnasium import spaces

from rtarena.contract import Agent, AgentContext, Decision, PrivilegedFeed, as_agent, same_action
from rtarena.errors import UserError
from rtarena.runtime.clocks import Clock
from rtarena.runtime.documentation import env_docs


@dataclass
class ControllerSlot:
    """One controller: a name, the env agents it owns, and the agent object deciding for them."""

    name: str
    agent_ids: tuple[str, ...]
    agent: Agent
    team: bool = False  # given as a tuple of ids: dict observations and actions, even for one body
    feed: PrivilegedFeed | None = None  # a privileged agent's world snapshots (`context_for` makes it)

    @property
    def is_team(self) -> bool:
        return self.team or len(self.agent_ids) > 1

    def observation(self, joint: Mapping[str, Any], alive: Sequence[str]) -> Any:
        """The controller's view: its agent's observation, or a dict of its living agents' observations."""
        if not self.is_team:
            return joint[self.agent_ids[0]]
        return {a: joint[a] for a in self.agent_ids if a in alive}

    def is_alive(self, alive: Sequence[str]) -> bool:
        return any(a in alive for a in self.agent_ids)


def build_slots(env: Any, controllers: Any) -> list[ControllerSlot]:
    """Normalise `controllers`: a mapping of agent id (or tuple of ids) to agent, a list in slot order,
    or one agent for a one-agent env. Agents may be `Agent` objects or plain callables."""
    possible = list(env.possible_agents)
    if isinstance(controllers, Mapping):
        items = list(controllers.items())
    elif isinstance(controllers, Sequence) and not isinstance(controllers, str):
        if len(controllers) > len(possible):
            raise UserError(f"{len(controllers)} controllers given for {len(possible)} env agents",
                            field="controllers")
        items = list(zip(possible, controllers, strict=False))
    elif isinstance(controllers, Agent) or callable(controllers):
        if len(possible) != 1:
            raise UserError(f"one controller given for {len(possible)} env agents; pass one per agent",
                            field="controllers")
        items = [(possible[0], controllers)]
    else:
        raise UserError(f"controllers must be a mapping or a list, got {type(controllers).__name__}",
                        field="controllers")
    slots, owned = [], set()
    for key, agent in items:
        agent_ids = (key,) if isinstance(key, str) else tuple(key)
        for agent_id in agent_ids:
            if agent_id not in possible:
                raise UserError(f"unknown env agent {agent_id!r}; the env has {', '.join(possible)}",
                                field="controllers")
            if agent_id in owned:
                raise UserError(f"env agent {agent_id!r} has two controllers", field="controllers")
            owned.add(agent_id)
        team = not isinstance(key, str)
        name = "team(" + ",".join(agent_ids) + ")" if team else agent_ids[0]
        slots.append(ControllerSlot(name, agent_ids, as_agent(agent), team=team))
    return slots


def snapshot(env: Any, slot: ControllerSlot) -> dict[str, Any]:
    """A privileged slot's world facts as the env is now: a deep copy of `privileged_state` per agent it owns
    (with the parameters its agent asked for), so nothing it holds is, or leads to, the env's own object."""
    params = slot.feed.params if slot.feed is not None else {}
    return copy.deepcopy({a: env.privileged_state(a, **params) for a in slot.agent_ids})


def context_for(slot: ControllerSlot, env: Any, env_id: str, seed: int, clock: Clock, index: int,
                horizon_s: float | None = None, applies_at_commit: bool = False) -> AgentContext:
    """The read-only episode context handed to the slot's agent at reset: documentation and the frozen
    clock, never the env; a feed of world snapshots (values) only for an agent whose class declares itself
    privileged, on an env that declares them (`capabilities.privileged`)."""
    if slot.agent.privileged:
        if not env.capabilities.privileged:
            raise UserError(f"{slot.agent.name} is a privileged agent, but {env_id} offers no privileged state "
                            "(capabilities.privileged)", field="--agent")
        slot.feed = PrivilegedFeed()
        slot.feed.put(snapshot(env, slot))
    return AgentContext(
        env_id=env_id,
        agents=slot.agent_ids,
        observation_spaces={a: env.observation_space(a) for a in slot.agent_ids},
        action_spaces={a: env.action_space(a) for a in slot.agent_ids},
        default_actions={a: env.default_action(a) for a in slot.agent_ids},
        dt=float(env.dt),
        seed=int(seed) * 1000 + index,
        clock=clock,
        horizon_s=horizon_s,
        applies_at_commit=applies_at_commit,
        docs=env_docs(env, slot.agent_ids),
        privileged=slot.feed,
    )


def coerce_action(space: spaces.Space, action: Any) -> tuple[Any, bool]:
    """The action in the space's own type, and whether it was valid as given."""
    try:
        if isinstance(space, spaces.Discrete):
            value = int(np.asarray(action).item())
        elif isinstance(space, (spaces.MultiDiscrete, spaces.MultiBinary, spaces.Box)):
            value = np.asarray(action, dtype=space.dtype).reshape(space.shape)
        else:
            value = action
        return (value, True) if space.contains(value) else (None, False)
    except (TypeError, ValueError, OverflowError):
        return None, False


def split_decision(
    slot: ControllerSlot,
    decision: Decision,
    env: Any,
    alive: Sequence[str],
) -> tuple[dict[str, Any], bool]:
    """Per-agent actions from a decision, defaults where an action does not fit, and overall validity."""
    valid = decision.valid
    if slot.is_team:
        wanted = decision.action if isinstance(decision.action, Mapping) else {}
        if not isinstance(decision.action, Mapping):
            valid = False
    else:
        wanted = {slot.agent_ids[0]: decision.action}
    actions: dict[str, Any] = {}
    for agent in slot.agent_ids:
        if agent not in alive:
            continue
        if agent not in wanted:
            valid = valid and not slot.is_team
            actions[agent] = env.default_action(agent)
            continue
        value, ok = coerce_action(env.action_space(agent), wanted[agent])
        valid = valid and ok
        actions[agent] = value if ok else env.default_action(agent)
    return actions, valid


def split_steps(
    slot: ControllerSlot,
    decision: Decision,
    env: Any,
    alive: Sequence[str],
) -> tuple[list[dict[str, Any]], bool]:
    """Per-step, per-agent actions of a decision (one step unless it carries a chunk), and validity."""
    steps, valid = [], True
    for action in decision.steps():
        actions, ok = split_decision(slot, replace(decision, action=action), env, alive)
        steps.append(actions)
        valid = valid and ok
    return steps, valid


def is_default(env: Any, agent: str, action: Any) -> bool:
    return same_action(action, env.default_action(agent))


AgentLike = Agent | Callable[[Any], Any]
