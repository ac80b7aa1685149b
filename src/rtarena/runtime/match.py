"""`run_match`: one episode of an env with its controllers under a clock protocol."""

from __future__ import annotations

import time
from typing import Any

from rtarena.contract import RealtimeEnv
from rtarena.runtime.clocks import Clock, build_clock
from rtarena.runtime.controllers import build_slots, context_for
from rtarena.runtime.episode import Episode
from rtarena.runtime.records import MatchResult, RecordSink
from rtarena.runtime.scheduler import Scheduler
from rtarena.runtime.wall import WallLoop


def run_match(
    env: Any,
    controllers: Any,
    clock: str | Clock = "token",
    seed: int = 0,
    max_steps: int | None = None,
    env_id: str | None = None,
    sink: RecordSink | None = None,
    **clock_settings: Any,
) -> MatchResult:
    """Play one episode and return its records.

    `env` is an rtarena env (or a wrapped Gymnasium/PettingZoo one); `controllers` maps env agent ids (or
    tuples of ids, for a team controller) to agents, or lists agents in slot order; an agent is an
    `Agent` or any callable `observation -> action`. `clock` is a protocol name (`wall`, `paused`,
    `token`, `measured`) or a `Clock`; its settings (`kappa`, `overhead`, `delay_s`, `obs_every` ...)
    may be passed as keyword arguments, and are validated by the clock (`make_clock`); the env's own
    defaults fill what they leave unset (`Clock.for_env`). A run (`rtarena run`, experiments, `improve`)
    passes the `Clock` its settings built once, and no keywords. `max_steps` None (the default) plays until
    the env itself ends the episode (every registered env has a time limit). `sink` streams the records
    as they are made (`records.Recording`; a run's Parquet files) instead of keeping them in the result.
    """
    if not isinstance(env, RealtimeEnv):  # the contract's members, `dt` and `capabilities` among them
        raise TypeError("env is not an rtarena env (no dt or capabilities): wrap it with "
                        "rtarena.wrap_gymnasium(env, dt=...) or wrap_pettingzoo")
    if isinstance(clock, str) or clock_settings:  # the Python API's name and keywords
        clock = build_clock(clock, clock_settings)
    clock = clock.for_env(env)
    slots = build_slots(env, controllers)
    env_id = env_id or env.spec_id or env.metadata.get("name", type(env).__name__)
    started = time.perf_counter()
    episode = Episode(env, env_id, slots, clock, seed, sink=sink)
    # the episode's length in sim seconds: the step limit's, else the env's own time limit (None: unknown)
    horizon_s = max_steps * float(env.dt) if max_steps is not None else env.time_limit_s
    for index, slot in enumerate(slots):
        slot.agent.reset(context_for(slot, env, env_id, seed, clock, index, horizon_s=horizon_s,
                                     applies_at_commit=episode.substep_s is not None))
    episode.latest.privileged = episode.snapshots()  # the first observation's, taken as the agents asked at reset
    loop = WallLoop(episode) if clock.concurrent else Scheduler(episode)
    try:
        loop.run(max_steps)
    except BaseException:
        episode.recording.discard()
        raise
    return episode.result(wall_seconds=time.perf_counter() - started)
