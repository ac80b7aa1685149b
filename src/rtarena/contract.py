"""The contract every layer shares, at the bottom of the package: it imports nothing else of rtarena.

- **Agents** (`Agent`, `Decision`, `AgentContext`, `EnvDocs`): `Agent.act(observation) -> Decision`, blocking;
  the runtime times it. At the start of each episode an agent gets an `AgentContext`: spaces, defaults,
  `dt`, seed, the episode's frozen clock (`ClockView`) and the env's documentation (`EnvDocs`), never the
  env object.
- **Privileged agents** (`Agent.privileged`, `ReadOnlyView`): a scripted bot or an oracle that needs world
  state sets `privileged = True` on its class (and its `agents/specs.py: AGENT_KINDS` row says
  `privileged=True`, so `rtarena list` marks it). The runtime then hands it, and only it,
  `AgentContext.privileged`: a live `ReadOnlyView` of the env that answers the env's declared
  `privileged_queries` with copies and refuses everything else. Every other agent's `context.privileged`
  is None.
- **Envs** (`AgentID`, `RealtimeEnv`): what the runtime relies on beyond PettingZoo's `ParallelEnv`.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

AgentID = str


# -- the env contract ---------------------------------------------------------------------------------
@runtime_checkable
class RealtimeEnv(Protocol):
    """A PettingZoo `ParallelEnv` (1.27 API) with a fixed simulated step, as the runtime sees it.

    - `dt`: simulated seconds advanced by one `step()`; `step()` is deterministic given seed and actions.
    - `default_action(agent)`: what an agent does when it has not decided (a no-op or "wait").
    - `observation_space(agent)` / `action_space(agent)` return the same object on every call.
    - `infos[agent]["events"]`: a list of dicts, what happened to or because of the agent this step.
    - `episode_metrics()`: per-agent numbers the env computed from its own events (optional, not part of
      the protocol check).
    - Documentation an agent may read (optional): the class docstring (Minigrid sections), the docstring
      of the class's module, `rules_text()` or a `rules` object, `action_names` (attribute or method of
      the agent id) or a module constant `ACTION_NAMES`; see `runtime/documentation.py`.
    - `privileged_queries` (optional): the attribute and method names privileged agents may read through
      `ReadOnlyView` (dotted for a part: `"world.occupancy"`); none by default.
    - `substep_s` and `set_action_times(at_s)` (optional, together): `substep_s` is the finest simulated
      time, in seconds, at which the env can apply an action inside a step; `set_action_times({agent:
      seconds into the step})` asks the next `step()` to run to each such time with the agent's default
      action, apply its action there, then finish the step. The runtime then applies an action at its
      commit time (rounded up to `substep_s`); without them, at the next step boundary.
    """

    dt: float
    possible_agents: list[AgentID]
    agents: list[AgentID]

    def default_action(self, agent: AgentID) -> Any: ...

    def observation_space(self, agent: AgentID) -> Any: ...

    def action_space(self, agent: AgentID) -> Any: ...

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]: ...

    def step(self, actions: dict[AgentID, Any]) -> tuple[dict, dict, dict, dict, dict]: ...


# -- what agents are given ----------------------------------------------------------------------------
@runtime_checkable
class ClockView(Protocol):
    """The episode's clock protocol as an agent sees it: `runtime/clocks.py: Clock`, frozen, is handed over
    as it is (agents never import the runtime, so they type against this).

    - `name` (`wall`, `paused`, `token`, `measured`), `concurrent` (the env runs in real time),
      `deterministic`, `delay_s` (injected delay per decision), `obs_every`, `settle_s`;
    - `describe()`: the clock sentence of a prompt;
    - `planned_delay_s(tokens_out)`: simulated seconds from deciding to committing for a decision of that
      many generated tokens, as far as known in advance (exact under `paused` and `token`);
    - `model_budget_s(horizon_s)`: the default wall budget of one model call (under `wall`: until the
      episode ends, `horizon_s`);
    - `settings()`: the clock's name and settings as a dict (what records keep).
    """

    name: ClassVar[str]
    concurrent: ClassVar[bool]
    deterministic: ClassVar[bool]
    delay_s: float
    obs_every: int
    settle_s: float | None

    def describe(self) -> str: ...

    def planned_delay_s(self, tokens_out: int = 0) -> float: ...

    def model_budget_s(self, horizon_s: float | None = None) -> float | None: ...

    def settings(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Decision:
    """One decision: the action and what it cost.

    `tokens_source` says where the token counts came from: "server" (usage reported by the model
    server), "counted" (counted locally because the server reported none), "scripted" (a scripted agent's
    declared cost) or "none". `valid` is False when the output did not parse (the action is then the
    default one). For a controller that owns several env agents, `action` maps agent id to action.

    `chunk`, when given, is a sequence of per-step actions (each of the same form as `action`): the runtime
    applies the first at the first step at or after the commit time and the next ones on the following
    steps, until a newer decision of the same controller replaces the rest (docs/architecture.md, "Action
    chunks"). `action` is then the chunk's first action, kept for records and for agents unaware of chunks.
    """

    action: Any
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_source: str = "none"
    text: str | None = None
    valid: bool = True
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    chunk: tuple[Any, ...] | None = None

    def steps(self) -> tuple[Any, ...]:
        """The per-step actions this decision carries: its chunk, or its one action."""
        return tuple(self.chunk) if self.chunk else (self.action,)


@dataclass(frozen=True)
class EnvDocs:
    """The env's documentation, read once by the runtime: what a person would read before playing.

    `class_doc` is the env class's docstring (Minigrid's `## Description / ## Observation / ...`
    sections), `family_doc` the docstring of the module that defines the class (what a family of levels
    shares), `rules_text` the numbers of the level's data file as this run uses them, `action_names` the
    field names of each agent's action vector where the env declares them, `instruction` the task's own
    instruction where the env states one (its `instruction` attribute, read after reset).
    """

    class_doc: str | None = None
    family_doc: str | None = None
    rules_text: str | None = None
    action_names: Mapping[AgentID, tuple[str, ...] | None] = field(default_factory=dict)
    instruction: str | None = None  # the task's own instruction for this episode (a browser task's goal)


@dataclass(frozen=True)
class AgentContext:
    """What an agent may know about the episode it is about to play (never the env object itself).

    `privileged` is a read-only view of the env for agents whose class sets `privileged = True`, and None
    for every other agent. `clock` is the episode's frozen clock; `horizon_s` the longest the episode can
    last in simulated seconds (the runtime's step limit x `dt`), None when unknown.
    """

    env_id: str
    agents: tuple[AgentID, ...]
    observation_spaces: dict[AgentID, Any]
    action_spaces: dict[AgentID, Any]
    default_actions: dict[AgentID, Any]
    dt: float
    seed: int
    clock: ClockView
    docs: EnvDocs = field(default_factory=EnvDocs)
    privileged: ReadOnlyView | None = None
    horizon_s: float | None = None
    # where a committed action takes effect: at its commit time inside a step (a browser task: the page acts
    # at the decision's simulated time) or, False, at the first step that starts at or after it
    applies_at_commit: bool = False

    @property
    def agent(self) -> AgentID:
        """The single env agent of a decentralised controller."""
        return self.agents[0]


@dataclass(frozen=True)
class Observes:
    """What an agent needs the env to make: observation modalities (`rgb`, `state`, `text` ...) and, where one
    is an image, its side in pixels (None: any size); `family_view`: also the env family's declared model view
    (a model agent that names none: docs/conditions.md). The runner asks the env for it before any episode."""

    modalities: tuple[str, ...] = ()
    image_px: int | None = None
    family_view: bool = False


class Agent:
    """Base class for decision makers. Subclasses implement `act`; `reset` is called per episode.

    `privileged = True` asks the runtime for `context.privileged`, a read-only view of the world; set it
    only on scripted bots and oracles, and mark their `AGENT_KINDS` row the same way. `observes` declares
    what the agent needs the env to make (a pixel policy: `rgb` at 84 px); None: whatever the env makes.
    """

    name: str = "agent"
    privileged: ClassVar[bool] = False
    observes: Observes | None = None

    def reset(self, context: AgentContext) -> None:
        self.context = context

    def act(self, observation: Any) -> Decision:
        raise NotImplementedError

    def close(self) -> None:
        """Release what the agent holds (HTTP clients, windows)."""


class CallableAgent(Agent):
    """Any plain callable `observation -> action` used as an agent."""

    def __init__(self, policy: Callable[[Any], Any], name: str | None = None) -> None:
        self.policy = policy
        self.name = name or getattr(policy, "__name__", "callable")

    def act(self, observation: Any) -> Decision:
        result = self.policy(observation)
        return result if isinstance(result, Decision) else Decision(action=result)


def as_agent(obj: Agent | Callable[[Any], Any]) -> Agent:
    """An `Agent` as is; a plain callable wrapped in `CallableAgent`."""
    if isinstance(obj, Agent):
        return obj
    if callable(obj):
        return CallableAgent(obj)
    raise TypeError(f"an agent must be an Agent or a callable observation -> action, got {obj!r}")


# -- the privileged view ------------------------------------------------------------------------------
class ReadOnlyView:
    """A live window onto an env that answers only the queries its family declares, with copies.

    An env lists what privileged agents may read in `privileged_queries`: names of attributes or methods;
    a dotted name (`"world.occupancy"`) opens `view.world` for that one query. Reading a declared attribute
    returns a copy of its value as it is now; calling a declared method runs it and returns a copy of its
    result, so nothing an agent holds is the env's own object and changing it changes nothing in the world.
    Any other name (`step`, `reset`, a private field) raises `AttributeError` naming the declared queries;
    setting or deleting an attribute raises too. A privileged agent queries, never commands.
    """

    __slots__ = ("_queries", "_target", "_where")

    def __init__(self, target: Any, queries: Iterable[str] = (), where: str | None = None) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_queries", frozenset(queries))
        object.__setattr__(self, "_where", where or type(target).__name__)

    def __getattr__(self, name: str) -> Any:
        target, queries, where = (object.__getattribute__(self, slot) for slot in ("_target", "_queries", "_where"))
        if name in queries:
            value = getattr(target, name)
            return _copying(value) if callable(value) else copy.deepcopy(value)
        inner = {query.split(".", 1)[1] for query in queries if query.startswith(name + ".")}
        if inner and not name.startswith("_"):
            return ReadOnlyView(getattr(target, name), inner, f"{where}.{name}")
        declared = ", ".join(sorted(queries)) or "none"
        raise AttributeError(f"{where}.{name} is not a privileged query (declared: {declared}); a privileged "
                             "agent reads the world through its env's privileged_queries and never commands it")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a privileged view is read-only (tried to set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a privileged view is read-only (tried to delete {name!r})")

    def __repr__(self) -> str:
        return f"ReadOnlyView({object.__getattribute__(self, '_where')})"


def _copying(method: Callable[..., Any]) -> Callable[..., Any]:
    """A declared query method whose every result is a copy (the caller may change it; the env never sees it)."""

    @functools.wraps(method)
    def query(*args: Any, **kwargs: Any) -> Any:
        return copy.deepcopy(method(*args, **kwargs))

    return query
