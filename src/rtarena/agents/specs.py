"""Agent specs: the strings `--agent` takes (`random`, `noop`, `heuristic:hard`, `llm:MODEL@URL` ...).

One table maps a spec's kind to where its agent lives. Kinds whose agent depends on the env family
(a heuristic bot plays the arena differently from cart-pole) map each family to an entry point. The
text after the first `:` is handed to the factory as its option string.

A row marked `privileged` holds scripted bots or oracles that read world state from the runtime's per-step
snapshots (`rtarena.contract.Agent.privileged`, `PrivilegedFeed`); `rtarena list` marks them, so nobody mistakes an
oracle's score for an agent's.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from rtarena.contract import Agent
from rtarena.errors import UserError


@dataclass(frozen=True)
class AgentKind:
    """One row: a spec kind, a summary for `rtarena list`, and its entry point(s) `"module:attr"`."""

    name: str
    summary: str
    entry_point: str | None = None
    by_family: dict[str, str] = field(default_factory=dict)
    team: bool = False  # one controller for several bodies
    privileged: bool = False  # may read world state: its agents set `privileged = True` on their class
    interactive: bool = False  # a person at a window: `rtarena play` only, never `run` or an experiment
    connects: bool = False  # holds a session with a server: one is opened before any episode (check_connections)
    chat: bool = False  # its option is an LLMOptions spec sent through the chat client (endpoint limits apply)


AGENT_KINDS: list[AgentKind] = [
    AgentKind("noop", "always the env's default action", "rtarena.agents.base:NoopAgent"),
    AgentKind("random", "uniformly random actions, seeded", "rtarena.agents.base:RandomAgent",
              by_family={"web": "rtarena.agents.gui_random:GuiRandomAgent",
                         "gui-games": "rtarena.agents.gui_random:GuiRandomAgent"}),
    AgentKind(
        "heuristic",
        "the env family's scripted bot; `heuristic:easy|medium|hard` where the family has difficulties",
        by_family={"classic": "rtarena.agents.scripted.cartpole:CartPoleBalancer",
                   "arena": "rtarena.agents.scripted.arena:HeuristicBot",
                   "games": "rtarena.agents.scripted.games:GameBot"},
        privileged=True,
    ),
    AgentKind(
        "oracle",
        "a browser task's own solution (privileged); `oracle:TOKENS` declares output tokens per decision",
        by_family={"web": "rtarena.agents.gui_oracle:make_oracle",
                   "gui-games": "rtarena.agents.gui_oracle:make_oracle"},
        privileged=True,
    ),
    AgentKind(
        "llm",
        "a model over an OpenAI-compatible API: `llm:MODEL@BASE_URL[,key=value...]` (rtarena.agents.llm.options)",
        "rtarena.agents.llm.agent:LLMAgent",
        chat=True,
    ),
    AgentKind(
        "live",
        "a live-session model over OpenAI's Realtime WebSocket protocol, one session per episode: "
        "`live:MODEL@BASE_URL[,key=value...]` (rtarena.agents.llm.live)",
        "rtarena.agents.llm.live:LiveAgent",
        connects=True,
    ),
    AgentKind(
        "team",
        "one controller for consecutive slots with the same spec: `team:llm:MODEL@BASE_URL[,key=value...]`",
        "rtarena.agents.llm.team:build_team",
        team=True,
        chat=True,
    ),
    AgentKind(
        "agentic",
        "the agentic framework (several reasoning rounds per step): `agentic:MODEL@BASE_URL[,rounds=3,...]`",
        "rtarena.agents.llm.agentic.agent:AgenticAgent",
        chat=True,
    ),
    AgentKind("sb3", "a Stable-Baselines3 policy on the arena's state vector or 84x84 pixels: `sb3:PATH` "
              "(`rtarena train sb3`)", "rtarena.agents.sb3:SB3Agent"),
    AgentKind("vlm", "a local model (transformers), with or without trained LoRA adapters: "
              "`vlm:PATH[,adapter=DIR,key=value...]` (rtarena.agents.llm.local)", "rtarena.agents.llm.local:VLMAgent"),
    AgentKind("human", "a person at the keyboard (`rtarena play`): `human[:wasd|arrows|ijkl|numpad]`",
              "rtarena.agents.human:make_human", interactive=True),
]


@dataclass(frozen=True)
class AgentSpec:
    """A parsed `--agent` string."""

    text: str
    kind: AgentKind
    option: str | None

    @property
    def team(self) -> bool:
        return self.kind.team


def parse_spec(text: str) -> AgentSpec:
    kind_name, _, option = text.partition(":")
    for kind in AGENT_KINDS:
        if kind.name == kind_name:
            return AgentSpec(text, kind, option or None)
    known = ", ".join(k.name for k in AGENT_KINDS)
    raise UserError(f"unknown agent spec {text!r}; kinds: {known}", field="--agent")


def build_agent(spec: AgentSpec | str, family: str = "") -> Agent:
    """A fresh agent for one controller slot."""
    spec = parse_spec(spec) if isinstance(spec, str) else spec
    entry_point = spec.kind.by_family.get(family) or spec.kind.entry_point
    if entry_point is None:
        families = ", ".join(spec.kind.by_family) or "none"
        raise UserError(f"agent {spec.kind.name!r} has no version for env family {family!r} "
                        f"(it has: {families})", field="--agent")
    module_name, attr = entry_point.split(":")
    factory = getattr(importlib.import_module(module_name), attr)
    try:
        agent = factory(spec.option) if spec.option is not None else factory()
    except UserError:
        raise
    except (TypeError, ValueError) as error:
        raise UserError(f"agent spec {spec.text!r} does not take option {spec.option!r}: {error}",
                        field="--agent") from None
    if agent.privileged and not spec.kind.privileged:
        raise TypeError(f"{entry_point} builds a privileged agent but its AGENT_KINDS row "
                        f"{spec.kind.name!r} is not marked privileged=True")
    agent.name = spec.text
    return agent


def check_spec(text: str, family: str = "", command: str = "") -> AgentSpec:
    """Parse a spec and build its agent once (no network, no episode), so that a bad option fails with
    one line before anything runs. `command="run"` also refuses interactive kinds (a person at a window)."""
    checked_agent(text, family, command).close()
    return parse_spec(text)


def checked_agent(text: str, family: str = "", command: str = "") -> Agent:
    """`check_spec`'s agent, built once and handed over (the caller closes it): what it `observes` is asked of
    the env before any episode."""
    spec = parse_spec(text)
    if command == "run" and spec.kind.interactive:
        raise UserError(f"{text!r} is a person at a window: use `rtarena play`, not `rtarena run`", field="--agent")
    return build_agent(spec, family)


def check_connections(specs: Iterable[str]) -> None:
    """Open and close one session for each spec whose kind holds one (`live:`), before any episode runs: a bad
    URL or a server that does not speak the protocol is one line, not a failed episode per seed."""
    for text in sorted(set(specs)):
        spec = parse_spec(text)
        if spec.kind.connects:
            agent = build_agent(spec)
            try:
                agent.check_connection()  # type: ignore[attr-defined]
            finally:
                agent.close()
