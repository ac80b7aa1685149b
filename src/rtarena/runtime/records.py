"""What a match leaves behind: one record per decision and per step, and per-agent summaries.

Records are frozen dataclasses with units in their field names. Wall-clock fields measure the machine,
not the match, so they are left out of equality (`compare=False`) and out of `to_dict(wall=False)`:
under the paused and token clocks two runs with the same seed and deterministic agents give records
that are equal and serialise to identical bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import tempfile
import threading
from array import array
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Protocol

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


def percentile(values: Any, q: float) -> float | None:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if len(values) else None


@dataclass
class MatchResult:
    """Everything one match produced. `agents` holds per-agent summaries (runtime and env metrics).

    `steps`, `decisions` and `events` hold the records of a match played in memory (`run_match` without a
    sink); a match whose records were streamed (`Recording` with a sink) leaves them empty and names its
    files in `record_files` (view -> path). The counts, the summaries and `records_sha256` are there either
    way, computed as the records were made."""

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
    step_count: int = 0
    decision_count: int = 0
    records_sha256: str = ""
    totals: dict[str, float] = field(default_factory=dict, compare=False)
    record_files: dict[str, str] | None = field(default=None, compare=False)

    def decision_rows(self, wall: bool = True) -> list[dict[str, Any]]:
        return [d.to_dict(wall) for d in self.decisions]

    def step_rows(self, wall: bool = True) -> list[dict[str, Any]]:
        return [s.to_dict(wall) for s in self.steps]

    def records_json(self, wall: bool = False) -> str:
        """Decision and step records as canonical JSON; without wall fields it is deterministic. (A streamed
        match has no records in memory: its digest is `records_sha256`.)"""
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
            "steps": self.step_count,
            "sim_seconds": self.sim_seconds,
            "wall_seconds": self.wall_seconds,
            "decisions": self.decision_count,
            "period_error_p50_s": self.period_error_p50_s,
            "period_error_p99_s": self.period_error_p99_s,
            # each decision once (a team decision drives several agents); only where a decision had a price /
            # a limited endpoint, so the records of other runs stay as they were
            **self.totals,
        })


def failure_kind(error: str) -> str:
    """The kind of a failed decision: its error text before the first colon (`http_500: ...`)."""
    return error.split(":", 1)[0].strip() or "error"


class AgentTally:
    """One agent's runtime metrics, added up as its steps and decisions are recorded (nothing kept per step
    but one 8-byte number per decision for each latency percentile)."""

    def __init__(self) -> None:
        self.returns = 0.0
        self.decisions = self.invalid = self.applied = self.tokens_in = self.tokens_out = self.failed = 0
        self.failures: dict[str, int] = {}
        self.fresh = self.fresh_nondefault = 0
        self.delays = array("d")
        self.latencies = array("d")
        self.waits = array("d")
        self.cost: float | None = None

    def decision(self, d: DecisionRecord) -> None:
        self.decisions += 1
        self.invalid += not d.valid
        self.applied += d.applied_step is not None
        self.tokens_in += d.tokens_in
        self.tokens_out += d.tokens_out
        if d.error:
            self.failed += 1
            kind = failure_kind(d.error)
            self.failures[kind] = self.failures.get(kind, 0) + 1
        if d.delay_sim_s is not None:
            self.delays.append(d.delay_sim_s)
        self.latencies.append(d.wall_latency_s)
        if d.cost_usd is not None:
            self.cost = (self.cost or 0) + d.cost_usd
        if d.queue_wait_s is not None:
            self.waits.append(d.queue_wait_s)

    def metrics(self, steps: int, alive_steps: int) -> dict[str, Any]:
        return {
            "return": float(self.returns),
            "decisions": self.decisions,
            "invalid_decisions": self.invalid,
            "applied_decisions": self.applied,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "failed_decisions": self.failed,
            "failures": dict(sorted(self.failures.items())),
            "steps_alive": alive_steps,
            "fresh_action_steps": self.fresh,
            "effective_action_frequency": self.fresh_nondefault / max(1, steps),
            "decision_delay_p50_s": percentile(self.delays, 50),
            "decision_delay_p90_s": percentile(self.delays, 90),
            "wall_latency_p50_s": percentile(self.latencies, 50),
            "wall_latency_p90_s": percentile(self.latencies, 90),
            # only where a decision had a price / a limited endpoint (records of other runs stay as they were)
            **({"cost_usd": self.cost} if self.cost is not None else {}),
            **({"queue_wait_s": float(sum(self.waits)), "queue_wait_p90_s": percentile(self.waits, 90)}
               if self.waits else {}),
        }


class RecordSink(Protocol):
    """Where streamed records go: `write` takes a batch of one view's rows (`decisions`, `steps`, `events`,
    each row as `to_dict()` gives it, wall fields included) in the order they were made; `close` ends the
    views and returns their files (view -> path)."""

    def write(self, view: str, rows: list[dict[str, Any]]) -> None: ...

    def close(self) -> dict[str, str]: ...


BATCH_ROWS = 1024  # rows of one view held before a streamed match writes them (one Parquet row group)
VIEWS = ("decisions", "steps", "events")


class Recording:
    """An episode's records as they are made, and everything computed from them (counts, per-agent metrics,
    the records digest) added up on the way, so that nothing needs the whole episode at its end.

    Without a sink the records stay in memory (`run_match` of the Python API: tests and notebooks read
    `result.steps`). With one, each view's rows are handed to the sink in batches of `batch_rows` as they are
    made (`flush`), so a streamed episode holds at most a batch of each view whatever its length (issue 47:
    an arena episode kept about 17.5 KB per step). Decisions arrive final and in index order (`Episode`
    holds a decision until no action of it is left to apply).

    The digest is the SHA-256 of `MatchResult.records_json(wall=False)`, the decisions' JSON hashed as they
    arrive and the steps' JSON spooled to a temporary file until the decisions are done (it comes second)."""

    def __init__(self, agent_ids: list[str], sink: RecordSink | None = None, batch_rows: int | None = None) -> None:
        self.sink = sink
        self.batch_rows = batch_rows or BATCH_ROWS
        self.steps: list[StepRecord] = []  # in memory only without a sink
        self.decisions: list[DecisionRecord] = []
        self.events: list[dict[str, Any]] = []
        self.pending: dict[str, list[dict[str, Any]]] = {view: [] for view in VIEWS}  # with a sink: not written
        self.held_peak = 0  # the most rows held at once before a write (a test's measure of bounded memory)
        self.lock = threading.Lock()
        self.step_count = self.decision_count = 0
        self.tallies = {agent: AgentTally() for agent in agent_ids}
        self.period_errors = array("d")
        self.cost: float | None = None
        self.waits: float | None = None
        self._digest = hashlib.sha256(b'{"decisions":[')
        self._steps_json = tempfile.TemporaryFile(prefix="rtarena-steps-")  # noqa: SIM115 (closed by finish)
        self._first = {"decisions": True, "steps": True}

    def add_step(self, record: StepRecord) -> None:
        self.step_count += 1
        for agent, reward in record.rewards.items():
            if agent in self.tallies:
                self.tallies[agent].returns += reward
        for agent in record.fresh_agents:
            if agent in self.tallies:
                self.tallies[agent].fresh += 1
        for agent in record.fresh_nondefault_agents:
            if agent in self.tallies:
                self.tallies[agent].fresh_nondefault += 1
        if record.period_error_s is not None:
            self.period_errors.append(record.period_error_s)
        row = record.to_dict()
        self._steps_json.write(self._canonical("steps", row))
        self._keep("steps", record, row)

    def add_decision(self, record: DecisionRecord) -> None:
        self.decision_count += 1
        for agent in record.agents:
            if agent in self.tallies:
                self.tallies[agent].decision(record)
        if record.cost_usd is not None:
            self.cost = (self.cost or 0) + record.cost_usd
        if record.queue_wait_s is not None:
            self.waits = (self.waits or 0) + record.queue_wait_s
        row = record.to_dict()
        self._digest.update(self._canonical("decisions", row))
        self._keep("decisions", record, row)

    def add_event(self, row: dict[str, Any]) -> None:
        self._keep("events", row, row)

    def _canonical(self, view: str, row: dict[str, Any]) -> bytes:
        """The row's part of `records_json(wall=False)`: its JSON without wall fields, after a comma."""
        lean = {k: v for k, v in row.items() if k not in WALL_FIELDS and k not in DERIVED_FIELDS}
        text = json.dumps(lean, sort_keys=True, separators=(",", ":"))
        comma = "" if self._first[view] else ","
        self._first[view] = False
        return (comma + text).encode()

    def _keep(self, view: str, record: Any, row: dict[str, Any]) -> None:
        if self.sink is None:
            getattr(self, view).append(record)
            return
        with self.lock:
            self.pending[view].append(row)
            self.held_peak = max(self.held_peak, sum(len(rows) for rows in self.pending.values()))

    def due(self) -> bool:
        """Whether a view holds a whole batch (the loops call `flush` then, outside their own lock)."""
        return self.sink is not None and any(len(rows) >= self.batch_rows for rows in self.pending.values())

    def flush(self, everything: bool = False) -> None:
        """Hand the sink each view's rows once it holds a batch (`everything`: whatever it holds)."""
        if self.sink is None:
            return
        for view in VIEWS:
            with self.lock:
                rows = self.pending[view]
                if not rows or (len(rows) < self.batch_rows and not everything):
                    continue
                self.pending[view] = []
            self.sink.write(view, rows)

    def finish(self) -> tuple[str, dict[str, str] | None]:
        """The records digest, and the sink's files (None without a sink); the spooled JSON is removed."""
        self.flush(everything=True)
        files = self.sink.close() if self.sink is not None else None
        self._digest.update(b'],"steps":[')
        self._steps_json.seek(0)
        while chunk := self._steps_json.read(1 << 16):
            self._digest.update(chunk)
        self._steps_json.close()
        self._digest.update(b"]}")
        return self._digest.hexdigest(), files

    def discard(self) -> None:
        """Drop what an episode that failed left: its spooled JSON; the sink is closed (its files are its
        owner's to remove)."""
        self._steps_json.close()
        if self.sink is not None:
            with contextlib.suppress(Exception):
                self.sink.close()

    def agent_metrics(self, alive_steps: dict[str, int], env_metrics: dict[str, dict[str, float]]
                      ) -> dict[str, dict[str, Any]]:
        """Per-agent runtime metrics (returns, action frequency, latency) merged with the env's own."""
        return {agent: {**tally.metrics(self.step_count, alive_steps.get(agent, 0)), **env_metrics.get(agent, {})}
                for agent, tally in self.tallies.items()}

    def totals(self) -> dict[str, float]:
        """The episode line's cost and queue totals, only where some decision had them."""
        return {**({"cost_usd": float(self.cost)} if self.cost is not None else {}),
                **({"queue_wait_s": float(self.waits)} if self.waits is not None else {})}


__all__ = ["DecisionRecord", "MatchResult", "RecordSink", "Recording", "StepRecord", "asdict", "jsonable"]
