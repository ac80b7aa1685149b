"""Agents see observations and documentation, not the world; privileged agents get snapshots (values), never a
handle on the env (issue 44, item 3: no `view._target`, no `query.__wrapped__.__self__`).

The reachability walk follows what an agent can reach by plain attribute and item access from its
context (object attributes, slots, dataclass fields, containers, bound methods, closures); it does not ask
the garbage collector, which would find everything from anywhere.
"""

from __future__ import annotations

import contextlib
import types
from typing import Any

import numpy as np
import pytest
from tests.helpers import CounterEnv, rtarena_cli

import rtarena
from rtarena.agents.base import NoopAgent, RandomAgent
from rtarena.agents.llm import LLMAgent
from rtarena.agents.specs import AGENT_KINDS, AgentKind, AgentSpec, build_agent
from rtarena.contract import Agent, AgentContext, Decision, EnvCapabilities, PrivilegedFeed


def reaches(root: Any, target: Any, limit: int = 200_000) -> bool:
    """Whether `target` is reachable from `root` by attribute, slot, item and closure access."""
    seen: set[int] = set()
    stack = [root]
    while stack and len(seen) < limit:
        obj = stack.pop()
        if obj is target:
            return True
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, str, bytes, int, float, bool)):
            continue
        seen.add(id(obj))
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif isinstance(obj, np.ndarray):
            if obj.base is not None:
                stack.append(obj.base)
            continue
        if isinstance(obj, types.MethodType):
            stack.append(obj.__self__)
        if isinstance(obj, types.FunctionType) and obj.__closure__:
            stack.extend(cell.cell_contents for cell in obj.__closure__)
        if hasattr(obj, "__dict__"):
            stack.extend(vars(obj).values())
        for cls in type(obj).__mro__:
            for name in getattr(cls, "__slots__", ()):
                with contextlib.suppress(AttributeError):
                    stack.append(object.__getattribute__(obj, name))
    return False


class Snoop(Agent):
    """Keeps its context and tries the attributes where an env used to be."""

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        self.tried = {name: getattr(context, name, None) for name in ("env", "world", "unwrapped", "privileged")}

    def act(self, observation: Any) -> Decision:
        return Decision(action=0)


class FactsCounter(CounterEnv):
    """`CounterEnv` with a privileged snapshot: the step count and every agent's points."""

    capabilities = EnvCapabilities(privileged=True)

    def privileged_state(self, agent: str) -> dict[str, Any]:
        return {"t": self.t, "points": self.points}


class PrivilegedSnoop(Snoop):
    """Reads its snapshot with every observation, and tries to change the world through it."""

    privileged = True

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        self.seen: list[tuple[float, int]] = []

    def act(self, observation: Any) -> Decision:
        facts = self.context.privileged[self.context.agent]
        self.seen.append((float(observation[0]), facts["t"]))
        mutate(facts)
        return Decision(action=1)


class HoldsTheEnv(Agent):
    """The positive control of the walk: an agent handed the env itself."""

    def __init__(self, env: Any) -> None:
        self.env = env

    def act(self, observation: Any) -> Decision:
        return Decision(action=0)


@pytest.mark.parametrize("make_agent", [Snoop, NoopAgent, RandomAgent,
                                        lambda: LLMAgent("m@http://127.0.0.1:9/v1")])
def test_a_plain_agent_cannot_reach_the_env(make_agent):
    env = CounterEnv(num_agents=1)
    agent = make_agent()
    rtarena.run_match(env, {"a0": agent}, clock="paused", max_steps=3)
    assert agent.context.privileged is None
    assert not hasattr(agent.context, "env")
    assert not reaches(agent, env)


def test_the_walk_finds_an_env_an_agent_holds():
    """The positive control: the same walk finds the env when an agent holds it (as a live view did)."""
    env = CounterEnv(num_agents=1)
    agent = HoldsTheEnv(env)
    rtarena.run_match(env, {"a0": agent}, clock="paused", max_steps=3)
    assert reaches(agent, env)


@pytest.mark.parametrize("clock", ["paused", "token"])
def test_a_privileged_agent_gets_the_snapshot_of_each_observation_and_cannot_reach_the_env(clock):
    env = FactsCounter(num_agents=1)
    agent = PrivilegedSnoop()
    rtarena.run_match(env, {"a0": agent}, clock=clock, max_steps=6)
    assert isinstance(agent.context.privileged, PrivilegedFeed) and agent.tried["env"] is None
    assert len(agent.seen) >= 3 and all(shown == t for shown, t in agent.seen)  # the snapshot of that observation
    assert "intruder" not in env.points and env.points["a0"] > 0  # it emptied its copies; the env kept its points
    assert not reaches(agent, env) and not reaches(agent, env.points)


def test_a_privileged_agent_on_an_env_without_snapshots_is_refused():
    with pytest.raises(rtarena.UserError, match="offers no privileged state"):
        rtarena.run_match(CounterEnv(num_agents=1), {"a0": PrivilegedSnoop()}, clock="paused", max_steps=2)


def test_the_arena_gives_its_level_only_to_the_privileged_bot():
    env = rtarena.make("arena/competitive-v0", num_agents=2)
    bot, other = build_agent("heuristic:easy", family="arena"), RandomAgent()
    rtarena.run_match(env, {"p0": bot, "p1": other}, clock="paused", max_steps=2)
    assert isinstance(bot.context.privileged, PrivilegedFeed) and other.context.privileged is None
    assert not reaches(bot, env) and not reaches(bot, env.world) and not reaches(bot, env.rules)
    assert not reaches(other, env) and not reaches(other, env.world)
    assert "turret" in other.context.docs.rules_text  # documentation still reaches every agent
    assert other.context.docs.action_names["p1"][0] == "move_x"


def mutate(value: Any) -> None:
    """Every container mutator a holder of `value` could call, applied all the way down."""
    if isinstance(value, dict):
        for item in value.values():
            mutate(item)
        value["intruder"] = 1
        value.clear()
    elif isinstance(value, (list, set)):
        for item in list(value):
            mutate(item)
        value.add("intruder") if isinstance(value, set) else value.append("intruder")
        value.clear()
    elif isinstance(value, np.ndarray) and value.size:
        value.fill(7 if value.dtype.kind in "iub" else 7.5)
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        for name, item in list(vars(value).items()):
            mutate(item)
            with contextlib.suppress(Exception):
                setattr(value, name, "intruder")


def snapshot(value: Any) -> str:
    return repr(value) if not isinstance(value, np.ndarray) else repr(value.tolist())


def test_a_game_bot_holds_copies_of_the_world_facts():
    env = rtarena.make("games/workshop-v0")
    bot = build_agent("heuristic", family="games")
    rtarena.run_match(env, {"p0": bot}, clock="paused", max_steps=3)
    before = snapshot(env.privileged_state("p0"))
    facts = bot.context.privileged["p0"]
    assert isinstance(facts["orders"], list) and not reaches(bot, env)
    mutate(facts)
    assert facts == {} and snapshot(env.privileged_state("p0")) == before


def test_a_privileged_agent_needs_a_privileged_row():
    assert {k.name for k in AGENT_KINDS if k.privileged} == {"heuristic", "oracle"}
    unmarked = AgentKind("sneaky", "a bot that reads the world", "rtarena.agents.scripted.arena:HeuristicBot")
    with pytest.raises(TypeError, match="not marked privileged"):
        build_agent(AgentSpec("sneaky", unmarked, None), family="arena")


def test_rtarena_list_marks_privileged_agents():
    done = rtarena_cli("list")
    assert done.returncode == 0, done.stderr
    rows = {line.split("│")[1].strip(): line for line in done.stdout.splitlines() if line.count("│") >= 3}
    assert "PRIVILEGED" in rows["heuristic"] and "PRIVILEGED" in rows["oracle"]
    assert "PRIVILEGED" not in rows["llm"] and "PRIVILEGED" not in rows["random"]
