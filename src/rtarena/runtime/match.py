"""`run_match`: one episode of an env with its controllers under a clock protocol."""

from __future__ import annotations

import time
from typing import Any

from rtarena.runtime.clocks import Clock, make_clock
from rtarena.runtime.controllers import build_slots, context_for
from rtarena.runtime.episode import Episode
from rtarena.runtime.records import MatchResult
from rtarena.runtime.scheduler import Scheduler
from rtarena.runtime.wall import WallLoop


def env_clock_defaults(env: Any, clock: str | Clock, settings: dict[str, Any]) -> dict[str, Any]:
    """Clock settings with the env's own defaults filled in: its `obs_every` (a browser task observes once
    per page second); for a token clock given neither kappa nor B, the env's default B (its
    `tokens_per_interval`: 64 for a browser task); and for B without a rate, the env's actual observation
    rate `1 / (dt * obs_every)`, so that kappa = B * f."""
    out = dict(settings)
    unset = out.get("kappa") is None and out.get("tokens_per_interval") is None
    if clock == "token" and unset:
        out["tokens_per_interval"] = getattr(env, "tokens_per_interval", None)  # the env's default B, if any
    if isinstance(clock, str) and out.get("obs_every") is None and getattr(env, "obs_every", None):
        out["obs_every"] = int(env.obs_every)
    if out.get("tokens_per_interval") is not None and out.get("obs_rate_hz") is None and out.get("kappa") is None:
        every = out.get("obs_every") or (clock.obs_every if isinstance(clock, Clock) else 1)
        out["obs_rate_hz"] = 1.0 / (float(env.dt) * int(every))
    return out


def run_match(
    env: Any,
    controllers: Any,
    clock: str | Clock = "token",
    seed: int = 0,
    max_steps: int | None = None,
    env_id: str | None = None,
    **clock_settings: Any,
) -> MatchResult:
    """Play one episode and return its records.

    `env` is an rtarena env (or a wrapped Gymnasium/PettingZoo one); `controllers` maps env agent ids (or
    tuples of ids, for a team controller) to agents, or lists agents in slot order; an agent is an
    `Agent` or any callable `observation -> action`. `clock` is a protocol name (`wall`, `paused`,
    `token`, `measured`) or a `Clock`; its settings (`kappa`, `overhead`, `delay_s`, `obs_every` ...)
    may be passed as keyword arguments, and are validated by the clock (`make_clock`). `max_steps` None
    (the default) plays until the env itself ends the episode (every registered env has a time limit).
    """
    if not hasattr(env, "dt"):
        raise TypeError("env has no dt: wrap it with rtarena.wrap_gymnasium(env, dt=...) or wrap_pettingzoo")
    clock = make_clock(clock, **env_clock_defaults(env, clock, clock_settings))
    slots = build_slots(env, controllers)
    env_id = env_id or getattr(env, "spec_id", None) or env.metadata.get("name", type(env).__name__)
    started = time.perf_counter()
    episode = Episode(env, env_id, slots, clock, seed)
    for index, slot in enumerate(slots):
        slot.agent.reset(context_for(slot, env, env_id, seed, clock, index))
    loop = WallLoop(episode) if clock.concurrent else Scheduler(episode)
    loop.run(max_steps)
    return episode.result(wall_seconds=time.perf_counter() - started)
