"""What a match leaves behind: one record per decision and per step, and per-agent summaries.

Records are frozen dataclasses with units in their field names. Wall-clock fields measure the machine,
not the match, so they are left out of equality (`compare=False`) and out of `to_dict(wall=False)`:
under the paused and token clocks two runs with the same seed and deterministic agents give records
that are equal and serialise to identical bytes.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np

WALL_FIELDS = ("wall_start_s", "wall_end_s", "wall_latency_s", "wall_step_start_s", "period_error_s",
               "wall_seconds", "extra", "queue_wait_s", "cost_usd")
# Fields computed from others that the deterministic form already holds (`late`: from `obs_sim_s`,
# `committed_sim_s` and the frame interval); left out of `to_dict(wall=False)`, so that the records digests
# stored before they existed (tests/arena_perf/golden_records.json) still hold, and lose nothing.
DERIVED_FIELDS = ("late",)


def jsonable(value: Any) -> Any:
    """Numpy arrays and scalars as plain lists and numbers, recursively."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def _as_dict(record: Any, wall: bool) -> dict[str, Any]:
    out = {f.name: jsonable(getattr(record, f.name)) for f in fields(record)}
    if not wall:
        for name in (*WALL_FIELDS, *DERIVED_FIELDS):
            out.pop(name, None)
    return out


@dataclass(frozen=True)
class DecisionRecord:
    """One decision of one controller, from the observation it saw to the step that applied it.

    Times (seconds): `obs_sim_s` is the sim time of the observation decided on; `start_sim_s` when the
    controller began (never before `obs_sim_s`); `committed_sim_s` when its action was ready
    (`start_sim_s + delay_sim_s`; None for an `abandoned` decision, still unanswered when the episode
    ended); `applied_sim_s`/`applied_step` the step that applied it, None when the action never reached
    the env (a newer decision replaced it before its step, or the episode ended first); for a chunk they
    name its first applied step. `chunk` holds a chunk's per-step actions (None for a plain action),
    `chunk_steps` how many per-step actions the decision carried (1 without a chunk) and `applied_steps`
    how many reached the env (fewer when a newer decision replaced the rest). `late` says whether the
    decision committed after the next frame was due (`committed_sim_s > obs_sim_s + dt x obs_every`): newer
    frames were published while it was being made, and it acts on a world it has not seen (Realtime-Bench's
    skipped frames); None for an abandoned one. `wall_start_s`
    and `wall_end_s` are wall seconds since the episode's start around the agent's call (for an abandoned
    decision, its end is the episode's end) and `wall_latency_s` their difference. `queue_wait_s` is the
    part of it a model call spent waiting for a slot of its endpoint's limits (None: no limits), and
    `cost_usd` what its tokens cost at the model's price (None: no price); both from the agent's `extra`.
    """

    index: int
    controller: str
    agents: tuple[str, ...]
    obs_version: int
    obs_sim_s: float
    start_sim_s: float
    committed_sim_s: float | None
    delay_sim_s: float | None
    applied_sim_s: float | None
    applied_step: int | None
    action: Any
    valid: bool
    tokens_in: int
    tokens_out: int
    tokens_source: str
    text: str | None
    error: str | None
    chunk: list[Any] | None = None
    chunk_steps: int = 1
    applied_steps: int = 0
    late: bool | None = field(default=None, compare=False)
    wall_start_s: float = field(default=0.0, compare=False)
    wall_end_s: float = field(default=0.0, compare=False)
    wall_latency_s: float = field(default=0.0, compare=False)
    # What the agent reported beyond the fields above (a model call's time to first token, attempts ...);
    # machine-dependent like the wall fields, so outside equality and `to_dict(wall=False)`.
    extra: dict[str, Any] | None = field(default=None, compare=False)
    queue_wait_s: float | None = field(default=None, compare=False)
    cost_usd: float | None = field(default=None, compare=False)

    def to_dict(self, wall: bool = True) -> dict[str, Any]:
        return _as_dict(self, wall)


@dataclass(frozen=True)
class StepRecord:
    """One env step: which agents got a fresh action, which of those were not the default, rewards, the
    action each living agent played (`actions`, defaults included) and, for fresh ones, which decision and
    which step of its chunk it came from (`sources[agent] = {"decision": i, "chunk_step": j}`)."""

    step: int
    sim_s: float
    fresh_agents: tuple[str, ...]
    fresh_nondefault_agents: tuple[str, ...]
    rewards: dict[str, float]
    obs_version: int | None  # the version published after this step, None if none was published
    actions: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, dict[str, int]] = field(default_factory=dict)
    wall_step_start_s: float = field(default=0.0, compare=False)
    period_error_s: float | None = field(default=None, compare=False)

    def to_dict(self, wall: bool = True) -> dict[str, Any]:
        return _as_dict(self, wall)


def percentile(values: list[float], q: float) -> float | None:
    return float(np.percentile(values, q)) if values else None


@dataclass
class MatchResult:
    """Everything one match produced. `agents` holds per-agent summaries (runtime and env metrics)."""

    env_id: str
    seed: int
    clock: dict[str, Any]
    controllers: dict[str, tuple[str, ...]]
    steps: list[StepRecord]
    decisions: list[DecisionRecord]
    events: list[dict[str, Any]]
    agents: dict[str, dict[str, Any]]
    sim_seconds: float
    wall_seconds: float = field(compare=False)
    period_error_p50_s: float | None = field(default=None, compare=False)
    period_error_p99_s: float | None = field(default=None, compare=False)

    def decision_rows(self, wall: bool = True) -> list[dict[str, Any]]:
        return [d.to_dict(wall) for d in self.decisions]

    def step_rows(self, wall: bool = True) -> list[dict[str, Any]]:
        return [s.to_dict(wall) for s in self.steps]

    def records_json(self, wall: bool = False) -> str:
        """Decision and step records as canonical JSON; without wall fields it is deterministic."""
        return json.dumps({"decisions": self.decision_rows(wall), "steps": self.step_rows(wall)},
                          sort_keys=True, separators=(",", ":"))

    def summary(self) -> dict[str, Any]:
        """The episode line of `episodes.jsonl`."""
        return jsonable({
            "env_id": self.env_id,
            "seed": self.seed,
            "clock": self.clock,
            "controllers": {name: list(agents) for name, agents in self.controllers.items()},
            "agents": self.agents,
            "steps": len(self.steps),
            "sim_seconds": self.sim_seconds,
            "wall_seconds": self.wall_seconds,
            "decisions": len(self.decisions),
            "period_error_p50_s": self.period_error_p50_s,
            "period_error_p99_s": self.period_error_p99_s,
            # each decision once (a team decision drives several agents); only where a decision had a price /
            # a limited endpoint, so the records of other runs stay as they were
            **_total("cost_usd", [d.cost_usd for d in self.decisions]),
            **_total("queue_wait_s", [d.queue_wait_s for d in self.decisions]),
        })


def _total(name: str, values: list[float | None]) -> dict[str, float]:
    given = [v for v in values if v is not None]
    return {name: float(sum(given))} if given else {}


def failure_counts(decisions: list[DecisionRecord]) -> dict[str, int]:
    """Failed decisions per kind, the kind being the error text before its first colon (`http_500: ...`)."""
    counts: dict[str, int] = {}
    for d in decisions:
        if d.error:
            kind = d.error.split(":", 1)[0].strip() or "error"
            counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items()))


def summarise_agents(
    agent_ids: list[str],
    steps: list[StepRecord],
    decisions: list[DecisionRecord],
    alive_steps: dict[str, int],
    env_metrics: dict[str, dict[str, float]],
) -> dict[str, dict[str, Any]]:
    """Per-agent runtime metrics (returns, action frequency, latency) merged with the env's own."""
    out: dict[str, dict[str, Any]] = {}
    total_steps = max(1, len(steps))
    for agent in agent_ids:
        mine = [d for d in decisions if agent in d.agents]
        fresh = sum(agent in s.fresh_agents for s in steps)
        fresh_nondefault = sum(agent in s.fresh_nondefault_agents for s in steps)
        delays = [d.delay_sim_s for d in mine if d.delay_sim_s is not None]
        latencies = [d.wall_latency_s for d in mine]
        costs = [d.cost_usd for d in mine if d.cost_usd is not None]
        waits = [d.queue_wait_s for d in mine if d.queue_wait_s is not None]
        out[agent] = {
            "return": float(sum(s.rewards.get(agent, 0.0) for s in steps)),
            "decisions": len(mine),
            "invalid_decisions": sum(not d.valid for d in mine),
            "applied_decisions": sum(d.applied_step is not None for d in mine),
            "tokens_in": sum(d.tokens_in for d in mine),
            "tokens_out": sum(d.tokens_out for d in mine),
            "failed_decisions": sum(bool(d.error) for d in mine),
            "failures": failure_counts(mine),
            "steps_alive": alive_steps.get(agent, 0),
            "fresh_action_steps": fresh,
            "effective_action_frequency": fresh_nondefault / total_steps,
            "decision_delay_p50_s": percentile(delays, 50),
            "decision_delay_p90_s": percentile(delays, 90),
            "wall_latency_p50_s": percentile(latencies, 50),
            "wall_latency_p90_s": percentile(latencies, 90),
            # only where a decision had a price / a limited endpoint (records of other runs stay as they were)
            **({"cost_usd": sum(costs)} if costs else {}),
            **({"queue_wait_s": sum(waits), "queue_wait_p90_s": percentile(waits, 90)} if waits else {}),
            **env_metrics.get(agent, {}),
        }
    return out


__all__ = ["DecisionRecord", "MatchResult", "StepRecord", "asdict", "jsonable", "summarise_agents"]
