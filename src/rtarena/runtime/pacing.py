"""Keeping the wall clock's deadlines: how the env loop waits, and what may not run at a deadline.

Three things made a step start late (issue 19: 64 arena players on pixels at 250 ms steps, P99 7.5 ms and
a worst step 28.6 ms late):
- the garbage collector: a full collection of a process holding an episode's records took 20-80 ms, and
  it runs in whichever thread happens to allocate, the env loop's or a controller's, at any moment;
- the GIL: a thread that wakes from `sleep` waits for a controller thread running Python to hand it
  over, by default up to 5 ms (`sys.getswitchinterval()`);
- `sleep` itself, which overshoots (and on a loaded machine the OS wakes any sleeper late, by tens of
  milliseconds at times: nothing inside the process helps against that).

So while a wall loop runs (`steady()`): objects that existed before it are frozen out of collection
(`gc.freeze`), automatic collection is off, and the loop collects the young generations itself right
after a step when the time left before the next deadline is several times what such a collection has
taken so far (`Collector`); objects that live on are collected after the loop as usual. The GIL's switch
interval is at most `SWITCH_S`. `wait_until` sleeps to `GUARD_S` before the deadline and spins the rest.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

# The last half millisecond before a deadline is spun, not slept: sleep overshoots. Spinning the last 2 ms
# did not help on the loaded 2-core machine (the median lateness rose to 0.3-0.4 ms in some runs).
GUARD_S = 0.0005
SWITCH_S = 0.001  # the GIL's switch interval while a wall loop runs (Python's default is 5 ms)
SLACK_FACTOR = 4.0  # collect only when the time left is this many times the longest collection so far

_lock = threading.Lock()
_users = 0  # wall loops running now (a process may run several in threads)
_saved: tuple[bool, float] = (True, 0.005)


@contextmanager
def steady() -> Iterator[None]:
    """While the block runs: no automatic garbage collection, older objects frozen, a short switch interval.
    Nested and concurrent uses share one setting; the last to leave restores what was there before."""
    global _users, _saved
    with _lock:
        if _users == 0:
            _saved = (gc.isenabled(), sys.getswitchinterval())
            gc.collect()
            gc.freeze()
            gc.disable()
            sys.setswitchinterval(min(SWITCH_S, _saved[1]))
        _users += 1
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0:
                gc.unfreeze()
                sys.setswitchinterval(_saved[1])
                if _saved[0]:
                    gc.enable()


class Collector:
    """Collects the young generations between steps, only when there is room before the next deadline."""

    def __init__(self) -> None:
        self.longest_s = 0.001  # a first guess, replaced by what collections take here

    def between_steps(self, next_deadline: float) -> bool:
        """Collect if the time left before `next_deadline` allows it; says whether it did."""
        start = time.perf_counter()
        if next_deadline - start - GUARD_S < SLACK_FACTOR * self.longest_s:
            return False
        gc.collect(1)
        self.longest_s = max(self.longest_s, time.perf_counter() - start)
        return True


def wait_until(deadline: float) -> None:
    """Sleep until `GUARD_S` before `deadline`, then spin to it."""
    remaining = deadline - time.perf_counter()
    if remaining > GUARD_S:
        time.sleep(remaining - GUARD_S)
    while time.perf_counter() < deadline:
        pass
