"""One episode as a job: plain data in (`EpisodeJob`), a match result (and maybe a video) out.

`run_episode` plays and writes one episode in this process (what `rtarena run ENV_ID` and the demo do);
`execute_job` is what a pool worker or a Ray task runs: it never writes to the run folder (a Ray worker
may sit on another machine) and never raises, so one failing episode cannot stop the others.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtarena.agents.specs import AgentSpec, build_agent, parse_spec
from rtarena.envs.registry import env_spec, make
from rtarena.eval.store import RecordSpool, episode_key, write_episode
from rtarena.runtime.clocks import Clock, make_clock
from rtarena.runtime.match import run_match
from rtarena.runtime.records import MatchResult


@dataclass(frozen=True)
class EpisodeJob:
    """Everything one episode needs, as plain data (so it can travel to a worker process or node).

    `clock` is the run's clock with its settings, built once where the run's settings were read (a name
    stands for that clock with its defaults); the episode completes it with the env's defaults
    (`Clock.for_env`). `tags` name the experiment cell (level, line-up, clock setting, modality) for
    reports; `video` asks for an MP4 (the env is then built with `render_mode="rgb_array"`).
    """

    env_id: str
    agent_specs: tuple[str, ...]
    clock: Clock
    seed: int
    max_steps: int | None  # None: until the env ends the episode
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    tags: dict[str, Any] = field(default_factory=dict)
    video: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.clock, str):
            object.__setattr__(self, "clock", make_clock(self.clock))

    @property
    def key(self) -> str:
        return episode_key(self.env_id, self.seed, self.label)


@dataclass
class Outcome:
    """A played episode: its result, which spec drove each env agent, and the MP4 bytes if recorded.
    `spool`: the scratch folder a streamed episode's record files are in (`result.record_files`) until the
    driver moves them into the run; `discard` removes it."""

    result: MatchResult
    slot_specs: dict[str, str]
    video: bytes | None = None
    files: dict[str, bytes] = field(default_factory=dict)  # run-relative path -> content (screenshots ...)
    spool: str | None = None

    def discard(self) -> None:
        if self.spool is not None:
            shutil.rmtree(self.spool, ignore_errors=True)

    def records_as_files(self, key: str) -> None:
        """Carry the streamed record files as bytes in `files` (a Ray task: the driver may be another machine)."""
        for view, path in (self.result.record_files or {}).items():
            self.files[f"{view}/{key}.parquet"] = Path(path).read_bytes()
        if self.result.record_files is not None:
            self.result.record_files = {}
        self.discard()
        self.spool = None


def controllers_for(env: Any, specs: list[AgentSpec], family: str) -> dict[Any, Any]:
    """Assign specs to env agents: one spec applies to every slot, otherwise one per slot in order.

    Consecutive slots given the same `team:` spec form one team controller.
    """
    agents = list(env.possible_agents)
    if len(specs) == 1:
        specs = specs * len(agents)
    if len(specs) != len(agents):
        from rtarena.errors import UserError

        raise UserError(f"{len(specs)} --agent specs for {len(agents)} slots of {env.spec_id or env}; "
                        "give one (for every slot) or one per slot", field="--agent")
    groups: list[tuple[list[str], AgentSpec]] = []
    for agent, spec in zip(agents, specs, strict=True):
        if spec.team and groups and groups[-1][1].text == spec.text:
            groups[-1][0].append(agent)
        else:
            groups.append(([agent], spec))
    return {
        (tuple(ids) if spec.team else ids[0]): build_agent(spec, family)
        for ids, spec in groups
    }


def play_episode(job: EpisodeJob, stream: bool = False) -> Outcome:
    """Play one episode in this process; `stream`: its records are written as they are made, to Parquet
    files in a scratch folder (`Outcome.spool`, `store.RecordSpool`), so its memory does not grow with its
    length; otherwise they are kept in the result."""
    spec = env_spec(job.env_id)
    spool = tempfile.mkdtemp(prefix="rtarena-records-") if stream else None
    with tempfile.TemporaryDirectory(prefix="rtarena-artifacts-") as scratch:
        # Envs that leave files (screenshots) write them to a scratch folder; the driver writes them to
        # the run, so they travel from worker processes and Ray nodes like the rest of the outcome.
        folders = {kwarg: Path(scratch) / sub for kwarg, sub in spec.artifact_kwargs.items()}
        try:
            outcome = _play(job, spec, {k: str(v) for k, v in folders.items()},
                            RecordSpool(Path(spool), job.key) if spool else None)
        except BaseException:
            if spool is not None:
                shutil.rmtree(spool, ignore_errors=True)
            raise
        outcome.spool = spool
        for kwarg, folder in folders.items():
            sub = spec.artifact_kwargs[kwarg]
            for path in sorted(folder.rglob("*")) if folder.exists() else []:
                if path.is_file():
                    outcome.files[f"{sub}/{job.key}/{path.relative_to(folder).as_posix()}"] = path.read_bytes()
    return outcome


def _play(job: EpisodeJob, spec: Any, artifact_kwargs: dict[str, str], sink: RecordSpool | None) -> Outcome:
    env_kwargs = {**job.env_kwargs, **artifact_kwargs, **({"render_mode": "rgb_array"} if job.video else {})}
    env = make(job.env_id, **env_kwargs)
    recorder = None
    controllers: dict[Any, Any] = {}
    try:
        specs = [parse_spec(s) for s in job.agent_specs]
        controllers = controllers_for(env, specs, spec.family)
        agents = list(env.possible_agents)
        slot_specs = dict(zip(agents, job.agent_specs * len(agents) if len(specs) == 1 else job.agent_specs,
                              strict=False))
        # the env's own defaults (its obs_every; kappa = B x its observation rate when B is given)
        clock = job.clock.for_env(env)
        playing_env, playing = env, controllers
        if job.video:
            from rtarena.eval.video import VideoRecorder

            recorder = VideoRecorder(env, clock)
            playing_env, playing = recorder.wrap(env, controllers)
        result = run_match(playing_env, playing, clock=clock, seed=job.seed, max_steps=job.max_steps,
                           env_id=job.env_id, sink=sink)
        video = recorder.finish() if recorder else None
        recorder = None
    finally:
        if recorder is not None:
            recorder.finish()
        for agent in controllers.values():
            agent.close()
        env.close()
    return Outcome(result, slot_specs, video)


def records_digest(result: MatchResult) -> str:
    """SHA-256 of the decision and step records without wall-clock fields (`records_json(wall=False)`,
    computed as they were made): equal digests, equal episodes."""
    return result.records_sha256


def episode_extra(job: EpisodeJob, outcome: Outcome) -> dict[str, Any]:
    """What the episode's line records beyond the match summary."""
    return {"agent_specs": list(job.agent_specs), "env_kwargs": job.env_kwargs, "label": job.label,
            "slot_specs": outcome.slot_specs, "records_sha256": records_digest(outcome.result), **job.tags}


def run_episode(job: EpisodeJob, out_dir: Path | None = None,
                on_result: Callable[[Any], None] | None = None) -> dict[str, Any]:
    """Play one episode; write it to `out_dir` when given (its records streamed); return its `episodes.jsonl`
    line."""
    outcome = play_episode(job, stream=out_dir is not None)
    try:
        if on_result is not None:
            on_result(outcome.result)
        extra = episode_extra(job, outcome)
        if out_dir is None:
            return {"episode": job.key, **outcome.result.summary(), **extra}
        return write_episode(Path(out_dir), job.key, outcome.result, extra, slot_specs=outcome.slot_specs,
                             video=outcome.video, files=outcome.files)
    finally:
        outcome.discard()


def execute_job(job: EpisodeJob) -> dict[str, Any]:
    """Run one job in a worker; return a payload for the driver to write. Never raises."""
    started = time.time()
    where = {"host": socket.gethostname(), "pid": os.getpid(), "started_unix_s": started}
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():  # a Ray task: say which node ran it (never start Ray here)
        with contextlib.suppress(Exception):
            where["ray_node"] = ray.get_runtime_context().get_node_id()
    try:
        outcome = play_episode(job, stream=True)
    except Exception as error:
        where["finished_unix_s"] = time.time()
        return {"key": job.key, "ok": False, "error": f"{type(error).__name__}: {error}",
                "traceback": traceback.format_exc(limit=8), "worker": where, "worker_seconds": time.time() - started}
    where["finished_unix_s"] = time.time()
    return {"key": job.key, "ok": True, "outcome": outcome, "worker": where, "worker_seconds": time.time() - started}
