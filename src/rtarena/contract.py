"""The contract every layer shares, at the bottom of the package: it imports nothing else of rtarena.

- **Agents** (`Agent`, `Decision`, `AgentContext`, `EnvDocs`): `Agent.act(observation) -> Decision`, blocking;
  the runtime times it. At the start of each episode an agent gets an `AgentContext`: spaces, defaults,
  `dt`, seed, the episode's frozen clock (`ClockView`) and the env's documentation (`EnvDocs`), never the
  env object.
- **Privileged agents** (`Agent.privileged`, `PrivilegedFeed`): a scripted bot or an oracle that needs world
  state sets `privileged = True` on its class (and its `agents/specs.py: AGENT_KINDS` row says
  `privileged=True`, so `rtarena list` marks it). The runtime then hands it, and only it,
  `AgentContext.privileged`: a feed of the env's `privileged_state(agent)` snapshots, one per observation it
  decides on, deep copies (values, never a handle on the env). Every other agent's `context.privileged`
  is None.
- **Envs** (`AgentID`, `EnvCapabilities`, `RealtimeEnv`): what the runtime relies on beyond PettingZoo's
  `ParallelEnv`, and the one typed declaration of every optional behaviour.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

AgentID = str


# -- the env contract ---------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class EnvCapabilities:
    """Every optional behaviour of an env the runtime, agents and eval use, declared once (Gymnasium's
    `EnvSpec`/`metadata` habit): the runtime reads `env.capabilities` and never probes the env for a name.

    An env class declares `capabilities = EnvCapabilities(...)`; an instance may narrow or fill it in
    `__init__` (`dataclasses.replace`), e.g. from its task file. A misspelt field is a `TypeError` here, a
    value out of range a `ValueError`, and the registry (`envs/capabilities.py: check_declaration`) refuses a
    declaration that does not match the class (a capability it lacks the method for, a method it does not
    declare, a capability left as a loose class attribute). docs/architecture.md ("Capabilities") is the
    table of these fields.

    - `substep_s`: the finest simulated time, in seconds, at which the env can apply an action inside a step;
      with it the env implements `set_action_times({agent: seconds into the step})`: the next `step()` runs to
      each such time with the agent's default action, applies its action there, then finishes the step. The
      runtime then applies an action at its commit time (rounded up to `substep_s`); None: at the next step
      boundary.
    - `privileged`: the env implements `privileged_state(agent)`, a value of world facts for privileged agents
      (scripted bots, oracles), taken by the runtime with each observation they decide on (PettingZoo's
      `state()`); they never get the env.
    - `action_names`: the field names of an agent's action vector (a model agent's action parser and prompt
      read them); None: the env declares none.
    - `obs_every`: the env's default number of steps between published observations (the clock's `obs_every`
      when the run sets none); None: the clock's own default.
    - `tokens_per_interval`: the env's default B, tokens a model may spend per observation interval (the token
      clock's `kappa = B x` observation rate when the run sets neither); None: the clock's own default.
    - `fused_step`: the level's end rule is the one the arena's fused one-player step compiles (every coin
      taken), so a one-player `rgb` episode may take that fast path (`envs/arena/fused.py`).
    """

    substep_s: float | None = None
    privileged: bool = False
    action_names: tuple[str, ...] | None = None
    obs_every: int | None = None
    tokens_per_interval: int | None = None
    fused_step: bool = False

    def __post_init__(self) -> None:
        if self.substep_s is not None and not (isinstance(self.substep_s, (int, float)) and 0 < self.substep_s < 1e9):
            raise ValueError(f"capabilities.substep_s must be a positive number of seconds, got {self.substep_s!r}")
        for name in ("privileged", "fused_step"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"capabilities.{name} must be True or False, got {getattr(self, name)!r}")
        for name in ("obs_every", "tokens_per_interval"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, int) and not isinstance(value, bool) and value > 0):
                raise ValueError(f"capabilities.{name} must be a positive whole number, got {value!r}")
        names = self.action_names
        named = isinstance(names, tuple) and names and all(isinstance(n, str) and n for n in names)
        if names is not None and not named:
            raise ValueError(f"capabilities.action_names must be a non-empty tuple of names, got {names!r}")


@runtime_checkable
class RealtimeEnv(Protocol):
    """A PettingZoo `ParallelEnv` (1.27 API) with a fixed simulated step, as the runtime sees it.

    Every member below is part of the contract; `envs/base.py: RealtimeParallelEnv` (the base of every rtarena
    env, and of the adapters and wrappers for outside envs) gives each optional one its default, so the
    runtime reads them directly:

    - `dt`: simulated seconds advanced by one `step()`; `step()` is deterministic given seed and actions.
    - `default_action(agent)`: what an agent does when it has not decided (a no-op or "wait").
    - `observation_space(agent)` / `action_space(agent)` return the same object on every call.
    - `infos[agent]["events"]`: a list of dicts, what happened to or because of the agent this step.
    - `capabilities`: the env's `EnvCapabilities` (sub-step action times, privileged snapshot, action names,
      clock defaults, fast paths).
    - `episode_metrics()`: per-agent numbers the env computed from its own events ({} by default).
    - `spec_id`: the registry id it was made from (None for a hand-built env); `time_limit_s`: the longest
      an episode lasts in sim seconds (None: unknown).
    - Documentation an agent may read: `documentation()` (the class docstring, filled from the rules in force
      where the level's docstring is a template), `rules_text()` (the level file's numbers in force, or None)
      and `instruction` (the episode's own instruction, read after reset, or None); the docstring of the
      class's module is the family's; see `runtime/documentation.py`.
    - `set_action_times(at_s)` where `capabilities.substep_s` is set; `privileged_state(agent)` where
      `capabilities.privileged` is.
    """

    dt: float
    possible_agents: list[AgentID]
    agents: list[AgentID]
    capabilities: EnvCapabilities
    spec_id: str | None
    time_limit_s: float | None
    instruction: str | None

    def default_action(self, agent: AgentID) -> Any: ...

    def observation_space(self, agent: AgentID) -> Any: ...

    def action_space(self, agent: AgentID) -> Any: ...

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]: ...

    def step(self, actions: dict[AgentID, Any]) -> tuple[dict, dict, dict, dict, dict]: ...

    def episode_metrics(self) -> dict[AgentID, dict[str, Any]]: ...

    def documentation(self) -> str | None: ...

    def rules_text(self) -> str | None: ...

    def set_action_times(self, at_s: dict[AgentID, float]) -> None: ...

    def privileged_state(self, agent: AgentID) -> Any: ...


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

    `privileged` is the `PrivilegedFeed` of world snapshots for agents whose class sets `privileged = True`,
    and None for every other agent. `clock` is the episode's frozen clock; `horizon_s` the longest the episode can
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
    privileged: PrivilegedFeed | None = None
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

    `privileged = True` asks the runtime for `context.privileged`, a feed of world snapshots (values, never
    the env); set it only on scripted bots and oracles, and mark their `AGENT_KINDS` row the same way.
    `observes` declares what the agent needs the env to make (a pixel policy: `rgb` at 84 px); None:
    whatever the env makes.
    """

    name: str = "agent"
    privileged: ClassVar[bool] = False
    observes: Observes | None = None

    def reset(self, context: AgentContext) -> None:
        self.context = context

    def act(self, observation: Any) -> Decision:
        raise NotImplementedError

    def applied(self, number: int) -> None:
        """The runtime's word that this agent's `number`-th decision (from 1) reached the env (model agents
        keep a ledger of executed actions); nothing by default."""

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


# -- the privileged snapshot --------------------------------------------------------------------------
class PrivilegedFeed:
    """What a privileged agent reads of the world: values, never the env (PettingZoo's `state()`).

    For each env agent its controller owns, `feed[agent]` is the env's `privileged_state(agent)` as of the
    observation the agent is deciding on: the runtime takes it (a deep copy) when it publishes that
    observation and puts it here before calling `act` (and before `reset`, from the first observation).
    Changing a value changes nothing in the world, and nothing here leads back to the env. `ask(**params)`
    names parameters the agent's snapshots are taken with from the next one on (the browser oracle's lead
    time: `privileged_state(agent, lead_s=...)`).
    """

    __slots__ = ("_params", "_states")

    def __init__(self, states: Mapping[AgentID, Any] | None = None) -> None:
        self._states: dict[AgentID, Any] = dict(states or {})
        self._params: dict[str, Any] = {}

    def __getitem__(self, agent: AgentID) -> Any:
        if agent not in self._states:
            raise KeyError(f"no privileged snapshot of {agent!r} (this feed has {sorted(self._states)})")
        return self._states[agent]

    def ask(self, **params: Any) -> None:
        """Take this agent's next snapshots with these keyword arguments of `privileged_state`."""
        self._params = dict(params)

    @property
    def params(self) -> dict[str, Any]:
        return dict(self._params)

    def put(self, states: Mapping[AgentID, Any]) -> None:
        """The runtime's side: the snapshots of the observation about to be decided on."""
        self._states = dict(states)

    def __repr__(self) -> str:
        return f"PrivilegedFeed({sorted(self._states)})"


def same_action(a: Any, b: Any) -> bool:
    """Whether two actions are equal, for numpy arrays, scalars, strings and containers alike."""
    import numpy as np  # here, not at the top: the contract stays cheap to import

    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_action(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple, np.ndarray)) or isinstance(b, (list, tuple, np.ndarray)):
        try:
            return bool(np.array_equal(np.asarray(a), np.asarray(b)))
        except (TypeError, ValueError):
            return False
    return a == b
