"""The wall clock: the env loop keeps its period; slow controllers skip frames and block no one.

Bounds here are behaviour with room for a loaded machine (the env not waiting for a slow controller is
seconds, not milliseconds); the loop's timing figures are measured in `bench/runtime_wall_jitter.py`."""

from __future__ import annotations

import itertools

import numpy as np

import rtarena
from helpers import CounterEnv, ScriptedTokens


def test_slow_controller_skips_versions_and_does_not_slow_the_env_or_a_fast_neighbour():
    dt = 0.02
    slow, fast = ScriptedTokens(0, sleep_s=0.09), ScriptedTokens(0)
    result = rtarena.run_match(CounterEnv(2, dt=dt), {"a0": slow, "a1": fast}, clock="wall", max_steps=60)

    # the env loop did not wait for the slow controller: waiting would take 60 * 0.09 s = 5.4 s (1.2 s due)
    assert len(result.steps) == 60
    assert result.wall_seconds < 60 * 0.09

    slow_versions = [d.obs_version for d in result.decisions if d.controller == "a0"]
    fast_versions = [d.obs_version for d in result.decisions if d.controller == "a1"]
    # the slow one decided on far fewer frames and always on a newer one (skipped, never queued)
    assert len(slow_versions) <= 60 * dt / 0.09 + 2
    assert all(b - a >= 3 for a, b in itertools.pairwise(slow_versions))
    # the fast one decided on many more versions, unaffected by its slow neighbour
    assert len(fast_versions) >= 2 * len(slow_versions)
    assert all(b > a for a, b in itertools.pairwise(fast_versions))


def test_actions_apply_once_at_the_first_step_after_commit():
    dt = 0.02
    result = rtarena.run_match(CounterEnv(1, dt=dt), [ScriptedTokens(0, sleep_s=0.05)], clock="wall", max_steps=40)
    applied = [d for d in result.decisions if d.applied_step is not None]
    assert applied
    for d in applied:
        assert d.applied_sim_s >= d.committed_sim_s - dt  # applied at the first step starting after commit
        assert d.applied_sim_s - d.committed_sim_s < 0.5  # not held back (a late loop step still applies it)
    fresh = [s.step for s in result.steps if s.fresh_agents]
    assert len(fresh) == len(applied)  # one step each, then default actions again
    assert result.agents["a0"]["return"] == len(applied)


def test_period_error_is_recorded_per_step():
    result = rtarena.run_match(CounterEnv(1, dt=0.01), [lambda o: 0], clock="wall", max_steps=50)
    errors = np.array([s.period_error_s for s in result.steps])
    assert errors.shape == (50,) and np.all(errors >= 0)
