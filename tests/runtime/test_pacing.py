"""How the wall loop keeps its deadlines (`runtime/pacing.py`): no automatic garbage collection while it
runs, young objects collected between steps only when there is room, everything restored after.

No timing bounds here (the loop's lateness is measured in `bench/runtime_wall_jitter.py --arena 64`)."""

from __future__ import annotations

import gc
import sys
import threading
import time

import rtarena
from helpers import CounterEnv, ScriptedTokens
from rtarena.runtime.pacing import SWITCH_S, Collector, steady


class Cycle:
    """An object in a reference cycle: only the garbage collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_steady_stops_automatic_collection_and_restores_the_settings():
    before = (gc.isenabled(), sys.getswitchinterval())
    with steady():
        assert not gc.isenabled()
        assert sys.getswitchinterval() <= SWITCH_S
        with steady():  # nested (or a second wall loop in another thread): one shared setting
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert (gc.isenabled(), sys.getswitchinterval()) == before


def test_collector_frees_young_cycles_only_when_the_next_deadline_leaves_room():
    collector = Collector()
    with steady():
        Cycle()
        young = gc.get_count()[0]
        assert young > 0
        assert not collector.between_steps(time.perf_counter() + 0.001)  # 1 ms left: no room
        assert gc.get_count()[0] >= young
        assert collector.between_steps(time.perf_counter() + 1.0)
        assert gc.get_count()[0] < young


def test_a_wall_match_runs_without_automatic_collection_and_restores_it():
    seen = []

    class Probe(ScriptedTokens):
        def act(self, observation):
            seen.append((gc.isenabled(), threading.current_thread() is not threading.main_thread()))
            return super().act(observation)

    was = gc.isenabled()
    result = rtarena.run_match(CounterEnv(1, dt=0.02), [Probe(0)], clock="wall", max_steps=10)
    assert len(result.steps) == 10 and seen
    assert all(not enabled and in_thread for enabled, in_thread in seen)
    assert gc.isenabled() == was
