"""Run an experiment: choose the run folder, skip what is done, hand jobs to a backend, write results.

The driver keeps at most `workers` episodes in flight, and within that at most `concurrency[endpoint]`
controllers talking to one model endpoint at once. Each finished episode is written at once by the
driver (video, Parquet, then its line in `episodes.jsonl`); a failed one is written as a line with its
error and the run goes on. `--resume` repairs a torn last line and runs only the episodes without a
line, so a run killed at any moment ends, once resumed, with every episode exactly once.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from dataclasses import fields as dataclass_fields
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from rtarena.agents.specs import check_connections
from rtarena.errors import UserError
from rtarena.eval import manifest
from rtarena.eval.backends import make_backend
from rtarena.eval.endpoints import RunBudget, check_wall_capacity, run_limits, shared_limiter, wall_caps, wall_load
from rtarena.eval.episodes import EpisodeJob, episode_extra
from rtarena.eval.experiment import Experiment, endpoint_of
from rtarena.eval.progress import RunProgress
from rtarena.eval.store import (
    done_keys,
    read_episodes,
    remove_episode_files,
    repair_tail,
    write_episode,
    write_failure,
    write_latency_trace,
)
from rtarena.redact import redact_all
from rtarena.runtime.clocks import build_clock
from rtarena.runtime.records import jsonable


@dataclass
class RunResult:
    run_id: str
    run_dir: Path
    lines: list[dict[str, Any]] = field(default_factory=list)  # this session's lines, in finishing order
    skipped: int = 0
    stopped: str | None = None  # why the run stopped starting episodes (--max-cost), if it did
    failed_run: str | None = None  # why the run failed as a whole (--max-errors), if it did

    @property
    def failed(self) -> int:
        return sum(line.get("status") != "ok" for line in self.lines)

    @property
    def exit_code(self) -> int:
        """The process exit status this run earns (see docs/evaluation.md, "Exit codes")."""
        if self.failed_run:
            return EXIT_MAX_ERRORS
        if self.stopped:
            return EXIT_MAX_COST
        return exit_code(read_episodes(self.run_dir))


EXIT_OK, EXIT_FAILED_EPISODES, EXIT_AGENT_FAILED, EXIT_INTERRUPTED = 0, 3, 4, 130
EXIT_MAX_COST, EXIT_MAX_ERRORS = 5, 6


def dead_agents(lines: list[dict[str, Any]]) -> list[tuple[str, str, dict[str, int]]]:
    """(episode, agent, failures by kind) for each agent of an ok episode that failed every decision."""
    out = []
    for line in lines:
        if line.get("status") != "ok":
            continue
        for agent, metrics in (line.get("agents") or {}).items():
            made = metrics.get("decisions") or 0
            if made and metrics.get("failed_decisions") == made:
                out.append((line["episode"], agent, metrics.get("failures") or {}))
    return out


def exit_code(lines: list[dict[str, Any]]) -> int:
    """0 when every episode finished ok; 3 when some episode failed; 4 when an agent failed every decision."""
    if any(line.get("status") != "ok" for line in lines):
        return EXIT_FAILED_EPISODES
    return EXIT_AGENT_FAILED if dead_agents(lines) else EXIT_OK


class Interrupted(KeyboardInterrupt):
    """SIGTERM, turned into the same orderly stop as Ctrl-C."""


@contextlib.contextmanager
def sigterm_stops() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise Interrupted(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def job_to_dict(job: EpisodeJob) -> dict[str, Any]:
    """A job as `config.json` stores it: its clock as the protocol's name and the settings it was given."""
    fields = {f.name: getattr(job, f.name) for f in dataclass_fields(job) if f.name != "clock"}
    stored = {"key": job.key, **fields, "clock": job.clock.name, "clock_settings": job.clock.given()}
    return redact_all(json.loads(json.dumps(jsonable(stored))))


def job_from_dict(data: dict[str, Any]) -> EpisodeJob:
    """A stored job (`job_to_dict`), its clock rebuilt from its name and settings (a resumed run)."""
    fields = {k: v for k, v in data.items() if k not in ("key", "clock", "clock_settings")}
    fields["agent_specs"] = tuple(fields["agent_specs"])
    return EpisodeJob(clock=build_clock(data["clock"], data.get("clock_settings") or {}), **fields)


def endpoint_load(job: EpisodeJob) -> Counter:
    """Controllers per model endpoint in one episode (consecutive `team:` slots are one controller)."""
    load: Counter = Counter()
    previous = None
    for spec in job.agent_specs:
        endpoint = endpoint_of(spec)
        if endpoint and not (spec.startswith("team:") and spec == previous):
            load[endpoint] += 1
        previous = spec
    return load


def new_run_id(name: str, out: Path) -> str:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    run_id, n = f"{name}-{stamp}", 2
    while (out / run_id).exists():
        run_id, n = f"{name}-{stamp}-{n}", n + 1
    return run_id


def latest_run(out: Path, name: str) -> Path | None:
    """The most recently started run of experiment `name` under `out`."""
    found = []
    for config in out.glob("*/config.json"):
        data = manifest.read_json(config)
        if data.get("experiment", {}).get("name") == name:
            found.append((config.stat().st_mtime, config.parent))
    return max(found)[1] if found else None


def choose_run_dir(experiment: Experiment, run_id: str | None, resume: bool, console: Console) -> tuple[Path, str]:
    out = Path(experiment.out)
    if run_id is None and resume:
        found = latest_run(out, experiment.name)
        if found is not None:
            return found, found.name
        console.print(f"no earlier run of {experiment.name!r} under {out}/: starting a new one")
    run_id = run_id or new_run_id(experiment.name, out)
    run_dir = out / run_id
    if not resume and (run_dir / "episodes.jsonl").exists():
        raise UserError(f"{run_dir} already holds episodes; add --resume to finish it or choose another --run-id",
                        field="--run-id")
    return run_dir, run_id


@dataclass(frozen=True)
class RunLimits:
    """What bounds a run besides its workers: controllers per endpoint (`concurrency`), the endpoints' own
    limits (`endpoints`, an experiment file's table), `--max-cost` USD and `--max-errors` share."""

    concurrency: dict[str, int] = field(default_factory=dict)
    endpoints: dict[str, Any] = field(default_factory=dict)
    max_cost: float | None = None
    max_errors: float | None = None


def run_jobs(jobs: list[EpisodeJob], run_dir: Path, run_id: str, config: dict[str, Any], *, workers: int = 0,
             ray: str | None = None, resume: bool = False, concurrency: dict[str, int] | None = None,
             console: Console | None = None, connections_checked: bool = False,
             limits: RunLimits | None = None, fresh: bool = False,
             on_start: Callable[[], None] | None = None) -> RunResult:
    """Run every job not yet recorded in `run_dir` and write each as it finishes (`connections_checked`: the
    caller opened each live session once already). `fresh`: into a new `<timestamp>` folder beside `run_dir`
    instead (`store.fresh_run_folder`: `runs/latest` points to it). `on_start` runs once the run folder is
    this process's (its lock held), so what it says is never followed by a refusal."""
    console = console or Console(stderr=True)
    if not connections_checked:  # live sessions: before anything is written
        check_connections(spec for job in jobs for spec in job.agent_specs)
    limits = limits or RunLimits()
    limits = replace(limits, concurrency={**limits.concurrency, **(concurrency or {})})
    endpoints = run_limits(jobs, limits.endpoints)
    check_wall_capacity(jobs, wall_caps(endpoints))  # one line, before anything is written
    keys = [job.key for job in jobs]
    duplicates = [k for k, n in Counter(keys).items() if n > 1]
    if duplicates:
        raise UserError(f"two episodes share the key {duplicates[0]!r}; give cells distinct names", field="experiment")
    if fresh:
        from rtarena.eval.store import fresh_run_folder

        run_dir = fresh_run_folder(run_dir.parent)
        run_id, config = run_dir.name, {**config, "out": str(run_dir)}
    run_dir.mkdir(parents=True, exist_ok=True)
    with manifest.run_lock(run_dir):
        if on_start is not None:
            on_start()
        return _run_locked(jobs, run_dir, run_id, config, workers, ray, resume, limits, console)


def _run_locked(jobs: list[EpisodeJob], run_dir: Path, run_id: str, config: dict[str, Any], workers: int,
                ray: str | None, resume: bool, run_limits_: RunLimits, console: Console) -> RunResult:
    """`run_jobs` while this process holds the run folder's lock (a second `--resume` refuses)."""
    if resume:
        dropped = repair_tail(run_dir)
        if dropped:
            console.print(f"dropped a torn last line of {dropped} bytes from {run_dir / 'episodes.jsonl'}")
        done = done_keys(run_dir)
    else:
        done = set()
    pending = [job for job in jobs if job.key not in done]
    result = RunResult(run_id, run_dir, skipped=len(jobs) - len(pending))
    if resume and result.skipped:
        console.print(f"resuming {run_dir}: {result.skipped} episodes already recorded, {len(pending)} to run")
    if not pending:
        return result
    backend = make_backend(workers, ray)
    limits = dict(run_limits_.concurrency)
    endpoints = run_limits(pending, run_limits_.endpoints)
    budget = RunBudget(len(jobs), run_limits_.max_cost, run_limits_.max_errors,
                       read_episodes(run_dir) if resume else ())
    cpus = os.cpu_count() or 1
    if backend.workers > cpus and any(job.clock.concurrent for job in pending):
        console.print(f"note: {backend.workers} episodes at once on {cpus} CPUs; wall-clock episodes share the "
                      "CPUs and their timing suffers (use --workers to limit)", highlight=False)
    manifest.start_session(run_dir, run_id, config, [job_to_dict(j) for j in jobs], backend.describe(), resume)
    status = "interrupted"
    with sigterm_stops():
        try:
            with RunProgress(console, run_id, len(jobs), result.skipped, backend.name) as progress:

                def finished(job: EpisodeJob, payload: dict[str, Any]) -> None:
                    result.lines.append(record(run_dir, run_id, job, payload))
                    budget.note(result.lines[-1])
                    progress.finished(job.key, result.lines[-1])

                with shared_limiter(endpoints, backend):
                    drive(backend, pending, limits, finished, progress.started, wall_caps(endpoints),
                          budget.may_start, budget.failed)
            result.stopped, result.failed_run = budget.stopped, budget.failed()
            status = "failed" if result.failed_run else ("stopped" if result.stopped else "finished")
        except KeyboardInterrupt:
            console.print(f"interrupted: {result.skipped + len(result.lines)} of {len(jobs)} episodes are recorded "
                          f"in {run_dir}; add --resume to run the rest", highlight=False)
            raise
        finally:
            backend.close()
            write_latency_trace(run_dir)  # any run can be replayed under `--clock replay`
            manifest.finish_session(run_dir, {"episodes_run": len(result.lines), "episodes_failed": result.failed},
                                    status)
    for line in (result.failed_run, result.stopped):
        if line:
            console.print(line + "; --resume runs the rest", highlight=False, soft_wrap=True)
    warn(result, console)
    return result


def drive(backend: Any, pending: list[EpisodeJob], limits: dict[str, int],
          finished: Callable[[EpisodeJob, dict[str, Any]], None], started: Callable[[str], None],
          caps: dict[str, int] | None = None, may_start: Callable[[int], bool] = lambda n: True,
          failed: Callable[[], str | None] = lambda: None) -> None:
    """Keep the backend busy within the endpoint limits until every pending job has finished: at most
    `limits[endpoint]` controllers on an endpoint, and at most `caps[endpoint]` controllers of wall-clock
    episodes (what its connections serve without queueing). Stops starting jobs once `may_start` (the
    cost budget) says no or `failed` (the error budget) says why; the jobs in flight still finish."""
    in_flight: dict[str, EpisodeJob] = {}
    usage: Counter = Counter()
    wall: Counter = Counter()
    stopping = False
    while (pending and not stopping) or in_flight:
        while len(in_flight) < backend.workers and pending and not stopping:
            job = next((j for j in pending if fits(endpoint_load(j), usage, limits)
                        and fits(wall_load(j), wall, caps or {})), None)
            if job is None:
                break
            if failed() or not may_start(len(in_flight)):
                stopping = True
                break
            pending.remove(job)
            in_flight[job.key] = job
            usage.update(endpoint_load(job))
            wall.update(wall_load(job))
            backend.submit(job)
            started(job.key)
        for job, payload in backend.poll(timeout=0.25):
            in_flight.pop(job.key, None)
            usage.subtract(endpoint_load(job))
            wall.subtract(wall_load(job))
            finished(job, payload)


def warn(result: RunResult, console: Console) -> None:
    """Warning lines for what a table of means would hide: agents that failed every decision, and model
    calls left unanswered when an episode ended (abandoned decisions)."""
    dead = dead_agents(result.lines)
    for episode, agent, failures in dead[:5]:
        kinds = ", ".join(f"{k} x{n}" for k, n in failures.items())
        console.print(f"warning: {agent} failed every decision in {episode} ({kinds})", highlight=False, soft_wrap=True)
    if len(dead) > 5:
        console.print(f"warning: ... and {len(dead) - 5} more agents failed every decision", highlight=False)
    abandoned = sum((m.get("failures") or {}).get("abandoned", 0) for line in result.lines
                    for m in (line.get("agents") or {}).values())
    if abandoned:
        console.print(f"warning: {abandoned} model calls were still unanswered when their episodes ended "
                      "(recorded as `abandoned` decisions)", highlight=False, soft_wrap=True)


def fits(load: Counter, usage: Counter, limits: dict[str, int]) -> bool:
    """Whether an episode may start now; one that alone exceeds a limit may run when its endpoint is idle."""
    for endpoint, n in load.items():
        limit = limits.get(endpoint)
        if limit is not None and usage[endpoint] > 0 and usage[endpoint] + n > limit:
            return False
    return True


def record(run_dir: Path, run_id: str, job: EpisodeJob, payload: dict[str, Any]) -> dict[str, Any]:
    """Write one finished (or failed) episode; returns its line."""
    base = {"run_id": run_id, "worker": payload.get("worker", {}), "worker_seconds": payload.get("worker_seconds")}
    if payload.get("ok"):
        outcome = payload["outcome"]
        try:
            extra = {**episode_extra(job, outcome), **base}
            return write_episode(run_dir, job.key, outcome.result, extra, slot_specs=outcome.slot_specs,
                                 video=outcome.video, files=outcome.files)
        except Exception as error:  # one episode that cannot be stored fails alone, never the run
            remove_episode_files(run_dir, job.key)
            payload = {**payload, "error": f"recording failed: {type(error).__name__}: {error}",
                       "traceback": traceback.format_exc(limit=8)}
        finally:
            outcome.discard()  # the streamed records' scratch folder (its files moved in, or not wanted)
    details = {"env_id": job.env_id, "seed": job.seed, "label": job.label, "agent_specs": list(job.agent_specs),
               "env_kwargs": job.env_kwargs, "clock": {"clock": job.clock.name, **job.clock.given()}, **job.tags,
               **base, "traceback": payload.get("traceback", "")}
    return write_failure(run_dir, job.key, payload.get("error", "unknown error"), details)


def run_experiment(experiment: Experiment, *, run_id: str | None = None, resume: bool = False, workers: int = 0,
                   ray: str | None = None, video: bool | None = None, console: Console | None = None,
                   max_cost: float | None = None, max_errors: float | None = None) -> RunResult:
    """Run an experiment file's episodes into `OUT/<run_id>/`."""
    console = console or Console(stderr=True)
    run_dir, run_id = choose_run_dir(experiment, run_id, resume, console)
    jobs = experiment.jobs()
    if video is not None:
        jobs = [replace(j, video=video) for j in jobs]
    limits = RunLimits(experiment.concurrency, experiment.endpoints, max_cost, max_errors)
    return run_jobs(jobs, run_dir, run_id, experiment.to_dict(), workers=workers or (experiment.workers or 0),
                    ray=ray, resume=resume, console=console, limits=limits)


def resume_run_dir(run_dir: Path, *, workers: int = 0, ray: str | None = None, console: Console | None = None,
                   max_cost: float | None = None, max_errors: float | None = None) -> RunResult:
    """Finish a run from its own `config.json` (`rtarena run runs/<run_id> --resume`)."""
    stored = manifest.read_json(run_dir / manifest.CONFIG)
    if not stored.get("jobs"):
        raise UserError(f"{run_dir} has no config.json with jobs: not a run folder of `rtarena run`", field="RUN")
    jobs = [job_from_dict(j) for j in stored["jobs"]]
    config = stored.get("experiment", {})
    limits = RunLimits(config.get("concurrency") or {}, config.get("endpoints") or {}, max_cost, max_errors)
    return run_jobs(jobs, run_dir, stored.get("run_id", run_dir.name), config, workers=workers or (config.get("workers")
                    or 0), ray=ray, resume=True, console=console, limits=limits)
