"""Agents see observations and documentation, not the world: only privileged agents get a read-only view.

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
from rtarena.contract import Agent, AgentContext, Decision, ReadOnlyView
from rtarena.runtime.documentation import privileged_view


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


class PrivilegedSnoop(Snoop):
    privileged = True


@pytest.mark.parametrize("make_agent", [Snoop, NoopAgent, RandomAgent,
                                        lambda: LLMAgent("m@http://127.0.0.1:9/v1")])
def test_a_plain_agent_cannot_reach_the_env(make_agent):
    env = CounterEnv(num_agents=1)
    agent = make_agent()
    rtarena.run_match(env, {"a0": agent}, clock="paused", max_steps=3)
    assert agent.context.privileged is None
    assert not hasattr(agent.context, "env")
    assert not reaches(agent, env)


def test_the_walk_finds_the_env_through_a_privileged_view():
    """The positive control: the same walk finds the env when the agent is privileged."""
    env = CounterEnv(num_agents=1)
    agent = PrivilegedSnoop()
    rtarena.run_match(env, {"a0": agent}, clock="paused", max_steps=3)
    assert isinstance(agent.context.privileged, ReadOnlyView)
    assert agent.tried["env"] is None and agent.tried["privileged"] is agent.context.privileged
    assert reaches(agent, env)


def test_the_arena_gives_its_world_only_to_the_privileged_bot():
    env = rtarena.make("arena/competitive-v0", num_agents=2)
    bot, other = build_agent("heuristic:easy", family="arena"), RandomAgent()
    rtarena.run_match(env, {"p0": bot, "p1": other}, clock="paused", max_steps=2)
    assert bot.context.privileged is not None and other.context.privileged is None
    assert not reaches(other, env) and not reaches(other, env.world)
    assert "turret" in other.context.docs.rules_text  # documentation still reaches every agent
    assert other.context.docs.action_names["p1"][0] == "move_x"


COMMANDS = ("step", "reset", "close", "render", "np_random", "__dict__", "_reset")


def assert_refuses_commands(env: Any, extra: tuple[str, ...] = ()) -> Any:
    """The runtime's privileged view of `env` answers its declared queries only: every command (and any
    undeclared name) is refused with a line naming the declared queries, and nothing can be set."""
    view = privileged_view(env)
    declared = type(env).privileged_queries
    assert declared, f"{type(env).__name__} declares no privileged queries"
    for name in (*COMMANDS, *extra):
        with pytest.raises(AttributeError, match=r"is not a privileged query \(declared: "):
            getattr(view, name)
    for name in ("step", declared[0].split(".")[0]):
        with pytest.raises(AttributeError, match="read-only"):
            setattr(view, name, None)
    return view


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


def test_the_arena_view_answers_queries_and_refuses_commands():
    env = rtarena.make("arena/competitive-v0", num_agents=2)
    env.reset(seed=0)
    view = assert_refuses_commands(env, extra=("agents", "infos"))
    for name in ("players", "step", "obstacles"):
        with pytest.raises(AttributeError, match=f"CompetitiveLevel.world.{name} is not a privileged query"):
            getattr(view.world, name)
    time_s = env.world.time_s
    before = {"rules": snapshot(env.rules), "agents": list(env.possible_agents), "grid": env.world.occupancy(1.0)}
    rules, agents, grid = view.rules, view.possible_agents, view.world.occupancy(1.0)
    assert snapshot(rules) == before["rules"] and agents == before["agents"]
    np.testing.assert_array_equal(grid, before["grid"])
    mutate(rules), mutate(agents), mutate(grid)
    assert snapshot(env.rules) == before["rules"] and env.possible_agents == before["agents"]
    np.testing.assert_array_equal(env.world.occupancy(1.0), before["grid"])
    assert env.world.time_s == time_s  # nothing stepped
    env.step({a: env.default_action(a) for a in env.agents})
    assert view.world.size_m == env.world.size_m and env.world.time_s > time_s  # live: reads the world as it is


def test_the_game_view_hands_out_copies_of_its_world_facts():
    env = rtarena.make("games/workshop-v0")
    env.reset(seed=0)
    view = assert_refuses_commands(env, extra=("pos", "orders", "stations", "rules"))
    before = snapshot(env.privileged_state("p0"))
    facts = view.privileged_state("p0")
    assert snapshot(facts) == before and isinstance(facts["orders"], list)
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
