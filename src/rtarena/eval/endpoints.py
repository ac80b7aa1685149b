"""What a run asks of its model endpoints: the shared limiter, wall-clock admission, cost and error budgets.

- `run_limits` gathers every limited endpoint of a run (a spec's `max_connections=`, `adaptive=`, `rpm=`,
  `tpm=`, `@URL1|URL2` pool; an experiment file's `endpoints` table on top). `shared_limiter` starts the one
  limiter every worker shares (`agents/llm/limiter.py`): a `LimiterService` on 127.0.0.1 for a local pool,
  a named Ray actor for Ray, and nothing for an inline run (the process's own limiter serves it).
- Wall-clock admission: under a clock that charges measured time (`wall`, `measured`), a decision waiting
  for a connection slot loses game time that is not the model's. So the driver runs at once no more such
  episodes than the endpoint's connections serve without queueing (`wall_capacity`), and refuses with one
  line a run in which one episode alone needs more (`check_wall_capacity`).
- `RunBudget`: `--max-cost USD` stops starting episodes when the next one would take the run past it
  (estimated at the mean cost of its episodes so far); `--max-errors SHARE` fails the run as soon as more
  than SHARE of its episodes have errored (an episode that failed, or one in which an agent failed every
  decision), a share it can then no longer meet.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from rtarena.agents.llm.limiter import ENV_VAR, LIMITS_VAR, EndpointLimits, LimiterActor, LimiterService
from rtarena.agents.llm.options import parse_llm_options
from rtarena.agents.specs import parse_spec
from rtarena.errors import UserError
from rtarena.eval.episodes import EpisodeJob


@functools.lru_cache(maxsize=4096)
def spec_endpoint(spec: str) -> tuple[str, EndpointLimits] | None:
    """A model spec's endpoint key (its `@BASE_URL` text) and limits, with its pool as replicas; None for an
    agent that talks to no endpoint through the chat client (scripted, local, `live:` sessions)."""
    parsed = parse_spec(spec)
    if not parsed.kind.chat or not parsed.option:
        return None
    option = parsed.option.partition(":")[2] if parsed.kind.team else parsed.option
    options = parse_llm_options(option, parsed.kind.name)
    limits = options.endpoint_limits()
    if len(options.base_urls) > 1:
        limits = limits.model_copy(update={"replicas": options.base_urls})
    return options.base_url or "default", limits


def run_limits(jobs: Iterable[EpisodeJob], configured: dict[str, Any] | None = None) -> dict[str, EndpointLimits]:
    """Every limited endpoint of the run: the specs' limits with the experiment file's `endpoints` on top."""
    table = {key: value if isinstance(value, EndpointLimits) else EndpointLimits(**value)
             for key, value in (configured or {}).items()}
    out: dict[str, EndpointLimits] = {}
    for spec in sorted({s for job in jobs for s in job.agent_specs}):
        found = spec_endpoint(spec)
        if found is not None:
            key, limits = found
            out[key] = out.get(key, limits).merged(table.get(key))
    out.update({key: limits for key, limits in table.items() if key not in out})
    return {key: limits for key, limits in out.items() if limits.limited}


def wall_capacity(limits: EndpointLimits) -> int | None:
    """Requests an endpoint serves at once without queueing (connections x base URLs); None: no cap.
    An adaptive endpoint counts its ceiling; its limit may fall below it after 429s, and decisions then wait."""
    ceiling = limits.ceiling()
    return None if ceiling is None else ceiling * max(1, len(limits.replicas))


def charges_wall_time(job: EpisodeJob) -> bool:
    """Whether the job's clock charges measured time (`wall`, `measured`), so a queued decision loses game time."""
    return not job.clock.deterministic


def wall_caps(limits: dict[str, EndpointLimits]) -> dict[str, int]:
    return {key: cap for key, value in limits.items() if (cap := wall_capacity(value)) is not None}


def wall_load(job: EpisodeJob) -> Counter:
    """Controllers per limited endpoint key of one wall-clock episode (consecutive `team:` slots are one)."""
    load: Counter = Counter()
    if not charges_wall_time(job):
        return load
    previous = None
    for spec in job.agent_specs:
        found = spec_endpoint(spec)
        if found and not (spec.startswith("team:") and spec == previous):
            load[found[0]] += 1
        previous = spec
    return load


def check_wall_capacity(jobs: list[EpisodeJob], caps: dict[str, int]) -> None:
    """Refuse, in one line, a run in which one wall-clock episode alone needs more connections than its
    endpoint's limits serve at once: its decisions would queue and lose game time that is not the model's."""
    for job in jobs:
        for key, need in wall_load(job).items():
            if key in caps and need > caps[key]:
                raise UserError(f"{job.key} ({job.clock.name} clock) puts {need} controllers at once on {key}, whose "
                                f"limits serve {caps[key]} without queueing; raise max_connections, add replicas, "
                                "or run it under a clock that waits (paused, token)", field="endpoints")


@contextlib.contextmanager
def shared_limiter(limits: dict[str, EndpointLimits], backend: Any) -> Iterator[str | None]:
    """Start the run's one limiter for the backend's workers (see the module docstring), and name it and the
    run's limits in the environment the workers get (`RTARENA_LIMITER`, `RTARENA_ENDPOINT_LIMITS`) while the
    run lasts; yields its address (None: no limited endpoint, or inline: this process's own limiter)."""
    if not limits:
        yield None
        return
    table = json.dumps({key: value.model_dump(exclude_unset=True) for key, value in limits.items()})
    with contextlib.ExitStack() as stack:
        address = None
        if backend.name == "ray":
            name = f"rtarena-limiter-{uuid.uuid4().hex[:12]}"
            actor = backend.ray.remote(num_cpus=0, max_concurrency=4096)(LimiterActor).options(name=name).remote(
                json.loads(table))
            backend.ray.get(actor.stats.remote())  # started before any task asks for it
            stack.callback(backend.ray.kill, actor)
            address = f"ray:{name}"
        elif backend.name != "inline":
            address = stack.enter_context(LimiterService(limits)).address
        env = {LIMITS_VAR: table, **({ENV_VAR: address} if address else {})}
        stack.enter_context(environment(env))  # spawned pool workers inherit it; Ray tasks are handed it
        backend.env = env
        yield address


@contextlib.contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    previous = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in previous.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class RunBudget:
    """`--max-cost` and `--max-errors` over one run (the episodes recorded before a resume count too)."""

    def __init__(self, total: int, max_cost: float | None = None, max_errors: float | None = None,
                 earlier: Iterable[dict[str, Any]] = ()) -> None:
        self.total = total
        self.max_cost = max_cost
        self.max_errors = max_errors
        self.spent = 0.0
        self.priced = 0
        self.errors = 0
        self.stopped: str | None = None
        for line in earlier:
            self.note(line)

    def note(self, line: dict[str, Any]) -> None:
        """Count one finished episode's line."""
        cost = line.get("cost_usd")
        if isinstance(cost, (int, float)):
            self.spent += cost
            self.priced += 1
        if errored(line):
            self.errors += 1

    def may_start(self, in_flight: int) -> bool:
        """Whether one more episode may start: at the mean cost so far, the ones in flight and it stay within
        `--max-cost`. Before any episode has a cost, nothing is known to refuse."""
        if self.max_cost is None or self.stopped:
            return self.stopped is None
        mean = self.spent / self.priced if self.priced else 0.0
        if self.spent + (in_flight + 1) * mean > self.max_cost or self.spent >= self.max_cost:
            self.stopped = (f"stopped starting episodes at --max-cost {self.max_cost:g} USD: the run has cost "
                            f"{self.spent:.4f} USD, and one more episode at its mean {mean:.4f} USD "
                            f"(with {in_flight} still running) would pass it")
            return False
        return True

    def failed(self) -> str | None:
        """A line when the run's errored episodes exceed `--max-errors` of all its episodes, else None."""
        if self.max_errors is None or self.errors <= self.max_errors * self.total:
            return None
        return (f"{self.errors} of {self.total} episodes errored, past --max-errors {self.max_errors:g} "
                f"({self.max_errors * self.total:g} episodes): the run stops")


def errored(line: dict[str, Any]) -> bool:
    """An episode that failed, or in which some agent failed every decision it made."""
    if line.get("status") != "ok":
        return True
    return any((m.get("decisions") or 0) and m.get("failed_decisions") == m.get("decisions")
               for m in (line.get("agents") or {}).values())
