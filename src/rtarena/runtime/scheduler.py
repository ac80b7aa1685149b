"""The discrete-event loop behind the paused, token and measured clocks.

Simulated time advances only through `env.step()`. Between steps the scheduler works out, in sim-time
order, which controllers start a decision: a controller starts as soon as it is free *and* a version
newer than the last one it saw exists, always on the latest one. Decisions that start together are
computed concurrently (model calls overlap), and the scheduler never steps past a time at which some
started decision's result is still unknown: it waits for all of them before stepping. Each decision's
delay comes from the clock; its action applies at its commit time where the env can stop inside a step
(`substep_s`), else at the first step that starts at or after it commits (`Episode.apply_point`). A
controller has at most one action per step: a newer decision replaces an older one not yet applied.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from rtarena.runtime.episode import Episode, Pending, Published, sim_round, timed_act


class Scheduler:
    """Runs an `Episode` without real-time waiting; deterministic when the clock and agents are."""

    def __init__(self, episode: Episode, max_workers: int | None = None) -> None:
        self.episode = episode
        n = len(episode.slots)
        self.free_at = [0.0] * n  # sim time at which each controller finished its last decision
        self.seen = [-1] * n  # last observation version each controller decided on
        self.queue: list[dict[int, Pending]] = [{} for _ in range(n)]  # per controller: step -> action
        self.pool = ThreadPoolExecutor(max_workers=max_workers or max(1, n), thread_name_prefix="rtarena-agent")

    def run(self, max_steps: int | None) -> None:
        ep = self.episode
        try:
            while not ep.done() and (max_steps is None or ep.step_index < max_steps):
                now = sim_round(ep.step_index * ep.dt)
                after = sim_round(now + ep.dt)
                # Controllers free now (or waiting for a new version, which was just published) decide on
                # the observation of now. Then those that become free before the next step decide on
                # it too, at the moment they become free: nothing newer exists until the next step.
                self._start_ready(lambda i, now=now: self.free_at[i] <= now, start_at=now)
                self._start_ready(lambda i, now=now, after=after: now < self.free_at[i] < after, start_at=None)
                ready = [q.pop(ep.step_index) for q in self.queue if ep.step_index in q]
                ep.apply_step(ready, wall_start=time.perf_counter(), period_error_s=None)
                if ep.recording.due():
                    ep.recording.flush()
        finally:
            self.pool.shutdown(wait=True)

    def _start_ready(self, is_free, start_at: float | None) -> None:
        ep = self.episode
        latest: Published = ep.latest
        starting = [
            i for i, slot in enumerate(ep.slots)
            if is_free(i) and self.seen[i] < latest.version and slot.is_alive(latest.alive)
        ]
        if not starting:
            return
        futures = [
            self.pool.submit(held_act, ep.slots[i], latest, ep.clock.hold_s())
            for i in starting
        ]
        for i, future in zip(starting, futures, strict=True):
            decision, wall_start, wall_end, _ = wait_reporting(future, ep.slots[i].name)
            start_sim = self.free_at[i] if start_at is None else start_at
            _, steps, committed = ep.record_decision(i, latest, start_sim, decision, wall_start, wall_end)
            self.seen[i] = latest.version
            first, steps[0].at_s = ep.apply_point(committed)
            self.free_at[i] = committed
            if ep.clock.settle_s is not None:  # wait for the chunk to play, then let the world settle
                self.free_at[i] = max(committed, sim_round((first + len(steps)) * ep.dt + ep.clock.settle_s))
            # A newer decision replaces whatever of older ones has not been applied from its first step on
            # (the same step, or the rest of a chunk); replaced actions stay unapplied in the records.
            queue = self.queue[i]
            ep.dropped([queue.pop(step) for step in [s for s in queue if s >= first]])
            for offset, pending in enumerate(steps):
                queue[first + offset] = pending


def held_act(slot: Any, seen: Published, hold_s: float) -> tuple[Any, float, float, str | None]:
    """`timed_act`, then the decision held `hold_s` of real time before the scheduler records it (a delay
    injected in wall time: the world waits for it, so it costs no game time; its latency stays the agent's)."""
    result = timed_act(slot, seen)
    if hold_s:
        time.sleep(hold_s)
    return result


WAIT_REPORT_S = 10.0  # a decision running longer than this prints a line (and again every as long)
log = logging.getLogger("rtarena.runtime")


def wait_reporting(future: Future, controller: str, every_s: float = WAIT_REPORT_S) -> Any:
    """The decision's result; while it is late, a warning line every `every_s` seconds, so that a silent
    model server under a clock that waits for it is visible instead of a frozen run."""
    waited = 0.0
    while True:
        try:
            return future.result(timeout=every_s)
        except FutureTimeout:
            waited += every_s
            log.warning("still waiting for %s's decision after %.0f s (the clock waits; a model's `timeout` "
                        "bounds it)", controller, waited)
