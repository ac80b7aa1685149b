"""The wall clock: the env steps every `dt` of real time in its own loop; controllers think in threads.

The env loop schedules step k at `origin + k * dt` (absolute deadlines, so errors never accumulate) and
records how late each step started; `pacing.py` says how it keeps them (no garbage collection at a
deadline, a short GIL switch interval, the last half millisecond spun). Each controller thread waits for a version
newer than the last it saw and always takes the latest (frames published while it was busy are skipped,
never queued). Its committed action (or chunk of per-step actions) sits in a buffer from which each step
takes one; a newer commit replaces whatever of an older one is not yet applied. With the clock's `settle_s` set, a
controller waits until its buffer is empty and then for a world at least `settle_s` past the chunk's last step
(sim time, as `measured` frees it: an env loop running late under load delays the observation, it does not
hand over a world from inside the chunk). A slow controller blocks neither the env loop nor any other controller.

Sim time and wall time are one axis here (sim `t` is `origin + t` on the wall), and every record keeps
`obs_sim_s <= start_sim_s <= committed_sim_s <= applied_sim_s`: step k (sim `k*dt` to `(k+1)*dt`) is
computed at its deadline, but the observation it produces (the world at `(k+1)*dt`) is shown to the
controllers only at the next deadline, when the wall reaches that time; and a commit is taken by the
first step whose sim start is at or after it. Where the env can stop inside a step (`substep_s`: a
browser page), step k is played instead when the wall reaches its end, and an action committed during it
applies at its commit time (the page runs to it, then on to the step's end); its observation is shown as
soon as it is computed. A decision still running when the episode ends is recorded
as `abandoned` (never committed, `committed_sim_s` None) with its wall start and the episode's end.
"""

from __future__ import annotations

import threading
import time
from collections import deque

from rtarena.contract import Decision
from rtarena.runtime.episode import Episode, Pending, Published, sim_round, timed_act
from rtarena.runtime.pacing import Collector, steady, wait_until


class WallLoop:
    """Runs an `Episode` in real time."""

    def __init__(self, episode: Episode) -> None:
        self.episode = episode
        self.lock = threading.Lock()
        self.new_version = threading.Condition(self.lock)
        self.stop = threading.Event()
        self.buffers: list[deque[Pending]] = [deque() for _ in episode.slots]  # per controller: steps to play
        self.visible: Published = episode.latest  # what controllers may see: never a world ahead of the wall
        # per controller: (observation, start sim s, wall start) of the decision it is making now
        self.thinking: list[tuple[Published, float, float] | None] = [None] * len(episode.slots)
        self.settling = episode.clock.settle_s is not None  # controllers wait for their chunks: wake them
        # per controller: the sim time of the world right after the last step its buffer gave (settling only)
        self.played_until: list[float] = [0.0] * len(episode.slots)

    def run(self, max_steps: int | None) -> None:
        with steady():
            self._run(max_steps)

    def _run(self, max_steps: int | None) -> None:
        ep = self.episode
        collector = Collector()
        origin = time.perf_counter()
        ep.wall_origin = origin
        threads = [
            threading.Thread(target=self._controller, args=(i,), name=f"rtarena-{slot.name}", daemon=True)
            for i, slot in enumerate(ep.slots)
        ]
        for thread in threads:
            thread.start()
        # An env that can stop inside a step (`substep_s`) plays step k once the wall has reached its end, with
        # the actions committed during it applied at their commit times; any other env plays it at its start
        # with the actions committed by then.
        lag = 1 if ep.substep_s is not None else 0
        try:
            while not ep.done() and (max_steps is None or ep.step_index < max_steps):
                deadline = origin + (ep.step_index + lag) * ep.dt
                wait_until(deadline)
                started = time.perf_counter()
                with self.lock:
                    if ep.latest is not self.visible:  # the world of this deadline's time, computed last step
                        self.visible = ep.latest
                        self.new_version.notify_all()
                    ep.apply_step(self._ready(lag), wall_start=started, period_error_s=started - deadline)
                    if lag:  # the world at this deadline's time, computed just now
                        self.visible = ep.latest
                    if lag or ep.done() or self.settling:
                        self.new_version.notify_all()
                if ep.recording.due():  # a batch of records to the sink, outside the lock
                    ep.recording.flush()
                collector.between_steps(origin + (ep.step_index + lag) * ep.dt)
        finally:
            self.stop.set()
            with self.lock:
                self.new_version.notify_all()
            for thread in threads:
                thread.join(timeout=0.05)  # a controller stuck in a slow call is abandoned, not awaited
            self._abandon(time.perf_counter())

    def _ready(self, lag: int) -> list[Pending]:
        """Each controller's next action due in the step about to be played (under the lock)."""
        ep = self.episode
        due = sim_round((ep.step_index + lag) * ep.dt)
        ready = []
        for index, buffer in enumerate(self.buffers):
            if buffer and (buffer[0].committed_sim_s < due if lag else buffer[0].committed_sim_s <= due):
                pending = buffer.popleft()
                if not buffer:  # this step plays the chunk's last action: the world after it ends the chunk
                    self.played_until[index] = sim_round((ep.step_index + 1) * ep.dt)
                step, at = ep.apply_point(pending.committed_sim_s) if pending.position == 0 else (0, 0.0)
                pending.at_s = at if step == ep.step_index else 0.0
                ready.append(pending)
        return ready

    def _abandon(self, wall_end: float) -> None:
        """Record each decision still being made as `abandoned`: asked for, never answered in time."""
        ep = self.episode
        with self.lock:
            for index, thinking in enumerate(self.thinking):
                if thinking is None:
                    continue
                seen, start_sim, wall_start = thinking
                self.thinking[index] = None
                waited = wall_end - wall_start
                decision = Decision(action=None, valid=False,
                                    error=f"abandoned: no answer when the episode ended ({waited:.2f} s in)")
                draft, _, _ = ep.record_decision(index, seen, start_sim, decision, wall_start, wall_end)
                ep.drafts[draft].update(committed_sim_s=None, delay_sim_s=None)

    def _controller(self, index: int) -> None:
        ep = self.episode
        slot = ep.slots[index]
        seen = -1
        while not self.stop.is_set():
            with self.lock:
                while not self.stop.is_set() and self.visible.version <= seen and not ep.done():
                    self.new_version.wait(timeout=0.5)
                if self.stop.is_set() or ep.done():
                    return
                latest: Published = self.visible
                if not slot.is_alive(latest.alive):
                    return
                seen = latest.version
                start_sim = sim_round(time.perf_counter() - ep.wall_origin)
                self.thinking[index] = (latest, start_sim, time.perf_counter())
            decision, wall_start, wall_end, _ = timed_act(slot, latest)
            if ep.clock.delay_s and self.stop.wait(ep.clock.delay_s):
                return  # the injected delay keeps the controller busy, as a slower model would be
            with self.lock:
                if self.stop.is_set():
                    return  # too late: the loop's end records it as abandoned
                self.thinking[index] = None
                draft, steps, _ = ep.record_decision(index, latest, start_sim, decision, wall_start, wall_end)
                committed = sim_round(time.perf_counter() - ep.wall_origin)
                ep.drafts[draft]["committed_sim_s"] = committed
                ep.drafts[draft]["delay_sim_s"] = sim_round(committed - start_sim)
                for pending in steps:
                    pending.committed_sim_s = committed
                ep.dropped(self.buffers[index])  # what is left of the older chunk is replaced
                self.buffers[index] = deque(steps)
                self.played_until[index] = sim_round(ep.step_index * ep.dt)  # an empty chunk ends now
                if ep.clock.settle_s is not None:  # the chunk plays out, then the world settles
                    while self.buffers[index] and not self.stop.is_set() and not ep.done():
                        self.new_version.wait(timeout=0.05)
                    settled = sim_round(self.played_until[index] + ep.clock.settle_s)
                    while self.visible.sim_s < settled - 1e-9 and not self.stop.is_set() and not ep.done():
                        self.new_version.wait(timeout=0.05)
